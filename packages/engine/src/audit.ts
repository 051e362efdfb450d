/**
 * The audit trail: every administrative change, recorded once it has succeeded, with who made it (the
 * acting API key and its role, or the command line), when, from which client address, in which request,
 * and what changed. A change names things and says whether a secret was set or removed; it never holds a
 * secret value. Over HTTP the routes declare their action and one hook records it (http/audit.ts); the
 * command line records its key changes here directly. Events older than the retention are deleted by
 * every engine process, at start and then daily.
 */
import { randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import type { Kysely } from 'kysely';
import type { Role } from './security/api-keys.js';
import type { AuditEventTable, Database } from './store/schema.js';

/** Every action the trail records: `<target type>.<what happened>`. Stable: filters and tools depend on them. */
export const AUDIT_ACTIONS = [
  'api_key.created',
  'api_key.updated',
  'api_key.revoked',
  'secret.set',
  'secret.deleted',
  'auth_provider.created',
  'auth_provider.updated',
  'auth_provider.deleted',
  'worker.registered',
  'worker.updated',
  'worker.deleted',
  'session_verification.updated',
  'oauth_grant.ended',
  'user_connection.deleted',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The kind of thing an action changes: the part of its name before the last dot. */
export const targetTypeOf = (action: AuditAction): string => action.slice(0, action.lastIndexOf('.'));

export const AUDIT_TARGET_TYPES = [...new Set(AUDIT_ACTIONS.map(targetTypeOf))];

/** Who made a change: an API key (with its role), or the command line on the engine's host. */
export interface AuditActor {
  type: 'api_key' | 'cli';
  key_id: string | null;
  key_prefix: string | null;
  /** The key's name; for the command line, the system user and host it ran as. */
  name: string | null;
  role: Role | null;
}

export interface AuditEvent {
  id: string;
  occurred_at: string;
  action: AuditAction;
  target: { type: string; id: string | null };
  actor: AuditActor;
  client_address: string | null;
  request_id: string | null;
  /** What changed: names, settings, and whether a secret was set or removed; never a secret value. */
  change: Record<string, unknown>;
}

/** What a change says of itself: its action, the id or name of its target, and what changed. */
export interface AuditEntry {
  action: AuditAction;
  target: string | null;
  change?: Record<string, unknown>;
}

export interface AuditContext {
  actor: AuditActor;
  client_address?: string | null;
  request_id?: string | null;
}

export interface AuditFilter {
  action?: AuditAction;
  target_type?: string;
  target_id?: string;
  actor_key_id?: string;
  /** ISO 8601: events at or after. */
  since?: string;
  /** ISO 8601: events before. */
  until?: string;
}

export const DEFAULT_AUDIT_RETENTION_DAYS = 90;
const DAY_MS = 24 * 60 * 60_000;

/** The command line acting on the engine's database (`quiver keys`): no key, no address; the system user and host. */
export function commandLineActor(): AuditActor {
  let user: string | undefined;
  try {
    user = userInfo().username;
  } catch {
    // A container user without a passwd entry has no name; the host still says where.
  }
  return { type: 'cli', key_id: null, key_prefix: null, name: user ? `${user}@${hostname()}` : hostname(), role: null };
}

export class AuditTrail {
  /** The last time given to an event of this process: events it records one after another never share a time. */
  private lastAt = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    /** Events older than this many days are deleted; 0 keeps them for ever. */
    private readonly retentionDays = DEFAULT_AUDIT_RETENTION_DAYS,
  ) {}

  async record(entry: AuditEntry, context: AuditContext): Promise<AuditEvent> {
    this.lastAt = Math.max(Date.now(), this.lastAt + 1);
    const { actor } = context;
    const row: AuditEventTable = {
      id: randomUUID(),
      occurred_at: new Date(this.lastAt).toISOString(),
      action: entry.action,
      target_type: targetTypeOf(entry.action),
      target_id: entry.target,
      actor_type: actor.type,
      actor_key_id: actor.key_id,
      actor_key_prefix: actor.key_prefix,
      actor_name: actor.name,
      actor_role: actor.role,
      client_address: context.client_address ?? null,
      request_id: context.request_id ?? null,
      change: JSON.stringify(entry.change ?? {}),
    };
    await this.db.insertInto('audit_events').values(row).execute();
    return eventOf(row);
  }

  /** Newest first: the first `limit` after `offset` of the events that match. */
  async list(filter: AuditFilter, limit: number, offset: number): Promise<{ items: AuditEvent[]; total_count: number }> {
    let matching = this.db.selectFrom('audit_events');
    if (filter.action) matching = matching.where('action', '=', filter.action);
    if (filter.target_type) matching = matching.where('target_type', '=', filter.target_type);
    if (filter.target_id) matching = matching.where('target_id', '=', filter.target_id);
    if (filter.actor_key_id) matching = matching.where('actor_key_id', '=', filter.actor_key_id);
    if (filter.since) matching = matching.where('occurred_at', '>=', new Date(filter.since).toISOString());
    if (filter.until) matching = matching.where('occurred_at', '<', new Date(filter.until).toISOString());
    const [rows, count] = await Promise.all([
      matching.selectAll().orderBy('occurred_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      matching.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map(eventOf), total_count: Number(count.n) };
  }

  /** Deletes the events older than the retention; how many went. */
  async sweep(now = Date.now()): Promise<number> {
    if (!this.retentionDays) return 0;
    const cutoff = new Date(now - this.retentionDays * DAY_MS).toISOString();
    const result = await this.db.deleteFrom('audit_events').where('occurred_at', '<', cutoff).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Sweeps now and then daily, in this process, until stopped. A failed sweep waits for the next. */
  async start(): Promise<void> {
    const sweep = () => this.sweep().catch(() => 0);
    await sweep();
    this.timer = setInterval(sweep, DAY_MS).unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

function eventOf(row: AuditEventTable): AuditEvent {
  return {
    id: row.id,
    occurred_at: row.occurred_at,
    action: row.action as AuditAction,
    target: { type: row.target_type, id: row.target_id },
    actor: {
      type: row.actor_type as AuditActor['type'],
      key_id: row.actor_key_id,
      key_prefix: row.actor_key_prefix,
      name: row.actor_name,
      role: row.actor_role as Role | null,
    },
    client_address: row.client_address,
    request_id: row.request_id,
    change: JSON.parse(row.change) as Record<string, unknown>,
  };
}
