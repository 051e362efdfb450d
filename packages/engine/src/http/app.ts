/**
 * The engine's HTTP API (Fastify). Each route declares its schemas, which validate requests and
 * make up the OpenAPI document at /v1/openapi. Every route needs an API key unless it says `public`.
 */
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Engine } from '../engine.js';
import { HttpError } from './errors.js';

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
    ...options,
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Quiver engine API', version: '1.0.0', description: 'Tools, executions, OAuth, secrets and workers.' },
      components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An API key (quiver keys create).' } } },
      security: [{ apiKey: [] }],
    },
  });

  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config?.public) return;
    const key = apiKeyOf(request.headers.authorization);
    const id = key ? await engine.apiKeys.verify(key) : undefined;
    if (!id) throw new HttpError(401, 'unauthorized', key ? 'Unknown or revoked API key.' : 'An API key is required: Authorization: Bearer <key>.');
    request.apiKeyId = id;
  });

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string; validation?: unknown }, request, reply) => {
    if (error instanceof HttpError) return reply.status(error.statusCode).send({ name: error.code, message: error.message });
    if (error.validation) return reply.status(400).send({ name: 'bad_request', message: error.message });
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, 'unhandled error');
    return reply.status(status).send({ name: status === 500 ? 'internal_error' : 'bad_request', message: status === 500 ? 'Internal error.' : error.message });
  });

  app.setNotFoundHandler((request, reply) => reply.status(404).send({ name: 'not_found', message: `No route ${request.method} ${request.url.split('?')[0]}` }));

  for (const register of routes) await register(app, engine);
  return app;
}

/** `Bearer <key>`, or the raw key. */
function apiKeyOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  return (match?.[1] ?? header).trim() || undefined;
}
