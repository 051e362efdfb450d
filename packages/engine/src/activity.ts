/**
 * The engine's record of what ran: immediate calls (kept for a day in `tool_calls`, written in batches) and
 * the attempts of scheduled executions, read together as one list of recent executions and as per-minute
 * statistics. A read writes the queued calls first, so this process always sees its own calls.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database, ToolCallTable } from './store/schema.js';

export interface CallRecord {
  tool_name: string;
  toolkit_name: string;
  user_id?: string;
  success: boolean;
  error_kind?: string;
  duration_ms: number;
  started_at: string;
}

export interface ActivityItem extends Omit<CallRecord, 'user_id' | 'error_kind'> {
  id: string;
  execution_type: 'immediate' | 'scheduled';
  user_id: string | null;
  error_kind: string | null;
}

export interface ActivityFilter {
  tool?: string;
  toolkit?: string;
  user_id?: string;
  outcome?: 'success' | 'failed';
  /** ISO 8601: only executions started at or after. */
  since?: string;
}

export interface MinutePoint {
  /** The minute, as `YYYY-MM-DDTHH:MM`. */
  minute: string;
  calls: number;
  errors: number;
  p50_ms: number | null;
  p99_ms: number | null;
}

export interface ToolkitSeries {
  toolkit: string;
  calls: number;
  errors: number;
  error_rate: number;
  p50_ms: number | null;
  p99_ms: number | null;
  points: MinutePoint[];
}

const retentionMs = 24 * 60 * 60_000;
const pruneEveryMs = 10 * 60_000;

export interface ActivityOptions {
  /** Calls are written in batches, at most this long after they end (or sooner, when `batch` wait). */
  flushMs?: number;
  batch?: number;
  /** Where a failed write is reported: recording never fails a call. */
  onError?: (error: unknown) => void;
}

export class Activity {
  private lastPrune = 0;
  private pending: ToolCallTable[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private readonly options: Required<ActivityOptions>;

  constructor(
    private readonly db: Kysely<Database>,
    options: ActivityOptions = {},
  ) {
    this.options = { flushMs: 1000, batch: 200, onError: () => {}, ...options };
  }

  /** Queues the call; one multi-row insert writes each batch, off the path of the calls themselves. */
  record(call: CallRecord): void {
    this.pending.push({
      ...call,
      id: randomUUID(),
      user_id: call.user_id ?? null,
      error_kind: call.error_kind ?? null,
      success: call.success ? 1 : 0,
    });
    if (this.pending.length >= this.options.batch) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.options.flushMs).unref();
  }

