/**
 * Tells this process when a table it keeps in memory has changed, in this process or in another one
 * sharing the database.
 *
 * On PostgreSQL the database says so: migration 0011's triggers NOTIFY `quiver_changes` with the table
 * when the writing transaction commits, and this watcher LISTENs on one connection of its own (not one of
 * the pool's), so every process hears of a change within milliseconds. Should that connection go (the
 * database restarting, the connection ended by the server, a network cut found by the heartbeat), the
 * watcher polls instead, as on SQLite, and connects again with a growing pause; once it listens again it
 * refreshes every cache once, since what changed while nobody listened is not known.
 *
 * On SQLite (one file shared by several processes, and no notifications) it polls: one small query reads
 * a signature of each table (row count and the latest change time) every `pollMs`, and the listeners of a
 * table whose signature moved are called.
 */
import { sql } from 'kysely';
import type { Client, Notification } from 'pg';
import type { Store } from './db.js';

/** The tables whose rows processes cache, and the column that moves on every change (the triggers name the same). */
const watched = {
  api_keys: 'coalesce(updated_at, revoked_at, created_at)',
  secrets: 'updated_at',
  connections: 'updated_at',
  auth_providers: 'updated_at',
  workers: 'updated_at',
} as const;

export type WatchedTable = keyof typeof watched;

/** The channel migration 0011's triggers notify on, with `<schema>.<table>` as the payload. */
export const CHANGES_CHANNEL = 'quiver_changes';

export interface ChangeLog {
  warn(record: object, message: string): void;
  info(record: object, message: string): void;
}

export interface ChangeWatcherOptions {
  /** While nothing notifies (SQLite, or PostgreSQL's LISTEN connection lost), a change in another process is seen within this long. Default 500 ms. */
  pollMs?: number;
  /** The first pause before listening again after a lost connection; it doubles up to `maxReconnectMs`. Defaults 250 ms and 5 s. */
  reconnectMs?: number;
  maxReconnectMs?: number;
  /** How often the LISTEN connection is asked whether it still answers, and how long it has to. Defaults 10 s and 5 s. */
  heartbeatMs?: number;
  heartbeatTimeoutMs?: number;
  /** Where the changes of state go (lost, back): the engine's logger, once it has one. */
  log?: () => ChangeLog | undefined;
}

