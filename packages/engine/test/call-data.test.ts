/**
 * An immediate call's input and result are read (redacted, written as JSON) only to be kept, and only
 * once the answer has gone: not with QUIVER_RECORD_CALL_DATA off, not for a scheduled execution (its row
 * keeps its own input), not while the database is away.
 */
import { randomUUID } from 'node:crypto';
import { defineToolkit, type CallData, type CallRecord } from '@quiver/core';
import { startTestEngine, type TestEngine } from '@quiver/test-support/harness';
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, type CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ExecutionLog } from '../src/executions.js';
import { DatabaseAvailability } from '../src/store/outage.js';
import type { Database } from '../src/store/schema.js';

const probe = defineToolkit(
  {
    name: 'Lazy',
    version: '1',
    description: 'Answers what the test needs.',
    baseUrl: 'http://127.0.0.1:9',
    tools: [
      {
        name: 'Echo',
        description: 'Answers its input.',
        parameters: [{ name: 'text', description: 'Anything.', required: true, schema: { type: 'string' } }],
        output: { description: 'The input.' },
        requirements: {},
      },
    ],
  },
  { Echo: async (input) => ({ value: { echoed: input.text } }) },
);

/** The call data as handed to a log, each read of its input and result counted. */
function counted(data: CallData, reads: { count: number }): CallData {
  return {
    get input() {
      reads.count++;
      return data.input;
    },
    get result() {
      reads.count++;
      return data.result;
    },
  };
}

/** Counts the calls whose data the engine hands its log, and the reads of that data. */
function watchData(engine: TestEngine) {
  const seen = { handed: 0, count: 0 };
  const log = engine.engine.executions;
  const record = log.record.bind(log);
  vi.spyOn(log, 'record').mockImplementation((call, data) => {
    if (data) seen.handed++;
    record(call, data && counted(data, seen));
  });
  return seen;
}

const call = (tool: string): CallRecord => ({
  execution_id: randomUUID(),
  tool,
  toolkit: tool.split('.')[0],
  version: '1',
  success: true,
  duration_ms: 1,
  started_at: new Date().toISOString(),
});

describe("a call's data in the engine", () => {
  let engine: TestEngine;
  let seen: { handed: number; count: number };

  beforeAll(async () => {
    engine = await startTestEngine('sqlite', { toolkits: [probe] });
    seen = watchData(engine);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await engine?.close();
  });

  it('is read only once the answer has gone, when the log is written', async () => {
    // Nothing waits to be written: the next write is this call's, a second after it.
    await engine.engine.executions.flush();
    const before = { ...seen };
    const answer = await engine.api('POST', '/v1/tools/execute', { tool_name: 'Lazy.Echo', input: { text: 'kept' } });
    expect(answer.body.success).toBe(true);
    expect(seen).toEqual({ handed: before.handed + 1, count: before.count });
    await engine.engine.executions.flush();
    expect(seen.count).toBe(before.count + 2);
    const row = await engine.engine.store.db
      .selectFrom('executions')
      .select(['input', 'output'])
      .where('id', '=', answer.body.execution_id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ input: '{"text":"kept"}', output: '{"value":{"echoed":"kept"}}' });
  });

  it('is not handed to the log for a scheduled execution', async () => {
    const before = { ...seen };
    const answer = await engine.api('POST', '/v1/tools/execute', { tool_name: 'Lazy.Echo', input: { text: 'later' }, run_at: new Date().toISOString() });
    const id = answer.body.id as string;
    for (let i = 0; i < 200 && !['success', 'failed'].includes((await engine.api('GET', `/v1/scheduled_tools/${id}`)).body.execution_status); i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    await engine.engine.executions.flush();
    expect((await engine.api('GET', `/v1/activity/executions/${id}`)).body).toMatchObject({
      execution_type: 'scheduled',
      success: true,
      input: { text: 'later' },
    });
    expect(seen).toEqual(before);
  });

  it('is not handed to the log with QUIVER_RECORD_CALL_DATA off', async () => {
    const off = await startTestEngine('sqlite', { toolkits: [probe] }, { recordCallData: false });
    try {
      const offSeen = watchData(off);
      const answer = await off.api('POST', '/v1/tools/execute', { tool_name: 'Lazy.Echo', input: { text: 'not kept' } });
      expect(answer.body.success).toBe(true);
      await off.engine.executions.flush();
      expect(offSeen).toEqual({ handed: 0, count: 0 });
    } finally {
      await off.close();
    }
  });
});

describe('the execution log', () => {
  it('writes a full batch after the answer being prepared, not while recording the call that filled it', async () => {
    const written: unknown[] = [];
    const log = new ExecutionLog(
      fakeDatabase(async (rows) => void written.push(...rows)),
      60_000,
      1,
    );
    const reads = { count: 0 };
    log.record(call('Lazy.Echo'), counted({ input: { text: 'now' }, result: { value: 'now' } }, reads));
    expect(reads.count).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    await log.flush();
    expect(reads.count).toBe(2);
    expect(written).toEqual([expect.objectContaining({ input: '{"text":"now"}', output: '{"value":"now"}' })]);
  });

  it('keeps no data of the calls it records while the database is away', async () => {
    const away = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    new DatabaseAvailability().failed(away);
    const log = new ExecutionLog(
      fakeDatabase(async () => {
        throw away;
      }),
      60_000,
    );
    const reads = { count: 0 };
    log.record(call('Lazy.Echo'), counted({ input: {}, result: { value: 1 } }, reads));
    await log.flush();
    expect(log.queued).toBe(1);
    expect(reads.count).toBe(2);
    log.record(call('Lazy.Echo'), counted({ input: {}, result: { value: 2 } }, reads));
    await log.flush();
    expect(log.queued).toBe(2);
    expect(reads.count).toBe(2);
  });
});

/** A database that hands the rows of each insert to `insert` (as objects of its columns), and takes every delete. */
function fakeDatabase(insert: (rows: unknown[]) => Promise<void>): Kysely<Database> {
  const deleting = { where: () => deleting, execute: async () => [] };
  // Compiles as SQLite does, and runs nothing.
  const compiler = new Kysely<Database>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
  return {
    getExecutor: () => compiler.getExecutor(),
    executeQuery: (query: CompiledQuery) => {
      const columns = [.../^insert into "executions" \(([^)]*)\)/.exec(query.sql)![1]!.matchAll(/"(\w+)"/g)].map((match) => match[1]!);
      const rows: Record<string, unknown>[] = [];
      for (let at = 0; at < query.parameters.length; at += columns.length) {
        rows.push(Object.fromEntries(columns.map((column, i) => [column, query.parameters[at + i]])));
      }
      return insert(rows);
    },
    deleteFrom: () => deleting,
  } as unknown as Kysely<Database>;
}
