import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Tracer } from '@opentelemetry/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UpstreamClient, isBinaryBody, retryAfterMs, type BinaryBody } from '../src/upstream.js';
import { buildRequest } from '../src/request.js';
import { disableTelemetry, enableTelemetry, runLater } from '../src/telemetry.js';
import type { HttpMethod } from '../src/tool.js';

/** A loopback upstream that answers from a script of responses and counts what it received. */
let script: Array<(res: ServerResponse) => void> = [];
let received: Array<{ method: string; url: string }> = [];
let baseUrl = '';
const server = createServer((req: IncomingMessage, res) => {
  received.push({ method: req.method!, url: req.url! });
  const next = script.shift() ?? ((r: ServerResponse) => r.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  req.resume();
  req.on('end', () => next(res));
});

const status =
  (code: number, headers: Record<string, string> = {}, body = '{"message":"nope"}') =>
  (res: ServerResponse) =>
    res.writeHead(code, { 'content-type': 'application/json', ...headers }).end(body);

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  script = [];
  received = [];
});

const client = new UpstreamClient({ retryBaseDelayMs: 5, maxRetries: 2, timeoutMs: 300, maxRetryAfterMs: 1_000 });
const send = (method: HttpMethod, path = '/thing') => client.send({ method, url: baseUrl + path, headers: {} });

