/**
 * What stands between the conformance suite and Quiver. The suite speaks streamable HTTP only, and sends no
 * credentials, so:
 * - `startAuthProxy`: in front of the engine's `/v1/mcp`, each request passes unchanged (Host and Origin
 *   included, which the DNS-rebinding scenario sets) with `Authorization: Bearer <key>` and the acting
 *   user's `Quiver-User-ID` added, and each answer streams back as it comes;
 * - `startStdioBridge`: the narrowest HTTP endpoint in front of `quiver mcp`, relaying JSON-RPC lines.
 *   2025 era: an `initialize` starts a `quiver mcp` process of its own (a stdio connection is one session)
 *   and is given an `Mcp-Session-Id` naming it; the session's later messages go to that process, a DELETE
 *   ends it. 2026-07-28 (no session): the messages go to one process, as one client's requests over one
 *   connection, opened in that revision (see `probe`), with request ids made unique across the HTTP
 *   requests; a message naming another revision goes to a process of that revision's own, since over HTTP
 *   each request is judged by itself while a stdio connection keeps the revision it opened with. A request
 *   whose HTTP response the client closes is cancelled (`notifications/cancelled`), and a subscription's
 *   notifications go to the stream of its `subscriptions/listen`.
 *   An answer is JSON, or an event stream when the process sends anything (a notification, a request of its
 *   own) before it; progress goes to the request that asked for it, other messages to the latest request
 *   open, and what the process sends while none is open is dropped (a GET, which would open a stream for
 *   it, is 405). The bridge checks no header and answers no HTTP status of the protocol's: the HTTP
 *   binding's scenarios and checks would test the bridge, not Quiver, and are not held against `quiver mcp`
 *   (see suite.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, request as httpRequest, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';

export interface Loopback {
  /** The endpoint to give the suite. */
  url: string;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A loopback HTTP proxy to `target` (an origin) adding `headers` to every request; the suite's path is kept. */
