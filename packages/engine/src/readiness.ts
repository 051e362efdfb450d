/**
 * Whether this engine process can take traffic (`GET /v1/ready`): it is not draining, its database
 * answers, and every migration it knows is applied. Liveness (`GET /v1/health`) asks none of this, so that
 * an orchestrator takes a process out of rotation for a database outage instead of restarting it.
 *
 * Bounded for any number of callers: one probe runs at a time, its answer is reused for a second, and a
 * database that has not answered within two seconds is a failed check rather than a request left waiting
 * (later checks wait on the same probe, so a hung database holds one query, not one per request).
 * A Redis shared for limits (`REDIS_URL`) does not decide readiness: while it is away the engine serves
 * with per-process limits, and the answer says so in `reason` while staying ready.
 */
import { sql, type Kysely } from 'kysely';
import { migrations } from './store/migrations/index.js';
import type { Database } from './store/schema.js';

export interface ReadinessState {
  ready: boolean;
  /** Why not, in words fit for a public answer (no address, user or error text of the database). */
  reason?: string;
  /** The error behind a failed check, for the log only. */
  error?: unknown;
}

export interface ReadinessOptions {
  /** Why the process serves in a lesser way, if it does (Redis away): reported in a ready answer. */
  degraded?: () => string | undefined;
  /** How long a probe's answer is reused. Default 1 s. */
  cacheMs?: number;
  /** How long a probe may take before the check fails. Default 2 s. */
  timeoutMs?: number;
}

const draining: ReadinessState = { ready: false, reason: 'the engine is shutting down (draining)' };

export class Readiness {
  private draining = false;
  private last: { at: number; state: ReadinessState } | undefined;
  private probing: Promise<ReadinessState> | undefined;
  private readonly cacheMs: number;
  private readonly timeoutMs: number;
  private readonly degraded: () => string | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    options: ReadinessOptions = {},
  ) {
    this.cacheMs = options.cacheMs ?? 1000;
    this.timeoutMs = options.timeoutMs ?? 2000;
    this.degraded = options.degraded ?? (() => undefined);
  }

  /** From now on the process is not ready: it is stopping. */
  drain(): void {
    this.draining = true;
  }

  async check(): Promise<ReadinessState> {
    if (this.draining) return draining;
    const state = this.last && Date.now() - this.last.at < this.cacheMs ? this.last.state : await this.probed();
    if (this.draining) return draining;
    // Asked at every check, cached answer or not: Redis may go or come back within the second.
    const degraded = state.ready ? this.degraded() : undefined;
    return degraded ? { ...state, reason: degraded } : state;
  }

  private async probed(): Promise<ReadinessState> {
    this.probing ??= this.probe()
      .then((state) => {
        this.last = { at: Date.now(), state };
        return state;
      })
      .finally(() => {
        this.probing = undefined;
      });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<ReadinessState>((resolve) => {
      timer = setTimeout(() => resolve({ ready: false, reason: `the database has not answered within ${this.timeoutMs / 1000} s` }), this.timeoutMs);
    });
    try {
      return await Promise.race([this.probing, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async probe(): Promise<ReadinessState> {
    try {
      await sql`select 1`.execute(this.db);
    } catch (error) {
      return { ready: false, reason: 'the database does not answer', error };
    }
    // The migrator's own record, read as it is: the engine migrated at start, and nothing here runs one.
    let applied: Set<string>;
    try {
      const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(this.db);
      applied = new Set(rows.map((row) => row.name));
    } catch (error) {
      return { ready: false, reason: "the database has no record of the engine's migrations", error };
    }
    const missing = Object.keys(migrations).filter((name) => !applied.has(name));
    if (missing.length) return { ready: false, reason: `migrations not applied to the database: ${missing.join(', ')}` };
    return { ready: true };
  }
}