describe('upstream client', () => {
  it('returns parsed JSON on success', async () => {
    const outcome = await send('GET');
    expect(outcome).toEqual({ response: expect.objectContaining({ status: 200, body: { ok: true } }) });
  });

  it.each(['GET', 'HEAD', 'PUT', 'DELETE'] as HttpMethod[])('retries %s after a 5xx and succeeds', async (method) => {
    script = [status(503), status(502)];
    const outcome = await send(method);
    expect('response' in outcome && outcome.response.status).toBe(200);
    expect(received).toHaveLength(3);
  });

  it.each(['POST', 'PATCH'] as HttpMethod[])('never retries %s, nor calls it safe to repeat', async (method) => {
    script = [status(503)];
    const outcome = await send(method);
    expect('error' in outcome && outcome.error).toMatchObject({ kind: 'UPSTREAM_RUNTIME_SERVER_ERROR', can_retry: false, status_code: 503 });
    expect(received).toHaveLength(1);
  });

  it('gives up after the configured retries', async () => {
    script = [status(500), status(500), status(500), status(500)];
    const outcome = await send('GET');
    expect('error' in outcome && outcome.error.kind).toBe('UPSTREAM_RUNTIME_SERVER_ERROR');
    expect(received).toHaveLength(3);
  });

  it('honours Retry-After on 429 for safe methods', async () => {
    script = [status(429, { 'retry-after': '0.05' })];
    const started = Date.now();
    const outcome = await send('GET');
    expect('response' in outcome).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(received).toHaveLength(2);
  });

  it('does not wait for a Retry-After beyond the cap, and reports it', async () => {
    script = [status(429, { 'retry-after': '120' })];
    const outcome = await send('GET');
    expect('error' in outcome && outcome.error).toMatchObject({ kind: 'UPSTREAM_RUNTIME_RATE_LIMIT', can_retry: true, retry_after_ms: 120_000 });
    expect(received).toHaveLength(1);
  });

  it('reads a 403 with exhausted rate-limit headers as a rate limit', async () => {
    const reset = Math.ceil(Date.now() / 1000) + 3600;
    script = [status(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) })];
    const outcome = await send('POST');
    expect('error' in outcome && outcome.error.kind).toBe('UPSTREAM_RUNTIME_RATE_LIMIT');
    expect('error' in outcome && outcome.error.retry_after_ms).toBeGreaterThan(3_000_000);
  });

  it.each([
    [401, 'UPSTREAM_RUNTIME_AUTH_ERROR', false],
    [403, 'UPSTREAM_RUNTIME_AUTH_ERROR', false],
    [404, 'UPSTREAM_RUNTIME_NOT_FOUND', false],
    [422, 'UPSTREAM_RUNTIME_VALIDATION_ERROR', false],
    [400, 'UPSTREAM_RUNTIME_BAD_REQUEST', false],
    [409, 'UPSTREAM_RUNTIME_BAD_REQUEST', false],
  ])('maps %i to %s without retrying', async (code, kind, canRetry) => {
    script = [status(code)];
    const outcome = await send('GET');
    expect('error' in outcome && outcome.error).toMatchObject({
      kind,
      can_retry: canRetry,
      status_code: code,
      message: `The upstream service answered ${code}: nope`,
    });
    expect(received).toHaveLength(1);
  });

  it('names what a 404 did not find: the path parameters and the values the call gave them, never the credential', async () => {
    const tool = {
      name: 'GetRepository',
      description: 'Gets a repository.',
      parameters: [
        // Declared in another order than the path's, as GitHub's tools are: the message follows the path.
        { name: 'repository_name', description: 'Name.', required: true, schema: { type: 'string' }, in: 'path' as const, upstream: 'repo' },
        { name: 'repository_owner', description: 'Owner.', required: true, schema: { type: 'string' }, in: 'path' as const, upstream: 'owner' },
        { name: 'results_page', description: 'Page.', required: false, schema: { type: 'integer' }, in: 'query' as const, upstream: 'page' },
      ],
      output: { description: 'A repository.' },
      requirements: {},
      http: { method: 'GET' as const, path: '/repos/{owner}/{repo}' },
    };
    const request = buildRequest(tool, { repository_owner: 'octocat', repository_name: 'missing', results_page: 2 }, baseUrl);
    if ('error' in request) throw new Error(request.error.message);
    request.headers.authorization = 'Bearer ghp_secret-token';
    script = [status(404, {}, '{"message":"Not Found"}')];
    const outcome = await client.send(request);
    expect('error' in outcome && outcome.error).toMatchObject({
      kind: 'UPSTREAM_RUNTIME_NOT_FOUND',
      message:
        'The upstream service answered 404: Not Found. Nothing was found for repository_owner="octocat", repository_name="missing", or the credential cannot see it: check these values.',
    });
    expect(JSON.stringify(outcome)).not.toContain('ghp_secret-token');
    // Other failures, and a 404 of a path without parameters, say only what the upstream said.
    script = [status(404, {}, '{"message":"Not Found"}')];
    const bare = await send('GET', '/user/repos');
    expect('error' in bare && bare.error.message).toBe('The upstream service answered 404: Not Found');
  });

  it('sends nothing to a URL that is no absolute http(s) URL, and says to set the base URL rather than to retry', async () => {
    script = [status(200, {}, '{}')];
    const outcome = await client.send({ method: 'GET', url: '/a/4?x=1', headers: {} }, 'NoServers');
    expect('error' in outcome && outcome.error).toMatchObject({
      kind: 'TOOL_REQUIREMENTS_NOT_MET',
      can_retry: false,
      message: 'The request URL /a/4 is not an absolute http(s) URL: set the base URL of NoServers in the configuration.',
    });
    expect(script).toHaveLength(1);
  });

  it.each([
    ['{"meta":{"error":"segment 7 is data-driven"}}', 'segment 7 is data-driven'],
    ['{"errors":[{"reason":"required","field":"identifiers","message":"identifiers is required"}]}', 'identifiers is required'],
    ['{"errors":["issue not found"],"request_id":"r1"}', 'issue not found'],
    ['{"err":"Team not authorized","ECODE":"OAUTH_027"}', 'Team not authorized'],
    ['{"status":400,"err":"Invalid scale"}', 'Invalid scale'],
    ['{"error_summary":"path/not_found/..","error":{".tag":"path"}}', 'path/not_found/..'],
    ['{"error":{"code":"ErrorItemNotFound","message":"The specified object was not found."}}', 'The specified object was not found.'],
    ['{"error":"invalid_grant","error_description":"expired"}', 'invalid_grant'],
  ])('quotes the upstream message of %s', async (body, message) => {
    script = [status(400, {}, body)];
    const outcome = await send('GET');
    expect('error' in outcome && outcome.error.message).toBe(`The upstream service answered 400: ${message}`);
  });

  it('reads an answer alike whether its URL goes out as it is or parsed first (dot segments, spaces)', async () => {
    const answer = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json', 'x-many': ['a', 'b'] }).end('{"ok":1}');
    script = [answer, answer];
    const plain = await send('GET', '/thing?x=1');
    const parsed = await send('GET', '/a/../thing?x=a b');
    expect(received.map((request) => request.url)).toEqual(['/thing?x=1', '/thing?x=a%20b']);
    for (const outcome of [plain, parsed]) {
      expect(outcome).toMatchObject({ response: { status: 200, body: { ok: 1 }, headers: { 'content-type': 'application/json', 'x-many': ['a', 'b'] } } });
    }
  });

  it('cuts an answer over the size limit whichever way its URL goes out, and times out a slow one', async () => {
    const small = new UpstreamClient({ maxRetries: 0, maxResponseBytes: 10, timeoutMs: 200 });
    const large = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end(`"${'x'.repeat(100)}"`);
    script = [large, large];
    for (const path of ['/thing', '/a/../thing']) {
      const outcome = await small.send({ method: 'GET', url: baseUrl + path, headers: {} });
      expect('error' in outcome && outcome.error.message).toContain('larger than');
    }
    script = [(res) => setTimeout(() => res.writeHead(200).end('late'), 1_000), (res) => setTimeout(() => res.writeHead(200).end('late'), 1_000)];
    for (const path of ['/thing', '/a/../thing']) {
      const outcome = await small.send({ method: 'GET', url: baseUrl + path, headers: {} });
      expect('error' in outcome && outcome.error.kind).toBe('NETWORK_TRANSPORT_RUNTIME_TIMEOUT');
    }
    await small.close();
  });

  it('times out a slow upstream as a retryable timeout', async () => {
    script = [() => {}, () => {}, () => {}];
    const outcome = await send('GET');
    expect('error' in outcome && outcome.error).toMatchObject({ kind: 'NETWORK_TRANSPORT_RUNTIME_TIMEOUT', can_retry: true });
    expect(received).toHaveLength(3);
  });

  it('reports an unreachable upstream', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const outcome = await client.send({ method: 'POST', url: `http://127.0.0.1:${port}/x`, headers: {} });
    expect('error' in outcome && outcome.error).toMatchObject({ kind: 'NETWORK_TRANSPORT_RUNTIME_UNREACHABLE', can_retry: true });
  });

  it('repeats a POST whose connection was refused, which cannot have acted, and reaches the upstream once it listens', async () => {
    const late = createServer((req, res) => {
      received.push({ method: req.method!, url: req.url! });
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"created":true}');
    });
    await new Promise<void>((resolve) => late.listen(0, '127.0.0.1', resolve));
    const port = (late.address() as AddressInfo).port;
    await new Promise<void>((resolve) => late.close(() => resolve()));
    // The first attempt is refused at once; the upstream listens during the backoff before the second.
    const patient = new UpstreamClient({ retryBaseDelayMs: 400, maxRetries: 2, timeoutMs: 2_000 });
    const sent = patient.send({ method: 'POST', url: `http://127.0.0.1:${port}/x`, headers: {} });
    setTimeout(() => late.listen(port, '127.0.0.1'), 150);
    const outcome = await sent;
    late.close();
    expect('response' in outcome && outcome.response).toMatchObject({ status: 201, body: { created: true } });
    expect(received).toEqual([{ method: 'POST', url: '/x' }]);
  });

  it('never repeats a POST that may have reached the upstream', async () => {
    script = [status(503), status(503)];
    const outcome = await send('POST');
    expect('error' in outcome && outcome.error).toMatchObject({ kind: 'UPSTREAM_RUNTIME_SERVER_ERROR' });
    expect(received).toHaveLength(1);
  });
});

