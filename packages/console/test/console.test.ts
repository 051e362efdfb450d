/**
 * The console in a real browser (Debian's Chromium driven by playwright-core), against an engine on the
 * sandbox: sign in, search, run tools, secrets, workers, schedules, activity, API keys and MCP sign-ins,
 * with an axe-core accessibility check of every page and a screenshot of each kept in test-output/.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizationServerSettings, sandboxCredentials, selectToolkits, startWorkerServer, type WorkerServer } from '@quiver/engine';
import { startSandbox, type Sandbox } from '@quiver/sandbox';
import { toolkits } from '@quiver/toolkits';
import { chromiumArgs, chromiumPath, haveChromium } from '../../engine/test/chromium.js';
import { authorize, mcpWith, redeem, registerClient, type SignInClient } from '../../engine/test/engine-sign-in.js';
import { startTestEngine, type TestEngine } from '../../engine/test/harness.js';
import { Browser } from '../../engine/test/oidc.js';

if (!haveChromium) console.warn(`console browser tests skipped: no Chromium at ${chromiumPath} (apt-get install -y chromium)`);

const here = dirname(fileURLToPath(import.meta.url));
const screenshots = join(here, '..', 'test-output');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const workerSecret = 'console-test-worker-secret-0123456789';
const secretValue = 'sk-console-test-VALUE-4242';
/** Where the MCP client signed in by the grants test is sent back to: never contacted, the code is read from the redirect. */
const signInRedirect = 'http://127.0.0.1:9/callback';

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

