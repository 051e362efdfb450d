/**
 * What becomes of a finished call in the engine: its record in the database (off the response path,
 * written in small batches) and the API's ExecuteToolResponse.
 */
import { CompiledQuery, sql, type Kysely } from 'kysely';
import type { CallData, CallRecord, Dispatched, ToolError } from '@quiver/core';
import { isDatabaseUnavailable } from './store/outage.js';
import type { Database, ExecutionTable } from './store/schema.js';

/**
 * Records every call as a row of `executions`. Rows are written after the answer has gone, at most
 * `flushMs` later; a process that dies in between (kill -9, power loss) loses the records of the calls
 * it answered in that window, never the calls' effects. A scheduled execution's row exists already:
 * its record adds the duration and the error kind. Immediate records are kept for a day, with the
 * call's input (credentials redacted) and result when the engine is given them (QUIVER_RECORD_CALL_DATA),
 * each up to `maxDataBytes` of JSON, written as JSON when the records are written (redacting and
 * serializing them costs no call its latency). While the database is away the records wait in memory
 * (the newest `maxKept`, without their input and result: that many could hold over a gigabyte) and are
 * written once it is back.
 */
const immediateRetentionMs = 24 * 60 * 60_000;
const pruneEveryMs = 10 * 60_000;
const maxKept = 10_000;
/** The most JSON kept of a call's input, and of its result: past it, a note of what was left out. */
const maxDataBytes = 64 * 1024;

/** A call to write, as the dispatcher told it (made a row when written), or a row back from a write; and the call's data to keep, made JSON then too. */
type PendingRecord = ({ call: CallRecord; row?: undefined } | { row: ExecutionTable; call?: undefined }) & { data?: CallData };

/** The columns of a call's row, as rowOf makes them. */
const COLUMNS = [
  'id',
  'tool_name',
  'toolkit_name',
  'toolkit_version',
  'user_id',
  'execution_type',
  'status',
  'input',
  'output',
  'run_at',
  'started_at',
  'finished_at',
  'claimed_by',
  'claimed_until',
  'duration_ms',
  'error_kind',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof ExecutionTable)[];

// Every column is written but the one only a scheduled execution has: a column added to the table fails to compile
// until it is written here too, or named as one a call leaves empty.
const everyColumn: [Exclude<keyof ExecutionTable, (typeof COLUMNS)[number] | 'trace_parent'>] extends [never] ? true : never = true;
void everyColumn;

const INSERTED_COLUMNS = COLUMNS.map((column) => `"${column}"`).join(', ');

/** A row that exists already (a scheduled execution's) gets the call's duration and error kind. */
const ON_CONFLICT = 'on conflict ("id") do update set "duration_ms" = "excluded"."duration_ms", "error_kind" = "excluded"."error_kind"';

export class ExecutionLog {
  private pending: PendingRecord[] = [];
  /** How the database names the n-th (1-based) parameter of a statement: `?` (SQLite) or `$n` (PostgreSQL). */
  private readonly parameter: (n: number) => string;
  private readonly tupleTexts: string[] = [];
  private prunedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  /** A full batch's write, put off until the answer being prepared has gone. */
  private fullBatch: NodeJS.Immediate | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** Records wait for a database that was away at the last write. */
  private retrying = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly flushMs = 1000,
    private readonly maxBatch = 500,
  ) {
    const positional = sql`${0}`.compile(db).sql !== '?';
    this.parameter = positional ? (n) => `$${n}` : () => '?';
  }

  /**
   * One statement inserting the rows, written out here: a query builder would make a node of every one of
   * a batch's thousands of values, and compile them, each time (most of the cost of a write).
   */
  private insert(rows: ExecutionTable[]): CompiledQuery {
    const values: unknown[] = [];
    for (const row of rows) for (const column of COLUMNS) values.push(row[column] ?? null);
    return CompiledQuery.raw(`insert into "executions" (${INSERTED_COLUMNS}) values ${this.tuples(rows.length)} ${ON_CONFLICT}`, values);
  }

  /** The parameters of `count` rows, `(?, ?, …), (…)`; each row's text is made once and kept (a batch has at most maxBatch). */
  private tuples(count: number): string {
    for (let row = this.tupleTexts.length; row < count; row++) {
      this.tupleTexts.push(`(${COLUMNS.map((_, i) => this.parameter(row * COLUMNS.length + i + 1)).join(', ')})`);
    }
    return this.tupleTexts.slice(0, count).join(', ');
  }

  /** Records waiting to be written. */
  get queued(): number {
    return this.pending.length;
  }

  /** A finished call; with `data`, its input and result are kept too (a scheduled execution's row keeps its own). */
  record(call: CallRecord, data?: CallData): void {
    // A name no tool has is the caller's mistake, logged but not an execution.
    if (!call.toolkit) return;
    // The row is made when it is written: nothing of it is needed before.
    this.pending.push(data && !this.retrying ? { call, data } : { call });
    // A full batch goes as soon as the answer has, unless the database is away: then the retry's timer decides.
    if (this.pending.length >= this.maxBatch && !this.retrying) {
      this.fullBatch ??= setImmediate(() => {
        this.fullBatch = undefined;
        void this.flush();
      });
    } else this.timer ??= setTimeout(() => void this.flush(), this.flushMs);
  }

  /** Writes what is pending; resolves once every record so far is in the database, or back in the queue when the database is away (`queued` says how many). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    clearImmediate(this.fullBatch);
    this.fullBatch = undefined;
    const batch = this.pending.map(withData);
    this.pending = [];
    if (Date.now() - this.prunedAt > pruneEveryMs) {
      this.prunedAt = Date.now();
      this.writing = this.writing.then(() =>
        this.db
          .deleteFrom('executions')
          .where('execution_type', '=', 'immediate')
          .where('created_at', '<', new Date(Date.now() - immediateRetentionMs).toISOString())
          .execute()
          .then(
            () => undefined,
            () => undefined,
          ),
      );
    }
    if (batch.length) this.writing = this.writing.then(() => this.write(batch));
    return this.writing;
  }

  /** Writes rows, `maxBatch` a statement; those the database could not take for being away wait for the next flush. */
  private async write(rows: ExecutionTable[]): Promise<void> {
    for (let from = 0; from < rows.length; from += this.maxBatch) {
      try {
        await this.db.executeQuery(this.insert(rows.slice(from, from + this.maxBatch)));
        this.retrying = false;
      } catch (error) {
        // A database that refuses the rows must not take the engine down: the calls were answered.
        if (!isDatabaseUnavailable(error)) continue;
        // One that is away gets them again, ahead of newer records, the oldest dropped past maxKept.
        this.pending = [...rows.slice(from).map((row) => ({ row: withoutData(row) })), ...this.pending].slice(-maxKept);
        this.retrying = true;
        this.timer ??= setTimeout(() => void this.flush(), this.flushMs);
        this.timer.unref();
        return;
      }
    }
  }
}

