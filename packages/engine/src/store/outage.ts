/**
 * The database going away (a failover, a restart, connections ended by the server, a network cut) is an
 * outage the engine waits out, not a bug: this module says which errors mean that, in one place, and
 * keeps this process's view of it, said once in the log at each change rather than once per failed query.
 * The HTTP API answers 503 for these errors, a tool call gets a retryable tool error, and the background
 * work (scheduler, change watcher, execution records, audit sweep) tries again later.
 */

/** Errors of the network below a connection: the database's host does not answer, or cut the connection. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * PostgreSQL's own words for "not now": class 08 (connection exception), the server shutting down or
 * ending the connection (57P01 `terminating connection due to administrator command`, 57P02, 57P03 `the
 * database system is starting up`), and no connection left for us (53300).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300)$/;

/** What `pg` says of a connection that ended or never opened, and what SQLite and Kysely say of one closed under them. */
const UNAVAILABLE_MESSAGES =
  /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|timeout exceeded when trying to connect|The database connection is not open)/;

/** Whether an error of the database's driver says the database is away, rather than that a query was wrong. */
export function meansOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code } = error as { code?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.test(code))) return true;
  if (UNAVAILABLE_MESSAGES.test(error.message)) return true;
  // Node's connection attempts to every address of a host fail together.
  return error instanceof AggregateError && error.errors.some(meansOutage);
}

/**
 * The errors the database's driver raised for want of the database, as the store saw them go by. Only
 * those count: a refused connection to an upstream or a worker is not a database outage, though its error
 * looks the same.
 */
const outages = new WeakSet<object>();

/** Whether a query (or a connection for one) failed because the database is away. */
export function isDatabaseUnavailable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && outages.has(error);
}

export interface OutageLog {
  warn(record: object, message: string): void;
  info(record: object, message: string): void;
}

/**
 * Whether this process's last use of the database failed for want of it. Fed by every query and every
 * connection attempt (store/db.ts), whose outage errors it marks for isDatabaseUnavailable; a line in the
 * log when the database is lost and one when it is back.
 */
export class DatabaseAvailability {
  private lostAt: number | undefined;
  /** Where the lines go: the engine's logger, once it has one. */
  log: () => OutageLog | undefined = () => undefined;

  get away(): boolean {
    return this.lostAt !== undefined;
  }

  /** A query or a connection attempt failed; only an outage counts, not a wrong query. */
  failed(error: unknown): void {
    if (!meansOutage(error)) return;
    outages.add(error as Error);
    if (this.lostAt !== undefined) return;
    this.lostAt = Date.now();
    this.log()?.warn({ err: (error as Error).message }, 'database lost: requests that need it answer 503 until it is back');
  }

  /** A query succeeded. */
  answered(): void {
    if (this.lostAt === undefined) return;
    const awayMs = Date.now() - this.lostAt;
    this.lostAt = undefined;
    this.log()?.info({ away_ms: awayMs }, 'database back');
  }
}
