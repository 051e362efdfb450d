import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '@quiver/test-support/run-cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubspotEmulator } from '@quiver/sandbox';

type Emulator = Awaited<ReturnType<typeof startHubspotEmulator>>;
let emulator: Emulator;
beforeAll(async () => {
  emulator = await startHubspotEmulator();
  for (const token of ['cli-token', 'env-token', 'file-token', 'very-secret-token']) emulator.issueToken(token);
});
afterAll(() => emulator.close());

describe('the installed command', () => {
  it('runs through the bin shim that npm links', async () => {
    const { execFile } = await import('node:child_process');
    const shim = new URL('../bin/quiver.js', import.meta.url).pathname;
    const version = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [shim, '--version'], (error, stdout) => (error ? reject(error) : resolve(stdout))),
    );
    expect(version.trim()).toBe('0.1.0');
  });
});

describe('quiver tools', () => {
  it('lists every tool of a toolkit', async () => {
    const run = await runCli(['tools', 'list', '--toolkit', 'CrmMarketingApi']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(90);
    expect(lines[0]).toMatch(/^CrmMarketingApi\.AddCampaignBudgetItem\s+\S/);
    expect(run.stderr).toContain('90 tools');
  });

  it('refuses an unknown toolkit with a usage error', async () => {
    const run = await runCli(['tools', 'list', '--toolkit', 'Nope']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown toolkit 'Nope'");
  });

  it.each([
    ['arcade', { qualified_name: 'CrmMarketingApi.AddCampaignBudgetItem', fully_qualified_name: 'CrmMarketingApi.AddCampaignBudgetItem@1.0.0' }],
    ['openai', { type: 'function', function: { name: 'CrmMarketingApi_AddCampaignBudgetItem' } }],
    ['anthropic', { name: 'CrmMarketingApi_AddCampaignBudgetItem', input_schema: { type: 'object' } }],
    ['mcp', { name: 'CrmMarketingApi_AddCampaignBudgetItem', annotations: { destructiveHint: false } }],
  ])('shows a tool in the %s format', async (format, expected) => {
    const run = await runCli(['tools', 'show', 'CrmMarketingApi.AddCampaignBudgetItem', '--format', format]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject(expected);
  });

  it('rejects an unknown format and an unknown tool', async () => {
    expect((await runCli(['tools', 'show', 'CrmMarketingApi.AddCampaignBudgetItem', '--format', 'yaml'])).code).toBe(2);
    const run = await runCli(['tools', 'show', 'CrmMarketingApi.Nope']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown tool 'CrmMarketingApi.Nope'");
  });

  it('suggests the qualified name for a bare tool name, and the tool a name means in other words', async () => {
    const run = await runCli(['tools', 'show', 'CreateRepohostIssue']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Did you mean RepoHostApi.CreateRepohostIssue');
    const worded = await runCli(['call', 'MailClient_SendEmail']);
    expect(worded.code).toBe(2);
    expect(worded.stderr).toMatch(/Did you mean .*MailClient_CreateAndSendEmail/);
  });
});

describe('quiver call', () => {
  const flags = () => ['--base-url', emulator.url, '--token', 'cli-token'];

  it('calls a tool against the given base URL with the given token', async () => {
    const body = JSON.stringify({ properties: { hs_name: 'From the CLI' } });
    const run = await runCli([
      'call',
      'CrmMarketingApi.CreateMarketingCampaign',
      '--input',
      JSON.stringify({ mode: 'execute', request_body: body }),
      ...flags(),
    ]);
    expect(run.code).toBe(0);
    const { value } = JSON.parse(run.stdout);
    expect(value.properties.hs_name).toBe('From the CLI');
    const listed = await runCli(['call', 'CrmMarketingApi.GetCampaignDetails', '--input', JSON.stringify({ campaign_guid: value.id }), ...flags()]);
    expect(JSON.parse(listed.stdout).value.id).toBe(value.id);
  });

  it('reads the base URL and token from the environment', async () => {
    const run = await runCli(['call', 'CrmMarketingApi.GetMarketingCampaigns'], {
      QUIVER_BASE_URL_CRM_MARKETING_API: emulator.url,
      QUIVER_TOKEN_HUBSPOT: 'env-token',
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).value).toHaveProperty('results');
  });

  it('reads them from a config file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'quiver-config-'));
    const file = join(dir, 'quiver.config.json');
    writeFileSync(file, JSON.stringify({ toolkits: { CrmMarketingApi: { baseUrl: emulator.url } }, tokens: { hubspot: 'file-token' } }));
    const explicit = await runCli(['call', 'CrmMarketingApi.GetMarketingCampaigns', '--config', file]);
    expect(explicit.code).toBe(0);
    const implicit = await runCli(['call', 'CrmMarketingApi.GetMarketingCampaigns'], {}, dir);
    expect(implicit.code).toBe(0);
  });

  it('takes fields as MCP does, keeping the paging keys', async () => {
    const run = await runCli(['call', 'CrmMarketingApi.GetMarketingCampaigns', '--sandbox', '--input', JSON.stringify({ fields: ['results.id'] })]);
    expect(run.code).toBe(0);
    const { value } = JSON.parse(run.stdout);
    expect(value.results).toEqual([{ id: expect.any(String) }]);
    expect(Object.keys(value)).toEqual(['results', 'total']);
  });

  it('calls the sandbox with no credentials at all, and finds its demo data', async () => {
    const campaigns = await runCli(['call', 'CrmMarketingApi.GetMarketingCampaigns', '--sandbox']);
    expect(campaigns.code).toBe(0);
    expect(JSON.parse(campaigns.stdout).value.results).toEqual([
      expect.objectContaining({ properties: expect.objectContaining({ hs_name: 'Spring launch' }) }),
    ]);
    const event = await runCli([
      'call',
      'CrmMarketingApi.GetMarketingEventDetails',
      '--sandbox',
      '--input',
      JSON.stringify({ external_account_id: 'demo-account', marketing_event_id: 'spring-webinar' }),
    ]);
    expect(JSON.parse(event.stdout).value.eventName).toBe('Spring product webinar');
  });

  it('hands secret-based toolkits the sandbox credentials too', async () => {
    const region = await runCli(['call', 'TrackingApi.GetTrackApiRegion', '--sandbox']);
    expect(region.code).toBe(0);
    expect(JSON.parse(region.stdout).value).toMatchObject({ region: 'us' });
    const account = await runCli(['call', 'SupportDesk.WhoAmI', '--sandbox']);
    expect(JSON.parse(account.stdout).value.data.name).toBe('Quiver sandbox API token');
  });

  it('exits 1 with the error as JSON when the tool fails', async () => {
    const run = await runCli(['call', 'CrmMarketingApi.GetCampaignDetails', '--input', '{}', ...flags()]);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).error).toMatchObject({
      kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE',
      message: expect.stringContaining("'campaign_guid' is required"),
    });
  });

  it('prints no stack trace of a failure unless --include-error-stacktrace asks for one', async () => {
    // A store that is not a database: the tool fails unexpectedly, the one kind of error that has a stack.
    const dataDir = mkdtempSync(join(tmpdir(), 'quiver-stack-'));
    writeFileSync(join(dataDir, 'commerce.db'), 'not a database, only bytes long enough to be read as the header of one'.repeat(4));
    const args = ['call', 'CommerceTools.GetCustomerInfo', '--input', '{"customer_email":"ada@example.com"}', '--data-dir', dataDir];
    const plain = await runCli(args);
    expect(plain.code).toBe(1);
    const error = JSON.parse(plain.stdout).error;
    expect(error).toMatchObject({ kind: 'TOOL_RUNTIME_FATAL', developer_message: expect.stringContaining('file is not a database') });
    expect(error.stacktrace).toBeUndefined();
    expect(plain.stdout + plain.stderr).not.toMatch(/\.js:\d+/);

    const asked = await runCli([...args, '--include-error-stacktrace']);
    expect(asked.code).toBe(1);
    expect(JSON.parse(asked.stdout).error.stacktrace).toMatch(/\.js:\d+/);
  });

  it('exits 1 naming the missing token, and never prints a given one', async () => {
    const missing = await runCli(['call', 'CrmMarketingApi.GetMarketingCampaigns', '--base-url', emulator.url], { QUIVER_TOKEN_HUBSPOT: '' });
    expect(missing.code).toBe(1);
    const { kind, message } = JSON.parse(missing.stdout).error;
    expect(kind).toBe('TOOL_REQUIREMENTS_NOT_MET');
    // The scopes it needs, and both ways to give a token on the command line.
    expect(message).toMatch(/^CrmMarketingApi\.GetMarketingCampaigns needs a hubspot OAuth token with scopes: \S/);
    expect(message).toContain('Pass one with --token (quiver call) or the QUIVER_TOKEN_HUBSPOT environment variable');
    // A tool that needs no scope in particular says so, rather than an empty list.
    const unscoped = await runCli(['call', 'RepoHostApi.AcceptRepohostRepoInvitation', '--input', '{"invitation_id":1}'], { QUIVER_TOKEN_GITHUB: '' });
    expect(unscoped.code).toBe(1);
    expect(JSON.parse(unscoped.stdout).error.message).toBe(
      'RepoHostApi.AcceptRepohostRepoInvitation needs a github OAuth token (no particular scopes). Pass one with --token (quiver call) or the QUIVER_TOKEN_GITHUB environment variable (or tokens.github in the config file), or try the tool with --sandbox.',
    );
    // A secret too: how to give it on the command line.
    const noSecret = await runCli(['call', 'SupportDesk.SearchIssues', '--input', '{"query":"x"}'], { SUPPORT_API_TOKEN: '' });
    expect(noSecret.code).toBe(1);
    expect(JSON.parse(noSecret.stdout).error).toMatchObject({
      kind: 'TOOL_REQUIREMENTS_NOT_MET',
      message:
        'SupportDesk.SearchIssues needs the secret(s): SUPPORT_API_TOKEN. Pass it with --secret SUPPORT_API_TOKEN=VALUE (quiver call) or an environment variable of that name (or secrets.SUPPORT_API_TOKEN in the config file), or try the tool with --sandbox.',
    });
    // Each secret of a tool that needs several, none left out of the flags or the config file's keys.
    const noSecrets = await runCli(['call', 'TrackingApi.GetTrackApiRegion', '--input', '{}'], { TRACKING_SITE_ID: '', TRACKING_API_KEY: '' });
    expect(noSecrets.code).toBe(1);
    expect(JSON.parse(noSecrets.stdout).error.message).toContain(
      'needs the secret(s): TRACKING_SITE_ID, TRACKING_API_KEY. Pass each with --secret TRACKING_SITE_ID=VALUE --secret TRACKING_API_KEY=VALUE (quiver call) or environment variables of those names (or secrets.TRACKING_SITE_ID and secrets.TRACKING_API_KEY in the config file)',
    );
    const notFound = await runCli([
      'call',
      'CrmMarketingApi.GetCampaignDetails',
      '--input',
      '{"campaign_guid":"no-such-id"}',
      '--base-url',
      emulator.url,
      '--token',
      'very-secret-token',
    ]);
    expect(notFound.code).toBe(1);
    expect(JSON.parse(notFound.stdout).error.kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');
    expect(notFound.stdout + notFound.stderr).not.toContain('very-secret-token');
  });

  it.each([
    [['call', 'CrmMarketingApi.GetMarketingCampaigns', '--input', '{not json'], '--input is not valid JSON'],
    [['call', 'CrmMarketingApi.GetMarketingCampaigns', '--input', '[1]'], '--input must be a JSON object'],
    [['call', 'CrmMarketingApi.GetMarketingCampaigns', '--input', '@no-such-input.json'], 'cannot read input file no-such-input.json: no such file'],
    [['call', 'CrmMarketingApi.Nope'], "unknown tool 'CrmMarketingApi.Nope'"],
    [['call', 'CrmMarketingApi.GetMarketingCampaigns', '{"limit":1}'], "give the tool's input with --input '<json>'"],
    [
      ['serve', '--sandbox-ports', '7000'],
      "--sandbox-ports places the sandbox's emulators: it goes with --sandbox (quiver serve --sandbox --sandbox-ports 7000)",
    ],
    [['call', 'CrmMarketingApi.GetMarketingCampaigns', '--secret', 'novalue'], 'KEY=VALUE'],
    [
      ['call', 'CrmMarketingApi.GetMarketingCampaigns', '--token', 't', '--base-url', 'not-a-url'],
      "the base URL of CrmMarketingApi is 'not-a-url', not an absolute http:// or https:// URL (given by --base-url,",
    ],
    [['call'], "missing required argument 'tool'"],
    [['frobnicate'], "unknown command 'frobnicate'"],
  ])('exits 2 on a usage error: %j', async (args, message) => {
    const run = await runCli(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe('');
  });
});