/** The row of a finished call, as the dispatcher told it. */
function rowOf(call: CallRecord): ExecutionTable {
  const finished = new Date(Date.parse(call.started_at) + call.duration_ms).toISOString();
  return {
    id: call.execution_id,
    tool_name: call.tool,
    toolkit_name: call.toolkit ?? '',
    toolkit_version: call.version ?? '',
    user_id: call.user_id ?? null,
    execution_type: 'immediate',
    status: call.success ? 'success' : 'failed',
    input: '{}',
    output: null,
    run_at: call.started_at,
    started_at: call.started_at,
    finished_at: finished,
    claimed_by: null,
    claimed_until: null,
    duration_ms: call.duration_ms,
    error_kind: call.kind ?? null,
    created_at: call.started_at,
    updated_at: finished,
  };
}

/** The row with the JSON kept of its call: its input, and its value or error (without the stack the caller may have had). */
function withData({ call, row: written, data }: PendingRecord): ExecutionTable {
  const row = written ?? rowOf(call!);
  if (!data) return row;
  const { input, result } = data;
  const kept = 'error' in result ? { error: publicError(result.error, false) } : { value: result.value };
  // An input left out (MCP arguments may be) is no arguments.
  return { ...row, input: boundedJson(input ?? {}, 'input'), output: boundedJson(kept, 'output') };
}

/** JSON of a value up to maxDataBytes; past it (or not JSON at all), an object saying what was left out, never a cut text. */
function boundedJson(value: unknown, what: 'input' | 'output'): string {
  let json: string;
  try {
    json = JSON.stringify(value);
  } catch {
    return JSON.stringify({ not_kept: `the ${what} could not be written as JSON` });
  }
  const bytes = Buffer.byteLength(json);
  if (bytes <= maxDataBytes) return json;
  return JSON.stringify({ not_kept: `the ${what} was ${bytes.toLocaleString('en-US')} bytes, over the ${maxDataBytes.toLocaleString('en-US')} kept` });
}

function withoutData(row: ExecutionTable): ExecutionTable {
  return row.output ? { ...row, input: '{}', output: null } : row;
}

/** The engine's ExecuteToolResponse for an immediate run. */
export function executeResponse(outcome: Dispatched, includeStacktrace = false) {
  const { result, authorization, executionId } = outcome;
  const error = 'error' in result ? publicError(result.error, includeStacktrace) : undefined;
  return {
    id: executionId,
    execution_id: executionId,
    execution_type: 'immediate' as const,
    status: error ? ('failed' as const) : ('success' as const),
    success: !error,
    duration: Math.round(outcome.durationMs * 100) / 100,
    finished_at: new Date().toISOString(),
    output: {
      ...('value' in result && { value: result.value }),
      ...(error && { error }),
      ...(authorization && { authorization }),
      // Where the upstream said more pages follow: the arguments that fetch the next one.
      ...('next_page' in result && result.next_page && { next_page: result.next_page }),
      // The engine API's log lines carry the server's note (a result cut to the response budget).
      ...('note' in result && result.note && { logs: [{ level: 'warning', message: result.note, subtype: 'truncated' }] }),
    },
  };
}

export type ExecuteToolResponse = ReturnType<typeof executeResponse>;

/** A stack trace only on request; a developer message always (it is scrubbed of credentials already). */
function publicError(error: ToolError, includeStacktrace: boolean): ToolError {
  const { stacktrace, ...rest } = error;
  return includeStacktrace && stacktrace ? error : rest;
}
