/** Tool listings in the engine's formats, with requirements evaluated for the given user, and execution. */
import {
  didYouMean,
  formatNames,
  formatTool,
  qualifiedName,
  toToolDefinition,
  type CatalogEntry,
  type FormatName,
  type ServingPolicy,
  type Tool,
} from '@quiver/core';
import type { FastifyInstance } from 'fastify';
import type { Engine } from '../../engine.js';
import { executeResponse } from '../../executions.js';
import { invalid, notFound } from '../../errors.js';
import { rfc3339 } from '../../rfc3339.js';
import { actingUser, anyRole, policyFor } from '../access.js';
import { enforce } from '../limits.js';
import { page, pageQuery, type PageRequest } from '../pagination.js';
import { sendCompressed } from '../compressed.js';
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
  if (toolkit === undefined || (await engine.dispatcher.catalog.ownerOf(toolkit))) return;
  const names = [...new Set((await engine.dispatcher.catalog.tools()).map((tool) => tool.toolkit.name))];
  throw invalid(`unknown toolkit '${toolkit}'; toolkits: ${names.join(', ')}`);
}

function parseFormats(text: string | undefined): FormatName[] {
  const formats = (text ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  const unknown = formats.filter((f) => !(formatNames as string[]).includes(f));
  if (unknown.length) throw invalid(`unknown format(s): ${unknown.join(', ')}; use ${formatNames.join(', ')}`);
  return formats as FormatName[];
}

async function definitions(engine: Engine, tools: Tool[], userId: string | undefined, formats: FormatName[]) {
  const statusOf = await requirementStatus(engine, tools, userId);
  return tools.map((tool) => {
    const definition = toToolDefinition(tool, statusOf(tool));
    if (!formats.length) return definition;
    return { ...definition, formatted_schema: Object.fromEntries(formats.map((format) => [format, formatTool(tool, format)])) };
  });
}

/** A tool this server offers the caller (`policy`): one the serving filters leave out is not found, as in the listings. */
export async function offeredEntry(engine: Engine, name: string, version?: string, policy = engine.dispatcher.policy): Promise<CatalogEntry> {
  const entry = await engine.dispatcher.find(version ? `${name.split('@')[0]}@${version}` : name, policy);
  if (!entry) throw await unknownTool(engine, name, version, policy);
  return entry;
}

/** 404 for a tool name the caller is offered no tool by, with up to three it may have meant (as MCP and the CLI suggest). */
async function unknownTool(engine: Engine, name: string, version: string | undefined, policy: ServingPolicy | undefined) {
  const suggestions = await engine.dispatcher.suggest(name.split('@')[0]!, undefined, policy);
  return notFound(`tool ${name}${version ? `@${version}` : ''}`, didYouMean(suggestions));
}

/** The tools offered to the caller, of one toolkit when named. */
async function listed(engine: Engine, toolkit: string | undefined, policy: ServingPolicy | undefined): Promise<Tool[]> {
  const tools = await engine.dispatcher.list(policy);
  return toolkit ? tools.filter((tool) => tool.toolkit.name.toLowerCase() === toolkit.toLowerCase()) : tools;
}

export const toolRoutes: Routes = (app: FastifyInstance, engine: Engine) => {
  app.get<{ Querystring: PageRequest & { toolkit?: string; include_format?: string; user_id?: string } }>(
    '/v1/tools',
    {
      config: anyRole,
      schema: {
        operationId: 'tools-list-static',
        summary: 'List tools as ToolDefinitions',
        querystring: { type: 'object', properties: { ...pageQuery, toolkit: { type: 'string' }, include_format: formatsParam, user_id: userParam } },
      },
    },
    async (request) => {
      const { toolkit, include_format, user_id } = request.query;
      await knownToolkit(engine, toolkit);
      const all = await listed(engine, toolkit, policyFor(engine, request.caller!.role));
      const slice = page(all, request.query);
      return { ...slice, items: await definitions(engine, slice.items, actingUser(request, user_id), parseFormats(include_format)) };
    },
  );

  // Search answers a page of hits, best first: each names the tool briefly (fetch /v1/tools/{name} for its
  // parameters and requirements), or by its name alone (`view=names`), with its relevance score, which only
  // orders the hits; gzipped where the client accepts it, since a console asks at every pause in typing.
  app.get<{ Querystring: PageRequest & { q: string; toolkit?: string; view?: 'full' | 'names' } }>(
    '/v1/tools/search',
    {
      config: anyRole,
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
            view: {
              type: 'string',
              enum: ['full', 'names'],
              default: 'full',
              description:
                'full: each hit with its tool summary; names: each hit as its tool name and score only (what a list that has the tools already needs).',
            },
          },
        },
      },
    },
    async (request, reply) => {
      await knownToolkit(engine, request.query.toolkit);
      const hits = await engine.dispatcher.search(request.query.q, { toolkit: request.query.toolkit }, policyFor(engine, request.caller!.role));
      const slice = page(hits, request.query);
      const items =
        request.query.view === 'names'
          ? slice.items.map(({ tool, score }) => ({ name: qualifiedName(tool), score: Math.round(score * 1000) / 1000 }))
          : slice.items.map(({ tool, score }) => ({ tool: toolSummary(tool), score }));
      // total_count counts every match, whatever the page shows.
      return sendCompressed(request, reply, { ...slice, items });
    },
  );

  app.get<{ Params: { name: string }; Querystring: { include_format?: string; user_id?: string } }>(
    '/v1/tools/:name',
    {
      config: anyRole,
      schema: {
        operationId: 'tool-spec',
        summary: 'One tool as a ToolDefinition',
        params: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
        querystring: { type: 'object', properties: { include_format: formatsParam, user_id: userParam } },
      },
    },
    async (request) => {
      const entry = await offeredEntry(engine, request.params.name, undefined, policyFor(engine, request.caller!.role));
      const [definition] = await definitions(engine, [entry.tool], actingUser(request, request.query.user_id), parseFormats(request.query.include_format));
      return definition;
    },
  );

  app.get<{ Querystring: PageRequest & { toolkit?: string; format: FormatName; user_id?: string } }>(
    '/v1/formatted_tools',
    {
      config: anyRole,
      schema: {
        operationId: 'tools-list-formatted',
        summary: 'List tools in a provider format',
        querystring: { type: 'object', properties: { ...pageQuery, toolkit: { type: 'string' }, format: formatParam, user_id: userParam } },
      },
    },
    async (request) => {
      // A provider format carries no requirements, but a user key may name no other user here either.
      actingUser(request, request.query.user_id);
      await knownToolkit(engine, request.query.toolkit);
      const slice = page(await listed(engine, request.query.toolkit, policyFor(engine, request.caller!.role)), request.query);
      return { ...slice, items: slice.items.map((tool) => formatTool(tool, request.query.format)) };
    },
  );

  app.get<{ Params: { name: string }; Querystring: { format: FormatName; user_id?: string } }>(
    '/v1/formatted_tools/:name',
    {
      config: anyRole,
      schema: {
        operationId: 'tool-spec-formatted',
        summary: 'One tool in a provider format',
        params: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
        querystring: { type: 'object', properties: { format: formatParam, user_id: userParam } },
      },
    },
    async (request) => {
      actingUser(request, request.query.user_id);
      return formatTool((await offeredEntry(engine, request.params.name, undefined, policyFor(engine, request.caller!.role))).tool, request.query.format);
    },
  );

  app.post<{
    Body: { tool_name: string; input?: Record<string, unknown>; tool_version?: string; user_id?: string; run_at?: string; include_error_stacktrace?: boolean };
  }>(
    '/v1/tools/execute',
    {
      config: anyRole,
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
            run_at: {
              type: 'string',
              description: 'When to run: an RFC 3339 date-time with an offset, e.g. 2030-01-01T10:00:00Z or 2030-01-01T10:00:00-08:00. Omit to run now.',
            },
            include_error_stacktrace: { type: 'boolean', default: false },
          },
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const userId = actingUser(request, body.user_id);
      // The key was counted on the way in; an execution counts against its user too, whichever key acts for
      // them (unless no quota is set: then nothing is counted, and nothing is awaited).
      if (userId !== undefined && engine.limits.settings.userRpm > 0) await enforce(reply, [engine.limits.user(userId)]);
      const policy = policyFor(engine, request.caller!.role);
      if (body.run_at !== undefined) {
        if (rfc3339(body.run_at) === undefined) {
          throw invalid(
            `run_at must be an RFC 3339 date-time with an offset (such as 2030-01-01T10:00:00Z or 2030-01-01T10:00:00-08:00), got '${body.run_at}'`,
          );
        }
        const entry = await offeredEntry(engine, body.tool_name, body.tool_version, policy);
        return engine.scheduler.schedule(entry, body.input ?? {}, userId, body.run_at);
      }
      const outcome = await engine.dispatcher.dispatch(body.tool_name, body.input ?? {}, {
        version: body.tool_version,
        userId,
        policy,
        requestId: request.id,
        keyId: request.apiKeyId,
        // Over the key's or the user's calls in flight: an execution that failed with TOOL_RUNTIME_RATE_LIMIT.
        admit: engine.limits.admission(request.caller, userId),
      });
      if (outcome.unknown) throw await unknownTool(engine, body.tool_name, body.tool_version, policy);
      return executeResponse(outcome, body.include_error_stacktrace);
    },
  );
};

/** A search hit's tool: enough to choose it; `GET /v1/tools/{qualified_name}` gives the whole ToolDefinition. */
function toolSummary(tool: Tool) {
  const { fully_qualified_name, qualified_name, name, description, toolkit } = toToolDefinition(tool);
  return { fully_qualified_name, qualified_name, name, description, toolkit };
}
