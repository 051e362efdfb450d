/**
 * Fault injection: every tool call below goes through the dispatcher to a loopback upstream that misbehaves
 * in one of the ways real upstreams do, for each HTTP method. The upstream counts what reaches it, so the
 * suite proves that a call that may create something (POST, PATCH) is never sent twice, that safe calls are
 * retried within one deadline, and that every fault ends in a clear result rather than a crash or a hang.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineToolkit, localDispatcher, UpstreamClient, type Dispatcher, type HttpMethod, type ToolResult } from '../src/index.js';

type Serve = (req: IncomingMessage, res: ServerResponse, attempt: number) => void;

/** The faults, each as what the upstream does with the n-th request of a call (0-based). */
const faults: Record<string, Serve> = {
  hang: () => {},
  'reset before the request is read': (req) => req.socket.destroy(),
  'reset after the request is read': (req) => req.on('end', () => req.socket.destroy()).resume(),
  '5xx then 2xx': (_req, res, attempt) => (attempt === 0 ? json(res, 503, { message: 'try later' }) : json(res, 200, { ok: true })),
  '429 with Retry-After then 2xx': (_req, res, attempt) =>
    attempt === 0 ? json(res, 429, { message: 'slow down' }, { 'retry-after': '0.05' }) : json(res, 200, { ok: true }),
  'an oversized body': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    // Twice the client's limit, streamed in pieces: the client must stop reading, not buffer it all.
    const piece = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const more = () => {
      while (sent < 2 * LIMIT) {
        sent += piece.length;
        if (!res.write(piece)) return void res.once('drain', more);
      }
      res.end();
    };
    res.on('error', () => {});
    more();
  },
  'a body that trickles in': (_req, res) => {
    // A byte every 50 ms never trips the idle timeout between chunks: only the attempt's own deadline ends it.
    res.writeHead(200, { 'content-type': 'application/json' }).write('[');
    const drip = setInterval(() => res.write(' '), 50);
    res.on('close', () => clearInterval(drip));
  },
  'invalid JSON': (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"unterminated": '),
  'a redirect to another host': (_req, res) => res.writeHead(302, { location: `${elsewhere}/stolen` }).end(),
};

const LIMIT = 256 * 1024;
const methods: HttpMethod[] = ['GET', 'PUT', 'DELETE', 'POST', 'PATCH'];
const creates = (method: HttpMethod) => method === 'POST' || method === 'PATCH';

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

let fault: Serve = faults.hang!;
let received = 0;
/** The thing the scenario under way calls for: a request of an earlier one that arrives late is not counted. */
let scenario = 0;
const sockets = new Set<Socket>();
const upstream = createServer((req, res) => (req.url === `/things/thing-${scenario}` ? fault(req, res, received++) : req.socket.destroy()));
upstream.on('connection', (socket) => sockets.add(socket).size && socket.on('close', () => sockets.delete(socket)));

/** Where the redirect points; it must never be reached, with or without the credential. */
let elsewhereHits = 0;
const other = createServer((_req, res) => {
  elsewhereHits++;
  json(res, 200, { stolen: true });
});
let baseUrl = '';
let elsewhere = '';

const tools = methods.map((method) => ({
  name: `Call${method}`,
  description: `A ${method} call.`,
  parameters: [{ name: 'id', description: 'id', required: true, schema: { type: 'string' }, in: 'path' as const }],
  output: { description: 'The answer.' },
  requirements: { secrets: [{ key: 'FAULTS_KEY' }] },
  http: { method, path: '/things/{id}', auth: { secret: 'FAULTS_KEY' } },
}));
const toolkit = defineToolkit({ name: 'Faults', version: '1', description: 'A misbehaving upstream.', baseUrl: '', tools });
const DEADLINE_MS = 900;
// Six attempts of 250 ms would take 1.5 s: the deadline must end a hung call after 0.9 s whatever the retries allow.
// It leaves room for a second attempt even where a busy machine wakes the first attempt's timer 0.6 s late.
const MAX_RETRIES = 5;
const client = new UpstreamClient({
  timeoutMs: 250,
  deadlineMs: DEADLINE_MS,
  maxRetries: MAX_RETRIES,
  retryBaseDelayMs: 5,
  maxResponseBytes: LIMIT,
  maxRetryAfterMs: 1_000,
  // The scenarios follow each other at once with one credential: a call waits out the Retry-After that the
  // previous call's 429 left on the credential's budget (as long as a retry may wait), so that each reaches the upstream.
  budgetWaitMs: 1_000,
});
let runtime: Dispatcher;

