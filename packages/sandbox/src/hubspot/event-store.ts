import type Database from 'better-sqlite3';
import { badRequest, type HubspotRequest, type HubspotResponse, notFound } from './context.js';
import { createCrmTables } from './crm.js';
import { invalid, text } from './query.js';
import { iso } from './time.js';

/**
 * Marketing events of the HubSpot emulator: their tables, how an event is found, stored and shown,
 * and the request plumbing the event handlers share (events.ts, event-attendance.ts, event-lists.ts).
 *
 * Ownership follows HubSpot: an event belongs to the app whose token created it. The external
 * ids (externalAccountId + externalEventId) name an event only within that app, so every
 * external-id endpoint answers 404 to other apps; the internal objectId works for any app.
 */
export function createEventTables(db: Database.Database): void {
  // Attendance points at contacts, and list associations at lists.
  createCrmTables(db);
  db.exec(`
    CREATE TABLE IF NOT EXISTS marketing_events (
      object_id INTEGER PRIMARY KEY AUTOINCREMENT,
      app_id INTEGER NOT NULL,
      external_account_id TEXT NOT NULL,
      external_event_id TEXT NOT NULL,
      details TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      UNIQUE (app_id, external_account_id, external_event_id)
    );
    CREATE INDEX IF NOT EXISTS marketing_events_by_external_event_id ON marketing_events (external_event_id);
    CREATE TABLE IF NOT EXISTS marketing_event_attendance (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      event_id INTEGER NOT NULL,
      contact_vid INTEGER NOT NULL,
      state TEXT NOT NULL,
      occurred_at INTEGER NOT NULL,
      joined_at INTEGER,
      left_at INTEGER,
      created_at INTEGER NOT NULL,
      UNIQUE (event_id, contact_vid)
    );
    CREATE INDEX IF NOT EXISTS marketing_event_attendance_by_contact ON marketing_event_attendance (contact_vid);
    CREATE TABLE IF NOT EXISTS marketing_event_lists (
      event_id INTEGER NOT NULL,
      list_id INTEGER NOT NULL,
      PRIMARY KEY (event_id, list_id)
    );
    CREATE TABLE IF NOT EXISTS contact_timeline_events (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      contact_vid INTEGER NOT NULL,
      event_id INTEGER NOT NULL,
      event_name TEXT NOT NULL,
      state TEXT NOT NULL,
      occurred_at INTEGER NOT NULL,
      properties TEXT NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS contact_timeline_events_by_contact ON contact_timeline_events (contact_vid);
  `);
}

// ---------------------------------------------------------------------------------------------
// Events

/** A custom property as the external-id endpoints carry it; only name and value matter here. */
interface CustomProperty {
  name: string;
  value: string;
  [field: string]: unknown;
}

/** The fields a caller sets; kept as one JSON document because nothing queries them. */
interface EventDetails {
  eventName: string;
  eventOrganizer: string;
  eventType?: string;
  eventDescription?: string;
  eventUrl?: string;
  startDateTime?: string;
  endDateTime?: string;
  eventCancelled: boolean;
  eventCompleted: boolean;
  customProperties: CustomProperty[];
}

export interface MarketingEvent {
  objectId: string;
  appId: number;
  externalAccountId: string;
  externalEventId: string;
  createdAt: number;
  updatedAt: number;
  details: EventDetails;
}

export interface EventRow {
  object_id: number;
  app_id: number;
  external_account_id: string;
  external_event_id: string;
  details: string;
  created_at: number;
  updated_at: number;
}

export const toEvent = (row: EventRow): MarketingEvent => ({
  objectId: String(row.object_id),
  appId: row.app_id,
  externalAccountId: row.external_account_id,
  externalEventId: row.external_event_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  details: JSON.parse(row.details),
});

export function loadEvent(db: Database.Database, objectId: string): MarketingEvent | undefined {
  if (!/^\d+$/.test(objectId)) return undefined;
  const row = db.prepare('SELECT * FROM marketing_events WHERE object_id = ?').get(Number(objectId)) as EventRow | undefined;
  return row && toEvent(row);
}

