/**
 * A round-robin HTTP load balancer on loopback, in front of several engine processes, for the replica
 * test. It behaves as a careful real one does (nginx's defaults, a Kubernetes Service's readiness):
 *
 * - each request goes to the next engine in turn among those whose `GET /v1/ready` last answered 200
 *   (polled every `readinessMs`); when none does, to any of them;
 * - it goes to the next engine when the attempt could not be delivered: the connection was refused, or the
 *   engine answered 503 `shutting_down` (a draining engine's answer: it did nothing with the request);
 * - when a connection ends before any byte of the answer, an idempotent request (GET, HEAD, OPTIONS, PUT,
 *   DELETE) goes to the next engine too, but any other is answered 502: the engine may have acted on it
 *   (run a tool, scheduled an execution), and sending it again could do it twice;
 * - every other answer, errors included, is passed on as it is.
 *
 * One connection per attempt (no keep-alive to the engines), so that a connection that ends always says
 * something about the engine, never about an idle socket it closed earlier. Every request answered is
 * logged with its attempts: which engine, when sent, when ended, and how.
 */
import { once } from 'node:events';
import { Agent, createServer, request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

export interface Attempt {
  /** The engine tried: its index in the proxy's list. */
  engine: number;
  sentAt: number;
  endedAt: number;
  /** The engine's status, when it answered whole. */
  status?: number;
  /** Why it did not: `refused` (no connection), `lost` (ended before any byte of an answer), `cut` (ended mid-answer). */
  error?: 'refused' | 'lost' | 'cut';
}

export interface Proxied {
  id: number;
  method: string;
  path: string;
  attempts: Attempt[];
  /** The status the client was answered (502 when no engine answered). */
  status: number;
}

export interface RoundRobinProxy {
  url: string;
  /** Whether each engine took traffic when last polled. */
  ready: boolean[];
  /** Every request answered, by its id (the answer's `x-proxy-request` field). */
  log: Map<number, Proxied>;
  close(): Promise<void>;
}

export interface ProxyOptions {
  /** How often readiness is polled, in ms. */
  readinessMs?: number;
  /** false: no attempt goes to another engine (to see a test fail without the balancer's help). */
  retry?: boolean;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'content-length', 'host']);

type Outcome = { status: number; headers: IncomingHttpHeaders; body: Buffer } | { error: 'refused' | 'lost' | 'cut' };

export async function startRoundRobinProxy(engines: string[], options: ProxyOptions = {}): Promise<RoundRobinProxy> {
  const { readinessMs = 100, retry = true } = options;
  const agent = new Agent({ keepAlive: false });
  const ready = engines.map(() => true);
  const log = new Map<number, Proxied>();
  let turn = 0;
  let ids = 0;

  /** The engines to try for one request, in order: the ready ones from the next in turn, else all. */
  const order = () => {
    const start = turn++ % engines.length;
    const rotation = engines.map((_, i) => (start + i) % engines.length);
    const readyOnes = rotation.filter((i) => ready[i]);
    return readyOnes.length ? readyOnes : rotation;
  };

  const attempt = (engine: string, method: string, path: string, headers: IncomingHttpHeaders, body: Buffer) =>
    new Promise<Outcome>((resolve) => {
      let connected = false;
      let answering = false;
      const outgoing = request(new URL(path, engine), { method, headers, agent }, (answer: IncomingMessage) => {
        answering = true;
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(chunks) }));
        answer.on('error', () => resolve({ error: 'cut' }));
        answer.on('aborted', () => resolve({ error: 'cut' }));
      });
      outgoing.on('socket', (socket) => socket.once('connect', () => (connected = true)));
      outgoing.on('error', () => resolve({ error: answering ? 'cut' : connected ? 'lost' : 'refused' }));
      outgoing.end(body);
    });

  /** Whether the next engine may be tried after this outcome: the engine did nothing with the request. */
  const undelivered = (method: string, outcome: Outcome) => {
    if ('error' in outcome) return outcome.error === 'refused' || (outcome.error === 'lost' && IDEMPOTENT.has(method));
    if (outcome.status !== 503) return false;
    try {
      return JSON.parse(outcome.body.toString()).name === 'shutting_down';
    } catch {
      return false;
    }
  };

  const server = createServer(async (incoming, reply) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const method = incoming.method ?? 'GET';
    const path = incoming.url ?? '/';
    const headers: IncomingHttpHeaders = {};
    for (const [name, value] of Object.entries(incoming.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
    headers['content-length'] = String(body.length);

    const proxied: Proxied = { id: ++ids, method, path, attempts: [], status: 502 };
    let outcome: Outcome = { error: 'refused' };
    for (const engine of order()) {
      const sentAt = Date.now();
      outcome = await attempt(engines[engine]!, method, path, headers, body);
      proxied.attempts.push({ engine, sentAt, endedAt: Date.now(), ...('error' in outcome ? { error: outcome.error } : { status: outcome.status }) });
      if (!retry || !undelivered(method, outcome)) break;
    }
    log.set(proxied.id, proxied);
    const mark = { 'x-proxy-request': String(proxied.id), 'x-proxy-engine': String(proxied.attempts.at(-1)?.engine) };
    if ('error' in outcome) {
      const text = JSON.stringify({ name: 'bad_gateway', message: `no engine answered (${outcome.error})` });
      reply.writeHead(502, { ...mark, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
    } else {
      proxied.status = outcome.status;
      const answerHeaders: Record<string, string | string[]> = { ...mark, 'content-length': String(outcome.body.length) };
      for (const [name, value] of Object.entries(outcome.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) answerHeaders[name] = value;
      reply.writeHead(outcome.status, answerHeaders).end(outcome.body);
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');

  // Readiness, polled without overlap: 200 is ready; a 503, a refused connection or no answer within 2 s is not.
  let polling = true;
  const poll = (async () => {
    while (polling) {
      await Promise.all(
        engines.map(async (engine, i) => {
          try {
            const answer = await fetch(`${engine}/v1/ready`, { signal: AbortSignal.timeout(2_000) });
            await answer.arrayBuffer();
            ready[i] = answer.status === 200;
          } catch {
            ready[i] = false;
          }
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, readinessMs));
    }
  })();

  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    ready,
    log,
    async close() {
      polling = false;
      await poll;
      server.closeAllConnections();
      server.close();
      agent.destroy();
    },
  };
}
