/**
 * Activity: recent executions with filters, and per-minute statistics per toolkit. Immediate calls are
 * recorded here, from the answers of `POST /v1/tools/execute`, after the answer has left: recording
 * adds nothing to a call's latency.
 */
import { qualifiedName } from '@quiver/core';
import { Activity, type ActivityFilter } from '../../activity.js';
import type { Routes } from '../app.js';
import { pageOf, pageQuery, type PageRequest } from '../page.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The answer of an execute call, kept for the activity record. */
    executed?: { answer: ExecuteAnswer; finishedAt: number };
  }
}

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

const latencies = { p50_ms: { type: ['number', 'null'] }, p99_ms: { type: ['number', 'null'] } } as const;
const point = {
  type: 'object',
  properties: { minute: { type: 'string' }, calls: { type: 'integer' }, errors: { type: 'integer' }, ...latencies },
} as const;

interface ExecuteBody {
  tool_name: string;
  tool_version?: string;
  user_id?: string;
}

interface ExecuteAnswer {
  execution_type?: string;
  success?: boolean;
  duration?: number;
  output?: { error?: { kind?: string } };
}

export const activityRoutes: Routes = (app, engine) => {
  const activity = new Activity(engine.store.db, { onError: (error) => app.log.warn({ err: error }, 'could not record calls') });
  // The API closes before the engine's database does: the last calls are written first.
  app.addHook('onClose', () => activity.flush());

  // The answer is taken before serialisation (nothing is parsed again) and recorded once it has left.
  app.addHook('preSerialization', async (request, reply, payload) => {
    if (request.method === 'POST' && request.routeOptions.url === '/v1/tools/execute' && reply.statusCode === 200) {
      request.executed = { answer: payload as ExecuteAnswer, finishedAt: Date.now() };
    }
    return payload;
  });

  app.addHook('onResponse', async (request) => {
    const { answer, finishedAt } = request.executed ?? {};
    if (answer?.execution_type !== 'immediate' || !finishedAt) return;
    const body = request.body as ExecuteBody;
    const entry = await engine.catalog.find(body.tool_name, body.tool_version);
    if (!entry) return;
    const durationMs = answer.duration ?? 0;
    activity.record({
      tool_name: qualifiedName(entry.tool),
      toolkit_name: entry.tool.toolkit.name,
      user_id: body.user_id,
      success: answer.success === true,
      error_kind: answer.output?.error?.kind,
      duration_ms: durationMs,
      started_at: new Date(finishedAt - durationMs).toISOString(),
    });
  });

  app.get<{ Querystring: PageRequest & ActivityFilter }>(
    '/v1/activity/executions',
    {
      schema: {
        operationId: 'activity-executions',
        summary: 'Recent executions, newest first: immediate calls of the last day and scheduled attempts',
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
      const { items, total_count } = await activity.list(filter, limit, offset);
      return { items, limit, offset, page_count: items.length, total_count };
    },
  );

  app.get<{ Querystring: { minutes: number } }>(
    '/v1/activity/stats',
    {
      schema: {
        operationId: 'activity-stats',
        summary: 'Calls, errors and p50/p99 latency per minute and per toolkit over the last minutes',
        querystring: { type: 'object', properties: { minutes: { type: 'integer', minimum: 1, maximum: 1440, default: 60 } } },
        response: {
          200: {
            type: 'object',
            properties: {
              since: { type: 'string' },
              until: { type: 'string' },
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
    async (request) => activity.stats(request.query.minutes),
  );
};
