/**
 * The engine's metrics in the Prometheus text format: `GET /metrics` on the API for admin and service keys,
 * and, when `quiver serve --metrics-port` asks for it, on a listener of its own without a key (loopback
 * unless `--metrics-host` says otherwise), for a scraper that holds no API key.
 */
import { createServer } from 'node:http';
import { Problem } from '../../errors.js';
import { serviceRoles } from '../access.js';
import type { Routes } from '../app.js';

/** The version of the text format the scrape is written in. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export const metricsRoutes: Routes = (app, engine) => {
  app.get(
    '/metrics',
    {
      // A scrape is never refused for the traffic of the key it uses.
      config: { ...serviceRoles, limits: false },
      schema: {
        operationId: 'metrics',
        summary: "This process's metrics in the Prometheus text format (the same instruments as over OTLP)",
        response: { 200: { type: 'string' } },
      },
    },
    async (_request, reply) => {
      if (!engine.metrics) throw new Problem('not_found', 'This engine collects no metrics (it was started without them).');
      return reply.type(PROMETHEUS_CONTENT_TYPE).send(await engine.metrics());
    },
  );
};

export interface MetricsListener {
  /** e.g. http://127.0.0.1:9464/metrics */
  url: string;
  close(): Promise<void>;
}

/** A plain HTTP server that answers `GET /metrics` with the scrape and anything else with 404. */
export async function startMetricsListener(scrape: () => Promise<string>, { host, port }: { host: string; port: number }): Promise<MetricsListener> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Only GET /metrics is served here.\n');
      return;
    }
    scrape().then(
      (text) => response.writeHead(200, { 'content-type': PROMETHEUS_CONTENT_TYPE }).end(text),
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('The metrics could not be collected.\n'),
    );
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen({ host, port }, resolve));
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
