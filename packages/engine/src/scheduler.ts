/**
 * Scheduled executions. Each is written to the database before the caller hears back; a polling loop
 * claims due executions with one atomic UPDATE (and FOR UPDATE SKIP LOCKED on PostgreSQL, so several
 * engine processes share the schedule), starts each at once, runs it once, and records every attempt.
 *
 * An execution whose engine died mid-run is not run again: its lease runs out and it is marked failed,
 * because the tool may already have acted upstream (a POST is not safe to repeat).
 *
 * A stopping engine drains its scheduler: it claims nothing more, hands back at once what it claimed and
 * had not started (a claim in flight when the drain began, an execution whose attempt could not be
 * written), so that another process runs it without waiting for the lease; lets the running ones finish
 * within the drain's bound, and marks those still running then failed at once, for the same reason.
 *
 * While the database is away nothing is claimed, and what a run must write (its attempt's outcome, a
 * hand-back) is tried again until the database is back, rather than lost.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { activeTraceParent, checkInput, inputSchema, inSpan, linkTo, qualifiedName, withoutNulls, type CatalogEntry, type Dispatcher } from '@quiver/core';
import { invalid } from './errors.js';
import { isDatabaseUnavailable } from './store/outage.js';
import { normaliseTime } from './rfc3339.js';
import type { Dialect } from './store/db.js';
import type { Database, ExecutionTable } from './store/schema.js';

export interface SchedulerOptions {
  /** How often to look for due executions. */
  pollMs?: number;
  /** How many executions one poll may claim. */
  batch?: number;
  /** How long a claim holds before the execution counts as abandoned. */
  leaseMs?: number;
}

