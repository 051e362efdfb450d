/**
 * Activity: recent executions with filters, and per-minute statistics per toolkit, from the engine's
 * own record of every call (whichever way it came: the API, MCP, the scheduler).
 */
import { Activity, type ActivityFilter } from '../../activity.js';
import { notFound } from '../../errors.js';
import { actingUser, anyRole, serviceRoles } from '../access.js';
import type { Routes } from '../app.js';
import { errorSchema } from '../errors.js';
import { pageOf, pageQuery, type PageRequest } from '../pagination.js';

const item = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    execution_type: { type: 'string', enum: ['immediate', 'scheduled'] },
    tool_name: { type: 'string' },
    toolkit_name: { type: 'string' },
    user_id: { type: ['string', 'null'] },
    success: { type: 'boolean' },
    error_kind: { type: ['string', 'null'] },
    duration_ms: { type: 'number' },
    started_at: { type: 'string' },
  },
} as const;

const detail = {
  type: 'object',
  properties: {
    ...item.properties,
    toolkit_version: { type: 'string' },
    finished_at: { type: 'string' },
    data_kept: {
      type: 'boolean',
      description: 'Whether the input and output were kept: false for an immediate call recorded with QUIVER_RECORD_CALL_DATA off, or before they were kept.',
    },
    input: {
      description:
        "The stored input (an immediate call's with its credentials and credential-named properties redacted; `{not_kept}` past 64 KB of JSON); null when not kept.",
    },
    output: { description: "The tool's value, when kept (an immediate call's `{not_kept}` past 64 KB of JSON); null otherwise." },
    error: {
      type: ['object', 'null'],
      description:
        'Why it failed, without a stack trace; an immediate call recorded without its data keeps the kind only. A null kind: the engine, not the tool, ended the run.',
      properties: {
        kind: { type: ['string', 'null'] },
        message: { type: 'string' },
        can_retry: { type: 'boolean' },
        retry_after_ms: { type: 'number' },
        additional_prompt_content: { type: 'string' },
        developer_message: { type: 'string' },
      },
    },
  },
} as const;

const latencies = { p50_ms: { type: ['number', 'null'] }, p99_ms: { type: ['number', 'null'] } } as const;
const point = {
  type: 'object',
  properties: { minute: { type: 'string' }, calls: { type: 'integer' }, errors: { type: 'integer' }, ...latencies },
} as const;

export const activityRoutes: Routes = (app, engine) => {
  const activity = new Activity(engine.store.db, engine.executions);

  app.get<{ Querystring: PageRequest & ActivityFilter }>(
    '/v1/activity/executions',
    {
      // A user key sees its own user's executions only.
      config: anyRole,
      schema: {
        operationId: 'activity-executions',
        summary: 'Recent executions, newest first: immediate calls of the last day and scheduled executions',
        querystring: {
          type: 'object',
          properties: {
            ...pageQuery,
            tool: { type: 'string', description: 'Only this tool (Toolkit.Tool).' },
            toolkit: { type: 'string', description: 'Only tools of this toolkit.' },
            user_id: { type: 'string', description: 'Only executions for this user.' },
            outcome: { type: 'string', enum: ['success', 'failed'] },
            since: { type: 'string', format: 'date-time', description: 'Only executions started at or after (ISO 8601).' },
          },
        },
        response: { 200: pageOf(item) },
      },
    },
    async (request) => {
      const { limit, offset, ...filter } = request.query;
      const userId = actingUser(request, filter.user_id);
      const { items, total_count } = await activity.list({ ...filter, ...(userId && { user_id: userId }) }, limit, offset);
      return { items, limit, offset, page_count: items.length, total_count };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/activity/executions/:id',
    {
      // A user key sees its own user's executions only: another's is not found, as if it did not exist.
      config: anyRole,
      schema: {
        operationId: 'activity-execution',
        summary: 'One finished execution: its input, its output and its error, as far as they are kept',
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
        response: { 200: detail, 404: errorSchema },
      },
    },
    async (request) => {
      const execution = await activity.get(request.params.id, actingUser(request, undefined));
      if (!execution) throw notFound(`execution ${request.params.id}`);
      return execution;
    },
  );

  app.get<{ Querystring: { minutes: number; step: number } }>(
    '/v1/activity/stats',
    {
      // Every user's calls, counted: not for a user key.
      config: serviceRoles,
      schema: {
        operationId: 'activity-stats',
        summary: 'Calls, errors and p50/p99 latency per toolkit over the last minutes, per minute or per step of minutes',
        querystring: {
          type: 'object',
          properties: {
            minutes: { type: 'integer', minimum: 1, maximum: 1440, default: 60 },
            step: { type: 'integer', minimum: 1, maximum: 60, default: 1, description: 'Minutes per point (the last ends with the current minute).' },
          },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              since: { type: 'string' },
              until: { type: 'string' },
              step: { type: 'integer' },
              minutes: { type: 'array', items: { type: 'string' } },
              toolkits: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    toolkit: { type: 'string' },
                    calls: { type: 'integer' },
                    errors: { type: 'integer' },
                    error_rate: { type: 'number' },
                    ...latencies,
                    points: { type: 'array', items: point },
                  },
                },
              },
            },
          },
        },
      },
    },
    async (request) => activity.stats(request.query.minutes, new Date(), request.query.step),
  );
};
