/**
 * Tasks (the `io.modelcontextprotocol/tasks` extension of the 2026-07-28 revision) on /v1/mcp, on the wire:
 * a call that outlasts a moment answers with a task to poll, a call with `run_at` becomes a scheduled
 * execution that another engine on the same database runs and answers for, and cancelling stops what has
 * not started and aborts a read, never a write under way.
 */
import { join } from 'node:path';
import { counterToolkit, startTestEngine, type TestEngine } from '@quiver/test-support/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldUpstream, modernRequest, postMcp } from './mcp-wire.js';

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const call = (name: string, args: Record<string, unknown> = {}, capabilities: object = TASKS) =>
  modernRequest('tools/call', { name, arguments: args }, {}, capabilities);
const taskRequest = (method: string, taskId: string) => modernRequest(method, { taskId }, {}, TASKS);

/** Polls a task until `done` says so (the spec's way: the client asks again). */
async function pollTask(engine: TestEngine, taskId: string, done: (task: any) => boolean, user = 'ada') {
  for (;;) {
    const { body } = await postMcp(engine, taskRequest('tasks/get', taskId), user);
    if (body.error || done(body.result)) return body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('tasks on /v1/mcp', () => {
  let upstream: Awaited<ReturnType<typeof heldUpstream>>;
  const arrived = () => upstream.arrived();
  let engine: TestEngine;
  const counted: number[] = [];

  beforeAll(async () => {
    upstream = await heldUpstream();
    engine = await startTestEngine('sqlite', { toolkits: [upstream.toolkit, counterToolkit((n) => void counted.push(n))] });
  });
  afterAll(async () => {
    await engine?.close();
    upstream?.close();
  });

  it('advertises the extension, and offers run_at only to a request that declares it', async () => {
    const discovered = await postMcp(engine, modernRequest('server/discover'));
    expect(discovered.body.result.capabilities.extensions).toEqual({ 'io.modelcontextprotocol/tasks': {} });
    const offered = (await postMcp(engine, modernRequest('tools/list', {}, {}, TASKS))).body.result.tools;
    expect(offered.find((listed: any) => listed.name === 'Counter_Count').inputSchema.properties.run_at.type).toBe('string');
    const plain = (await postMcp(engine, modernRequest('tools/list'))).body.result.tools;
    expect(plain.find((listed: any) => listed.name === 'Counter_Count').inputSchema.properties.run_at).toBeUndefined();
    // The tasks methods are the extension's: a request that does not declare it is told what it lacks.
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const refused = await postMcp(engine, modernRequest(method, { taskId: 'x' }));
      expect(refused.body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } } });
    }
  });

  it('answers a quick call as itself, and a slow one with a task that completes with its result', async () => {
    const quick = await postMcp(engine, call('Counter_Count', { n: 1 }));
    expect(quick.body.result).toMatchObject({ resultType: 'complete', content: [{ text: '1' }] });

    const slow = postMcp(engine, call('Upstream_Read'));
    const request = await arrived();
    const created = (await slow).body.result;
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 3_600_000, pollIntervalMs: 1_000 });
    expect((await postMcp(engine, taskRequest('tasks/get', created.taskId))).body.result).toMatchObject({ taskId: created.taskId, status: 'working' });
    request.answer();
    const done = await pollTask(engine, created.taskId, (task) => task.status !== 'working');
    expect(done.result).toMatchObject({ resultType: 'complete', status: 'completed', result: { content: [{ text: '{"ok":true}' }] } });
    // Another user's session knows nothing of it.
    const foreign = await postMcp(engine, taskRequest('tasks/get', created.taskId), 'mallory');
    expect(foreign.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('Unknown task') });
  });

  it("cancels a read's task by aborting its upstream request, and lets a write's run to its end", async () => {
    const reading = postMcp(engine, call('Upstream_Read'));
    const read = await arrived();
    const readTask = (await reading).body.result;
    expect((await postMcp(engine, taskRequest('tasks/cancel', readTask.taskId))).body.result).toMatchObject({ resultType: 'complete' });
    await read.aborted;
    expect((await pollTask(engine, readTask.taskId, (task) => task.status !== 'working')).result.status).toBe('cancelled');

    const writing = postMcp(engine, call('Upstream_Write'));
    const write = await arrived();
    const writeTask = (await writing).body.result;
    await postMcp(engine, taskRequest('tasks/cancel', writeTask.taskId));
    expect((await postMcp(engine, taskRequest('tasks/get', writeTask.taskId))).body.result.status).toBe('working');
    write.answer();
    const done = await pollTask(engine, writeTask.taskId, (task) => task.status !== 'working');
    expect(done.result).toMatchObject({ status: 'completed', result: { content: [{ text: '{"ok":true}' }] } });
  });

  it('refuses a run_at that is not a time to come, naming it, and runs nothing', async () => {
    // Read as the scheduler reads a time: an impossible date (February 30th) is no time either.
    for (const runAt of ['tomorrow', '2030-01-01T10:00:00', '2030-02-30T10:00:00Z', '2001-01-01T00:00:00Z']) {
      const refused = await postMcp(engine, call('Counter_Count', { n: 2, run_at: runAt }));
      expect(refused.body.result).toMatchObject({ isError: true, _meta: { kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE' } });
      expect(refused.body.result.content[0].text).toMatch(/^run_at must be/);
    }
    expect(counted).not.toContain(2);
  });

  it('schedules a run_at call as a durable execution, which a cancel stops before it starts', async () => {
    const runAt = new Date(Date.now() + 60 * 60_000).toISOString();
    const created = (await postMcp(engine, call('Counter_Count', { n: 3, run_at: runAt }))).body.result;
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: null });
    expect(created.statusMessage).toContain(`Scheduled for ${runAt}`);
    const execution = await engine.api('GET', `/v1/scheduled_tools/${created.taskId}`);
    expect(execution.body).toMatchObject({ tool_name: 'Counter.Count', user_id: 'ada', execution_status: 'scheduled', input: { n: 3 } });
    expect((await postMcp(engine, taskRequest('tasks/cancel', created.taskId), 'mallory')).body.error.code).toBe(-32602);
    await postMcp(engine, taskRequest('tasks/cancel', created.taskId));
    expect((await postMcp(engine, taskRequest('tasks/get', created.taskId))).body.result.status).toBe('cancelled');
    expect((await engine.api('GET', `/v1/scheduled_tools/${created.taskId}`)).body.execution_status).toBe('cancelled');
  });

  it('keeps a scheduled task across engines: another engine on the same database runs it and answers for it', async () => {
    const runAt = new Date(Date.now() + 3_000).toISOString();
    const created = (await postMcp(engine, call('Counter_Count', { n: 4, run_at: runAt }))).body.result;
    const dataDir = engine.dataDir;
    // The engine that took it stops before it is due (its scheduler too); a second one takes over.
    await engine.close();
    const successor = await startTestEngine(
      'sqlite',
      { toolkits: [counterToolkit((n) => void counted.push(n))] },
      { dataDir, database: join(dataDir, 'quiver.db') },
    );
    try {
      const done = await pollTask(successor, created.taskId, (task) => task.status !== 'working');
      expect(done.result).toMatchObject({ status: 'completed', result: { content: [{ text: '4' }] } });
      expect(counted.filter((n) => n === 4)).toHaveLength(1);
    } finally {
      engine = successor;
    }
  });
});
