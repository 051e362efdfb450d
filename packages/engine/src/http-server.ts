/** Starts the engine: database, scheduler, and the HTTP API on the configured address. */
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { authorizationServerRoutes } from './authorization-server/routes.js';
import { buildApp, type Routes } from './http/app.js';
import { activityRoutes } from './http/routes/activity.js';
import { adminAuthRoutes } from './http/routes/admin-auth.js';
import { apiKeyRoutes } from './http/routes/api-keys.js';
import { auditRoutes } from './http/routes/audit.js';
import { authRoutes } from './http/routes/auth.js';
import { consoleRoutes } from './http/routes/console.js';
import { healthRoutes } from './http/routes/health.js';
import { mcpRoutes } from './http/routes/mcp.js';
import { meRoutes } from './http/routes/me.js';
import { mcpClientConfigRoutes } from './http/routes/mcp-client-config.js';
import { oauthGrantRoutes } from './http/routes/oauth-grants.js';
import { projectRoutes } from './http/routes/projects.js';
import { sandboxOAuthRoutes } from './http/routes/sandbox-oauth.js';
import { scheduledRoutes } from './http/routes/scheduled.js';
import { secretRoutes } from './http/routes/secrets.js';
import { toolIndexRoutes } from './http/routes/tool-index.js';
import { toolRoutes } from './http/routes/tools.js';
import { toolkitRoutes } from './http/routes/toolkits.js';
import { workerRoutes } from './http/routes/workers.js';
import { metricsRoutes, startMetricsListener } from './http/routes/metrics.js';
import { observeEngine } from './telemetry/engine-metrics.js';
import { engineAddress, openEngine, type Engine, type EngineOptions } from './engine.js';
import { listensBeyondLoopback } from './auth/session-verification.js';

/** Every route group of the API. */
export const allRoutes: Routes[] = [
  healthRoutes,
  toolRoutes,
  scheduledRoutes,
  secretRoutes,
  mcpRoutes,
  workerRoutes,
  authRoutes,
  adminAuthRoutes,
  projectRoutes,
  sandboxOAuthRoutes,
  meRoutes,
  mcpClientConfigRoutes,
  apiKeyRoutes,
  oauthGrantRoutes,
  auditRoutes,
  toolIndexRoutes,
  toolkitRoutes,
  activityRoutes,
  consoleRoutes,
  authorizationServerRoutes,
  metricsRoutes,
];

export interface RunningEngine {
  engine: Engine;
  app: FastifyInstance;
  /** Where the API listens, e.g. http://127.0.0.1:9099. */
  url: string;
  /** The separate listener's GET /metrics, when one was asked for (`metricsListener`). */
  metricsUrl?: string;
  /** Drains (see `drain` below), then closes; once, however often it is called. */
  close(): Promise<void>;
}

export interface StartOptions extends EngineOptions {
  logger?: FastifyServerOptions['logger'];
  /** Where to serve GET /metrics without a key, beside the API (`quiver serve --metrics-port`); needs `metrics`. */
  metricsListener?: { host: string; port: number };
}

export async function startEngine(options: StartOptions): Promise<RunningEngine> {
  const { config } = options;
  const engine = await openEngine(options);
  const app = await buildApp(engine, allRoutes, { logger: options.logger ?? false });
  engine.log = app.log;
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  // With port 0 the address is known only now; OAuth callbacks and ToolEngineApi use it unless a public URL is configured.
  Object.assign(engine.address, engineAddress(config.host, port));
  const { url } = engine.address;
  engine.scheduler.start();
  const stopObserving = observeEngine(engine);
  const listener =
    options.metricsListener && engine.metrics
      ? await startMetricsListener(engine.metrics, options.metricsListener).catch(async (error: unknown) => {
          await app.close();
          stopObserving();
          await engine.close();
          throw error;
        })
      : undefined;
  await logSessionVerification(app, engine);
  let closing: Promise<void> | undefined;
  return {
    engine,
    app,
    url,
    ...(listener && { metricsUrl: listener.url }),
    close() {
      closing ??= drain(app, engine, async () => {
        await listener?.close();
        stopObserving();
      });
      return closing;
    },
  };
}

/**
 * Stopping without dropping work: GET /v1/ready answers 503 from the first moment and the scheduler
 * claims nothing more (what it had claimed and not started goes back to the schedule, for another
 * process at once). Everything else is served for QUIVER_DRAIN_SECONDS, so that a load balancer polling
 * readiness stops sending requests; then new requests are refused (503) while those in flight and the
 * running scheduled executions get QUIVER_DRAIN_TIMEOUT_SECONDS to finish. Past that, requests still in
 * flight are cut and scheduled executions still running are marked failed, not repeated. Last, the
 * server closes and the engine writes its call records and closes its database.
 */
async function drain(app: FastifyInstance, engine: Engine, closeListeners: () => Promise<void>): Promise<void> {
  const { drainSeconds, drainTimeoutSeconds } = engine.config;
  const started = Date.now();
  engine.readiness.drain();
  engine.scheduler.drain();
  app.log.info(
    { drain_seconds: drainSeconds, drain_timeout_seconds: drainTimeoutSeconds, requests_in_flight: app.inFlight.count },
    'draining: not ready, and claiming no scheduled executions',
  );
  if (drainSeconds) await new Promise((resolve) => setTimeout(resolve, drainSeconds * 1000));
  const boundMs = drainTimeoutSeconds * 1000;
  const [cut, { handedBack, abandoned }] = await Promise.all([app.inFlight.finish(boundMs), engine.scheduler.finish(boundMs)]);
  if (cut) app.server.closeAllConnections();
  await app.close();
  await closeListeners();
  await engine.close();
  const unwritten = engine.executions.queued;
  const outcome = {
    ms: Date.now() - started,
    requests_cut: cut,
    executions_handed_back: handedBack,
    executions_failed: abandoned,
    records_unwritten: unwritten,
  };
  if (cut || abandoned || unwritten) app.log.warn(outcome, 'drained, with work left undone: closed');
  else app.log.info(outcome, 'drained: closed');
}

/** Beyond loopback, the state of session verification is said at start: on, or off by an explicit opt-out. */
async function logSessionVerification(app: FastifyInstance, engine: Engine): Promise<void> {
  if (!listensBeyondLoopback(engine.config.host)) return;
  const verification = await engine.oauth.sessionVerification.get();
  if (verification.unsafe_skip_verification) {
    app.log.warn('session verification is off by explicit opt-out (unsafe_skip_verification) although the engine listens beyond loopback');
  } else if (!verification.verifier_url) {
    app.log.warn('session verification is on: OAuth authorizations fail until a verifier_url is set (PUT /v1/admin/settings/session_verification)');
  } else app.log.info({ verifier_url: verification.verifier_url }, 'session verification is on');
}
