/**
 * Workers: remote tool servers the engine routes calls to. `http` workers speak the worker protocol
 * (a shared secret signs the engine's tokens); `mcp` workers are MCP servers over streamable HTTP.
 * A secret goes in and never comes out: answers say only whether one is set. MCP headers may carry
 * credentials too, so their values are masked; a masked value sent back in a PATCH keeps the stored one.
 * A worker receives only the engine's secrets its registration allows (`allowed_secrets`, none by default).
 */
import { toToolDefinition, type Tool } from '@quiver/core';
import type { Routes } from '../app.js';
import { audited, differences } from '../audit.js';
import { conflict, invalid, notFound, Problem } from '../../errors.js';
import { page, pageOf, pageQuery, type PageRequest } from '../pagination.js';
import { workerSource } from '../../workers/registry.js';
import { defaultRetry, defaultTimeoutSeconds, type WorkerSettings, type WorkerType } from '../../workers/types.js';

const mask = '********';

interface Connection {
  uri?: string;
  secret?: string;
  timeout?: number;
  retry?: number;
  headers?: Record<string, string>;
  oauth2?: unknown;
  secrets?: unknown;
}

interface WorkerBody {
  id: string;
  enabled?: boolean;
  type?: WorkerType;
  allowed_secrets?: string[];
  http?: Connection;
  mcp?: Connection;
}

const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } as const;

const connectionSchema = (kind: WorkerType) =>
  ({
    type: 'object',
    properties: {
      uri: { type: 'string', minLength: 1 },
      timeout: { type: 'integer', minimum: 1, maximum: 600, description: 'Seconds one request may take (default 30).' },
      retry: {
        type: 'integer',
        minimum: 0,
        maximum: 10,
        description: 'Further attempts after a transport failure (default 3); an invoke is repeated only when it cannot have run.',
      },
      ...(kind === 'http'
        ? { secret: { type: 'string', minLength: 1, writeOnly: true, description: 'The secret the engine signs its tokens with (HS256); never returned.' } }
        : {
            headers: {
              type: 'object',
              additionalProperties: { type: 'string', writeOnly: true },
              description: 'Headers sent to the MCP server; values are never returned.',
            },
          }),
    },
  }) as const;

const allowedSecretsSchema = {
  type: 'array',
  items: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
  uniqueItems: true,
  description:
    "Keys of the engine's secrets this worker may receive with a call (default none). A call of one of its tools that declares any other secret is refused.",
} as const;

const workerBody = {
  type: 'object',
  required: ['id'],
  properties: {
    id: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$', description: "The worker's id; for an mcp worker also the toolkit name of its tools." },
    enabled: { type: 'boolean' },
    type: { type: 'string', enum: ['http', 'mcp'] },
    allowed_secrets: allowedSecretsSchema,
    http: connectionSchema('http'),
    mcp: connectionSchema('mcp'),
  },
} as const;

const secretState = {
  type: 'object',
  properties: { binding: { type: 'string' }, editable: { type: 'boolean' }, exists: { type: 'boolean' } },
} as const;

