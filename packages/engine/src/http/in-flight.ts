/**
 * The HTTP side of a stopping engine (http-server.ts drains through it): the requests in flight, which may
 * finish, and the refusal of new ones once the engine takes no more work, with 503 `shutting_down` and the
 * connection closed with the answer, so that a client's next request goes to another process. Liveness and
 * readiness keep answering (alive; not ready) until the server closes.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { shuttingDown } from '../errors.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The requests this server is answering, and whether it still takes new ones. */
    inFlight: InFlight;
  }
}

const PROBES = new Set(['/v1/health', '/v1/ready']);

export class InFlight {
  private readonly open = new Set<ServerResponse>();
  private refusing = false;

  /** Requests being answered now. */
  get count(): number {
    return this.open.size;
  }

  /** Whether a new request is refused; its route (`url`) is asked for only while the engine drains. */
  refuses(url: () => string | undefined): boolean {
    return this.refusing && !PROBES.has(url() ?? '');
  }

  /** A request taken: in flight until its answer is sent, or its connection closes first. */
  track(response: ServerResponse): void {
    this.open.add(response);
    response.on('close', this.forget);
  }

  /** Called on a response as it closes (`this`; a response closes once): one listener for them all, none made per request. */
  private readonly forget: (this: ServerResponse) => void;

  constructor() {
    const open = this.open;
    this.forget = function (this: ServerResponse) {
      open.delete(this);
    };
  }

  /**
   * Takes no new request from now on, and waits up to `ms` for those in flight; how many had not finished
   * by then (the caller cuts their connections).
   */
  async finish(ms: number): Promise<number> {
    this.refusing = true;
    const waiting = [...this.open];
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    });
    await Promise.race([
      Promise.all(waiting.map((response) => new Promise((resolve) => (response.closed ? resolve(0) : response.once('close', resolve))))),
      late,
    ]);
    clearTimeout(timer);
    return waiting.filter((response) => this.open.has(response)).length;
  }
}

/** Counts the server's requests and refuses new ones once it drains; before every other hook but the telemetry's. */
export function installInFlight(app: FastifyInstance): void {
  const inFlight = new InFlight();
  app.decorate('inFlight', inFlight);
  app.server.on('request', (_request, response: ServerResponse) => inFlight.track(response));
  // Called back rather than async: a running engine's requests pay no promise for a check that passes.
  // The route is asked for only while draining (Fastify builds `routeOptions` anew on every read).
  app.addHook('onRequest', (request, _reply, done) => done(inFlight.refuses(() => request.routeOptions.url) ? shuttingDown() : undefined));
}
