/** Tool listings in the engine's formats, with requirements evaluated for the given user, and execution. */
import { randomUUID } from 'node:crypto';
import { formatNames, formatTool, toToolDefinition, type FormatName, type Tool } from '@quiver/core';
import type { FastifyInstance } from 'fastify';
import type { Engine } from '../../engine.js';
import { executeResponse, logFields, runTool } from '../../executions.js';
import type { CatalogEntry } from '../../tools/catalog.js';
import { searchCatalog } from '../../tools/search.js';
import { badRequest, notFound } from '../errors.js';
import { page, pageQuery, type PageRequest } from '../page.js';
import type { Routes } from '../app.js';

const formatsParam = { type: 'string', description: `Comma-separated formats to include: ${formatNames.join(', ')}.` } as const;
const formatParam = { type: 'string', enum: formatNames, default: 'openai', description: 'The provider format.' } as const;
const userParam = { type: 'string', description: 'Evaluate requirements (token, secrets) for this user.' } as const;

/** Requirement status of many tools for one user, reading the user's grants and the secrets once. */
async function requirementStatus(engine: Engine, tools: Tool[], userId: string | undefined) {
  const keys = [...new Set(tools.flatMap((tool) => (tool.requirements.secrets ?? []).map((secret) => secret.key)))];
  const secrets = await engine.secrets.present(keys);
  const covers = userId ? await engine.credentials.grants(userId) : () => false;
  return (tool: Tool) => {
    const oauth = tool.requirements.oauth2;
    return { token: oauth ? covers(oauth.provider, oauth.scopes) : false, secrets };
  };
}

/** A toolkit filter that names no toolkit of the catalog is an error, not an empty list (as in the CLI). */
async function knownToolkit(engine: Engine, toolkit: string | undefined): Promise<void> {
  if (toolkit === undefined) return;
  const names = [...new Set((await engine.catalog.all()).map(({ tool }) => tool.toolkit.name))];
  if (!names.some((name) => name.toLowerCase() === toolkit.toLowerCase())) throw badRequest(`unknown toolkit '${toolkit}'; toolkits: ${names.join(', ')}`);
}

function parseFormats(text: string | undefined): FormatName[] {
  const formats = (text ?? '').split(',').map((f) => f.trim()).filter(Boolean);
  const unknown = formats.filter((f) => !(formatNames as string[]).includes(f));
  if (unknown.length) throw badRequest(`unknown format(s): ${unknown.join(', ')}; use ${formatNames.join(', ')}`);
  return formats as FormatName[];
}

async function definitions(engine: Engine, entries: CatalogEntry[], userId: string | undefined, formats: FormatName[]) {
  const statusOf = await requirementStatus(engine, entries.map((e) => e.tool), userId);
  return entries.map(({ tool }) => {
    const definition = toToolDefinition(tool, statusOf(tool));
    if (!formats.length) return definition;
    return { ...definition, formatted_schema: Object.fromEntries(formats.map((format) => [format, formatTool(tool, format)])) };
  });
}

async function entryOrThrow(engine: Engine, name: string, version?: string): Promise<CatalogEntry> {
  const entry = await engine.catalog.find(name, version);
  if (!entry) throw notFound(`tool ${name}${version ? `@${version}` : ''}`);
  return entry;
}

/** A tool this server offers: one the serving filters leave out is not found, as in the listings. */
async function offeredEntry(engine: Engine, name: string): Promise<CatalogEntry> {
  const entry = await entryOrThrow(engine, name);
  if (!engine.policy.offers(entry.tool)) throw notFound(`tool ${name}`);
  return entry;
}

