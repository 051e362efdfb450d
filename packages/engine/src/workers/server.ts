/**
 * A worker: serves toolkits to an engine over the worker protocol (`quiver worker`). It keeps no
 * credentials of its own: each invoke runs with the token and secrets the engine sends with it.
 */
import { executeTool, toolError, toToolDefinition, UpstreamClient, type Tool, type Toolkit, type ToolResult } from '@quiver/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { checkWorkerToken, type InvokeRequest, type InvokeResponse, type WorkerHealth } from './protocol.js';

export interface WorkerServerOptions {
  toolkits: readonly Toolkit[];
  /** The shared secret the engine signs its tokens with. */
  secret: string;
  host?: string;
  port?: number;
  /** Base URL per toolkit, where it differs from the toolkit's default. */
  baseUrls?: Record<string, string>;
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
  const baseUrlOf = Object.fromEntries(options.toolkits.map((toolkit) => [toolkit.name, baseUrls[toolkit.name] ?? toolkit.baseUrl]));
  const definitions = tools.map((tool) => toToolDefinition(tool));
  const client = new UpstreamClient();

  const app = Fastify({ logger: false });

  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.url === '/worker/health') return;
    const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
    const problem = match ? await checkWorkerToken(match[1]!, secret) : 'Authorization: Bearer <JWT> is required';
    if (problem) return reply.status(401).send({ name: 'unauthorized', message: problem });
  });

  app.setErrorHandler((error: Error & { statusCode?: number; validation?: unknown }, _request, reply) => {
    const status = error.validation ? 400 : error.statusCode && error.statusCode < 500 ? error.statusCode : 500;
    return reply.status(status).send({ name: status === 500 ? 'internal_error' : 'bad_request', message: status === 500 ? 'Internal error.' : error.message });
  });
  app.setNotFoundHandler((request, reply) => reply.status(404).send({ name: 'not_found', message: `No route ${request.method} ${request.url.split('?')[0]}` }));

  app.get('/worker/health', async (): Promise<WorkerHealth> => ({ status: 'ok', tool_count: tools.length }));

  app.get('/worker/tools', async () => definitions);

  app.post<{ Body: InvokeRequest }>('/worker/tools/invoke', { schema: { body: invokeBody } }, async (request, reply) => {
    const started = performance.now();
    const { execution_id, tool: wanted, inputs, context = {} } = request.body;
    const tool = tools.find(
      (candidate) => candidate.name === wanted.name && candidate.toolkit.name === wanted.toolkit && (!wanted.version || candidate.toolkit.version === wanted.version),
    );
    if (!tool) {
      return reply.status(404).send({ name: 'not_found', message: `this worker does not serve ${wanted.toolkit}.${wanted.name}${wanted.version ? `@${wanted.version}` : ''}` });
    }
    const secrets = Object.fromEntries((context.secrets ?? []).map(({ key, value }) => [key, value]));
    let result: ToolResult;
    try {
      result = await executeTool(tool, inputs, { baseUrl: baseUrlOf[tool.toolkit.name]!, token: context.authorization?.token, secrets, client });
    } catch (cause) {
      result = toolError('TOOL_RUNTIME_FATAL', `${tool.name} failed unexpectedly.`, { developer_message: String((cause as Error)?.stack ?? cause) });
    }
    const response: InvokeResponse = {
      execution_id,
      finished_at: new Date().toISOString(),
      duration: Math.round((performance.now() - started) * 100) / 100,
      success: !('error' in result),
      output: 'error' in result ? { error: result.error } : { value: result.value },
    };
    return response;
  });

  await app.listen({ host, port });
  const address = app.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  return {
    app,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`,
    tools,
    async close() {
      await app.close();
      await client.close();
    },
  };
}

/** The toolkits named (case-insensitively) in a comma-separated list; throws naming the unknown ones. */
export function selectToolkits(names: string, available: readonly Toolkit[]): Toolkit[] {
  const wanted = names.split(',').map((name) => name.trim()).filter(Boolean);
  if (!wanted.length) throw new Error(`name at least one toolkit; toolkits: ${available.map((t) => t.name).join(', ')}`);
  const unknown = wanted.filter((name) => !available.some((toolkit) => toolkit.name.toLowerCase() === name.toLowerCase()));
  if (unknown.length) throw new Error(`unknown toolkit(s): ${unknown.join(', ')}; toolkits: ${available.map((t) => t.name).join(', ')}`);
  return available.filter((toolkit) => wanted.some((name) => toolkit.name.toLowerCase() === name.toLowerCase()));
}