describe('response bodies', () => {
  /** A 200 with the given bytes and content type (none when undefined). */
  const answer = (body: Buffer, contentType?: string) => (res: ServerResponse) =>
    res.writeHead(200, contentType === undefined ? {} : { 'content-type': contentType }).end(body);
  const bodyOf = async (body: Buffer, contentType?: string) => {
    script = [answer(body, contentType)];
    const outcome = await send('GET');
    if (!('response' in outcome)) throw new Error(`failed: ${outcome.error.message}`);
    return outcome.response.body;
  };
  // Not UTF-8 at all: the start of a JPEG (SOI, APP0) and bytes that only make sense as binary.
  const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x80, 0xc3, 0x28, 0xfe, 0xff, 0xd9]);

  it('parses JSON, including +json types, and keeps malformed JSON as text', async () => {
    expect(await bodyOf(Buffer.from('{"name":"Zoë"}'), 'application/json; charset=utf-8')).toEqual({ name: 'Zoë' });
    expect(await bodyOf(Buffer.from('[1,2]'), 'application/vnd.github+json')).toEqual([1, 2]);
    expect(await bodyOf(Buffer.from('{oops'), 'application/json')).toBe('{oops');
  });

  it('decodes textual types as UTF-8, non-ASCII included', async () => {
    const text = 'Grüße, 東京 😀 — naïve';
    for (const type of [
      'text/plain; charset=utf-8',
      'text/html',
      'application/xml',
      'image/svg+xml',
      'application/javascript',
      'application/x-www-form-urlencoded',
    ]) {
      expect(await bodyOf(Buffer.from(text, 'utf8'), type), type).toBe(text);
    }
    expect(await bodyOf(Buffer.from(text, 'utf8'))).toBe(text);
  });

  it('returns binary bodies as base64 whose bytes round-trip exactly', async () => {
    const body = await bodyOf(jpeg, 'image/jpeg');
    expect(body).toEqual({ content_base64: jpeg.toString('base64'), content_type: 'image/jpeg', size_bytes: jpeg.length } satisfies BinaryBody);
    expect(isBinaryBody(body) && Buffer.from(body.content_base64, 'base64').equals(jpeg)).toBe(true);
    // Every byte value, under the generic binary type.
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const generic = await bodyOf(all, 'application/octet-stream');
    expect(isBinaryBody(generic) && Buffer.from(generic.content_base64, 'base64').equals(all)).toBe(true);
  });

  it('treats a body without a content type as text when it is UTF-8, else as binary', async () => {
    expect(await bodyOf(jpeg)).toEqual({ content_base64: jpeg.toString('base64'), content_type: 'application/octet-stream', size_bytes: jpeg.length });
  });

  it('answers an empty body as undefined whatever the type', async () => {
    for (const type of ['application/json', 'image/png', undefined]) expect(await bodyOf(Buffer.alloc(0), type)).toBeUndefined();
  });
});

