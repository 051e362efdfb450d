/**
 * The engine's record of what ran, read back: every call the dispatcher made (immediate ones written
 * by the execution log, scheduled ones by the scheduler, both in `executions`) as one list of recent
 * executions and as per-minute statistics. A read writes the queued records first, so this process
 * always sees its own calls.
 */
import type { Kysely } from 'kysely';
import type { ExecutionLog } from './executions.js';
import type { Database, ExecutionTable } from './store/schema.js';

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

/**
 * One execution, as far as the engine keeps it: a scheduled execution's input and its run's value or
 * error; an immediate call's input (credentials redacted), value or error, kept with its record for a
 * day (QUIVER_RECORD_CALL_DATA). An immediate call recorded without them has its outcome and error kind only.
 */
export interface ActivityDetail extends ActivityItem {
  toolkit_version: string;
  finished_at: string;
  /**
   * Whether the input and output were kept: always for a scheduled execution; for an immediate call,
   * unless it was recorded with QUIVER_RECORD_CALL_DATA off or before the engine kept them.
   */
  data_kept: boolean;
  /**
   * The stored input (an immediate call's with its credentials and credential-named properties
   * redacted); null when not kept. One past 64 KB of JSON is `{not_kept: "<why>"}`.
   */
  input: unknown;
  /** The value the tool answered, when kept (an immediate call's past 64 KB: `{not_kept: "<why>"}`); null otherwise. */
  output: unknown;
  /** Why it failed, null when it succeeded. */
  error: ExecutionError | null;
}

/** A tool error as the caller was given it (without a stack trace); an immediate call recorded without its data has its kind only. */
export interface ExecutionError {
  /** Null when the engine, not the tool, ended the run (it stopped, or the tool is no longer served). */
  kind: string | null;
  message?: string;
  can_retry?: boolean;
  retry_after_ms?: number;
  additional_prompt_content?: string;
  developer_message?: string;
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
  /** The minute, or the first minute of the step, as `YYYY-MM-DDTHH:MM`. */
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

  /** One finished execution; `userId`, when given, must be its user (otherwise it is not found). */
  async get(id: string, userId?: string): Promise<ActivityDetail | undefined> {
    await this.log.flush();
    const row = await this.query({ user_id: userId }).where('id', '=', id).selectAll().executeTakeFirst();
    if (!row) return undefined;
    const detail = { ...itemOf(row), toolkit_version: row.toolkit_version, finished_at: row.finished_at! };
    const kindOnly = detail.success ? null : { kind: row.error_kind };
    if (row.execution_type !== 'scheduled') {
      if (!row.output) return { ...detail, data_kept: false, input: null, output: null, error: kindOnly };
      const result = JSON.parse(row.output) as StoredResult;
      // A result past the size kept is its note of what was left out.
      const output = 'value' in result ? result.value : 'not_kept' in result ? result : null;
      return { ...detail, data_kept: true, input: JSON.parse(row.input), output, error: errorOf(result) ?? kindOnly };
    }
    const attempt = await this.db
      .selectFrom('attempts')
      .select(['output', 'system_error_message'])
      .where('execution_id', '=', id)
      .orderBy('started_at', 'desc')
      .executeTakeFirst();
    const result = attempt?.output ? (JSON.parse(attempt.output) as StoredResult) : undefined;
    const error = errorOf(result) ?? (attempt?.system_error_message ? { kind: null, message: attempt.system_error_message } : kindOnly);
    return { ...detail, data_kept: true, input: JSON.parse(row.input), output: result && 'value' in result ? result.value : null, error };
  }

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
    return { items: rows.map(itemOf), total_count: Number(count.n) };
  }

  /**
   * Calls, errors and p50/p99 latency per toolkit over the last `minutes`, in steps of `step` minutes
   * (the last step ends with the current minute): each step's percentiles are its own calls'.
   */
  async stats(
    minutes: number,
    now = new Date(),
    step = 1,
  ): Promise<{ since: string; until: string; step: number; minutes: string[]; toolkits: ToolkitSeries[] }> {
    const steps = Math.ceil(minutes / step);
    const currentMinute = Math.floor(now.getTime() / 60_000);
    const firstMinute = currentMinute - steps * step + 1;
    // From the start of the first step's first minute, so that every call counted is in one of the points.
    const since = new Date(firstMinute * 60_000).toISOString();
    const { items } = await this.list({ since }, Number.MAX_SAFE_INTEGER, 0);
    // Each step is named by its first minute.
    const stepKeys = Array.from({ length: steps }, (_, i) => new Date((firstMinute + i * step) * 60_000).toISOString().slice(0, 16));
    const stepOf = (row: ActivityItem) => String(steps - 1 - Math.floor((currentMinute - Math.floor(Date.parse(row.started_at) / 60_000)) / step));
    const toolkits = [...groupBy(items, (item) => item.toolkit_name)].map(([toolkit, rows]): ToolkitSeries => {
      const errors = rows.filter((row) => !row.success).length;
      const byStep = groupBy(rows, stepOf);
      return {
        toolkit,
        calls: rows.length,
        errors,
        error_rate: errors / rows.length,
        ...latency(rows),
        points: stepKeys.map((minute, index) => {
          const inStep = byStep.get(String(index)) ?? [];
          return { minute, calls: inStep.length, errors: inStep.filter((row) => !row.success).length, ...latency(inStep) };
        }),
      };
    });
    toolkits.sort((a, b) => b.calls - a.calls || a.toolkit.localeCompare(b.toolkit));
    return { since, until: now.toISOString(), step, minutes: stepKeys, toolkits };
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

/** A tool result as stored: a scheduled attempt's, or an immediate call's (`not_kept` when it was too large to keep). */
type StoredResult = { value?: unknown; error?: ExecutionError & { kind: string }; not_kept?: string };

/** A stored result's error as the caller was given it, without the stack a scheduled attempt's may hold. */
function errorOf(result: StoredResult | undefined): ExecutionError | null {
  if (!result?.error) return null;
  const { kind, message, can_retry, retry_after_ms, additional_prompt_content, developer_message } = result.error;
  return { kind, message, can_retry, retry_after_ms, additional_prompt_content, developer_message };
}

type ItemColumns = 'id' | 'execution_type' | 'tool_name' | 'toolkit_name' | 'user_id' | 'status' | 'error_kind' | 'duration_ms' | 'started_at' | 'finished_at';

function itemOf(row: Pick<ExecutionTable, ItemColumns>): ActivityItem {
  return {
    id: row.id,
    execution_type: row.execution_type === 'scheduled' ? 'scheduled' : 'immediate',
    tool_name: row.tool_name,
    toolkit_name: row.toolkit_name,
    user_id: row.user_id,
    success: row.status === 'success',
    error_kind: row.error_kind,
    duration_ms: row.duration_ms ?? Date.parse(row.finished_at!) - Date.parse(row.started_at!),
    started_at: row.started_at!,
  };
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