export class ChangeWatcher {
  private readonly listeners = new Map<WatchedTable, Set<() => void>>();
  private readonly options: Required<Omit<ChangeWatcherOptions, 'log'>>;
  private readonly log: () => ChangeLog | undefined;
  private signatures: Record<string, string> | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  /** Whether the polling loop runs; it ends by itself once the watcher listens again. */
  private pollingLoop = false;
  /** The connection that LISTENs, while it does. */
  private connection: Client | undefined;
  /** Whether a lost connection was said in the log (it is said once, and its return once). */
  private lost = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private reconnectMs: number;
  private heartbeat: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly store: Pick<Store, 'db' | 'dedicatedConnection'>,
    options: ChangeWatcherOptions = {},
  ) {
    // An option given as undefined keeps its default: spread as it is, it would set the interval to none.
    const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
    this.options = { pollMs: 500, reconnectMs: 250, maxReconnectMs: 5_000, heartbeatMs: 10_000, heartbeatTimeoutMs: 5_000, ...given };
    this.log = options.log ?? (() => undefined);
    this.reconnectMs = this.options.reconnectMs;
  }

  on(table: WatchedTable, listener: () => void): void {
    let set = this.listeners.get(table);
    if (!set) {
      set = new Set();
      this.listeners.set(table, set);
    }
    set.add(listener);
  }

  /** A write of this process: its own caches are told at once, not when the notification comes back. */
  changed(table: WatchedTable): void {
    for (const listener of this.listeners.get(table) ?? []) listener();
  }

  /** Undefined while other processes' changes arrive at once (or the database is SQLite); otherwise why they arrive late. */
  degraded(): string | undefined {
    if (!this.store.dedicatedConnection || this.connection || this.stopped) return undefined;
    return `change notifications are lost for now: changes made through other processes are polled every ${this.options.pollMs / 1000} s`;
  }

  async start(): Promise<void> {
    // The signatures of now, which polling (on SQLite, or after a lost connection) compares with.
    await this.poll();
    if (!this.store.dedicatedConnection) return this.pollNow();
    if (!(await this.listen())) this.connectionLost();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.pollTimer);
    clearTimeout(this.reconnectTimer);
    clearInterval(this.heartbeat);
    const connection = this.connection;
    this.connection = undefined;
    await Promise.all([this.polling, connection && bounded(connection.end(), 1_000).catch(() => {})]);
  }

  /** Connects and LISTENs; false when the database does not let it (the caller polls meanwhile). */
  private async listen(): Promise<boolean> {
    let client: Client | undefined;
    try {
      client = await this.store.dedicatedConnection!();
      const { rows } = await client.query<{ schema: string }>('select current_schema() as schema');
      const schema = rows[0]!.schema;
      client.on('notification', (message) => this.notified(schema, message));
      // Heard before LISTEN answers: a connection ended in between counts as lost.
      const listening = client;
      client.once('end', () => this.connectionLost(listening));
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch {
      await client?.end().catch(() => {});
      return false;
    }
    if (this.stopped) {
      await client.end().catch(() => {});
      return true;
    }
    this.connection = client;
    this.reconnectMs = this.options.reconnectMs;
    this.heartbeat = setInterval(() => void this.beat(client), this.options.heartbeatMs).unref();
    if (this.lost) {
      this.lost = false;
      this.log()?.info({}, 'change notifications back: changes made through other processes arrive at once');
      // What changed while nobody listened is not known: every cache starts over.
      for (const table of Object.keys(watched) as WatchedTable[]) this.changed(table);
    }
    return true;
  }

  private notified(schema: string, { channel, payload }: Notification): void {
    if (channel !== CHANGES_CHANNEL || !payload) return;
    // Processes on other schemas of the same database share the channel: only this schema's tables count.
    const dot = payload.lastIndexOf('.');
    const table = payload.slice(dot + 1);
    if (payload.slice(0, dot) === schema && table in watched) this.changed(table as WatchedTable);
  }

  /** A connection that no longer answers within the timeout is as good as lost. */
  private async beat(client: Client): Promise<void> {
    const answered = await bounded(
      client.query('select 1').then(() => true),
      this.options.heartbeatTimeoutMs,
    ).catch(() => false);
    if (answered || client !== this.connection) return;
    this.connectionLost(client);
    void client.end().catch(() => {});
  }

  /** The LISTEN connection went (or never came): poll meanwhile, and connect again after a pause. */
  private connectionLost(client?: Client): void {
    if (this.stopped || (client && client !== this.connection)) return;
    this.connection = undefined;
    clearInterval(this.heartbeat);
    if (!this.lost) {
      this.lost = true;
      this.log()?.warn(
        { poll_ms: this.options.pollMs },
        'change notifications lost: changes made through other processes are polled until the connection is back',
      );
    }
    this.pollNow();
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(async () => {
      if (this.stopped || (await this.listen())) return;
      this.reconnectMs = Math.min(this.reconnectMs * 2, this.options.maxReconnectMs);
      this.connectionLost();
    }, this.reconnectMs);
    this.reconnectTimer.unref();
  }

  /** Polls every `pollMs` until the watcher listens (PostgreSQL) or stops; one loop at a time. */
  private pollNow(): void {
    if (this.pollingLoop) return;
    this.pollingLoop = true;
    const loop = () => {
      if (this.stopped || this.connection) {
        this.pollingLoop = false;
        return;
      }
      this.pollTimer = setTimeout(() => {
        this.polling = this.poll().finally(loop);
      }, this.options.pollMs);
      this.pollTimer.unref();
    };
    loop();
  }

  private async poll(): Promise<void> {
    let now: Record<string, string>;
    try {
      const columns = Object.entries(watched).map(([table, column]) => `(select count(*) || ':' || coalesce(max(${column}), '') from ${table}) as ${table}`);
      const { rows } = await sql<Record<string, string>>`select ${sql.raw(columns.join(', '))}`.execute(this.store.db);
      now = rows[0]!;
    } catch {
      // The database is away for a moment (a restart): the caches stay until it answers again.
      return;
    }
    const before = this.signatures;
    this.signatures = now;
    if (!before) return;
    for (const table of Object.keys(watched) as WatchedTable[]) if (before[table] !== now[table]) this.changed(table);
  }
}

/** The promise, or a rejection once `ms` have passed. */
function bounded<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
