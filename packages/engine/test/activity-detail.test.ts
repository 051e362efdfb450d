/**
 * One execution read back from the activity record (GET /v1/activity/executions/{id}): a scheduled
 * execution's input and its run's value or error, with credentials scrubbed; an immediate call's input
 * (redacted), value or error, each kept up to 64 KB, or with QUIVER_RECORD_CALL_DATA off its error kind
 * only; a user key's own executions alone. And the statistics in steps of several minutes.
 */
import { randomUUID } from 'node:crypto';
import { defineToolkit, toolError } from '@quiver/core';
import { createApiKey } from '@quiver/engine';
import { databases, startTestEngine, type TestEngine } from '@quiver/test-support/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Activity } from '../src/activity.js';
import { ExecutionLog } from '../src/executions.js';

const probe = defineToolkit(
  {
    name: 'Probe',
    version: '1',
    description: 'Answers what the test needs.',
    baseUrl: 'http://127.0.0.1:9',
    tools: [
      {
        name: 'Echo',
        description: 'Answers its input and, carelessly, the token it ran with.',
        parameters: [
          { name: 'text', description: 'Anything.', required: true, schema: { type: 'string' } },
          { name: 'api_key', description: 'A credential the caller passes, unused.', required: false, schema: { type: 'string' } },
        ],
        output: { description: 'The input and the token.' },
        requirements: { oauth2: { provider: 'probe', scopes: [] } },
      },
      { name: 'Busy', description: 'Always rate limited.', parameters: [], output: { description: 'Nothing.' }, requirements: {} },
    ],
  },
  {
    Echo: async (input, context) => ({ value: { echoed: input.text, token: context.token } }),
    Busy: async () => toolError('UPSTREAM_RUNTIME_RATE_LIMIT', 'Slow down.', { retry_after_ms: 3000, stacktrace: 'at Busy (probe.ts:1)' }),
  },
);