export function eventById(db: Database.Database, objectId: string | undefined): MarketingEvent {
  const event = loadEvent(db, objectId ?? '');
  if (!event) throw notFound(`Marketing event ${objectId}`);
  return event;
}

export function findOwnEvent(db: Database.Database, appId: number, externalAccountId: string, externalEventId: string) {
  const row = db
    .prepare('SELECT * FROM marketing_events WHERE app_id = ? AND external_account_id = ? AND external_event_id = ?')
    .get(appId, externalAccountId, externalEventId) as EventRow | undefined;
  return row && toEvent(row);
}

/** The calling app's event named by external ids; by default the path's event id and the query's account id. */
export function ownEvent(
  req: HubspotRequest,
  db: Database.Database,
  externalAccountId = requiredQuery(req, 'externalAccountId'),
  externalEventId = req.params.externalEventId ?? '',
): MarketingEvent {
  const event = findOwnEvent(db, req.appId, externalAccountId, externalEventId);
  if (!event) {
    throw notFound(`Marketing event ${externalEventId} of external account ${externalAccountId} created by this app`);
  }
  return event;
}

const DETAIL_FIELDS = [
  'eventName',
  'eventOrganizer',
  'eventType',
  'eventDescription',
  'eventUrl',
  'startDateTime',
  'endDateTime',
  'eventCancelled',
  'eventCompleted',
] as const;

export type EventChanges = Partial<Omit<EventDetails, 'customProperties'>> & { customProperties?: CustomProperty[] };

/**
 * The details after applying a request's fields. Starting from undefined gives PUT semantics
 * (the request is the whole event); custom properties merge by name, as HubSpot's PATCH does.
 */
export function withChanges(current: EventDetails | undefined, changes: EventChanges): EventDetails {
  const next: Record<string, unknown> = {
    eventCancelled: false,
    eventCompleted: false,
    ...current,
    customProperties: current?.customProperties ?? [],
  };
  for (const field of DETAIL_FIELDS) {
    const value = changes[field];
    if (value === undefined) continue;
    next[field] = field === 'startDateTime' || field === 'endDateTime' ? isoDateTime(value, field) : value;
  }
  if (changes.customProperties) {
    const byName = new Map((next.customProperties as CustomProperty[]).map((p) => [p.name, p]));
    for (const property of changes.customProperties) byName.set(property.name, property);
    next.customProperties = [...byName.values()];
  }
  const details = next as unknown as EventDetails;
  for (const field of ['eventName', 'eventOrganizer'] as const) {
    if (!details[field]) throw invalidBody(field, 'is required', 'REQUIRED');
  }
  checkOrder(details.startDateTime, details.endDateTime);
  return details;
}

export function isoDateTime(value: unknown, field: string): string {
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) throw invalidBody(field, `must be an ISO 8601 date-time, got ${JSON.stringify(value)}`, 'INVALID_FORMAT');
  return new Date(ms).toISOString();
}

export function checkOrder(start: string | undefined, end: string | undefined): void {
  if (start && end && Date.parse(end) < Date.parse(start)) {
    throw invalidBody('endDateTime', `${end} is before startDateTime ${start}`);
  }
}

export interface EventInput extends EventChanges {
  externalAccountId: string;
  externalEventId: string;
}