describe('retryAfterMs', () => {
  it('reads seconds, HTTP dates and reset times', () => {
    expect(retryAfterMs({ 'retry-after': '2' })).toBe(2000);
    expect(retryAfterMs({ 'retry-after': new Date(Date.now() + 5000).toUTCString() })).toBeGreaterThan(3000);
    expect(retryAfterMs({})).toBeUndefined();
  });
});

describe('attempt spans', () => {
  /** A tracer that keeps the name of every span started. */
  const started: string[] = [];
  const tracer = {
    startSpan: (name: string) => {
      started.push(name);
      return { setStatus: () => undefined, setAttribute: () => undefined, setAttributes: () => undefined, end: () => undefined };
    },
  } as unknown as Tracer;

  beforeAll(() => enableTelemetry({ tracer }));
  afterAll(() => disableTelemetry());

  it('records each attempt unless the client is told its caller records them', async () => {
    await send('GET', '/recorded');
    runLater();
    expect(started).toEqual(['GET']);
    const unrecorded = new UpstreamClient({ recordAttempts: false });
    await unrecorded.send({ method: 'GET', url: `${baseUrl}/unrecorded`, headers: {} });
    await unrecorded.close();
    runLater();
    expect(started).toEqual(['GET']);
    expect(received.map((request) => request.url)).toEqual(['/recorded', '/unrecorded']);
  });
});
