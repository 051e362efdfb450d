/**
 * The engine's HTTP API (Fastify). Each route declares its schemas, which validate requests and
 * make up the OpenAPI document at /v1/openapi. Every route needs an API key unless it says `public`.
 */
import swagger from '@fastify/swagger';
import { telemetry, traceFields } from '@quiver/core';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Engine } from '../engine.js';
import type { ApiKeyIdentity } from '../security/api-keys.js';
import { Problem } from '../errors.js';
import { checkRole } from './access.js';
import { installAudit } from './audit.js';
import { bearerToken } from './bearer-token.js';
import { installErrorHandling } from './errors.js';
import { installInFlight } from './in-flight.js';
import { enforce } from './limits.js';
import { OriginPolicy } from './origin.js';
import { observeRequests, RequestLog } from './telemetry.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Reachable without an API key. */
    public?: boolean;
  }
  interface FastifyRequest {
    apiKeyId?: string;
  }
}

/** A group of routes; each module in ./routes exports one. */
export type Routes = (app: FastifyInstance, engine: Engine) => void | Promise<void>;

export async function buildApp(engine: Engine, routes: Routes[], options: FastifyServerOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true } },
    // request.ip is the client's address: the peer's, or the one a trusted proxy forwards for.
    ...(engine.config.trustedProxies.length && { trustProxy: engine.config.trustedProxies }),
    ...options,
    ...(options.logger && {
      // One line a request, once it is answered, instead of Fastify's two.
      logController: new RequestLog(),
      logger: {
        ...(options.logger === true ? {} : options.logger),
        serializers: { req: loggedRequest },
        // Every line written while a span is active names its trace (a tool call's line, its span's).
        ...(telemetry.tracer && { mixin: () => traceFields() ?? {} }),
      },
    }),
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Quiver engine API', version: '1.0.0', description: 'Tools, executions, OAuth, secrets and workers.' },
      components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An API key (quiver keys create).' } } },
      security: [{ apiKey: [] }],
    },
  });

  // First of all: a request refused by the hooks below is traced and measured too.
  observeRequests(app);

  // Then the drain: a stopping engine refuses new requests (503) while those in flight finish (http-server.ts).
  installInFlight(app);

  const origins = new OriginPolicy(engine.config);
  // One hook for the origin, the key and the limits (each hook more is a step more on every request), called
  // back rather than async: a known key with no limit to count goes through without a promise.
  app.addHook('onRequest', (request, reply, done) => {
    let waiting: Promise<void> | undefined;
    try {
      waiting = admitRequest(engine, origins, request, reply);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (waiting) waiting.then(() => done(), done);
    else done();
  });

  installErrorHandling(app);
  // Before the routes: it checks each administrative route as it is added, and records what they change.
  installAudit(app, engine);

  for (const register of routes) await register(app, engine);
  return app;
}

/**
 * Lets a request through, or throws (or rejects with) its refusal: the origin, then the key and its role,
 * then the limits. Undefined when nothing is left to wait for; only a key's first request (read from the
 * database) and a counted limit make a promise.
 */
function admitRequest(engine: Engine, origins: OriginPolicy, request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined {
  // Before anything else, public routes included: a page of another site gets nothing from the engine.
  origins.check(request);
  // Read once: Fastify builds `routeOptions` anew on every read.
  const config = request.routeOptions.config;
  if (config?.public) return countAddress(engine, config, request, reply);
  const key = apiKeyOf(request.headers.authorization);
  // A key this process knows is answered without a promise; only a key's first request reads the database.
  const known = key ? engine.apiKeys.knownIdentity(key) : undefined;
  if (known || !key) return admitCaller(engine, config, request, reply, key, known);
  return engine.apiKeys.verify(key).then((caller) => admitCaller(engine, config, request, reply, key, caller));
}

/**
 * Limits (http/limits.ts): a request without a valid key counts against its client address, one with a key
 * against the key; a route that says `limits: false` is not counted here. A quota of 0 counts nothing
 * (WindowLimit.take), so it is not asked at all.
 */
function countAddress(engine: Engine, config: RouteConfig, request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined {
  if (config?.limits === false || engine.limits.settings.addressRpm <= 0) return undefined;
  return enforce(reply, [engine.limits.address(request.ip)]);
}

function admitCaller(
  engine: Engine,
  config: RouteConfig,
  request: FastifyRequest,
  reply: FastifyReply,
  key: string | undefined,
  caller: ApiKeyIdentity | undefined,
): Promise<void> | undefined {
  if (!caller) {
    const refusal = () => {
      throw new Problem('unauthorized', key ? 'Unknown or revoked API key.' : 'An API key is required: Authorization: Bearer <key>.');
    };
    // Keys tried one after another from one address are refused with 429 past its limit.
    const counting = countAddress(engine, config, request, reply);
    return counting ? counting.then(refusal) : refusal();
  }
  request.apiKeyId = caller.id;
  request.caller = caller;
  checkRole(request, config);
  if (config?.limits === false || engine.limits.keyRpm(caller) <= 0) return undefined;
  return enforce(reply, [engine.limits.key(caller)]);
}

/** A route's settings, as the request tells them (none for a request no route serves). */
type RouteConfig = FastifyRequest['routeOptions']['config'] | undefined;

/** `Bearer <key>`, or the raw key. */
function apiKeyOf(header: string | undefined): string | undefined {
  return bearerToken(header) ?? (header?.trim() || undefined);
}

/** Query parameters whose values grant something (an OAuth code, the state that binds it, a verification flow). */
const GRANTING_PARAMETERS = ['code', 'state', 'flow_id', 'session_state', 'id_token', 'access_token'];

/** A request as the log shows it: never a header (keys, tokens), and never the value of a granting parameter. */
export function loggedRequest(request: { method: string; url: string; hostname?: string; ip?: string }) {
  const [path, query] = request.url.split('?', 2) as [string, string | undefined];
  let url = path;
  if (query !== undefined) {
    const params = new URLSearchParams(query);
    for (const name of GRANTING_PARAMETERS) if (params.has(name)) params.set(name, '[redacted]');
    url += `?${params.toString().replaceAll('%5Bredacted%5D', '[redacted]')}`;
  }
  return { method: request.method, url, host: request.hostname, remoteAddress: request.ip };
}
