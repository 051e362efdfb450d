/**
 * Both eras of MCP on /v1/mcp, side by side on one endpoint and negotiated per request: the 2026-07-28
 * revision (no `initialize`; each request carries its protocol version and client in `_meta`, and its
 * method and tool in the `Mcp-Method`/`Mcp-Name` headers) and the 2025 revisions (`initialize`), with the
 * official SDK's clients of both major versions and with raw requests where the wire itself is the point.
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestEngine, type TestEngine } from '@quiver/test-support/harness';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldUpstream, MODERN, modernRequest, postMcp, type HeldRequest } from './mcp-wire.js';

const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

describe('MCP in both eras on /v1/mcp', () => {
  let engine: TestEngine;
  const url = () => new URL(`${engine.url}/v1/mcp`);
  const requestInit = () => ({ headers: { authorization: `Bearer ${engine.key}`, 'quiver-user-id': 'ada' } });

  const post = (request: ReturnType<typeof modernRequest>) => postMcp(engine, request);

  beforeAll(async () => {
    engine = await startTestEngine('sqlite');
  });
  afterAll(() => engine?.close());

  it('serves a 2026-07-28 client (SDK 2.x) without a handshake: tools listed with the 2020-12 dialect, and called', async () => {
    const client = new ModernClient({ name: 'eras-test', version: '1' }, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(new ModernTransport(url(), { requestInit: requestInit() }));
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(1007);
    expect(tools.every((tool) => tool.inputSchema.$schema === DIALECT)).toBe(true);
    // Each one a valid 2020-12 schema, in Ajv's strict mode (no unknown keywords, no draft-07 forms).
    const ajv = new Ajv2020({ strict: true, validateFormats: false });
    for (const tool of tools) expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
    // A title and the toolkit's icon, served by the engine, for the person's client to show.
    const products = tools.find((tool) => tool.name === 'CommerceTools_GetAvailableProducts')!;
    expect(products.title).toMatch(/\w+ \w+/);
    expect(products.icons).toEqual([{ src: `${engine.url}/v1/toolkits/CommerceTools/icon.svg`, mimeType: 'image/svg+xml', sizes: ['any'] }]);
    const icon = await fetch(products.icons![0]!.src);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    const result = await client.callTool({ name: 'CommerceTools_GetAvailableProducts', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(/\w/);
    await client.close();
  });

  it('serves 2025 clients (SDK 1.x, and SDK 2.x negotiating) through initialize, with schemas as before', async () => {
    const legacy = new Client({ name: 'eras-test', version: '1' });
    await legacy.connect(new StreamableHTTPClientTransport(url(), { requestInit: requestInit() }));
    const { tools } = await legacy.listTools();
    expect(tools.some((tool) => '$schema' in tool.inputSchema)).toBe(false);
    expect(tools.every((tool) => tool.title && tool.icons?.[0]?.src.startsWith(`${engine.url}/v1/toolkits/`))).toBe(true);
    expect((await legacy.callTool({ name: 'CommerceTools_GetAvailableProducts', arguments: {} })).isError).toBeFalsy();
    await legacy.close();

    const negotiating = new ModernClient({ name: 'eras-test', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await negotiating.connect(new ModernTransport(url(), { requestInit: requestInit() }));
    expect(negotiating.getNegotiatedProtocolVersion()).toBe(MODERN);
    await negotiating.close();
    const older = new ModernClient({ name: 'eras-test', version: '1' });
    await older.connect(new ModernTransport(url(), { requestInit: requestInit() }));
    expect(older.getNegotiatedProtocolVersion()).not.toBe(MODERN);
    expect((await older.listTools()).tools.length).toBe(1007);
    await older.close();
  });

  it('answers server/discover with the revisions it serves, and every result with resultType and list cache hints', async () => {
    const discovered = await post(modernRequest('server/discover'));
    expect(discovered.status).toBe(200);
    expect(discovered.body.result.supportedVersions).toContain(MODERN);
    expect(discovered.body.result.capabilities.tools).toBeDefined();
    expect(discovered.body.result.resultType).toBe('complete');

    const listed = await post(modernRequest('tools/list'));
    expect(listed.body.result).toMatchObject({ resultType: 'complete', cacheScope: 'private', ttlMs: 60_000 });
    const called = await post(modernRequest('tools/call', { name: 'CommerceTools_GetAvailableProducts', arguments: {} }));
    expect(called.body.result.resultType).toBe('complete');
    expect(called.body.result.isError).toBeFalsy();
    expect(listed.headers.get('mcp-session-id')).toBeNull();
  });

  it('refuses a request whose Mcp-Method or Mcp-Name header disagrees with its body, naming the mismatch, and runs nothing', async () => {
    const executed = () => engine.logs.filter((line) => line.includes('tool executed')).length;
    const before = executed();
    const method = await post(modernRequest('tools/list', {}, { 'mcp-method': 'tools/call' }));
    expect(method.status).toBe(400);
    expect(method.body.error.code).toBe(-32020);
    expect(method.body.error.message).toMatch(/mcp-method/i);
    const name = await post(
      modernRequest('tools/call', { name: 'CommerceTools_GetAvailableProducts', arguments: {} }, { 'mcp-name': 'CommerceTools_GetDiscountCodes' }),
    );
    expect(name.status).toBe(400);
    expect(name.body.error.code).toBe(-32020);
    expect(name.body.error.message).toMatch(/mcp-name/i);
    expect(executed()).toBe(before);
    // The same call with headers that agree runs, and is logged.
    expect((await post(modernRequest('tools/call', { name: 'CommerceTools_GetAvailableProducts', arguments: {} }))).status).toBe(200);
    expect(executed()).toBe(before + 1);
  });

  it('refuses a revision it does not serve with the ones it does, and keeps the 2025 handshake for the revisions before', async () => {
    const unknown = modernRequest('tools/list');
    unknown.headers['mcp-protocol-version'] = '2099-01-01';
    (unknown.body.params._meta as Record<string, unknown>)['io.modelcontextprotocol/protocolVersion'] = '2099-01-01';
    const refused = await post(unknown);
    expect(refused.body.error.data.supported).toContain(MODERN);

    for (const protocolVersion of ['2025-03-26', '2025-06-18', '2025-11-25']) {
      const initialized = await post({
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } as never,
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        } as never,
      });
      expect(initialized.body.result.protocolVersion).toBe(protocolVersion);
    }
  });

  it('keeps an API key without a user, or a user key acting for another, refused in the 2026-07-28 era too', async () => {
    const request = modernRequest('tools/call', { name: 'CommerceTools_GetAvailableProducts', arguments: {} });
    const anonymous = await fetch(url(), { method: 'POST', headers: request.headers, body: JSON.stringify(request.body) });
    expect(anonymous.status).toBe(401);
  });
});

describe('a long call over /v1/mcp, in both eras: cancelled, and telling of its progress', () => {
  let upstream: Awaited<ReturnType<typeof heldUpstream>>;
  const arrived = () => upstream.arrived();
  let engine: TestEngine;

  beforeAll(async () => {
    upstream = await heldUpstream();
    engine = await startTestEngine('sqlite', { toolkits: [upstream.toolkit] });
  });
  afterAll(async () => {
    await engine?.close();
    upstream?.close();
  });

  /** A tools/call as each era's client sends it, aborted by the client once the upstream has the request. */
  const calls = {
    '2026-07-28': (name: string) => modernRequest('tools/call', { name, arguments: {} }),
    '2025-11-25': (name: string) => ({
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } },
    }),
  };
  const send = (request: ReturnType<(typeof calls)['2026-07-28']>, signal: AbortSignal) =>
    fetch(`${engine.url}/v1/mcp`, {
      method: 'POST',
      headers: { ...request.headers, authorization: `Bearer ${engine.key}`, 'quiver-user-id': 'ada' },
      body: JSON.stringify(request.body),
      signal,
    });

  for (const [era, call] of Object.entries(calls)) {
    it(`aborts a read's upstream request when the client goes away, and lets a write finish, in the ${era} era`, async () => {
      const reading = new AbortController();
      const read = send(call('Upstream_Read') as never, reading.signal).catch(() => 'gone');
      const readRequest = await arrived();
      expect(readRequest.path).toBe('/read');
      reading.abort();
      expect(await read).toBe('gone');
      // The engine let go of the upstream request: its connection closed before any answer.
      await readRequest.aborted;
      const readLogged = () => engine.logs.some((line) => line.includes('Upstream.Read') && line.includes('"success":false'));
      while (!readLogged()) await new Promise((resolve) => setTimeout(resolve, 20));

      const writing = new AbortController();
      const write = send(call('Upstream_Write') as never, writing.signal).catch(() => 'gone');
      const writeRequest = await arrived();
      writing.abort();
      expect(await write).toBe('gone');
      // Still open: the engine waits for what the write did, and logs it as done.
      writeRequest.answer();
      const written = () => engine.logs.some((line) => line.includes('Upstream.Write') && line.includes('"success":true'));
      while (!written()) await new Promise((resolve) => setTimeout(resolve, 20));
    });
  }

  const requests = {
    '2026-07-28': () => {
      const request = modernRequest('tools/call', { name: 'Upstream_Read', arguments: {} });
      Object.assign(request.body.params._meta, { progressToken: 'p1' });
      return request;
    },
    '2025-11-25': () => ({
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Upstream_Read', arguments: {}, _meta: { progressToken: 'p1' } } },
    }),
  };

  for (const [era, build] of Object.entries(requests)) {
    it(`tells a client that asked for progress that a long read still runs, then answers it, in the ${era} era`, async () => {
      const request = build();
      const response = await fetch(`${engine.url}/v1/mcp`, {
        method: 'POST',
        headers: { ...request.headers, authorization: `Bearer ${engine.key}`, 'quiver-user-id': 'ada' },
        body: JSON.stringify(request.body),
      });
      let held: HeldRequest | undefined = await upstream.arrived();
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const reader = response.body!.getReader();
      const events: any[] = [];
      let text = '';
      while (!events.some((event) => 'result' in event)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
        const lines = text.split('\n');
        text = lines.pop()!;
        for (const line of lines) if (line.startsWith('data: ')) events.push(JSON.parse(line.slice(6)));
        // The upstream answers once the client has heard the call still runs.
        if (held && events.some((event) => event.method === 'notifications/progress')) {
          held.answer();
          held = undefined;
        }
      }
      const progress = events.find((event) => event.method === 'notifications/progress');
      expect(progress.params).toMatchObject({ progressToken: 'p1', progress: 1, message: expect.stringMatching(/^Still running after \d+ s\.$/) });
      expect(events.at(-1).result.content[0].text).toBe('{"ok":true}');
    });
  }
});