export const toolRoutes: Routes = (app: FastifyInstance, engine: Engine) => {
  app.get<{ Querystring: PageRequest & { toolkit?: string; include_format?: string; user_id?: string } }>(
    '/v1/tools',
    {
      schema: {
        operationId: 'tools-list-static',
        summary: 'List tools as ToolDefinitions',
        querystring: { type: 'object', properties: { ...pageQuery, toolkit: { type: 'string' }, include_format: formatsParam, user_id: userParam } },
      },
    },
    async (request) => {
      const { toolkit, include_format, user_id } = request.query;
      await knownToolkit(engine, toolkit);
      const all = await engine.catalog.list(toolkit);
      const slice = page(all, request.query);
      return { ...slice, items: await definitions(engine, slice.items, user_id, parseFormats(include_format)) };
    },
  );

  // Search answers a page of hits, best first: each names the tool briefly (fetch /v1/tools/{name} for its
  // parameters and requirements) with its relevance score, which only orders the hits.
  app.get<{ Querystring: PageRequest & { q: string; toolkit?: string } }>(
    '/v1/tools/search',
    {
      schema: {
        operationId: 'tools-search',
        summary: 'Find tools by what they do, best match first',
        querystring: {
          type: 'object',
          required: ['q'],
          properties: {
            q: { type: 'string', minLength: 1, description: 'What the caller wants to do, in words: "close an issue", "list my repositories".' },
            ...pageQuery,
            toolkit: { type: 'string', description: 'Only tools of this toolkit.' },
          },
        },
      },
    },
    async (request) => {
      await knownToolkit(engine, request.query.toolkit);
      const hits = await searchCatalog(engine.catalog, request.query.q, { toolkit: request.query.toolkit });
      const slice = page(hits, request.query);
      return { ...slice, items: slice.items.map(({ tool, score }) => ({ tool: toolSummary(tool), score })) };
    },
  );

  app.get<{ Params: { name: string }; Querystring: { include_format?: string; user_id?: string } }>(
    '/v1/tools/:name',
    {
      schema: {
        operationId: 'tool-spec',
        summary: 'One tool as a ToolDefinition',
        params: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
        querystring: { type: 'object', properties: { include_format: formatsParam, user_id: userParam } },
      },
    },
    async (request) => {
      const entry = await offeredEntry(engine, request.params.name);
      const [definition] = await definitions(engine, [entry], request.query.user_id, parseFormats(request.query.include_format));
      return definition;
    },
  );

  app.get<{ Querystring: PageRequest & { toolkit?: string; format: FormatName; user_id?: string } }>(
    '/v1/formatted_tools',
    {
      schema: {
        operationId: 'tools-list-formatted',
        summary: 'List tools in a provider format',
        querystring: { type: 'object', properties: { ...pageQuery, toolkit: { type: 'string' }, format: formatParam, user_id: userParam } },
      },
    },
    async (request) => {
      await knownToolkit(engine, request.query.toolkit);
      const slice = page(await engine.catalog.list(request.query.toolkit), request.query);
      return { ...slice, items: slice.items.map(({ tool }) => formatTool(tool, request.query.format)) };
    },
  );

  app.get<{ Params: { name: string }; Querystring: { format: FormatName; user_id?: string } }>(
    '/v1/formatted_tools/:name',
    {
      schema: {
        operationId: 'tool-spec-formatted',
        summary: 'One tool in a provider format',
        params: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
        querystring: { type: 'object', properties: { format: formatParam, user_id: userParam } },
      },
    },
    async (request) => formatTool((await offeredEntry(engine, request.params.name)).tool, request.query.format),
  );

  app.post<{ Body: { tool_name: string; input?: Record<string, unknown>; tool_version?: string; user_id?: string; run_at?: string; include_error_stacktrace?: boolean } }>(
    '/v1/tools/execute',
    {
      schema: {
        operationId: 'tool-execute',
        summary: 'Run a tool now, or schedule it with run_at',
        body: {
          type: 'object',
          required: ['tool_name'],
          properties: {
            tool_name: { type: 'string', minLength: 1 },
            input: { type: 'object', additionalProperties: true, default: {} },
            tool_version: { type: 'string' },
            user_id: { type: 'string' },
            run_at: { type: 'string', description: 'When to run (ISO 8601; without a zone, UTC). Omit to run now.' },
            include_error_stacktrace: { type: 'boolean', default: false },
          },
        },
      },
    },
    async (request) => {
      const body = request.body;
      const entry = await entryOrThrow(engine, body.tool_name, body.tool_version);
      if (body.run_at) {
        if (Number.isNaN(Date.parse(body.run_at))) throw badRequest(`run_at must be an ISO 8601 date-time, got '${body.run_at}'`);
        return engine.scheduler.schedule(entry, body.input ?? {}, body.user_id, body.run_at);
      }
      const executionId = randomUUID();
      const outcome = await runTool(engine, entry, body.input ?? {}, body.user_id, executionId);
      request.log.info(logFields(entry, outcome, body.user_id), 'tool executed');
      return executeResponse(outcome, executionId, body.include_error_stacktrace);
    },
  );
};

/** A search hit's tool: enough to choose it; `GET /v1/tools/{qualified_name}` gives the whole ToolDefinition. */
function toolSummary(tool: Tool) {
  const { fully_qualified_name, qualified_name, name, description, toolkit } = toToolDefinition(tool);
  return { fully_qualified_name, qualified_name, name, description, toolkit };
}