beforeAll(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  elsewhere = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  runtime = localDispatcher([toolkit], { client, baseUrls: { Faults: baseUrl }, secrets: { FAULTS_KEY: 'faults-secret-key' } });
});
afterAll(async () => {
  await client.close();
  for (const socket of sockets) socket.destroy();
  await Promise.all([upstream, other].map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});

/** One call under one fault: its result, how many requests reached the upstream, and how long it took. */
async function underFault(name: string, method: HttpMethod): Promise<{ result: ToolResult; requests: number; ms: number }> {
  fault = faults[name]!;
  received = 0;
  scenario++;
  const started = Date.now();
  const result = await runtime.call(`Faults.Call${method}`, { id: `thing-${scenario}` });
  return { result, requests: received, ms: Date.now() - started };
}

const figures = { scenarios: 0, duplicated: 0 };

describe.each(Object.keys(faults))('under %s', (name) => {
  it.each(methods)('%s ends in a clear result, within the deadline, never sent twice when it creates', async (method) => {
    const { result, requests, ms } = await underFault(name, method);
    figures.scenarios++;
    if (creates(method)) figures.duplicated += Math.max(0, requests - 1);

    expect(requests).toBeGreaterThanOrEqual(1);
    if (creates(method)) expect(requests, `${method} sent ${requests} times`).toBe(1);
    // The deadline covers every attempt and wait (the margin is for a busy machine, not for more attempts).
    expect(ms).toBeLessThan(2 * DEADLINE_MS);
    expect(JSON.stringify(result)).not.toContain('faults-secret-key');
    if ('error' in result) {
      expect(result.error.kind).not.toBe('TOOL_RUNTIME_FATAL');
      expect(result.error.message.length).toBeGreaterThan(0);
      expect(result.error.stacktrace).toBeUndefined();
    }
    expectations[name]!(method, result, requests);
  });
});

const error = (result: ToolResult) => {
  if (!('error' in result)) throw new Error(`expected an error, got ${JSON.stringify(result.value)}`);
  return result.error;
};
const value = (result: ToolResult) => {
  if ('error' in result) throw new Error(`expected a value, got ${result.error.kind}: ${result.error.message}`);
  return result.value;
};
const mayHaveActed = /may have reached the upstream service and taken effect: check before sending it again/;

/** A call the upstream never finishes answering: a timeout, retried within the deadline only where it is safe. */
function timesOut(method: HttpMethod, result: ToolResult, requests: number): void {
  expect(error(result)).toMatchObject({ kind: 'NETWORK_TRANSPORT_RUNTIME_TIMEOUT', can_retry: !creates(method) });
  if (creates(method)) expect(error(result).message).toMatch(mayHaveActed);
  else expect(error(result).message).toMatch(/deadline, every attempt included, leaves no time for another attempt \(\d attempts made\)/);
  if (!creates(method)) expect(requests).toBeGreaterThan(1);
}

const expectations: Record<string, (method: HttpMethod, result: ToolResult, requests: number) => void> = {
  hang: timesOut,
  'a body that trickles in': timesOut,
  'reset before the request is read': (method, result, requests) => {
    expect(error(result)).toMatchObject({ kind: 'NETWORK_TRANSPORT_RUNTIME_UNREACHABLE', can_retry: !creates(method) });
    if (!creates(method)) expect(requests).toBe(MAX_RETRIES + 1);
  },
  'reset after the request is read': (method, result, requests) => {
    expect(error(result)).toMatchObject({ kind: 'NETWORK_TRANSPORT_RUNTIME_UNREACHABLE', can_retry: !creates(method) });
    if (creates(method)) expect(error(result).message).toMatch(mayHaveActed);
    else expect(requests).toBe(MAX_RETRIES + 1);
  },
  '5xx then 2xx': (method, result, requests) => {
    if (creates(method)) {
      expect(error(result)).toMatchObject({ kind: 'UPSTREAM_RUNTIME_SERVER_ERROR', can_retry: false, status_code: 503 });
      expect(error(result).message).toMatch(mayHaveActed);
    } else {
      expect(value(result)).toEqual({ ok: true });
      expect(requests).toBe(2);
    }
  },
  '429 with Retry-After then 2xx': (method, result, requests) => {
    // A rate limit means the upstream did nothing: safe to repeat, after the wait it asked for.
    if (creates(method)) expect(error(result)).toMatchObject({ kind: 'UPSTREAM_RUNTIME_RATE_LIMIT', can_retry: true, retry_after_ms: 50 });
    else {
      expect(value(result)).toEqual({ ok: true });
      expect(requests).toBe(2);
    }
  },
  'an oversized body': (_method, result, requests) => {
    expect(error(result)).toMatchObject({ kind: 'UPSTREAM_RUNTIME_BAD_REQUEST', can_retry: false });
    expect(error(result).message).toContain('larger than the 0.3 MB limit, so it was cut off');
    expect(requests).toBe(1);
  },
  'invalid JSON': (_method, result) => {
    expect(value(result)).toBe('{"unterminated": ');
  },
  'a redirect to another host': (_method, result, requests) => {
    expect(value(result)).toEqual({ status: 302, location: `${elsewhere}/stolen` });
    expect(requests).toBe(1);
    expect(elsewhereHits).toBe(0);
  },
};

describe('the figures', () => {
  it('every scenario ran and no call that creates was sent twice', () => {
    expect(figures.scenarios).toBe(Object.keys(faults).length * methods.length);
    expect(figures.duplicated).toBe(0);
  });
});
