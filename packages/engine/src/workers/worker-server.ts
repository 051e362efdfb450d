/**
 * A worker: serves toolkits to an engine over the worker protocol (`quiver worker`). It keeps no
 * credentials of its own: each invoke runs with the token and secrets the engine sends with it.
 */
import { localDispatcher, staticCredentials, toToolDefinition, UpstreamClient, type Tool, type Toolkit, type UpstreamClientOptions } from '@quiver/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { Problem } from '../errors.js';
import { bearerToken } from '../http/bearer-token.js';
import { installErrorHandling } from '../http/errors.js';
import { observeRequests } from '../http/telemetry.js';
import { checkWorkerToken, type InvokeRequest, type InvokeResponse, type WorkerHealth } from './protocol.js';

export interface WorkerServerOptions {
  toolkits: readonly Toolkit[];
  /** The shared secret the engine signs its tokens with. */
  secret: string;
  host?: string;
  port?: number;
  /** Base URL per toolkit, where it differs from the toolkit's default. */
  baseUrls?: Record<string, string>;
  /** Limits of every upstream call (deadline, largest answer); the client's defaults where absent. */
  upstreamLimits?: UpstreamClientOptions;
}

export interface WorkerServer {
  app: FastifyInstance;
  /** Where the worker listens, e.g. http://127.0.0.1:8002; register this URI with the engine. */
  url: string;
  tools: Tool[];
  close(): Promise<void>;
}

const invokeBody = {
  type: 'object',
  required: ['execution_id', 'tool', 'inputs'],
  properties: {
    execution_id: { type: 'string' },
    tool: {
      type: 'object',
      required: ['name', 'toolkit'],
      properties: { name: { type: 'string' }, toolkit: { type: 'string' }, version: { type: 'string' } },
    },
    inputs: { type: 'object', additionalProperties: true },
    context: {
      type: 'object',
      properties: {
        authorization: { type: 'object', properties: { token: { type: 'string' }, user_info: { type: 'object' } } },
        secrets: { type: 'array', items: { type: 'object', required: ['key', 'value'], properties: { key: { type: 'string' }, value: { type: 'string' } } } },
        user_id: { type: 'string' },
      },
    },
  },
} as const;

export async function startWorkerServer(options: WorkerServerOptions): Promise<WorkerServer> {
  const { secret, host = '127.0.0.1', port = 8002, baseUrls = {} } = options;
  if (!secret) throw new Error('a worker needs a secret: the engine signs its requests with it');
  const tools = options.toolkits.flatMap((toolkit) => toolkit.tools);
  const definitions = tools.map((tool) => toToolDefinition(tool));
  const client = new UpstreamClient(options.upstreamLimits);
  // The worker's calls run with what the engine sends along; it holds no credentials of its own.
  const dispatcher = localDispatcher(options.toolkits, { client, baseUrls });

  const app = Fastify({ logger: false });
  // An invoke's spans continue the engine's trace, from the traceparent it sends.
  observeRequests(app);

  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.url === '/worker/health') return;
    const token = bearerToken(request.headers.authorization);
    const problem = token ? await checkWorkerToken(token, secret) : 'Authorization: Bearer <JWT> is required';
    if (problem) throw new Problem('unauthorized', problem);
  });

  installErrorHandling(app);

  app.get('/worker/health', async (): Promise<WorkerHealth> => ({ status: 'ok', tool_count: tools.length }));

  app.get('/worker/tools', async () => definitions);

  app.post<{ Body: InvokeRequest }>('/worker/tools/invoke', { schema: { body: invokeBody } }, async (request) => {
    const { execution_id, tool: wanted, inputs, context = {} } = request.body;
    const secrets = Object.fromEntries((context.secrets ?? []).map(({ key, value }) => [key, value]));
    const { result, unknown, durationMs } = await dispatcher.dispatch(`${wanted.toolkit}.${wanted.name}`, inputs, {
      version: wanted.version,
      executionId: execution_id,
      userId: context.user_id,
      credentials: staticCredentials({ token: context.authorization?.token, secrets }),
    });
    if (unknown) throw new Problem('not_found', `this worker does not serve ${wanted.toolkit}.${wanted.name}${wanted.version ? `@${wanted.version}` : ''}`);
    const response: InvokeResponse = {
      execution_id,
      finished_at: new Date().toISOString(),
      duration: Math.round(durationMs * 100) / 100,
      success: !('error' in result),
      output: 'error' in result ? { error: result.error } : { value: result.value },
    };
    return response;
  });

  await app.listen({ host, port });
  const address = app.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  let closing: Promise<void> | undefined;
  return {
    app,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`,
    tools,
    // Closing twice (a test's cleanup after the test closed it) is one close.
    close: () =>
      (closing ??= (async () => {
        await app.close();
        await client.close();
      })()),
  };
}

/** The toolkits named (case-insensitively) in a comma-separated list; throws naming the unknown ones. */
export function selectToolkits(names: string, available: readonly Toolkit[]): Toolkit[] {
  const wanted = names
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (!wanted.length) throw new Error(`name at least one toolkit; toolkits: ${available.map((t) => t.name).join(', ')}`);
  const unknown = wanted.filter((name) => !available.some((toolkit) => toolkit.name.toLowerCase() === name.toLowerCase()));
  if (unknown.length) throw new Error(`unknown toolkit(s): ${unknown.join(', ')}; toolkits: ${available.map((t) => t.name).join(', ')}`);
  return available.filter((toolkit) => wanted.some((name) => toolkit.name.toLowerCase() === name.toLowerCase()));
}
