/**
 * Events of people (custom, page and screen) and of anonymous visitors. An anonymous visitor's events
 * attach to the person later identified with the same anonymous_id, and from then on that visitor's
 * new events go straight to the person. An event with an id is recorded once (ids make retries safe).
 * Events can start event-triggered campaigns; events merged from another person cannot.
 */
import type Database from 'better-sqlite3';
import { triggerCampaigns } from './campaigns.js';
import { accepted, unixNow, type Handler, type TrackContext } from './context.js';
import { pathRef, personFor, type PersonRef } from './people.js';

export interface EventInput {
  name: string;
  /** event (custom), page or screen. */
  type?: string;
  /** A ULID that deduplicates the event. */
  id?: string;
  /** Unix seconds; default now. */
  timestamp?: number;
  data?: Record<string, unknown>;
}

export interface TrackedEvent {
  name: string;
  type: string;
  event_id: string | null;
  anonymous_id: string | null;
  data: Record<string, unknown>;
  timestamp: number;
  /** Came from a merged person: it cannot trigger campaigns. */
  merged: boolean;
}

/** Merge moves the secondary's events of this many days. */
const MERGED_EVENT_DAYS = 30;

export function createEventTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS events (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      workspace INTEGER NOT NULL,
      person TEXT,
      anonymous_id TEXT,
      event_id TEXT,
      name TEXT NOT NULL,
      type TEXT NOT NULL,
      data TEXT NOT NULL,
      timestamp INTEGER NOT NULL,
      merged INTEGER NOT NULL DEFAULT 0,
      FOREIGN KEY (workspace, person) REFERENCES people (workspace, cio_id) ON DELETE CASCADE
    );
    CREATE UNIQUE INDEX IF NOT EXISTS events_by_id ON events (workspace, event_id) WHERE event_id IS NOT NULL;
    CREATE TABLE IF NOT EXISTS anonymous_links (
      workspace INTEGER NOT NULL,
      anonymous_id TEXT NOT NULL,
      person TEXT NOT NULL,
      PRIMARY KEY (workspace, anonymous_id),
      FOREIGN KEY (workspace, person) REFERENCES people (workspace, cio_id) ON DELETE CASCADE
    );
  `);
}

function recordEvent(ctx: TrackContext, workspace: number, owner: { person: string | null; anonymousId: string | null }, event: EventInput): void {
  const inserted = ctx.db
    .prepare('INSERT OR IGNORE INTO events (workspace, person, anonymous_id, event_id, name, type, data, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
    .run(
      workspace,
      owner.person,
      owner.anonymousId,
      event.id ?? null,
      event.name,
      event.type ?? 'event',
      JSON.stringify(event.data ?? {}),
      event.timestamp ?? unixNow(ctx),
    );
  if (inserted.changes && owner.person) triggerCampaigns(ctx, workspace, owner.person, event.name);
}

/** An event of a person, created when new; ignored for a suppressed identifier or an unknown cio_id. */
export function trackPersonEvent(ctx: TrackContext, workspace: number, ref: PersonRef, event: EventInput): void {
  const person = personFor(ctx, workspace, ref);
  if (person) recordEvent(ctx, workspace, { person: person.cio_id, anonymousId: null }, event);
}

export function trackAnonymousEvent(ctx: TrackContext, workspace: number, event: EventInput & { anonymous_id?: string }): void {
  const { anonymous_id: anonymousId, ...rest } = event;
  const link =
    anonymousId === undefined
      ? undefined
      : (ctx.db.prepare('SELECT person FROM anonymous_links WHERE workspace = ? AND anonymous_id = ?').get(workspace, anonymousId) as
          | { person: string }
          | undefined);
  recordEvent(ctx, workspace, { person: link?.person ?? null, anonymousId: anonymousId ?? null }, rest);
}

/** The person now is the visitor `anonymousId`: their anonymous events attach, and can trigger campaigns. */
export function linkAnonymousEvents(ctx: TrackContext, workspace: number, anonymousId: string, person: string): void {
  ctx.db.prepare('INSERT OR REPLACE INTO anonymous_links (workspace, anonymous_id, person) VALUES (?, ?, ?)').run(workspace, anonymousId, person);
  const waiting = ctx.db
    .prepare('SELECT seq, name FROM events WHERE workspace = ? AND anonymous_id = ? AND person IS NULL ORDER BY seq')
    .all(workspace, anonymousId) as Array<{ seq: number; name: string }>;
  for (const { seq, name } of waiting) {
    ctx.db.prepare('UPDATE events SET person = ? WHERE seq = ?').run(person, seq);
    triggerCampaigns(ctx, workspace, person, name);
  }
}

type Row = Omit<TrackedEvent, 'data' | 'merged'> & { data: string; merged: number };
const toEvent = (row: Row): TrackedEvent => ({ ...row, data: JSON.parse(row.data) as Record<string, unknown>, merged: row.merged === 1 });
const COLUMNS = 'name, type, event_id, anonymous_id, data, timestamp, merged';

export function eventsOf({ db }: TrackContext, workspace: number, person: string): TrackedEvent[] {
  return (db.prepare(`SELECT ${COLUMNS} FROM events WHERE workspace = ? AND person = ? ORDER BY seq`).all(workspace, person) as Row[]).map(toEvent);
}

/** Events of a visitor that no person has claimed yet. */
export function anonymousEventsOf({ db }: TrackContext, workspace: number, anonymousId: string): TrackedEvent[] {
  return (
    db.prepare(`SELECT ${COLUMNS} FROM events WHERE workspace = ? AND anonymous_id = ? AND person IS NULL ORDER BY seq`).all(workspace, anonymousId) as Row[]
  ).map(toEvent);
}

/** Merge: the secondary's recent events move to the primary, marked so they start no campaign; older ones go with the secondary. */
export function mergeEvents(ctx: TrackContext, workspace: number, secondary: string, primary: string): void {
  const since = unixNow(ctx) - MERGED_EVENT_DAYS * 86_400;
  ctx.db.prepare('UPDATE events SET person = ?, merged = 1 WHERE workspace = ? AND person = ? AND timestamp >= ?').run(primary, workspace, secondary, since);
  ctx.db.prepare('UPDATE OR IGNORE anonymous_links SET person = ? WHERE workspace = ? AND person = ?').run(primary, workspace, secondary);
}

export const eventHandlers: Record<string, Handler> = {
  track: ({ params, body, workspace }, ctx) => {
    trackPersonEvent(ctx, workspace, pathRef(params.identifier!), body as EventInput);
    return accepted;
  },
  trackAnonymous: ({ body, workspace }, ctx) => {
    trackAnonymousEvent(ctx, workspace, body as EventInput & { anonymous_id?: string });
    return accepted;
  },
};
