/** Starts the engine: database, scheduler, and the HTTP API on the configured address. */
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { authorizationServerRoutes } from './authorization-server/routes.js';
import { buildApp, type Routes } from './http/app.js';
import { activityRoutes } from './http/routes/activity.js';
import { adminAuthRoutes } from './http/routes/admin-auth.js';
import { apiKeyRoutes } from './http/routes/api-keys.js';
import { authRoutes } from './http/routes/auth.js';
import { consoleRoutes } from './http/routes/console.js';
import { healthRoutes } from './http/routes/health.js';
import { mcpRoutes } from './http/routes/mcp.js';
import { meRoutes } from './http/routes/me.js';
import { projectRoutes } from './http/routes/projects.js';
import { sandboxOAuthRoutes } from './http/routes/sandbox-oauth.js';
import { scheduledRoutes } from './http/routes/scheduled.js';
import { secretRoutes } from './http/routes/secrets.js';
import { toolIndexRoutes } from './http/routes/tool-index.js';
import { toolRoutes } from './http/routes/tools.js';
import { workerRoutes } from './http/routes/workers.js';
import { openEngine, type Engine, type EngineOptions } from './engine.js';

/** Every route group of the API. */
export const allRoutes: Routes[] = [healthRoutes, toolRoutes, scheduledRoutes, secretRoutes, mcpRoutes, workerRoutes, authRoutes, adminAuthRoutes, projectRoutes, sandboxOAuthRoutes,
  meRoutes, apiKeyRoutes, toolIndexRoutes, activityRoutes, consoleRoutes, authorizationServerRoutes];

export interface RunningEngine {
  engine: Engine;
  app: FastifyInstance;
  /** Where the API listens, e.g. http://127.0.0.1:9099. */
  url: string;
  close(): Promise<void>;
}

export async function startEngine(options: EngineOptions & { logger?: FastifyServerOptions['logger'] }): Promise<RunningEngine> {
  const { config } = options;
  const engine = await openEngine(options);
  const app = await buildApp(engine, allRoutes, { logger: options.logger ?? false });
  engine.log = app.log;
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host}:${port}`;
  // With port 0 the address is known only now; OAuth callbacks name it unless a public URL is configured.
  engine.address.url = url;
  engine.scheduler.start();
  return {
    engine,
    app,
    url,
    async close() {
      await app.close();
      await engine.close();
    },
  };
}