export class Scheduler {
  /** This process, as written into the executions it claims. */
  readonly owner = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  /** The executions running in this process, by id. */
  private running = new Map<string, Promise<void>>();
  private stopped = true;
  /** Set once the scheduler drains: whatever a claim brings back then is handed back unstarted. */
  private draining = false;
  /** Set when the drain's bound has passed: writes waiting for the database stop trying. */
  private givenUp = false;
  /** Executions handed back since the drain began. */
  private handedBack = 0;
  private polling: Promise<void> | undefined;
  private readonly options: Required<SchedulerOptions>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly dispatcher: Dispatcher,
    options: SchedulerOptions = {},
  ) {
    this.options = { pollMs: 250, batch: 8, leaseMs: 10 * 60_000, ...options };
  }

  /**
   * Persists the execution; it runs when due, in this process or another sharing the database. Its input
   * passes the checks of an immediate call first: refused when it runs, it would be refused hours late, and
   * an input no call accepts (thousands of levels deep) must reach neither the store nor the console.
   */
  async schedule(entry: CatalogEntry, input: unknown, userId: string | undefined, runAt: string) {
    const refused = checkInput(entry.tool, withoutNulls(inputSchema(entry.tool), input ?? {}));
    if (refused) throw invalid(refused.error.message);
    const now = new Date().toISOString();
    const id = randomUUID();
    const row: ExecutionTable = {
      id,
      tool_name: qualifiedName(entry.tool),
      toolkit_name: entry.tool.toolkit.name,
      toolkit_version: entry.tool.toolkit.version,
      user_id: userId ?? null,
      execution_type: 'scheduled',
      status: 'scheduled',
      input: JSON.stringify(input ?? {}),
      run_at: normaliseTime(runAt),
      started_at: null,
      finished_at: null,
      claimed_by: null,
      claimed_until: null,
      duration_ms: null,
      error_kind: null,
      created_at: now,
      updated_at: now,
      // The request scheduling it, for its run's span to link to.
      trace_parent: activeTraceParent() ?? null,
    };
    await this.db.insertInto('executions').values(row).execute();
    return { id, execution_id: id, execution_type: 'scheduled' as const, status: 'scheduled', success: true, run_at: row.run_at, duration: 0 };
  }

  start(): void {
    this.stopped = false;
    const loop = () => {
      this.polling = this.tick()
        // A database that is away for a moment (a restart, a failover) must not end the engine: the
        // next poll tries again, and nothing was claimed by the one that failed.
        .catch(() => undefined)
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(loop, this.options.pollMs);
        });
    };
    this.timer = setTimeout(loop, 0);
  }

  /** Whether the execution is running in this process. */
  runs(executionId: string): boolean {
    return this.running.has(executionId);
  }

  /** Stops polling and waits for the poll in progress and the executions already running. */
  async stop(): Promise<void> {
    this.drain();
    await this.polling;
    await Promise.all(this.running.values());
  }

  /** Claims nothing more from now on; a claim in flight hands its executions back instead of starting them. */
  drain(): void {
    this.draining = true;
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /**
   * Drains, and waits up to `ms` for the executions running here. Those still running then are marked
   * failed at once, not repeated (the tool may already have acted upstream), and no longer waited for.
   */
  async finish(ms: number): Promise<{ handedBack: number; abandoned: number }> {
    this.drain();
    const running = [...this.running.values()];
    if (await within(Promise.all([this.polling, ...running]), ms)) return { handedBack: this.handedBack, abandoned: 0 };
    // Given up: writes still waiting for the database stop trying, and nothing here is waited for any more.
    this.givenUp = true;
    this.polling = undefined;
    const left = [...this.running.keys()];
    this.running.clear();
    // Bounded too: a database that is away leaves them to their lease.
    const abandoning = left.length ? this.abandon(left).catch(() => undefined) : Promise.resolve();
    await within(abandoning, 2_000);
    return { handedBack: this.handedBack, abandoned: left.length };
  }

  /** One poll: give up abandoned claims, then claim and start what is due. */
  async tick(): Promise<void> {
    await this.failAbandoned();
    const claimed = await this.claimDue();
    // Claimed while the drain began: not started, so back to the schedule for another process.
    if (this.draining && claimed.length) return this.handBack(claimed);
    for (const execution of claimed) {
      const run = this.run(execution)
        // A run never ends the engine; what it could not write waits for the lease.
        .catch(() => undefined)
        .finally(() => this.running.delete(execution.id));
      this.running.set(execution.id, run);
    }
  }

  /** Executions claimed here and not started go back to the schedule, due as they were. */
  private async handBack(executions: ExecutionTable[]): Promise<void> {
    const ids = executions.map((execution) => execution.id);
    await this.persist(() =>
      this.db
        .updateTable('executions')
        .set({ status: 'scheduled', claimed_by: null, claimed_until: null, started_at: null, updated_at: new Date().toISOString() })
        .where('id', 'in', ids)
        .where('status', '=', 'running')
        .where('claimed_by', '=', this.owner)
        .execute(),
    );
    this.handedBack += ids.length;
  }

  /** Executions still running here when the drain's bound passed: failed now rather than when their lease runs out. */
  private async abandon(ids: string[]): Promise<void> {
    const now = new Date().toISOString();
    await this.db
      .updateTable('executions')
      .set({ status: 'failed', finished_at: now, updated_at: now, claimed_by: null, claimed_until: null })
      .where('id', 'in', ids)
      .where('status', '=', 'running')
      .execute();
    await this.db
      .updateTable('attempts')
      .set({ finished_at: now, success: 0, system_error_message: STOPPED_DURING_RUN })
      .where('execution_id', 'in', ids)
      .where('finished_at', 'is', null)
      .execute();
  }

  /** A write that must land: while the database is away it is tried again, pausing up to 5 s, until it does or the drain gives up. */
  private async persist(write: () => Promise<unknown>): Promise<void> {
    for (let pause = 250; ; pause = Math.min(pause * 2, 5_000)) {
      try {
        await write();
        return;
      } catch (error) {
        if (!isDatabaseUnavailable(error) || this.givenUp) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, pause).unref());
    }
  }

  private async claimDue(): Promise<ExecutionTable[]> {
    const now = new Date();
    let due = this.db
      .selectFrom('executions')
      .select('id')
      .where('status', '=', 'scheduled')
      .where('run_at', '<=', now.toISOString())
      .orderBy('run_at')
      .limit(this.options.batch);
    if (this.dialect === 'postgres') due = due.forUpdate().skipLocked();
    return this.db
      .updateTable('executions')
      .set({
        status: 'running',
        claimed_by: this.owner,
        claimed_until: new Date(now.getTime() + this.options.leaseMs).toISOString(),
        started_at: now.toISOString(),
        updated_at: now.toISOString(),
      })
      .where('id', 'in', due)
      .where('status', '=', 'scheduled')
      .returningAll()
      .execute();
  }

  private async failAbandoned(): Promise<void> {
    const now = new Date().toISOString();
    const abandoned = await this.db
      .updateTable('executions')
      .set({ status: 'failed', finished_at: now, updated_at: now, claimed_by: null, claimed_until: null })
      .where('status', '=', 'running')
      .where('claimed_until', '<', now)
      .returning('id')
      .execute();
    for (const { id } of abandoned) {
      await this.db
        .updateTable('attempts')
        .set({ finished_at: now, success: 0, system_error_message: STOPPED_DURING_RUN })
        .where('execution_id', '=', id)
        .where('finished_at', 'is', null)
        .execute();
    }
  }

  /** A run is a trace of its own, hours after the request that scheduled it, with a link back to that request. */
  private run(execution: ExecutionTable): Promise<void> {
    const attributes = { 'quiver.execution.id': execution.id, 'gen_ai.tool.name': execution.tool_name, 'quiver.toolkit': execution.toolkit_name };
    return inSpan(`scheduled_run ${execution.tool_name}`, { root: true, links: linkTo(execution.trace_parent), attributes }, () => this.runOnce(execution));
  }

  private async runOnce(execution: ExecutionTable): Promise<void> {
    const attemptId = randomUUID();
    try {
      await this.db
        .insertInto('attempts')
        .values({
          id: attemptId,
          execution_id: execution.id,
          started_at: new Date().toISOString(),
          finished_at: null,
          success: null,
          system_error_message: null,
          output: null,
        })
        .execute();
    } catch (error) {
      // The database went between the claim and the start: nothing ran, so the execution goes back.
      if (isDatabaseUnavailable(error)) return this.handBack([execution]);
      throw error;
    }
    const dispatched = await this.dispatcher.dispatch(execution.tool_name, JSON.parse(execution.input), {
      version: execution.toolkit_version,
      userId: execution.user_id ?? undefined,
      executionId: execution.id,
    });
    const outcome = dispatched.unknown ? undefined : dispatched;
    const success = outcome !== undefined && 'value' in outcome.result;
    const finished = new Date().toISOString();
    // The tool has run: its outcome is written, once the database is back if it is away now.
    await this.persist(() =>
      this.db
        .updateTable('attempts')
        .set({
          finished_at: finished,
          success: success ? 1 : 0,
          system_error_message: outcome ? null : `The tool ${execution.tool_name}@${execution.toolkit_version} is no longer served.`,
          output: outcome ? JSON.stringify({ ...outcome.result, ...(outcome.authorization && { authorization: outcome.authorization }) }) : null,
        })
        .where('id', '=', attemptId)
        .execute(),
    );
    await this.persist(() =>
      this.db
        .updateTable('executions')
        .set({ status: success ? 'success' : 'failed', finished_at: finished, updated_at: finished, claimed_by: null, claimed_until: null })
        .where('id', '=', execution.id)
        .execute(),
    );
  }

  /**
   * Scheduled executions of the whole database, by state, and how many seconds the oldest due one is late
   * (0 when none waits): the scheduler's gauges. One query over the (status, run_at) index.
   */
  async backlog(): Promise<{ scheduled: number; due: number; running: number; lagSeconds: number }> {
    const now = new Date().toISOString();
    const { rows } = await sql<{ status: string; due: number; count: number | string; oldest: string }>`
      select status, case when run_at <= ${now} then 1 else 0 end as due, count(*) as count, min(run_at) as oldest
      from executions where status in ('scheduled', 'running') group by status, due`.execute(this.db);
    const backlog = { scheduled: 0, due: 0, running: 0, lagSeconds: 0 };
    for (const row of rows) {
      if (row.status === 'running') backlog.running += Number(row.count);
      else if (Number(row.due) === 1) {
        backlog.due = Number(row.count);
        backlog.lagSeconds = Math.max(0, (Date.parse(now) - Date.parse(row.oldest)) / 1000);
      } else backlog.scheduled = Number(row.count);
    }
    return backlog;
  }

  /**
   * Cancels an execution that has not started (true), or does nothing (false): one that runs may already
   * have acted upstream, and ends as it ends. `userId` must be the execution's own.
   */
  async cancel(id: string, userId: string | undefined): Promise<boolean> {
    const now = new Date().toISOString();
    const cancelled = await this.db
      .updateTable('executions')
      .set({ status: 'cancelled', finished_at: now, updated_at: now })
      .where('id', '=', id)
      .where('status', '=', 'scheduled')
      .where('user_id', userId === undefined ? 'is' : '=', userId ?? null)
      .executeTakeFirst();
    return Number(cancelled.numUpdatedRows) === 1;
  }

  async list(limit: number, offset: number) {
    const [rows, total] = await Promise.all([
      this.db
        .selectFrom('executions')
        .selectAll()
        .where('execution_type', '=', 'scheduled')
        .orderBy('created_at', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
      this.db
        .selectFrom('executions')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('execution_type', '=', 'scheduled')
        .executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map(toToolExecution), limit, offset, page_count: rows.length, total_count: Number(total.count) };
  }

  async get(id: string) {
    const row = await this.db.selectFrom('executions').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return undefined;
    const attempts = await this.db.selectFrom('attempts').selectAll().where('execution_id', '=', id).orderBy('started_at').execute();
    return {
      ...toToolExecution(row),
      input: JSON.parse(row.input),
      attempts: attempts.map((attempt) => ({
        id: attempt.id,
        started_at: attempt.started_at,
        finished_at: attempt.finished_at,
        success: attempt.success === null ? null : attempt.success === 1,
        system_error_message: attempt.system_error_message,
        output: attempt.output === null ? null : JSON.parse(attempt.output),
      })),
    };
  }
}

const STOPPED_DURING_RUN = 'The engine stopped during this run; it is not repeated, because the tool may already have acted.';

/** Whether the promise settled within `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

function toToolExecution(row: ExecutionTable) {
  return {
    id: row.id,
    tool_name: row.tool_name,
    toolkit_name: row.toolkit_name,
    toolkit_version: row.toolkit_version,
    user_id: row.user_id,
    execution_type: row.execution_type,
    execution_status: row.status,
    run_at: row.run_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
