/**
 * The attacks of the security review, each replayed through the real dispatcher against a loopback upstream
 * that records every request and echoes the request's headers back in a 200 answer (as a debugging
 * endpoint or a misconfigured proxy would). Each test failed before the defence it names existed.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defineToolkit, localDispatcher, UpstreamClient, type Dispatcher, type ToolError, type ToolResult } from '@quiver/core';
import { toolkits } from '@quiver/toolkits';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const TOKEN = 'oauth-access-token-7f3a9c';
const secrets = {
  SUPPORT_API_TOKEN: 'support-api-token-41d2e8',
  TRACKING_SITE_ID: 'site-id-5c0b77',
  TRACKING_API_KEY: 'tracking-api-key-90e1aa',
  ENGINE_API_KEY: 'engine-api-key-d4c3b2',
};
const basicPair = `${secrets.TRACKING_SITE_ID}:${secrets.TRACKING_API_KEY}`;

let received: Array<{ method: string; url: string; headers: IncomingHttpHeaders }> = [];
/** A strange answer (a 200 of the wrong shape) that a test sets in place of the echo. */
let strange: { headers: Record<string, string>; body: string } | undefined;
let baseUrl = '';
const upstream = createServer((req, res) => {
  received.push({ method: req.method!, url: req.url!, headers: req.headers });
  req.resume();
  req.on('end', () => {
    if (strange) return void res.writeHead(200, strange.headers).end(strange.body);
    const echoed = { method: req.method, url: req.url, headers: req.headers, decoded_basic: basicOf(req.headers.authorization) };
    // An issue without an id: a lookup that gives nothing to put in the next request's path.
    const issue = req.url!.startsWith('/issues/no-id') ? { state: 'new', title: 'no id' } : { id: 'issue-1', state: 'new', title: 'echo', echoed };
    const body = { ...echoed, echoed, data: issue, value: [], teams: [], pagination: { cursor: '', has_next_page: false } };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
});
const basicOf = (authorization: string | undefined) =>
  authorization?.startsWith('Basic ') ? Buffer.from(authorization.slice(6), 'base64').toString() : undefined;

const client = new UpstreamClient({ maxRetries: 0 });
/** Every toolkit pointed at the echoing upstream; a user's token only for the tools that ask for one. */
let runtime: Dispatcher;

beforeAll(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  runtime = localDispatcher(toolkits, { client, baseUrls: Object.fromEntries(toolkits.map((toolkit) => [toolkit.name, baseUrl])), token: TOKEN, secrets });
});
afterAll(async () => {
  await client.close();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});
beforeEach(() => {
  received = [];
  strange = undefined;
});

async function refused(tool: string, input: Record<string, unknown>): Promise<ToolError> {
  const result = await runtime.call(tool, input);
  if (!('error' in result)) throw new Error(`${tool} should have been refused but answered ${JSON.stringify(result.value)}`);
  return result.error;
}

describe('no request leaves its path', () => {
  it.each([
    ['MailClient.ListEmailsInFolder', { folder_id: '..' }, 'folder_id'],
    ['MailClient.ListEmailsInFolder', { folder_id: '.' }, 'folder_id'],
    ['SupportDesk.GetIssue', { lookup_by: 'id', value: '..' }, 'value'],
    ['SupportDesk.GetIssue', { lookup_by: 'id', value: ' .. ' }, 'value'],
    ['SupportDesk.AddInternalNote', { issue_id: '..', body: 'hello' }, 'issue_id'],
    ['SupportDesk.UpdateIssueStatus', { state: 'closed', lookup_by: 'id', value: '..' }, 'value'],
    ['Design.GetComponents', { source: 'file', source_id: '..' }, 'source_id'],
    ['Design.GetComponents', { source: 'team', source_id: '.' }, 'source_id'],
    ['Design.GetStyles', { source: 'file', source_id: '..' }, 'source_id'],
  ])('%s %j is refused naming %s, and nothing is sent', async (tool, input, parameter) => {
    const error = await refused(tool, input);
    expect(error).toMatchObject({ kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE', can_retry: false });
    expect(error.message).toContain(`parameter '${parameter}' must not be empty, '.' or '..'`);
    expect(received).toEqual([]);
  });

  it('encodes a path value that carries slashes, so it stays one segment', async () => {
    await runtime.call('SupportDesk.GetIssue', { lookup_by: 'id', value: '../../admin' });
    expect(received.map((request) => request.url)).toEqual(['/issues/..%2F..%2Fadmin']);
  });

  it('refuses a placeholder a lookup left unfilled instead of sending it literally', async () => {
    const error = await refused('SupportDesk.UpdateIssueStatus', { state: 'closed', lookup_by: 'id', value: 'no-id' });
    expect(error).toMatchObject({ kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE' });
    expect(error.message).toContain("parameter 'id' is required: it fills {id} in the URL path");
    // The lookup went out; the update did not.
    expect(received.map((request) => `${request.method} ${request.url}`)).toEqual(['GET /issues/no-id']);
  });
});

describe('no header is forged', () => {
  it.each([
    ['CR LF', 'engine-key\r\nX-Injected: yes', 'a line break (CR, LF)'],
    ['LF', 'engine-key\nX-Injected: yes', 'a line break (CR, LF)'],
    ['NUL', 'engine-key\u0000truncated', 'a NUL character'],
    ['a control character', 'engine\u0001key', 'a control character (U+0001)'],
    ['DEL', 'engine\u007fkey', 'a control character (U+007F)'],
    ['an emoji', 'engine-key-\u{1F600}', "'\u{1F600}' (U+1F600), which is not ASCII"],
    ['a lone high surrogate', 'engine-key-\ud800', 'a lone surrogate (U+D800)'],
    ['a lone low surrogate', 'engine-key-\udfff', 'a lone surrogate (U+DFFF)'],
  ])('a header value with %s is bad input naming the parameter, not a retried network failure', async (_name, value, what) => {
    const error = await refused('ToolEngineApi.GetProjectDetails', { authorization_token: value, project_id: 'p1' });
    expect(error).toMatchObject({ kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE', can_retry: false });
    expect(error.message).toContain(`parameter 'authorization_token' must be printable ASCII (it is sent as an HTTP header), not ${what}`);
    expect(received).toEqual([]);
  });

  it('a tab is a header character and goes through', async () => {
    await runtime.call('ToolEngineApi.GetProjectDetails', { authorization_token: 'engine\tkey', project_id: 'p1' });
    expect(received.map((request) => request.headers.authorization)).toEqual(['engine\tkey']);
  });
});

describe('no lone surrogate is sent', () => {
  it.each([
    ['a path value', 'RepoHostApi.FetchRepohostActionsPerms', { repository_owner: '\ud800', repository_name: 'r' }, 'repository_owner'],
    ['a low surrogate in a path value', 'RepoHostApi.FetchRepohostActionsPerms', { repository_owner: 'o', repository_name: 'a\udc00b' }, 'repository_name'],
    [
      'a query value',
      'RepoHostApi.FetchRepoReadme',
      { repository_owner: 'o', repository_name: 'r', readme_directory_path: 'docs', commit_branch_or_tag_name: 'x\ud83d' },
      'commit_branch_or_tag_name',
    ],
    ['a body value of a handler', 'MailClient.CreateDraftEmail', { subject: 'hi \ud800', body: 'text' }, 'subject'],
    [
      'an item of a list',
      'MailClient.CreateDraftEmail',
      { subject: 'hi', body: 'text', to_recipients: ['a@example.com', '\udfff@example.com'] },
      'to_recipients[1]',
    ],
  ])('in %s is bad input naming the parameter, and nothing is sent', async (_case, tool, input, parameter) => {
    const error = await refused(tool, input);
    expect(error).toMatchObject({ kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE', can_retry: false });
    expect(error.message).toContain(`parameter '${parameter}' contains a lone surrogate (an unpaired UTF-16 code unit)`);
    expect(received).toEqual([]);
  });

  it('control characters in path and query values are percent-encoded, as any character a URL cannot hold as it is', async () => {
    await runtime.call('RepoHostApi.FetchRepoReadme', {
      repository_owner: 'o\u0001',
      repository_name: 'r\u007f',
      readme_directory_path: 'd',
      commit_branch_or_tag_name: 'a\nb',
    });
    expect(received.map((request) => request.url)).toEqual(['/repos/o%01/r%7F/readme/d?ref=a%0Ab']);
  });
});

describe('no strange upstream answer is a fatal error', () => {
  it.each([
    ['MailClient.ListEmails', {}, '{"@odata.context":"x"}', 'expected value to be present, got nothing', 'GET /me/messages'],
    [
      'MailClient.ListEmailsInFolder',
      { well_known_folder_name: 'inbox' },
      '{"error":null}',
      'expected value to be present',
      'GET /me/mailFolders/{mailFolder-id}/messages',
    ],
    ['MailClient.ListEmails', {}, '{"value":{"id":"1"}}', 'expected value to be an array, got an object with the field id', 'GET /me/messages'],
    ['MailClient.ListEmails', {}, 'null', 'expected the answer to be an object, got null', 'GET /me/messages'],
  ])('%s %j answered %s is an unexpected response, not retryable, saying what was expected and what came', async (tool, input, body, problem, request) => {
    strange = { headers: { 'content-type': 'application/json' }, body };
    const error = await refused(tool, input);
    expect(error).toMatchObject({ kind: 'UPSTREAM_RUNTIME_UNEXPECTED_RESPONSE', can_retry: false });
    expect(error.message).toContain(problem);
    expect(error.developer_message).toContain(request);
    expect(JSON.stringify(error)).not.toContain(TOKEN);
  });

  it('Design.GetFileNodes answered with a node tree 20,000 levels deep is an unexpected response, not a stack overflow', async () => {
    const tree = `${'{"id":"1:2","name":"n","type":"FRAME","children":['.repeat(10_000)}${']}'.repeat(10_000)}`;
    strange = { headers: { 'content-type': 'application/json' }, body: `{"name":"F","nodes":{"1:2":{"document":${tree}}}}` };
    const error = await refused('Design.GetFileNodes', { file_key: 'f1', node_ids: ['1:2'] });
    expect(error).toMatchObject({ kind: 'UPSTREAM_RUNTIME_UNEXPECTED_RESPONSE', can_retry: false });
    expect(error.message).toContain('expected a node tree at most 1000 levels deep');
  });

  it.each([
    ['not JSON', '{not json'],
    ['JSON of the wrong type', '"a string"'],
  ])('FileStore.DownloadFile with a Dropbox-API-Result header that is %s is an unexpected response', async (_case, header) => {
    strange = { headers: { 'content-type': 'application/octet-stream', 'dropbox-api-result': header }, body: 'file' };
    const error = await refused('FileStore.DownloadFile', { file_path: '/a.txt' });
    expect(error).toMatchObject({ kind: 'UPSTREAM_RUNTIME_UNEXPECTED_RESPONSE', can_retry: false });
    expect(error.message).toContain('Dropbox-API-Result');
    expect(error.developer_message).toContain('POST /2/files/download');
    expect(JSON.stringify(error)).not.toContain(TOKEN);
  });
});

describe('no credential in any output', () => {
  /** The result as the model would read it; the echo must have reached it for the test to mean anything. */
  async function echoedResult(tool: string, input: Record<string, unknown> = {}): Promise<string> {
    const result: ToolResult = await runtime.call(tool, input);
    expect(result, `${tool} answered ${JSON.stringify(result)}`).toHaveProperty('value');
    expect(received.length).toBeGreaterThan(0);
    const text = JSON.stringify(result);
    expect(text).toContain('[redacted]');
    return text;
  }

  it('redacts an API token that an upstream echoes in a 200 answer', async () => {
    const text = await echoedResult('SupportDesk.GetIssue', { lookup_by: 'id', value: 'issue-1' });
    expect(received[0]!.headers.authorization).toBe(`Bearer ${secrets.SUPPORT_API_TOKEN}`);
    expect(text).not.toContain(secrets.SUPPORT_API_TOKEN);
  });

  it('redacts a Basic pair in its raw and its base64 forms', async () => {
    const text = await echoedResult('TrackingApi.GetTrackApiRegion');
    const encoded = Buffer.from(basicPair).toString('base64');
    expect(received[0]!.headers.authorization).toBe(`Basic ${encoded}`);
    for (const form of [basicPair, encoded, secrets.TRACKING_API_KEY]) expect(text).not.toContain(form);
  });

  it('redacts the OAuth access token', async () => {
    const text = await echoedResult('RepoHostApi.CheckConfigStatus');
    expect(received[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(text).not.toContain(TOKEN);
  });
});

describe('no stack trace in a result', () => {
  it('a 10,000-deep request_body is refused by name, without a stack', async () => {
    const tool = toolkits.flatMap((toolkit) => toolkit.tools.map((t) => ({ toolkit: toolkit.name, t }))).find(({ t }) => t.requestBody && !t.handler)!;
    const placed = Object.fromEntries(tool.t.parameters.filter((p) => p.in === 'path' || p.in === 'query').map((p) => [p.name, 'x']));
    const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const error = await refused(`${tool.toolkit}.${tool.t.name}`, { mode: 'execute', ...placed, request_body: deep });
    expect(error).toMatchObject({ kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE' });
    expect(error.message).toContain('request_body nests deeper than 64 levels');
    expect(received).toEqual([]);
  });

  it('a 10,000-deep parameter value is refused by name', async () => {
    let deep: unknown = 'leaf';
    for (let level = 0; level < 10_000; level++) deep = [deep];
    const error = await refused('Design.WhoAmI', { anything: deep });
    expect(error.message).toContain("parameter 'anything' nests deeper than 64 levels");
  });

  it('a failing handler reports one line to the developer; the stack stays apart', async () => {
    const broken = defineToolkit(
      {
        name: 'Broken',
        version: '1',
        description: 'A toolkit whose handler throws.',
        baseUrl,
        tools: [{ name: 'Fail', description: 'Throws.', parameters: [], output: { description: 'Nothing.' }, requirements: {} }],
      },
      { Fail: async () => JSON.parse('{not json') },
    );
    const result = await localDispatcher([broken], { client }).call('Broken.Fail', {});
    const error = 'error' in result ? result.error : undefined;
    expect(error).toMatchObject({ kind: 'TOOL_RUNTIME_FATAL', message: 'Fail failed unexpectedly.' });
    expect(error!.developer_message).toMatch(/^SyntaxError: /);
    expect(error!.developer_message).not.toContain('\n');
    expect(error!.developer_message).not.toMatch(/\.(ts|js):\d+/);
    expect(error!.stacktrace).toMatch(/\.(ts|js):\d+/);
  });
});