export async function startAuthProxy(target: string, headers: Record<string, string>, path = '/v1/mcp'): Promise<Loopback> {
  const origin = new URL(target);
  const server = createServer((request, response) => {
    const upstream = httpRequest(
      { host: origin.hostname, port: origin.port, method: request.method, path: request.url, headers: { ...request.headers, ...headers } },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
        response.on('close', () => answer.destroy());
      },
    );
    upstream.on('error', (error) => {
      if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' });
      response.end(`proxy: ${error.message}`);
    });
    // The client gone before the answer's end (a stream it stopped reading): the engine's request ends too.
    response.on('close', () => {
      if (!response.writableFinished) upstream.destroy();
    });
    request.pipe(upstream);
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}${path}`, close: () => closeServer(server) };
}

type Id = string | number;
type Message = {
  jsonrpc?: string;
  id?: Id | null;
  method?: string;
  params?: { _meta?: Record<string, unknown> } & Record<string, unknown>;
  result?: unknown;
  error?: unknown;
};

const isRequest = (message: Message) => typeof message.method === 'string' && message.id !== undefined;
const isResponse = (message: Message) => message.method === undefined && ('result' in message || 'error' in message);
const validId = (id: unknown): id is Id => typeof id === 'string' || typeof id === 'number';
const modernRevision = '2026-07-28';
/** Where a 2026-07-28 request names its revision (its per-request `_meta`), and a subscription's notification its subscription. */
const revisionKey = 'io.modelcontextprotocol/protocolVersion';
const subscriptionKey = 'io.modelcontextprotocol/subscriptionId';
const probeId = 'quiver-conformance-bridge-probe';
const revisionNamed = (message: Message) => message.params?._meta?.[revisionKey];
/** The revision sessionless messages name; one naming none goes with the 2026-07-28 requests. */
const revisionOf = (messages: Message[]): string =>
  (messages.map(revisionNamed).find((version) => typeof version === 'string') as string | undefined) ?? modernRevision;

/** One POST: the requests it carries, answered on its HTTP response once every one has its answer. */
class Exchange {
  private readonly awaiting = new Set<Id | null>();
  private readonly answers: Message[] = [];
  private streaming = false;
  done = false;
  /** Progress tokens of its requests: progress notifications go to the exchange that asked for them. */
  readonly progressTokens = new Set<unknown>();

  constructor(
    private readonly response: ServerResponse,
    private readonly batch: boolean,
    private readonly acceptsStream: boolean,
    private readonly onDone: () => void,
  ) {}

  expect(id: Id | null): void {
    this.awaiting.add(id);
  }

  awaits(id: Id | null): boolean {
    return this.awaiting.has(id);
  }

  /** A message for the client: an answer to one of its requests, or something sent before the answers. */
  deliver(message: Message): void {
    if (this.done) return;
    const answer = isResponse(message) && this.awaiting.delete(message.id ?? null);
    if (!answer && !this.streaming) {
      // Something before the answers: the answer becomes an event stream, where the client takes it.
      if (!this.acceptsStream) return;
      this.streaming = true;
      this.response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    }
    if (this.streaming) this.response.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    else this.answers.push(message);
    if (this.awaiting.size === 0) this.finish();
  }

  /** The client went away: nothing more is written. */
  abandon(): void {
    if (this.done) return;
    this.done = true;
    this.onDone();
  }

  /** Ends the exchange: its answers as JSON (or the end of its stream); a failure where no answer came. */
  finish(failure?: { status: number; message: string }): void {
    if (this.done) return;
    this.done = true;
    if (this.streaming) this.response.end();
    else if (failure && !this.answers.length)
      this.response
        .writeHead(failure.status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: failure.message } }));
    else this.response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(this.batch ? this.answers : this.answers[0]));
    this.onDone();
  }
}

/** One `quiver mcp` process: one stdio connection. */
class StdioConnection {
  private readonly child: ChildProcess;
  private readonly open: Exchange[] = [];
  /** With `rewriteIds`, each request's id in the process, and the exchange and id it came with. */
  private readonly outgoing = new Map<number, { exchange: Exchange; id: Id }>();
  private nextId = 1;
  readonly exited: Promise<void>;
  private exitedAlready = false;
  /** The last lines the process wrote on its standard error, the last one for a failure's message. */
  readonly stderr: string[] = [];
  lastUse = Date.now();

  constructor(
    command: StdioCommand,
    private readonly rewriteIds: boolean,
  ) {
    this.child = spawn(command.command, command.args, { env: command.env, cwd: command.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdin!.on('error', () => {});
    createInterface({ input: this.child.stdout! }).on('line', (line) => this.received(line));
    createInterface({ input: this.child.stderr! }).on('line', (line) => {
      this.stderr.push(line);
      if (this.stderr.length > 20) this.stderr.shift();
    });
    this.exited = new Promise((resolve) => {
      const ended = (how: string) => {
        this.exitedAlready = true;
        const said = this.stderr.at(-1);
        for (const exchange of this.open.splice(0)) exchange.finish({ status: 502, message: `quiver mcp ${how} before answering${said ? `: ${said}` : ''}` });
        resolve();
      };
      this.child.once('exit', (code, signal) => ended(`exited (${signal ?? code})`));
      this.child.once('error', (error) => ended(`did not start (${error.message})`));
    });
  }

  get alive(): boolean {
    return !this.exitedAlready;
  }

  get busy(): boolean {
    return this.open.some((exchange) => !exchange.done);
  }

  /** Sends a POST's messages; the exchange is answered as the process answers. */
  send(messages: Message[], exchange: Exchange): void {
    this.lastUse = Date.now();
    const requests = messages.filter(isRequest);
    for (const message of messages) {
      let line = message;
      if (isRequest(message)) {
        const token = message.params?._meta?.progressToken;
        if (token !== undefined) exchange.progressTokens.add(token);
        if (this.rewriteIds && validId(message.id)) {
          const id = this.nextId++;
          this.outgoing.set(id, { exchange, id: message.id });
          line = { ...message, id };
          exchange.expect(message.id);
        } else exchange.expect(validId(message.id) ? message.id : null);
      }
      this.child.stdin!.write(`${JSON.stringify(line)}\n`);
    }
    if (requests.length) this.open.push(exchange);
  }

  /**
   * Opens the connection in the 2026-07-28 revision: a `server/discover`, as a client of both eras opens
   * a stdio connection, then a `tools/list`, since on stdio the first request after the discovery is what
   * settles the connection's revision (their answers are not passed on). A later request without the
   * per-request `_meta` is then answered as the modern server answers it, as over HTTP, rather than taken
   * for the opening of a 2025 connection.
   */
  probe(): void {
    const _meta = {
      [revisionKey]: modernRevision,
      'io.modelcontextprotocol/clientInfo': { name: 'quiver-conformance-bridge', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    for (const [n, method] of ['server/discover', 'tools/list'].entries())
      this.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id: `${probeId}-${n}`, method, params: { _meta } })}\n`);
  }

  private received(line: string): void {
    let message: Message;
    try {
      message = JSON.parse(line) as Message;
    } catch {
      return;
    }
    if (isResponse(message) && typeof message.id === 'string' && message.id.startsWith(probeId)) return;
    this.lastUse = Date.now();
    const open = this.open.filter((exchange) => !exchange.done);
    this.open.splice(0, this.open.length, ...open);
    if (isResponse(message)) {
      if (this.rewriteIds && typeof message.id === 'number' && this.outgoing.has(message.id)) {
        const { exchange, id } = this.outgoing.get(message.id)!;
        this.outgoing.delete(message.id);
        exchange.deliver({ ...message, id });
        return;
      }
      // An id the process did not get from us (null, for a message it could not read): the oldest exchange waiting for such.
      const owner = open.find((exchange) => exchange.awaits(message.id ?? null)) ?? open.find((exchange) => exchange.awaits(null));
      owner?.deliver(message);
      return;
    }
    // A subscription's notification (2026-07-28) names it by the id of its `subscriptions/listen` request.
    const subscription = message.params?._meta?.[subscriptionKey];
    if (this.rewriteIds && typeof subscription === 'number' && this.outgoing.has(subscription)) {
      const { exchange, id } = this.outgoing.get(subscription)!;
      exchange.deliver({ ...message, params: { ...message.params, _meta: { ...message.params!._meta, [subscriptionKey]: id } } });
      return;
    }
    // A notification or a request of the server's own: on the stream of the request it relates to, or the latest one open.
    const token = message.method === 'notifications/progress' ? message.params?.progressToken : undefined;
    const owner = (token !== undefined && open.find((exchange) => exchange.progressTokens.has(token))) || open.at(-1);
    owner?.deliver(message);
  }

  /**
   * The client went away before its answers: on the shared connection, where a closed request is the only
   * way a 2026-07-28 client has to end one (a subscription's stream, say), its requests are cancelled.
   */
  abandon(exchange: Exchange): void {
    exchange.abandon();
    if (!this.rewriteIds || !this.alive) return;
    for (const [id, sent] of this.outgoing) {
      if (sent.exchange !== exchange) continue;
      this.outgoing.delete(id);
      this.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } })}\n`);
    }
  }

  /** Ends the connection as a client does: standard input closed, then a signal if the process lingers. */
  async close(): Promise<void> {
    if (!this.alive) return;
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await this.exited;
    clearTimeout(timer);
  }
}

export interface StdioCommand {
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export interface StdioBridgeOptions {
  /** Sessions kept at once; the least recently used (and idle) is ended beyond it. */
  maxSessions?: number;
  /** Processes kept started ahead of the sessions that will take them (after the first session). */
  spareCount?: number;
  /** An exchange without its answers by then is ended (504). */
  exchangeTimeoutMs?: number;
}

/** An HTTP endpoint in front of `quiver mcp` (see above). */
export async function startStdioBridge(command: StdioCommand, options: StdioBridgeOptions = {}): Promise<Loopback & { processes(): number }> {
  const { maxSessions = 4, spareCount = 2, exchangeTimeoutMs = 60_000 } = options;
  const sessions = new Map<string, StdioConnection>();
  /** The connections of the 2026-07-28 era, by the revision their requests name (see `revisionOf`). */
  const shared = new Map<string, StdioConnection>();
  /** Processes started ahead for the next sessions, since one takes a second or more to start. */
  const spares: StdioConnection[] = [];
  let started = 0;
  let closing = false;

  const connect = (rewriteIds: boolean) => {
    started++;
    return new StdioConnection(command, rewriteIds);
  };
  const takeSpare = () => {
    let taken = spares.shift();
    while (taken && !taken.alive) taken = spares.shift();
    while (!closing && spares.length < spareCount) spares.push(connect(false));
    return taken ?? connect(false);
  };
  const endSession = (id: string) => {
    const connection = sessions.get(id);
    sessions.delete(id);
    return connection?.close();
  };
  const trimSessions = () => {
    const idle = [...sessions].filter(([, connection]) => !connection.busy).sort(([, a], [, b]) => a.lastUse - b.lastUse);
    while (sessions.size > maxSessions && idle.length) void endSession(idle.shift()![0]);
  };

  const reply = (response: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) => {
    if (body === undefined) response.writeHead(status, headers).end();
    else response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
  const rpcError = (code: number, message: string) => ({ jsonrpc: '2.0', id: null, error: { code, message } });

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const sessionId = header(request.headers, 'mcp-session-id');
    if (request.method === 'DELETE') {
      if (!sessionId || !sessions.has(sessionId)) return reply(response, 404, rpcError(-32001, 'Session not found'));
      await endSession(sessionId);
      return reply(response, 200);
    }
    if (request.method !== 'POST') return reply(response, 405, rpcError(-32000, 'Method not allowed.'), { allow: 'POST, DELETE' });
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return reply(response, 400, rpcError(-32700, 'Parse error'));
    }
    const messages = [body].flat() as Message[];
    if (!messages.length || messages.some((message) => message === null || typeof message !== 'object'))
      return reply(response, 400, rpcError(-32600, 'Invalid Request'));

    let connection: StdioConnection;
    const headers: Record<string, string> = {};
    if (sessionId) {
      const found = sessions.get(sessionId);
      if (!found?.alive) return reply(response, 404, rpcError(-32001, 'Session not found'));
      connection = found;
    } else if (messages.some((message) => message.method === 'initialize') && !messages.some((message) => typeof revisionNamed(message) === 'string')) {
      connection = takeSpare();
      const id = randomUUID();
      sessions.set(id, connection);
      headers['mcp-session-id'] = id;
      trimSessions();
    } else {
      const revision = revisionOf(messages);
      let found = shared.get(revision);
      if (!found?.alive) {
        found = connect(true);
        if (revision === modernRevision) found.probe();
        shared.set(revision, found);
      }
      connection = found;
    }

    if (!messages.some(isRequest)) {
      connection.send(messages, new Exchange(response, false, false, () => {}));
      return reply(response, 202, undefined, headers);
    }
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    const accept = header(request.headers, 'accept') ?? '';
    let timer: NodeJS.Timeout | undefined;
    const exchange = new Exchange(response, Array.isArray(body), accept.includes('text/event-stream'), () => clearTimeout(timer));
    timer = setTimeout(() => exchange.finish({ status: 504, message: `quiver mcp did not answer within ${exchangeTimeoutMs} ms` }), exchangeTimeoutMs);
    response.on('close', () => {
      if (!exchange.done) connection.abandon(exchange);
    });
    connection.send(messages, exchange);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: Error) => {
      if (!response.headersSent) reply(response, 500, rpcError(-32603, error.message));
      else response.end();
    });
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    processes: () => started,
    async close() {
      closing = true;
      await closeServer(server);
      const all = [...sessions.values(), ...shared.values(), ...spares.splice(0)];
      sessions.clear();
      await Promise.all(all.map((connection) => connection.close()));
    },
  };
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) || undefined;
}