  /** Writes what is queued (and, every ten minutes, drops calls older than a day). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const rows = this.pending.splice(0);
    const prune = Date.now() - this.lastPrune > pruneEveryMs;
    if (prune) this.lastPrune = Date.now();
    this.writing = this.writing.then(async () => {
      try {
        if (rows.length) await this.db.insertInto('tool_calls').values(rows).execute();
        if (prune)
          await this.db
            .deleteFrom('tool_calls')
            .where('started_at', '<', new Date(Date.now() - retentionMs).toISOString())
            .execute();
      } catch (error) {
        this.options.onError(error);
      }
    });
    return this.writing;
  }

  /** Newest first: the first `limit` after `offset` of immediate calls and scheduled attempts together. */
  async list(filter: ActivityFilter, limit: number, offset: number): Promise<{ items: ActivityItem[]; total_count: number }> {
    await this.flush();
    const calls = this.callsQuery(filter);
    const attempts = this.attemptsQuery(filter);
    const [callRows, attemptRows, callCount, attemptCount] = await Promise.all([
      calls
        .selectAll()
        .orderBy('started_at', 'desc')
        .limit(offset + limit)
        .execute(),
      attempts
        .select(['a.id', 'e.tool_name', 'e.toolkit_name', 'e.user_id', 'a.success', 'a.output', 'a.started_at', 'a.finished_at'])
        .orderBy('a.started_at', 'desc')
        .limit(offset + limit)
        .execute(),
      calls.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      attempts.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    const items: ActivityItem[] = [
      ...callRows.map((row) => ({ ...row, execution_type: 'immediate' as const, success: row.success === 1 })),
      ...attemptRows.map((row) => ({
        id: row.id,
        execution_type: 'scheduled' as const,
        tool_name: row.tool_name,
        toolkit_name: row.toolkit_name,
        user_id: row.user_id,
        success: row.success === 1,
        error_kind: errorKindOf(row.output),
        duration_ms: row.finished_at ? Date.parse(row.finished_at) - Date.parse(row.started_at) : 0,
        started_at: row.started_at,
      })),
    ];
    items.sort((a, b) => b.started_at.localeCompare(a.started_at));
    return { items: items.slice(offset, offset + limit), total_count: Number(callCount.n) + Number(attemptCount.n) };
  }

  /** Calls, errors and p50/p99 latency per minute and per toolkit, over the last `minutes`. */
  async stats(minutes: number, now = new Date()): Promise<{ since: string; until: string; minutes: string[]; toolkits: ToolkitSeries[] }> {
    const since = new Date(now.getTime() - minutes * 60_000).toISOString();
    const { items } = await this.list({ since }, Number.MAX_SAFE_INTEGER, 0);
    const minuteKeys = Array.from({ length: minutes }, (_, i) =>
      new Date(now.getTime() - (minutes - 1 - i) * 60_000).toISOString().slice(0, 16),
    );
    const toolkits = [...groupBy(items, (item) => item.toolkit_name)].map(([toolkit, rows]): ToolkitSeries => {
      const errors = rows.filter((row) => !row.success).length;
      const byMinute = groupBy(rows, (row) => row.started_at.slice(0, 16));
      return {
        toolkit,
        calls: rows.length,
        errors,
        error_rate: errors / rows.length,
        ...latency(rows),
        points: minuteKeys.map((minute) => {
          const inMinute = byMinute.get(minute) ?? [];
          return { minute, calls: inMinute.length, errors: inMinute.filter((row) => !row.success).length, ...latency(inMinute) };
        }),
      };
    });
    toolkits.sort((a, b) => b.calls - a.calls || a.toolkit.localeCompare(b.toolkit));
    return { since, until: now.toISOString(), minutes: minuteKeys, toolkits };
  }

  private callsQuery(filter: ActivityFilter) {
    let query = this.db.selectFrom('tool_calls');
    if (filter.tool) query = query.where('tool_name', '=', filter.tool);
    if (filter.toolkit) query = query.where('toolkit_name', '=', filter.toolkit);
    if (filter.user_id) query = query.where('user_id', '=', filter.user_id);
    if (filter.outcome) query = query.where('success', '=', filter.outcome === 'success' ? 1 : 0);
    if (filter.since) query = query.where('started_at', '>=', filter.since);
    return query;
  }

  private attemptsQuery(filter: ActivityFilter) {
    let query = this.db
      .selectFrom('attempts as a')
      .innerJoin('executions as e', 'e.id', 'a.execution_id')
      .where('a.finished_at', 'is not', null);
    if (filter.tool) query = query.where('e.tool_name', '=', filter.tool);
    if (filter.toolkit) query = query.where('e.toolkit_name', '=', filter.toolkit);
    if (filter.user_id) query = query.where('e.user_id', '=', filter.user_id);
    if (filter.outcome) query = query.where('a.success', '=', filter.outcome === 'success' ? 1 : 0);
    if (filter.since) query = query.where('a.started_at', '>=', filter.since);
    return query;
  }
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/** Nearest-rank percentiles of the durations, in milliseconds to a tenth. */
function latency(rows: readonly { duration_ms: number }[]): { p50_ms: number | null; p99_ms: number | null } {
  if (!rows.length) return { p50_ms: null, p99_ms: null };
  const sorted = rows.map((row) => row.duration_ms).sort((a, b) => a - b);
  const at = (p: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]! * 10) / 10;
  return { p50_ms: at(0.5), p99_ms: at(0.99) };
}

/** A scheduled attempt's output is the tool result as JSON: `{error: {kind}}` when it failed. */
function errorKindOf(output: string | null): string | null {
  if (!output) return null;
  try {
    return (JSON.parse(output) as { error?: { kind?: string } }).error?.kind ?? null;
  } catch {
    return null;
  }
}