describe.each(databases)('one execution from the activity record on $name', ({ name, skip }) => {
  let engine: TestEngine;
  let carolKey: string;
  const asCarol = (method: string, path: string, body?: unknown) => engine.api(method, path, body, `Bearer ${carolKey}`);

  beforeAll(async () => {
    if (skip) return;
    engine = await startTestEngine(name, {
      toolkits: [probe],
      credentials: () => ({ token: async (userId: string) => ({ token: `token-of-${userId}` }), grants: async () => () => true }),
    });
    carolKey = (await createApiKey(engine.engine.store.db, 'carol', { role: 'user', userId: 'carol' })).key;
  });
  afterAll(async () => {
    await engine?.close();
  });

  /** Schedules a call to run now and waits until it has finished. */
  async function scheduled(tool: string, input: object, userId: string): Promise<string> {
    const answer = await engine.api('POST', '/v1/tools/execute', { tool_name: tool, input, user_id: userId, run_at: new Date().toISOString() });
    expect(answer.status).toBe(200);
    const id = answer.body.id as string;
    for (let i = 0; i < 200 && !['success', 'failed'].includes((await engine.api('GET', `/v1/scheduled_tools/${id}`)).body.execution_status); i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    return id;
  }

  it.skipIf(skip)("answers a scheduled execution's input and value, without the credential it ran with", async () => {
    const id = await scheduled('Probe.Echo', { text: 'hello' }, 'ada');
    const detail = await engine.api('GET', `/v1/activity/executions/${id}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      id,
      execution_type: 'scheduled',
      tool_name: 'Probe.Echo',
      toolkit_name: 'Probe',
      toolkit_version: '1',
      user_id: 'ada',
      success: true,
      error_kind: null,
      input: { text: 'hello' },
      output: { echoed: 'hello', token: '[redacted]' },
      error: null,
    });
    expect(detail.body.finished_at).toEqual(expect.any(String));
    expect(JSON.stringify(detail.body)).not.toContain('token-of-ada');
  });

  it.skipIf(skip)("answers a failed run's error: kind, message and retry hint, without its stack", async () => {
    const id = await scheduled('Probe.Busy', {}, 'ada');
    const detail = await engine.api('GET', `/v1/activity/executions/${id}`);
    expect(detail.body).toMatchObject({ success: false, error_kind: 'UPSTREAM_RUNTIME_RATE_LIMIT', input: {}, output: null });
    expect(detail.body.error).toEqual({ kind: 'UPSTREAM_RUNTIME_RATE_LIMIT', message: 'Slow down.', can_retry: true, retry_after_ms: 3000 });
  });

  /** The stored row of an execution, as the database has it. */
  const stored = (id: string) => engine.engine.store.db.selectFrom('executions').select(['input', 'output']).where('id', '=', id).executeTakeFirstOrThrow();

  it.skipIf(skip)("keeps an immediate call's input, its credentials and credential-named properties redacted, and its value", async () => {
    const call = await engine.api('POST', '/v1/tools/execute', {
      tool_name: 'Probe.Echo',
      input: { text: 'marker-5e1 token-of-ada', api_key: 'caller-key-77' },
      user_id: 'ada',
    });
    expect(call.body.success).toBe(true);
    const detail = await engine.api('GET', `/v1/activity/executions/${call.body.execution_id}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      execution_type: 'immediate',
      success: true,
      data_kept: true,
      input: { text: 'marker-5e1 [redacted]', api_key: '[redacted]' },
      output: { echoed: 'marker-5e1 [redacted]', token: '[redacted]' },
      error: null,
    });
    const row = JSON.stringify(await stored(call.body.execution_id));
    for (const secret of ['token-of-ada', 'caller-key-77']) expect(row).not.toContain(secret);
    // Stored, never logged.
    expect(engine.logs.filter((line) => line.includes('marker-5e1'))).toEqual([]);
  });

  it.skipIf(skip)("keeps an immediate call's whole error, without its stack", async () => {
    const call = await engine.api('POST', '/v1/tools/execute', { tool_name: 'Probe.Busy', input: {}, user_id: 'ada', include_error_stacktrace: true });
    expect(call.body.output.error.stacktrace).toBe('at Busy (probe.ts:1)');
    const detail = await engine.api('GET', `/v1/activity/executions/${call.body.execution_id}`);
    expect(detail.body).toMatchObject({ execution_type: 'immediate', success: false, data_kept: true, input: {}, output: null });
    expect(detail.body.error).toEqual({ kind: 'UPSTREAM_RUNTIME_RATE_LIMIT', message: 'Slow down.', can_retry: true, retry_after_ms: 3000 });
    expect((await stored(call.body.execution_id)).output).not.toContain('probe.ts');
  });

  it.skipIf(skip)('keeps a note of the size of an input or value past 64 KB, not a cut text', async () => {
    const text = 'x'.repeat(70_000);
    const call = await engine.api('POST', '/v1/tools/execute', { tool_name: 'Probe.Echo', input: { text }, user_id: 'ada' });
    expect(call.body.success).toBe(true);
    const detail = await engine.api('GET', `/v1/activity/executions/${call.body.execution_id}`);
    const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value)).toLocaleString('en-US');
    expect(detail.body.input).toEqual({ not_kept: `the input was ${size({ text })} bytes, over the 65,536 kept` });
    expect(detail.body.output).toEqual({ not_kept: `the output was ${size({ value: { echoed: text, token: '[redacted]' } })} bytes, over the 65,536 kept` });
    const row = await stored(call.body.execution_id);
    expect(row.input.length + (row.output?.length ?? 0)).toBeLessThan(200);
  });

  it.skipIf(skip)("keeps an immediate call's outcome and error kind only with QUIVER_RECORD_CALL_DATA off", async () => {
    const off = await startTestEngine(
      name,
      { toolkits: [probe], credentials: () => ({ token: async (userId: string) => ({ token: `token-of-${userId}` }), grants: async () => () => true }) },
      { recordCallData: false },
    );
    try {
      const echo = await off.api('POST', '/v1/tools/execute', { tool_name: 'Probe.Echo', input: { text: 'not-for-keeping' }, user_id: 'ada' });
      const busy = await off.api('POST', '/v1/tools/execute', { tool_name: 'Probe.Busy', input: {}, user_id: 'ada' });
      expect((await off.api('GET', `/v1/activity/executions/${echo.body.execution_id}`)).body).toMatchObject({
        success: true,
        data_kept: false,
        input: null,
        output: null,
        error: null,
      });
      const failed = await off.api('GET', `/v1/activity/executions/${busy.body.execution_id}`);
      expect(failed.body).toMatchObject({ success: false, data_kept: false, input: null, output: null });
      expect(failed.body.error).toEqual({ kind: 'UPSTREAM_RUNTIME_RATE_LIMIT' });
      const rows = await off.engine.store.db.selectFrom('executions').select(['input', 'output']).execute();
      expect(rows).toEqual([
        { input: '{}', output: null },
        { input: '{}', output: null },
      ]);
    } finally {
      await off.close();
    }
  });

  it.skipIf(skip)("shows a user key its own user's executions only; another's, an unknown one and one not yet run are not found", async () => {
    const own = await asCarol('POST', '/v1/tools/execute', { tool_name: 'Probe.Echo', input: { text: 'mine' } });
    expect(own.body.success).toBe(true);
    const mine = await asCarol('GET', `/v1/activity/executions/${own.body.execution_id}`);
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ user_id: 'carol', success: true, error: null });
    // Admin and service keys see every user's.
    expect((await engine.api('GET', `/v1/activity/executions/${own.body.execution_id}`)).status).toBe(200);

    const adas = await engine.api('POST', '/v1/tools/execute', { tool_name: 'Probe.Echo', input: { text: 'hers' }, user_id: 'ada' });
    const foreign = await asCarol('GET', `/v1/activity/executions/${adas.body.execution_id}`);
    expect(foreign).toEqual({ status: 404, body: { name: 'not_found', message: `execution ${adas.body.execution_id} not found` } });
    const unknown = await asCarol('GET', `/v1/activity/executions/${randomUUID()}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.name).toBe('not_found');

    const later = await engine.api('POST', '/v1/tools/execute', {
      tool_name: 'Probe.Echo',
      input: { text: 'later' },
      user_id: 'ada',
      run_at: '2999-01-01T00:00:00Z',
    });
    expect((await engine.api('GET', `/v1/activity/executions/${later.body.id}`)).status).toBe(404);
    expect((await engine.api('GET', `/v1/activity/executions/${later.body.id}`, undefined, null)).status).toBe(401);
  });

  it.skipIf(skip)('counts the calls in steps of several minutes, each step with its own percentiles', async () => {
    const log = new ExecutionLog(engine.engine.store.db);
    const activity = new Activity(engine.engine.store.db, log);
    const now = new Date('2032-06-01T12:00:30Z');
    const at = (minutesAgo: number) => new Date(now.getTime() - minutesAgo * 60_000).toISOString();
    const record = (minutesAgo: number, duration_ms: number, success = true) =>
      log.record({ execution_id: randomUUID(), tool: 'Steps.Probe', toolkit: 'Steps', success, duration_ms, started_at: at(minutesAgo) });
    record(0, 1);
    record(4, 3, false);
    record(5, 10);
    record(9, 20);
    // Before the first step: not counted.
    record(10, 99);
    const stats = await activity.stats(10, now, 5);
    expect(stats).toMatchObject({ step: 5, since: '2032-06-01T11:51:00.000Z', minutes: ['2032-06-01T11:51', '2032-06-01T11:56'] });
    const steps = stats.toolkits.find((series) => series.toolkit === 'Steps')!;
    expect(steps).toMatchObject({ calls: 4, errors: 1 });
    expect(steps.points).toEqual([
      { minute: '2032-06-01T11:51', calls: 2, errors: 0, p50_ms: 10, p99_ms: 20 },
      { minute: '2032-06-01T11:56', calls: 2, errors: 1, p50_ms: 1, p99_ms: 3 },
    ]);

    const api = await engine.api('GET', '/v1/activity/stats?minutes=1440&step=20');
    expect(api.body.step).toBe(20);
    expect(api.body.minutes).toHaveLength(72);
    expect((await engine.api('GET', '/v1/activity/stats?minutes=60&step=61')).status).toBe(400);
    expect((await asCarol('GET', '/v1/activity/stats?minutes=60')).status).toBe(403);
  });
});
