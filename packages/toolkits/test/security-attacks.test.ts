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
let baseUrl = '';
const upstream = createServer((req, res) => {
  received.push({ method: req.method!, url: req.url!, headers: req.headers });
  req.resume();
  req.on('end', () => {
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
    ['CR LF', 'engine-key\r\nX-Injected: yes'],
    ['LF', 'engine-key\nX-Injected: yes'],
    ['NUL', 'engine-key\u0000truncated'],
  ])('a header value with %s is bad input naming the parameter, not a retried network failure', async (_name, value) => {
    const error = await refused('ToolEngineApi.GetProjectDetails', { authorization_token: value, project_id: 'p1' });
    expect(error).toMatchObject({ kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE', can_retry: false });
    expect(error.message).toContain("parameter 'authorization_token' must not contain a line break (CR, LF) or a NUL character");
    expect(received).toEqual([]);
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