describe.skipIf(!haveChromium)('the web console in Chromium', () => {
  let sandbox: Sandbox;
  let engine: TestEngine;
  let worker: WorkerServer;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  let authServer: Server;
  const problems: string[] = [];
  const audited: string[] = [];

  beforeAll(async () => {
    sandbox = await startSandbox();
    engine = await startTestEngine(
      'sqlite',
      {
        baseUrls: sandbox.baseUrls,
        credentials: () => sandboxCredentials(sandbox.token),
        defaultSecrets: sandbox.secrets,
      },
      // The grants test signs an MCP client in through the authorization server, whose rate limits are off here.
      { authorizationServer: authorizationServerSettings({}, { rateLimits: { register: 0, authorize: 0, token: 0 } }) },
    );
    worker = await startWorkerServer({
      toolkits: selectToolkits('trackingapi', toolkits),
      secret: workerSecret,
      port: 0,
      host: '127.0.0.1',
      baseUrls: { TrackingApi: sandbox.baseUrls.TrackingApi! },
    });
    authServer = await startAuthorizationServer();
    const authUrl = `http://127.0.0.1:${(authServer.address() as AddressInfo).port}`;
    const provider = await engine.api('POST', '/v1/admin/auth_providers', {
      id: 'github',
      oauth2: {
        client_id: 'console-test',
        client_secret: 'console-test-client-secret',
        authorize_request: { endpoint: `${authUrl}/authorize` },
        token_request: { endpoint: `${authUrl}/token` },
      },
    });
    expect(provider.status).toBe(200);
    rmSync(screenshots, { recursive: true, force: true });
    mkdirSync(screenshots, { recursive: true });
    profile = mkdtempSync(join(tmpdir(), 'quiver-console-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: chromiumArgs,
      viewport: { width: 1280, height: 860 },
      locale: 'en-GB',
      timezoneId: 'UTC',
    });
    page = context.pages()[0] ?? (await context.newPage());
    // A CSP violation or an uncaught error fails the run at the end.
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.setDefaultTimeout(15_000);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await worker?.close();
    await engine?.close();
    await sandbox?.close();
    authServer?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  async function shoot(name: string): Promise<void> {
    await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
  }

  /** axe-core on the page as it stands: no serious or critical violation. */
  async function audit(name: string): Promise<void> {
    await page.evaluate(axeSource);
    const violations = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
      const result = await axe.run(document, { resultTypes: ['violations'] });
      return result.violations.map(({ id, impact, help, nodes }) => ({
        id,
        impact,
        help,
        nodes: nodes.map((node) => ({ target: node.target })),
      }));
    });
    const serious = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
    expect(serious.map((v) => `${name}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    audited.push(name);
  }

  it('serves the console at / without a key, with a strict CSP, and keeps /v1 behind the key', async () => {
    const response = await page.goto(`${engine.url}/`);
    expect(response?.status()).toBe(200);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect((await engine.api('GET', '/v1/tools', undefined, null)).status).toBe(401);
    await expect(page.getByRole('heading', { name: 'Quiver console' }).isVisible()).resolves.toBe(true);
    await audit('sign-in');
    await shoot('sign-in');
  });

  it('refuses a wrong key, signs in with a good one, and keeps the key out of the URL and local storage', async () => {
    await page.getByLabel('API key').fill('qk_not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Unknown or revoked API key' }).waitFor();
    await page.getByLabel('API key').fill(engine.key);
    await page.keyboard.press('Enter');
    await page.getByRole('navigation', { name: 'Sections' }).waitFor();
    expect(page.url()).not.toContain(engine.key);
    expect(await page.evaluate(() => JSON.stringify(localStorage))).not.toContain('qk_');
    expect(await page.evaluate(() => sessionStorage.getItem('quiver.apiKey'))).toBe(engine.key);
    await page.getByRole('link', { name: 'API keys' }).waitFor();
  });

  it('lists all tools in a virtualised list and finds a GitHub tool by search as you type', async () => {
    await page.getByText(/^1,?007 tools$/).waitFor();
    const rendered = await page.locator('.virtual-row').count();
    expect(rendered).toBeGreaterThan(5);
    expect(rendered).toBeLessThan(100);
    await audit('tools');
    await shoot('tools');

    // "Needs secrets" counts the tools that cannot run without one, not those with an optional setting.
    await page.getByLabel('needs secrets').check();
    const needing = Number((await page.getByRole('status').first().textContent())!.match(/^(\d+)/)![1]);
    expect(needing).toBeGreaterThan(0);
    expect(needing).toBeLessThan(100);
    await page.getByLabel('needs secrets').uncheck();

    // Typed at a key every 200 ms, a 13-character search costs little on the wire: names and scores only,
    // gzipped, and sent once typing pauses, every earlier one cancelled.
    const searched: Promise<number>[] = [];
    const onSearch = (response: import('playwright-core').Response) => {
      if (!response.url().includes('/v1/tools/search')) return;
      searched.push(
        response
          .request()
          .sizes()
          .then((sizes) => sizes.responseBodySize + sizes.responseHeadersSize),
      );
    };
    page.on('response', onSearch);
    await page.getByLabel('Search').pressSequentially('open an issue', { delay: 200 });
    await page.getByText(/^\d+ of [\d,]+ tools matching, best match first for “open an issue”$/).waitFor();
    page.off('response', onSearch);
    const bytes = (await Promise.all(searched)).reduce((sum, size) => sum + size, 0);
    expect(searched.length).toBeGreaterThan(0);
    expect(bytes).toBeLessThan(20_000);

    // A search that finds nothing says so and offers searches to try.
    await page.getByLabel('Search').fill('zzqxvw');
    await page.getByText(/No tool matches “zzqxvw”/).waitFor();
    await page.getByRole('button', { name: 'open an issue' }).click();
    await page.getByText(/best match first for “open an issue”/).waitFor();
    await page.getByLabel('Search').fill('');
    await page.getByLabel('Search').pressSequentially('get repository details', { delay: 20 });
    const hit = page.getByRole('link', { name: /RepoHostApi\.GetRepohostRepositoryDetails/ });
    await hit.waitFor();
    await page.getByText(/best match first for “get repository details”/).waitFor();
    await hit.click();
    await page.getByRole('heading', { level: 1, name: 'RepoHostApi.GetRepohostRepositoryDetails' }).waitFor();
    await page.getByRole('cell', { name: 'repository_owner' }).waitFor();
    await page.locator('dt', { hasText: 'readOnlyHint' }).waitFor();
    await page.getByText(/OAuth with github/).waitFor();
    await page.getByRole('tab', { name: 'OpenAI' }).click();
    await expect(page.locator('#definition').textContent()).resolves.toContain('"type": "function"');
    // The tabs pattern: arrows move to the next tab and show it, Home and End to the ends.
    await page.keyboard.press('ArrowRight');
    await expect(page.getByRole('tab', { name: 'Anthropic' }).getAttribute('aria-selected')).resolves.toBe('true');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Anthropic');
    await page.keyboard.press('Home');
    await expect(page.getByRole('tab', { name: 'MCP' }).getAttribute('aria-selected')).resolves.toBe('true');
    await page.keyboard.press('ArrowLeft');
    await expect(page.getByRole('tab', { name: 'Arcade' }).getAttribute('aria-selected')).resolves.toBe('true');
    await page.getByRole('tab', { name: 'OpenAI' }).click();
    await audit('tool');
    await shoot('tool');
  });

  it('runs the GitHub tool from the playground in the sandbox and shows the answer', async () => {
    await page.getByRole('link', { name: 'Try it in the playground' }).click();
    // The tool acts for a user: the field says so and the form will not run without one.
    await expect(page.getByLabel('User', { exact: true }).getAttribute('required')).resolves.not.toBeNull();
    await page.getByText('required: this tool acts for a user').waitFor();
    await page.getByLabel('User', { exact: true }).fill('ada@example.com');
    await page.getByLabel(/^repository_owner/).fill('octocat');
    await page.getByLabel(/^repository_name/).fill('hello-world');
    await page.getByLabel(/^fields/).fill('full_name, description');
    await page.getByRole('button', { name: 'Run' }).click();
    // Either outcome ends the wait; a failure then shows what the engine answered.
    const outcome = page.getByRole('status').filter({ hasText: /(Succeeded|Failed) in/ });
    await outcome.waitFor();
    expect(await outcome.textContent(), (await page.locator('main').textContent()) ?? '').toMatch(/Succeeded in/);
    const result = page.getByLabel('Result JSON');
    await expect(result.textContent()).resolves.toContain('"octocat/hello-world"');
    await expect(result.textContent()).resolves.not.toContain('owner');
    await audit('playground');
    await shoot('playground');
  });

  it('runs a mode-driven HubSpot tool in two steps, refusing an invalid body before sending it', async () => {
    await page.goto(`${engine.url}/#/playground/CrmMarketingApi.CreateMarketingCampaign`);
    await page.getByRole('button', { name: 'Step 1: get the request schema' }).click();
    await page.getByLabel('Request-body schema').waitFor();
    const executions: string[] = [];
    const watch = (request: { url(): string }) => void (request.url().endsWith('/v1/tools/execute') && executions.push(request.url()));
    page.on('request', watch);
    await page.getByLabel('request_body (JSON)').fill('{"properties": {"hs_name": 5}}');
    await page.getByRole('button', { name: 'Step 2: validate and run' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'Nothing was sent' });
    await refusal.waitFor();
    await expect(refusal.textContent()).resolves.toContain('/properties/hs_name must be string');
    expect(executions).toEqual([]);
    await page.getByLabel('request_body (JSON)').fill('{"properties": {"hs_name": "Console launch", "hs_notes": "from the playground"}}');
    await page.getByRole('button', { name: 'Step 2: validate and run' }).click();
    // Step 1's result and its status are still shown until step 2 answers: wait for step 2's own result.
    await page.getByLabel('Result JSON').filter({ hasText: 'Console launch' }).waitFor();
    await expect(
      page
        .getByRole('status')
        .filter({ hasText: /Succeeded in/ })
        .textContent(),
    ).resolves.toMatch(/Succeeded in/);
    page.off('request', watch);
    expect(executions).toHaveLength(1);
    await shoot('playground-mode-driven');
  });

  it('sets a secret whose value is never displayed', async () => {
    await page.getByRole('link', { name: 'Secrets' }).click();
    await page.getByLabel('Name').fill('CONSOLE_TEST_SECRET');
    await page.getByLabel('Value').fill(secretValue);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Secret CONSOLE_TEST_SECRET saved.').waitFor();
    await page.getByRole('cell', { name: 'CONSOLE_TEST_SECRET', exact: true }).waitFor();
    expect(await page.getByLabel('Value').inputValue()).toBe('');
    expect(await page.content()).not.toContain(secretValue);
    await page.reload();
    await page.getByRole('cell', { name: 'CONSOLE_TEST_SECRET', exact: true }).waitFor();
    expect(await page.content()).not.toContain(secretValue);
    await audit('secrets');
    await shoot('secrets');
  });

  it('registers a worker and shows its health and the tools it serves', async () => {
    await page.getByRole('link', { name: 'Workers' }).click();
    await page.getByLabel('Id').fill('tracking');
    await page.getByLabel('Address').fill(worker.url);
    await page.getByLabel('Secret', { exact: true }).fill(workerSecret);
    await page.getByLabel('Allowed secrets').fill('TRACKING_SITE_ID');
    await page.getByRole('button', { name: 'Test' }).click();
    await page.getByText('Test: the worker answers').waitFor();
    await page.getByRole('button', { name: 'Register' }).click();
    await page.getByRole('cell', { name: 'tracking', exact: true }).waitFor();
    await page.locator('td .ok', { hasText: /^healthy/ }).waitFor();
    await page.getByRole('heading', { name: 'Tools served by tracking' }).waitFor();
    const trackingTools = toolkits.find((toolkit) => toolkit.name === 'TrackingApi')!.tools;
    await page.getByText(`${trackingTools.length} tools.`, { exact: true }).waitFor();
    await page.getByRole('link', { name: `TrackingApi.${trackingTools[0]!.name}`, exact: true }).waitFor();
    expect((await engine.api('GET', '/v1/workers/tracking')).body.allowed_secrets).toEqual(['TRACKING_SITE_ID']);
    // The tools show the secret the worker may not receive yet; an admin allows it.
    await page.getByText('(not allowed)').first().waitFor();
    await page.getByLabel('Secret keys, separated by commas').fill('TRACKING_SITE_ID, TRACKING_API_KEY');
    await page.getByRole('button', { name: 'Save secrets' }).click();
    await page.getByText('tracking may receive TRACKING_SITE_ID, TRACKING_API_KEY.').waitFor();
    expect((await engine.api('GET', '/v1/workers/tracking')).body.allowed_secrets).toEqual(['TRACKING_SITE_ID', 'TRACKING_API_KEY']);
    // The list of workers shows them, and no tool is marked any more.
    await page.getByRole('cell', { name: 'TRACKING_SITE_ID, TRACKING_API_KEY', exact: true }).first().waitFor();
    await page.getByText('(not allowed)').first().waitFor({ state: 'detached' });
    await audit('workers');
    await shoot('workers');
    await page.getByRole('button', { name: 'Disable tracking' }).click();
    await page.getByRole('button', { name: 'Enable tracking' }).waitFor();
    expect((await engine.api('GET', '/v1/workers/tracking')).body.enabled).toBe(false);
    // Its tools are listed, and said not to be served, with no link to a page that would answer not_found.
    await page.getByText('not served: the worker is disabled').first().waitFor();
    expect(await page.getByRole('link', { name: `TrackingApi.${trackingTools[0]!.name}`, exact: true }).count()).toBe(0);
    await page.getByRole('button', { name: 'Enable tracking' }).click();
    await page.getByRole('button', { name: 'Disable tracking' }).waitFor();
    expect((await engine.api('GET', '/v1/workers/tracking')).body.enabled).toBe(true);
  });

  it('schedules an execution and shows it complete with its attempt', async () => {
    await page.getByRole('link', { name: 'Scheduled' }).click();
    await page.getByLabel('Tool', { exact: true }).fill('RepoHostApi.GetRepohostRepositoryDetails');
    await page.getByLabel('Input (JSON object)').fill('{"repository_owner": "octocat", "repository_name": "hello-world"}');
    await page.getByRole('button', { name: 'Now' }).click();
    await page.getByRole('button', { name: 'Schedule', exact: true }).click();
    await page.getByText(/^Scheduled for/).waitFor();
    await page.getByRole('link', { name: 'RepoHostApi.GetRepohostRepositoryDetails' }).first().click();
    await page.getByRole('heading', { name: 'Attempt 1: succeeded' }).waitFor({ timeout: 20_000 });
    await page.locator('.status-success').first().waitFor();
    await expect(page.getByLabel('Attempt 1 output').textContent()).resolves.toContain('hello-world');
    await audit('scheduled');
    await shoot('scheduled');
  });

  it('shows a stored input 3,000 levels deep without exhausting the stack', async () => {
    // Stored as an engine before the scheduler's input checks would have stored it: the console shows any stored value.
    const input = { repository_owner: 'octocat', repository_name: 'hello-world' };
    const scheduled = await engine.api('POST', '/v1/tools/execute', {
      tool_name: 'RepoHostApi.GetRepohostRepositoryDetails',
      input,
      run_at: '2999-01-01T00:00:00Z',
    });
    const id = scheduled.body.id as string;
    await engine.engine.store.db
      .updateTable('executions')
      .set({ status: 'cancelled', input: `${'{"level":'.repeat(3_000)}"the bottom"${'}'.repeat(3_000)}` })
      .where('id', '=', id)
      .execute();
    await page.evaluate((path) => (location.hash = path), `#/scheduled/${id}`);
    const shown = page.getByLabel('Input JSON');
    // The tree goes some levels down (closed past the second), and the rest is the JSON text itself.
    await shown.getByText(/"the bottom"/).waitFor({ state: 'attached' });
    await expect(shown.locator('details').count()).resolves.toBeGreaterThan(5);
    const text = await shown.textContent();
    expect(text).toContain(`${'{"level":'.repeat(100)}`);
    expect(problems.filter((problem) => /call stack/i.test(problem))).toEqual([]);
  });

  it('shows recent executions and the charts of the last hour from the engine records', async () => {
    await page.getByRole('link', { name: 'Activity' }).click();
    await page.getByRole('img', { name: /RepoHostApi: calls per minute/ }).waitFor();
    await page.getByRole('img', { name: /CrmMarketingApi: latency p50 and p99/ }).waitFor();
    const rows = page.getByRole('row').filter({ hasText: 'RepoHostApi.GetRepohostRepositoryDetails' });
    await expect(rows.count()).resolves.toBe(2);
    await page.getByLabel('Outcome').selectOption('failed');
    await page.getByText('No executions match.').waitFor();
    await page.getByLabel('Outcome').selectOption('');
    await page.getByRole('cell', { name: 'scheduled', exact: true }).waitFor();
    await audit('activity');
    await shoot('activity');
  });

  it('creates an API key shown once, lists and revokes it', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('ci pipeline');
    await page.getByRole('button', { name: 'Create' }).click();
    const shown = await page.getByLabel('The new key').inputValue();
    expect(shown).toMatch(/^qk_/);
    expect((await engine.api('GET', '/v1/me', undefined, `Bearer ${shown}`)).status).toBe(200);
    await audit('keys');
    await shoot('keys');
    await page.getByRole('button', { name: 'Done, hide it' }).click();
    expect(await page.content()).not.toContain(shown);
    const revokeAsked = new Promise<string>((resolve) =>
      page.once('dialog', (dialog) => {
        resolve(dialog.message());
        void dialog.accept();
      }),
    );
    await page.getByRole('row').filter({ hasText: 'ci pipeline' }).getByRole('button', { name: 'Revoke' }).click();
    expect(await revokeAsked).toContain('every MCP client signed in with it is signed out');
    await page
      .getByRole('row')
      .filter({ hasText: 'ci pipeline' })
      .getByText(/^revoked/)
      .waitFor();
    expect((await engine.api('GET', '/v1/me', undefined, `Bearer ${shown}`)).status).toBe(401);
  });

  it('creates a user key and a service key, and lists each with its role and user', async () => {
    await page.getByLabel('Name').fill('erin laptop');
    await page.getByLabel('Role').selectOption('user');
    const user = page.getByLabel('User', { exact: true });
    // A blank user passes the browser's check; the engine's refusal is shown.
    await user.fill('   ');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('alert').filter({ hasText: 'a user key is bound to one user' }).waitFor();
    await user.fill('erin@example.com');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('status').filter({ hasText: 'The user key erin laptop acting as erin@example.com, shown this once' }).waitFor();
    const userKey = await page.getByLabel('The new key').inputValue();
    expect((await engine.api('GET', '/v1/me', undefined, `Bearer ${userKey}`)).body).toMatchObject({ role: 'user', user_id: 'erin@example.com' });
    await page.getByRole('button', { name: 'Done, hide it' }).click();

    await page.getByLabel('Name').fill('nightly sync');
    await page.getByLabel('Role').selectOption('service');
    expect(await user.count()).toBe(0);
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('status').filter({ hasText: 'The service key nightly sync for any user, shown this once' }).waitFor();
    await page.getByRole('button', { name: 'Done, hide it' }).click();

    const firstCells = async (name: string) => {
      const row = page.getByRole('row').filter({ hasText: name });
      await row.waitFor();
      return (await row.getByRole('cell').allTextContents()).slice(0, 3);
    };
    expect(await firstCells('erin laptop')).toEqual(['erin laptop', 'user', 'erin@example.com']);
    expect(await firstCells('nightly sync')).toEqual(['nightly sync', 'service', 'any']);
    const listed: { name: string }[] = (await engine.api('GET', '/v1/admin/api_keys?limit=100')).body.items;
    expect(listed.find((key) => key.name === 'erin laptop')).toMatchObject({ role: 'user', user_id: 'erin@example.com' });
    expect(listed.find((key) => key.name === 'nightly sync')).toMatchObject({ role: 'service', user_id: null });
    await shoot('keys-roles');
  });

  it('lists an MCP client a person signed in with a key, ends its sign-in, and its token is refused', async () => {
    const made = await engine.api('POST', '/v1/admin/api_keys', { name: 'dana laptop', role: 'user', user_id: 'dana@example.com' });
    expect(made.status).toBe(201);
    const clientId = await registerClient(engine.url, signInRedirect, { client_name: 'Console Test Client' });
    const client: SignInClient = { engine: engine.url, clientId, redirectUri: signInRedirect };
    const tokens = (await redeem(client, await authorize(client, new Browser(), made.body.key))).body;
    expect((await mcpWith(engine.url, tokens.access_token!)).status).toBe(200);

    await page.getByRole('link', { name: 'MCP sign-ins' }).click();
    await page.getByRole('heading', { level: 1, name: 'MCP sign-ins' }).waitFor();
    await page.getByLabel('Only user').fill('nobody@example.com');
    await page.getByText('No sign-ins match.').waitFor();
    await page.getByLabel('Only user').fill('dana@example.com');
    const row = page.getByRole('row').filter({ hasText: 'Console Test Client' });
    await row.waitFor();
    const shown = await row.textContent();
    for (const part of [clientId, 'dana@example.com', 'tools:read tools:write', `${engine.url}/v1/mcp`, `${made.body.prefix}… dana laptop`])
      expect(shown).toContain(part);
    await audit('grants');
    await shoot('grants');

    const endAsked = new Promise<string>((resolve) =>
      page.once('dialog', (dialog) => {
        resolve(dialog.message());
        void dialog.accept();
      }),
    );
    await row.getByRole('button', { name: 'End the sign-in of Console Test Client for dana@example.com' }).click();
    expect(await endAsked).toContain('the client must sign in again');
    await page.getByRole('status').filter({ hasText: 'Ended the sign-in of Console Test Client for dana@example.com.' }).waitFor();
    await page.getByText('No sign-ins match.').waitFor();
    expect((await mcpWith(engine.url, tokens.access_token!)).status).toBe(401);
    expect((await engine.api('GET', '/v1/admin/oauth_grants')).body.total_count).toBe(0);
  });

  it('shows the changes made above in the audit trail, with the key that made them, and never a secret value', async () => {
    await page.getByRole('link', { name: 'Audit' }).click();
    await page.getByRole('heading', { level: 1, name: 'Audit trail' }).waitFor();
    const row = (...texts: string[]) => texts.reduce((rows, text) => rows.filter({ hasText: text }), page.getByRole('row'));
    // The sign-in just ended, the secret, the worker and the keys of the tests above, all made from this browser with its key.
    await row('MCP sign-in ended', 'dana@example.com').waitFor();
    const action = page.getByLabel('Action');
    await action.selectOption('secret.set');
    await row('MCP sign-in ended').waitFor({ state: 'detached' });
    const secret = row('secret set', 'CONSOLE_TEST_SECRET');
    await secret.waitFor();
    const signedIn = (await engine.api('GET', '/v1/me')).body.key;
    for (const part of [`test ${signedIn.prefix}…`, 'admin', '127.0.0.1', 'replaced: false']) expect(await secret.textContent()).toContain(part);
    await action.selectOption('api_key.revoked');
    await row('API key revoked', 'ci pipeline').waitFor();
    await action.selectOption('worker.registered');
    await row('worker registered', 'allowed_secrets').waitFor();
    await action.selectOption('');
    const target = page.getByLabel('Target');
    await target.fill('NO_SUCH_THING');
    await target.press('Enter');
    await page.getByText('No changes match.').waitFor();
    await target.fill('CONSOLE_TEST_SECRET');
    await target.press('Enter');
    await secret.waitFor();
    await expect(page.getByRole('row').count()).resolves.toBe(2);
    const content = await page.content();
    for (const value of [secretValue, workerSecret, 'console-test-client-secret']) expect(content).not.toContain(value);
    await audit('audit');
    await shoot('audit');
    await target.fill('');
    await target.press('Enter');
    await row('auth provider created', 'github').waitFor();
    await shoot('audit-all');
  });

  it('is usable with the keyboard alone: skip link, search, a tool, the navigation', async () => {
    await page.goto(`${engine.url}/#/tools`);
    await page.reload();
    await page.getByText(/^1,?007 tools$/).waitFor();
    const focused = () => page.evaluate(() => ({ text: document.activeElement?.textContent?.trim() ?? '', id: document.activeElement?.id ?? '' }));
    await page.keyboard.press('Tab');
    expect((await focused()).text).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect((await focused()).id).toBe('main');
    await page.keyboard.press('Tab');
    expect((await focused()).id).toBe('tool-search');
    await page.keyboard.type('close an issue');
    await page.getByText(/best match first for “close an issue”/).waitFor();
    for (let i = 0; i < 20 && !(await focused()).text.startsWith('RepoHostApi.'); i++) await page.keyboard.press('Tab');
    const chosen = (await focused()).text;
    expect(chosen).toMatch(/^RepoHostApi\.\w+/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: /^RepoHostApi\./ }).waitFor();
    for (let i = 0; i < 15 && (await focused()).text !== 'Secrets'; i++) await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Secrets' }).waitFor();
  });

  it('starts an authorization, follows it to completion and lists the connection; signs out forgetting the key', async () => {
    await page.getByRole('link', { name: 'Connections' }).click();
    await page.getByLabel('Provider').fill('github');
    await page.getByLabel('Scopes').fill('repo');
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('status').filter({ hasText: 'Authorization of ada@example.com with github: pending' }).waitFor();
    await audit('connections');
    await shoot('connections-pending');
    // The user opens the page in a new tab; the authorization server sends the browser back to the engine.
    const [userTab] = await Promise.all([context.waitForEvent('page'), page.getByRole('link', { name: 'the authorization page' }).click()]);
    await userTab.waitForLoadState();
    await userTab.close();
    await page.getByRole('status').filter({ hasText: 'Authorization of ada@example.com with github: completed' }).waitFor({ timeout: 25_000 });
    await page.getByRole('heading', { name: 'github', level: 3 }).waitFor();
    await page.getByRole('cell', { name: 'ada@example.com' }).waitFor();
    await shoot('connections');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('quiver.apiKey'))).toBeNull();
  });

  it('shows a user key the tools, the playground and its own activity, acting for its own user', async () => {
    const { createApiKey } = await import('@quiver/engine');
    const { key } = await createApiKey(engine.engine.store.db, 'carol', { role: 'user', userId: 'carol@example.com' });
    await page.goto(`${engine.url}/#/secrets`);
    await page.getByLabel('API key').fill(key);
    await page.keyboard.press('Enter');
    const nav = page.getByRole('navigation', { name: 'Sections' });
    await nav.waitFor();
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Tools', 'Playground', 'Activity']);
    // An admin page named in the address says it is not for this key, and why, rather than showing another.
    await page.getByRole('heading', { level: 1, name: 'Secrets: not available to this key' }).waitFor();
    await page.getByText(/Secrets is for admin keys\. This console is signed in with carol, a user key acting as carol@example\.com/).waitFor();
    await page.goto(`${engine.url}/#/grants`);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'MCP sign-ins: not available to this key' }).waitFor();
    expect(await page.getByRole('table').count()).toBe(0);
    // Its activity is its user's own, without the charts of every user's calls.
    await page.goto(`${engine.url}/#/activity`);
    await page.getByText(/The executions of carol@example\.com, this key's user/).waitFor();
    expect(await page.getByLabel('User').inputValue()).toBe('carol@example.com');
    expect(await page.getByRole('heading', { name: 'The last hour, per toolkit' }).count()).toBe(0);
    await page.goto(`${engine.url}/#/nowhere`);
    await page.getByRole('heading', { level: 1, name: 'No such page' }).waitFor();
    await page.getByRole('link', { name: 'Go to the tools' }).click();
    await page.getByRole('heading', { level: 1, name: 'Tools' }).waitFor();
    await page.goto(`${engine.url}/#/playground/RepoHostApi.GetRepohostRepositoryDetails`);
    const user = page.getByLabel('User', { exact: true });
    await user.waitFor();
    expect(await user.inputValue()).toBe('carol@example.com');
    expect(await user.isEditable()).toBe(false);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
  });

  it('ran every page through axe-core, with no CSP violation or script error', () => {
    expect(audited).toEqual([
      'sign-in',
      'tools',
      'tool',
      'playground',
      'secrets',
      'workers',
      'scheduled',
      'activity',
      'keys',
      'grants',
      'audit',
      'connections',
    ]);
    expect(problems).toEqual([]);
  });
});

/** A minimal OAuth authorization server: it grants at once and issues a token for any code. */
async function startAuthorizationServer(): Promise<Server> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/authorize') {
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.searchParams.set('code', 'console-test-code');
      back.searchParams.set('state', url.searchParams.get('state')!);
      response.writeHead(302, { location: back.toString() }).end();
    } else if (url.pathname === '/token' && request.method === 'POST') {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ access_token: 'console-test-access-token', token_type: 'bearer', scope: 'repo', expires_in: 3600 }));
      });
    } else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
