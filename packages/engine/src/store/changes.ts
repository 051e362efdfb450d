/**
 * Tells this process when a table it keeps in memory has changed, in this process or in another one
 * sharing the database: one small query per poll reads a signature of each table (row count and the
 * latest change time), and the listeners of a table whose signature moved are called.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** The tables whose rows processes cache, and the column that moves on every change. */
const watched = {
  api_keys: 'coalesce(revoked_at, created_at)',
  secrets: 'updated_at',
  connections: 'updated_at',
  auth_providers: 'updated_at',
  workers: 'updated_at',
} as const;

export type WatchedTable = keyof typeof watched;

export class ChangeWatcher {
  private readonly listeners = new Map<WatchedTable, Set<() => void>>();
  private signatures: Record<string, string> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly db: Kysely<Database>,
    /** A change in another process is seen within this long. */
    private readonly pollMs = 500,
  ) {}

  on(table: WatchedTable, listener: () => void): void {
    let set = this.listeners.get(table);
    if (!set) {
      set = new Set();
      this.listeners.set(table, set);
    }
    set.add(listener);
  }

  /** A write of this process: its own caches are told at once, not at the next poll. */
  changed(table: WatchedTable): void {
    for (const listener of this.listeners.get(table) ?? []) listener();
  }

  async start(): Promise<void> {
    await this.poll();
    const loop = () => {
      if (this.stopped) return;
      this.timer = setTimeout(() => {
        this.polling = this.poll().finally(loop);
      }, this.pollMs);
      this.timer.unref();
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.polling;
  }

  private async poll(): Promise<void> {
    let now: Record<string, string>;
    try {
      const columns = Object.entries(watched).map(([table, column]) => `(select count(*) || ':' || coalesce(max(${column}), '') from ${table}) as ${table}`);
      const { rows } = await sql<Record<string, string>>`select ${sql.raw(columns.join(', '))}`.execute(this.db);
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
