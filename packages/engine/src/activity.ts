/**
 * The engine's record of what ran, read back: every call the dispatcher made (immediate ones written
 * by the execution log, scheduled ones by the scheduler, both in `executions`) as one list of recent
 * executions and as per-minute statistics. A read writes the queued records first, so this process
 * always sees its own calls.
 */
import type { Kysely } from 'kysely';
import type { ExecutionLog } from './executions.js';
import type { Database } from './store/schema.js';

export interface ActivityItem {
  id: string;
  execution_type: 'immediate' | 'scheduled';
  tool_name: string;
  toolkit_name: string;
  user_id: string | null;
  success: boolean;
  error_kind: string | null;
  duration_ms: number;
  started_at: string;
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

export class Activity {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly log: ExecutionLog,
  ) {}

  /** Newest first: the first `limit` after `offset` of the finished executions that match. */
  async list(filter: ActivityFilter, limit: number, offset: number): Promise<{ items: ActivityItem[]; total_count: number }> {
    await this.log.flush();
    const matching = this.query(filter);
    const [rows, count] = await Promise.all([
      matching
        .select(['id', 'execution_type', 'tool_name', 'toolkit_name', 'user_id', 'status', 'error_kind', 'duration_ms', 'started_at', 'finished_at'])
        .orderBy('started_at', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
      matching.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    const items = rows.map((row) => ({
      id: row.id,
      execution_type: row.execution_type === 'scheduled' ? ('scheduled' as const) : ('immediate' as const),
      tool_name: row.tool_name,
      toolkit_name: row.toolkit_name,
      user_id: row.user_id,
      success: row.status === 'success',
      error_kind: row.error_kind,
      duration_ms: row.duration_ms ?? Date.parse(row.finished_at!) - Date.parse(row.started_at!),
      started_at: row.started_at!,
    }));
    return { items, total_count: Number(count.n) };
  }

  /** Calls, errors and p50/p99 latency per minute and per toolkit, over the last `minutes`. */
  async stats(minutes: number, now = new Date()): Promise<{ since: string; until: string; minutes: string[]; toolkits: ToolkitSeries[] }> {
    const since = new Date(now.getTime() - minutes * 60_000).toISOString();
    const { items } = await this.list({ since }, Number.MAX_SAFE_INTEGER, 0);
    const minuteKeys = Array.from({ length: minutes }, (_, i) => new Date(now.getTime() - (minutes - 1 - i) * 60_000).toISOString().slice(0, 16));
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

  /** Finished executions (a scheduled one that has not run yet is not activity). */
  private query(filter: ActivityFilter) {
    let query = this.db.selectFrom('executions').where('finished_at', 'is not', null).where('started_at', 'is not', null);
    if (filter.tool) query = query.where('tool_name', '=', filter.tool);
    if (filter.toolkit) query = query.where('toolkit_name', '=', filter.toolkit);
    if (filter.user_id) query = query.where('user_id', '=', filter.user_id);
    if (filter.outcome) query = query.where('status', '=', filter.outcome);
    if (filter.since) query = query.where('started_at', '>=', filter.since);
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
function _errorKindOf(output: string | null): string | null {
  if (!output) return null;
  try {
    return (JSON.parse(output) as { error?: { kind?: string } }).error?.kind ?? null;
  } catch {
    return null;
  }
}