/** The response schema doubles as a filter: no secret value can leave through it. */
const workerSchema = {
  type: 'object',
  required: ['id', 'type', 'enabled'],
  properties: {
    id: { type: 'string' },
    type: { type: 'string', enum: ['http', 'mcp'] },
    enabled: { type: 'boolean' },
    managed: { type: 'boolean' },
    allowed_secrets: { type: 'array', items: { type: 'string' } },
    http: { type: 'object', properties: { uri: { type: 'string' }, timeout: { type: 'integer' }, retry: { type: 'integer' }, secret: secretState } },
    mcp: {
      type: 'object',
      properties: {
        uri: { type: 'string' },
        timeout: { type: 'integer' },
        retry: { type: 'integer' },
        headers: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
  },
} as const;

function workerResponse(worker: WorkerSettings) {
  const connection = { uri: worker.uri, timeout: worker.timeout, retry: worker.retry };
  return {
    id: worker.id,
    type: worker.type,
    enabled: worker.enabled,
    managed: false,
    allowed_secrets: worker.allowedSecrets,
    ...(worker.type === 'http' && { http: { ...connection, secret: { binding: 'static', editable: true, exists: Boolean(worker.secret) } } }),
    ...(worker.type === 'mcp' && {
      mcp: { ...connection, ...(worker.headers && { headers: Object.fromEntries(Object.keys(worker.headers).map((name) => [name, mask])) }) },
    }),
  };
}

/** The type a body means: as given, or from the one connection block it has. */
function typeOf(body: Omit<WorkerBody, 'id'>): WorkerType {
  const type = body.type ?? (body.mcp && !body.http ? 'mcp' : body.http && !body.mcp ? 'http' : undefined);
  if (!type) throw invalid('say which type of worker: type "http" with http{uri, secret}, or type "mcp" with mcp{uri}');
  if (body[type === 'http' ? 'mcp' : 'http']) throw invalid(`a ${type} worker takes no ${type === 'http' ? 'mcp' : 'http'} settings`);
  return type;
}

function checkConnection(connection: Connection | undefined): void {
  if (!connection) return;
  if (connection.oauth2 !== undefined) throw invalid('mcp.oauth2 is not supported: pass a token the MCP server accepts in mcp.headers (Authorization)');
  if (connection.secrets !== undefined) throw invalid('mcp.secrets is not supported: pass credentials the MCP server accepts in mcp.headers');
  if (connection.uri !== undefined) {
    let url: URL;
    try {
      url = new URL(connection.uri);
    } catch {
      throw invalid(`uri is not a URL: '${connection.uri}'`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('uri must be an http:// or https:// URL');
  }
}

function created(body: WorkerBody): WorkerSettings {
  const type = typeOf(body);
  const connection = body[type];
  checkConnection(connection);
  if (!connection?.uri) throw invalid(`${type}.uri is required`);
  if (type === 'http' && !connection.secret) throw invalid('http.secret is required: the worker checks the tokens the engine signs with it');
  return {
    id: body.id,
    type,
    enabled: body.enabled ?? true,
    uri: connection.uri,
    timeout: connection.timeout ?? defaultTimeoutSeconds,
    retry: connection.retry ?? defaultRetry,
    allowedSecrets: body.allowed_secrets ?? [],
    ...(type === 'http' && { secret: connection.secret }),
    ...(type === 'mcp' && connection.headers && { headers: connection.headers }),
  };
}

function patched(current: WorkerSettings, body: Omit<WorkerBody, 'id'>): WorkerSettings {
  if (body.type && body.type !== current.type) throw invalid(`a worker's type cannot change (${current.id} is ${current.type})`);
  const other = current.type === 'http' ? 'mcp' : 'http';
  if (body[other]) throw invalid(`${current.id} is an ${current.type} worker: it takes no ${other} settings`);
  const change = body[current.type] ?? {};
  checkConnection(change);
  const headers =
    change.headers &&
    Object.fromEntries(Object.entries(change.headers).map(([name, value]) => [name, value === mask ? (current.headers?.[name] ?? '') : value]));
  return {
    ...current,
    enabled: body.enabled ?? current.enabled,
    uri: change.uri ?? current.uri,
    timeout: change.timeout ?? current.timeout,
    retry: change.retry ?? current.retry,
    allowedSecrets: body.allowed_secrets ?? current.allowedSecrets,
    ...(change.secret !== undefined && { secret: change.secret }),
    ...(headers && { headers }),
  };
}

export const workerRoutes: Routes = (app, engine) => {
  const { workers } = engine;

  async function existing(id: string): Promise<WorkerSettings> {
    const worker = await workers.get(id);
    if (!worker) throw notFound(`worker ${id}`);
    return worker;
  }

  app.get<{ Querystring: PageRequest }>(
    '/v1/workers',
    {
      schema: {
        operationId: 'workers-list',
        summary: 'List workers',
        querystring: { type: 'object', properties: pageQuery },
        response: { 200: pageOf(workerSchema) },
      },
    },
    async (request) => {
      const slice = page(await workers.list(), request.query);
      return { ...slice, items: slice.items.map(workerResponse) };
    },
  );

  app.post<{ Body: WorkerBody }>(
    '/v1/workers',
    {
      config: { audit: 'worker.registered' },
      schema: {
        operationId: 'workers-create',
        summary: 'Register a worker; an enabled one serves its tools at once',
        body: workerBody,
        response: { 201: workerSchema },
      },
    },
    async (request, reply) => {
      const worker = created(request.body);
      if (worker.id === 'builtin') throw invalid("'builtin' names the engine's own tools; choose another id");
      const saved = await workers.create(worker);
      if (!saved) throw conflict(`worker ${worker.id} exists already`);
      audited(request, saved.id, workerResponse(saved));
      return reply.status(201).send(workerResponse(saved));
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/workers/:id',
    { schema: { operationId: 'workers-get', summary: 'One worker (its secret only as {exists})', params: idParams, response: { 200: workerSchema } } },
    async (request) => workerResponse(await existing(request.params.id)),
  );

  app.patch<{ Params: { id: string }; Body: Omit<WorkerBody, 'id'> }>(
    '/v1/workers/:id',
    {
      config: { audit: 'worker.updated' },
      schema: {
        operationId: 'workers-update',
        summary: 'Change a worker; fields left out stay as they are',
        params: idParams,
        body: { ...workerBody, required: [] },
        response: { 200: workerSchema },
      },
    },
    async (request) => {
      const current = await existing(request.params.id);
      const next = await workers.update(patched(current, request.body));
      // The response shows neither the secret nor header values: that they changed is said on its own.
      const secret = next.secret !== current.secret && { 'http.secret': 'set' };
      const headers = JSON.stringify(next.headers) !== JSON.stringify(current.headers) && { 'mcp.headers': 'set' };
      audited(request, next.id, { ...differences(workerResponse(current), workerResponse(next)), ...secret, ...headers });
      return workerResponse(next);
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/v1/workers/:id',
    { config: { audit: 'worker.deleted' }, schema: { operationId: 'workers-delete', summary: 'Remove a worker and its tools', params: idParams } },
    async (request, reply) => {
      const worker = await workers.get(request.params.id).catch(() => undefined);
      if (!(await workers.delete(request.params.id))) throw notFound(`worker ${request.params.id}`);
      audited(request, request.params.id, worker ? workerResponse(worker) : {});
      return reply.status(204).send();
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/workers/:id/health',
    {
      schema: {
        operationId: 'workers-health',
        summary: 'Whether the worker answers and accepts the engine',
        params: idParams,
        response: {
          200: {
            type: 'object',
            properties: { id: { type: 'string' }, enabled: { type: 'boolean' }, healthy: { type: 'boolean' }, message: { type: 'string' } },
          },
        },
      },
    },
    async (request) => {
      const row = await engine.store.db.selectFrom('workers').select(['id', 'enabled']).where('id', '=', request.params.id).executeTakeFirst();
      if (!row) throw notFound(`worker ${request.params.id}`);
      let worker: WorkerSettings;
      try {
        worker = await existing(row.id);
      } catch {
        return { id: row.id, enabled: row.enabled === 1, healthy: false, message: "the worker's sealed settings cannot be opened with this master key" };
      }
      return { id: worker.id, enabled: worker.enabled, ...(await workerSource(worker).check()) };
    },
  );

  app.post<{ Body: Omit<WorkerBody, 'id'> }>(
    '/v1/workers/test',
    {
      // Tries an address; nothing is saved, so nothing is recorded.
      config: { audit: false },
      schema: {
        operationId: 'workers-test',
        summary: 'Whether a worker at this address would answer (nothing is saved)',
        body: { ...workerBody, required: [] },
        response: { 200: { type: 'object', properties: { healthy: { type: 'boolean' }, message: { type: 'string' } } } },
      },
    },
    async (request) => {
      const type = typeOf(request.body);
      const connection = request.body[type];
      checkConnection(connection);
      if (!connection?.uri) throw invalid(`${type}.uri is required`);
      const worker: WorkerSettings = {
        id: connection.uri,
        type,
        enabled: true,
        uri: connection.uri,
        timeout: connection.timeout ?? 10,
        retry: 0,
        allowedSecrets: [],
        secret: connection.secret,
        headers: connection.headers,
      };
      return workerSource(worker).check();
    },
  );

  app.get<{ Params: { id: string }; Querystring: PageRequest }>(
    '/v1/workers/:id/tools',
    {
      schema: {
        operationId: 'workers-tools',
        summary: "The worker's tools as ToolDefinitions, asked of the worker now; a secret is met when it is set and the worker may receive it",
        params: idParams,
        querystring: { type: 'object', properties: pageQuery },
      },
    },
    async (request) => {
      const worker = await existing(request.params.id);
      let tools: readonly Tool[];
      try {
        tools = await workerSource(worker).tools();
      } catch (error) {
        throw new Problem('worker_unavailable', (error as Error).message);
      }
      // A declared secret is met when the engine holds it and this worker may receive it.
      const secrets = await engine.secrets.present(worker.allowedSecrets);
      const slice = page(tools, request.query);
      return { ...slice, items: slice.items.map((tool) => toToolDefinition(tool, { secrets })) };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/workers/:id/authorize',
    {
      schema: {
        operationId: 'workers-authorize',
        summary: 'Whether the worker wants OAuth before it serves: not_required, required or unknown',
        params: idParams,
        response: {
          200: { type: 'object', properties: { id: { type: 'string' }, type: { type: 'string' }, status: { type: 'string' }, message: { type: 'string' } } },
        },
      },
    },
    async (request) => {
      const worker = await existing(request.params.id);
      return { id: worker.id, type: worker.type, ...(await workerSource(worker).authorization()) };
    },
  );
};