export function insertEvent(db: Database.Database, appId: number, input: EventInput, now: number): MarketingEvent {
  const result = db
    .prepare(
      `INSERT INTO marketing_events (app_id, external_account_id, external_event_id, details, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
    )
    .run(appId, input.externalAccountId, input.externalEventId, JSON.stringify(withChanges(undefined, input)), now, now);
  return eventById(db, String(result.lastInsertRowid));
}

export function saveDetails(db: Database.Database, event: MarketingEvent, details: EventDetails, now: number): MarketingEvent {
  db.prepare('UPDATE marketing_events SET details = ?, updated_at = ? WHERE object_id = ?').run(JSON.stringify(details), now, Number(event.objectId));
  return eventById(db, event.objectId);
}

export function upsertEvent(db: Database.Database, appId: number, input: EventInput, now: number): MarketingEvent {
  const existing = findOwnEvent(db, appId, input.externalAccountId, input.externalEventId);
  return existing ? saveDetails(db, existing, withChanges(undefined, input), now) : insertEvent(db, appId, input, now);
}

/** Attendance and list links go with the event; contacts' timeline events stay, being the contacts' history. */
export function deleteEvent(db: Database.Database, event: MarketingEvent): void {
  const id = Number(event.objectId);
  db.prepare('DELETE FROM marketing_event_attendance WHERE event_id = ?').run(id);
  db.prepare('DELETE FROM marketing_event_lists WHERE event_id = ?').run(id);
  db.prepare('DELETE FROM marketing_events WHERE object_id = ?').run(id);
}

/** An event is over once marked completed or once its end has passed; registrants who never attended are then no-shows. */
export function hasEnded(event: MarketingEvent, now: number): boolean {
  const { eventCompleted, endDateTime } = event.details;
  return eventCompleted || (endDateTime !== undefined && Date.parse(endDateTime) <= now);
}

export function eventStatus(event: MarketingEvent, now: number): string {
  if (event.details.eventCancelled) return 'CANCELLED';
  if (hasEnded(event, now)) return 'COMPLETED';
  const { startDateTime } = event.details;
  return startDateTime !== undefined && Date.parse(startDateTime) <= now ? 'IN_PROGRESS' : 'UPCOMING';
}

// Views. HubSpot answers in two families: the external-id endpoints echo custom properties as
// sent, the objectId endpoints as plain name/value pairs and with the owning app.

function summary(event: MarketingEvent) {
  const { customProperties: _, ...fields } = event.details;
  return { objectId: event.objectId, ...fields };
}

/** Create, cancel and complete. */
export const defaultView = (event: MarketingEvent) => ({ ...summary(event), customProperties: event.details.customProperties });

/** Upserts and updates by external id. */
export const publicView = (event: MarketingEvent) => ({
  ...defaultView(event),
  id: event.objectId,
  createdAt: iso(event.createdAt),
  updatedAt: iso(event.updatedAt),
});

export const appInfo = (event: MarketingEvent) => ({ id: String(event.appId), name: `App ${event.appId}` });

/** Updates by objectId. */
export const objectView = (event: MarketingEvent) => ({
  ...summary(event),
  customProperties: event.details.customProperties.map(({ name, value }) => ({ name, value })),
  createdAt: iso(event.createdAt),
  updatedAt: iso(event.updatedAt),
  appInfo: appInfo(event),
});

// ---------------------------------------------------------------------------------------------
// Request and response plumbing

export const ok = (body: unknown): HubspotResponse => ({ status: 200, body });

/** A 400 naming the offending body field, shaped like the HTTP layer's own validation errors. */
export function invalidBody(field: string, problem: string, code = 'INVALID_VALUE') {
  const message = `${field} ${problem}`;
  return badRequest(message, [{ message, in: 'body', code }]);
}

export function requiredQuery(req: HubspotRequest, name: string): string {
  const value = text(req.query, name);
  if (!value) throw invalid(name, 'is required');
  return value;
}

export function inputsOf<T>(req: HubspotRequest): T[] {
  const inputs = (req.body as { inputs?: unknown } | undefined)?.inputs;
  if (!Array.isArray(inputs)) throw invalidBody('inputs', 'must be an array', 'INVALID_TYPE');
  return inputs as T[];
}

export function batchResult(now: number, results: unknown[]) {
  return { status: 'COMPLETE', results, startedAt: iso(now), completedAt: iso(now) };
}

export interface Refusal {
  message: string;
  context: Record<string, string[]>;
}

/** 204 when every requested deletion happened, else 207 naming each one that did not. */
export function deletionResult(now: number, deleted: unknown[], refusals: Refusal[]): HubspotResponse {
  if (!refusals.length) return { status: 204 };
  return {
    status: 207,
    body: {
      ...batchResult(now, deleted),
      numErrors: refusals.length,
      errors: refusals.map(({ message, context }) => ({
        status: 'error',
        category: 'OBJECT_NOT_FOUND',
        message,
        context,
        links: {},
        errors: [{ message }],
      })),
    },
  };
}
