import type Database from 'better-sqlite3';
import {
  badRequest,
  HubspotError,
  notFound,
  type Handler,
  type HubspotContext,
  type HubspotRequest,
  type HubspotResponse,
} from './context.js';
import { createContact, createCrmTables, findContact, findContactByEmail, getContact, getList, publicList, type Contact } from './crm.js';
import { page } from './paging.js';
import { invalid, text } from './query.js';
import { iso } from './time.js';

/**
 * Marketing events, attendance and event-list associations of the HubSpot emulator.
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

interface MarketingEvent {
  objectId: string;
  appId: number;
  externalAccountId: string;
  externalEventId: string;
  createdAt: number;
  updatedAt: number;
  details: EventDetails;
}

interface EventRow {
  object_id: number;
  app_id: number;
  external_account_id: string;
  external_event_id: string;
  details: string;
  created_at: number;
  updated_at: number;
}

const toEvent = (row: EventRow): MarketingEvent => ({
  objectId: String(row.object_id),
  appId: row.app_id,
  externalAccountId: row.external_account_id,
  externalEventId: row.external_event_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  details: JSON.parse(row.details),
});

function loadEvent(db: Database.Database, objectId: string): MarketingEvent | undefined {
  if (!/^\d+$/.test(objectId)) return undefined;
  const row = db.prepare('SELECT * FROM marketing_events WHERE object_id = ?').get(Number(objectId)) as EventRow | undefined;
  return row && toEvent(row);
}

function eventById(db: Database.Database, objectId: string | undefined): MarketingEvent {
  const event = loadEvent(db, objectId ?? '');
  if (!event) throw notFound(`Marketing event ${objectId}`);
  return event;
}

function findOwnEvent(db: Database.Database, appId: number, externalAccountId: string, externalEventId: string) {
  const row = db
    .prepare('SELECT * FROM marketing_events WHERE app_id = ? AND external_account_id = ? AND external_event_id = ?')
    .get(appId, externalAccountId, externalEventId) as EventRow | undefined;
  return row && toEvent(row);
}

/** The calling app's event named by external ids; by default the path's event id and the query's account id. */
function ownEvent(
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

type EventChanges = Partial<Omit<EventDetails, 'customProperties'>> & { customProperties?: CustomProperty[] };

/**
 * The details after applying a request's fields. Starting from undefined gives PUT semantics
 * (the request is the whole event); custom properties merge by name, as HubSpot's PATCH does.
 */
function withChanges(current: EventDetails | undefined, changes: EventChanges): EventDetails {
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

function isoDateTime(value: unknown, field: string): string {
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) throw invalidBody(field, `must be an ISO 8601 date-time, got ${JSON.stringify(value)}`, 'INVALID_FORMAT');
  return new Date(ms).toISOString();
}

function checkOrder(start: string | undefined, end: string | undefined): void {
  if (start && end && Date.parse(end) < Date.parse(start)) {
    throw invalidBody('endDateTime', `${end} is before startDateTime ${start}`);
  }
}

interface EventInput extends EventChanges {
  externalAccountId: string;
  externalEventId: string;
}

function insertEvent(db: Database.Database, appId: number, input: EventInput, now: number): MarketingEvent {
  const result = db
    .prepare(
      `INSERT INTO marketing_events (app_id, external_account_id, external_event_id, details, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
    )
    .run(appId, input.externalAccountId, input.externalEventId, JSON.stringify(withChanges(undefined, input)), now, now);
  return eventById(db, String(result.lastInsertRowid));
}

function saveDetails(db: Database.Database, event: MarketingEvent, details: EventDetails, now: number): MarketingEvent {
  db.prepare('UPDATE marketing_events SET details = ?, updated_at = ? WHERE object_id = ?').run(
    JSON.stringify(details),
    now,
    Number(event.objectId),
  );
  return eventById(db, event.objectId);
}

function upsertEvent(db: Database.Database, appId: number, input: EventInput, now: number): MarketingEvent {
  const existing = findOwnEvent(db, appId, input.externalAccountId, input.externalEventId);
  return existing ? saveDetails(db, existing, withChanges(undefined, input), now) : insertEvent(db, appId, input, now);
}

/** Attendance and list links go with the event; contacts' timeline events stay, being the contacts' history. */
function deleteEvent(db: Database.Database, event: MarketingEvent): void {
  const id = Number(event.objectId);
  db.prepare('DELETE FROM marketing_event_attendance WHERE event_id = ?').run(id);
  db.prepare('DELETE FROM marketing_event_lists WHERE event_id = ?').run(id);
  db.prepare('DELETE FROM marketing_events WHERE object_id = ?').run(id);
}

/** An event is over once marked completed or once its end has passed; registrants who never attended are then no-shows. */
function hasEnded(event: MarketingEvent, now: number): boolean {
  const { eventCompleted, endDateTime } = event.details;
  return eventCompleted || (endDateTime !== undefined && Date.parse(endDateTime) <= now);
}

function eventStatus(event: MarketingEvent, now: number): string {
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
const defaultView = (event: MarketingEvent) => ({ ...summary(event), customProperties: event.details.customProperties });

/** Upserts and updates by external id. */
const publicView = (event: MarketingEvent) => ({
  ...defaultView(event),
  id: event.objectId,
  createdAt: iso(event.createdAt),
  updatedAt: iso(event.updatedAt),
});

const appInfo = (event: MarketingEvent) => ({ id: String(event.appId), name: `App ${event.appId}` });

/** Updates by objectId. */
const objectView = (event: MarketingEvent) => ({
  ...summary(event),
  customProperties: event.details.customProperties.map(({ name, value }) => ({ name, value })),
  createdAt: iso(event.createdAt),
  updatedAt: iso(event.updatedAt),
  appInfo: appInfo(event),
});

/** Reads by objectId, which add the external id, a status and the participation counts. */
function objectReadView(db: Database.Database, event: MarketingEvent, now: number) {
  const counts = participationCounts(db, event, now);
  return {
    ...objectView(event),
    externalEventId: event.externalEventId,
    eventStatus: eventStatus(event, now),
    registrants: counts.registered,
    attendees: counts.attended,
    cancellations: counts.cancelled,
    noShows: counts.noShows,
  };
}

// ---------------------------------------------------------------------------------------------
// Attendance

type SubscriberState = 'register' | 'attend' | 'cancel';
const SUBSCRIBER_STATES: readonly string[] = ['register', 'attend', 'cancel'] satisfies SubscriberState[];

type AttendanceState = 'REGISTERED' | 'ATTENDED' | 'CANCELLED' | 'NO_SHOW';
const STATE_OF: Record<SubscriberState, AttendanceState> = { register: 'REGISTERED', attend: 'ATTENDED', cancel: 'CANCELLED' };

interface AttendanceRow {
  id: number;
  event_id: number;
  contact_vid: number;
  state: SubscriberState;
  occurred_at: number;
  joined_at: number | null;
  left_at: number | null;
  created_at: number;
}

const attendanceState = (row: AttendanceRow, event: MarketingEvent, now: number): AttendanceState =>
  row.state === 'register' && hasEnded(event, now) ? 'NO_SHOW' : STATE_OF[row.state];

function participationCounts(db: Database.Database, event: MarketingEvent, now: number) {
  const counts = { registered: 0, attended: 0, cancelled: 0, noShows: 0 };
  const key = { REGISTERED: 'registered', ATTENDED: 'attended', CANCELLED: 'cancelled', NO_SHOW: 'noShows' } as const;
  const rows = db.prepare('SELECT * FROM marketing_event_attendance WHERE event_id = ?').all(Number(event.objectId));
  for (const row of rows as AttendanceRow[]) counts[key[attendanceState(row, event, now)]] += 1;
  return counts;
}

function subscriberState(req: HubspotRequest): SubscriberState {
  const state = req.params.subscriberState ?? '';
  if (!SUBSCRIBER_STATES.includes(state)) {
    const message = `subscriberState must be one of register, attend, cancel; got '${state}'`;
    throw badRequest(message, [{ message, in: 'path', code: 'INVALID_VALUE' }]);
  }
  return state as SubscriberState;
}

/** One entry of `inputs`: contacts come by vid or by email depending on the endpoint. */
interface AttendanceInput {
  vid?: number;
  email?: string;
  interactionDateTime: number;
  properties?: Record<string, string>;
  contactProperties?: Record<string, string>;
}

/** Finds (or, for the email-create endpoints, creates) the contact an input names; undefined when missing. */
type ContactFinder = (db: Database.Database, input: AttendanceInput, at: string) => Contact | undefined;

const byVid: ContactFinder = (db, input, at) => {
  if (input.vid === undefined) throw invalidBody(`${at}.vid`, 'is required', 'REQUIRED');
  return getContact(db, input.vid);
};

const byEmail: ContactFinder = (db, input, at) => findContactByEmail(db, emailOf(input, at));

const byEmailCreating: ContactFinder = (db, input, at) => {
  const email = emailOf(input, at);
  // contactProperties only shape a new contact; an existing one keeps its properties.
  return findContactByEmail(db, email) ?? createContact(db, email, input.contactProperties);
};

function emailOf(input: AttendanceInput, at: string): string {
  if (typeof input.email !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(input.email.trim())) {
    throw invalidBody(`${at}.email`, `must be an email address, got ${JSON.stringify(input.email)}`);
  }
  return input.email;
}

/** joinedAt and leftAt exist only for attend; they are epoch milliseconds or ISO 8601 date-times. */
function attendanceTimes(state: SubscriberState, properties: Record<string, string>, at: string) {
  for (const name of Object.keys(properties)) {
    if (state !== 'attend' || (name !== 'joinedAt' && name !== 'leftAt')) {
      throw invalidBody(`${at}.properties.${name}`, 'is not accepted: only attend takes properties, and only joinedAt and leftAt', 'UNKNOWN_FIELD');
    }
  }
  const instant = (name: 'joinedAt' | 'leftAt') => {
    const text = properties[name];
    if (text === undefined) return null;
    const ms = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
    if (Number.isNaN(ms)) throw invalidBody(`${at}.properties.${name}`, 'must be epoch milliseconds or an ISO 8601 date-time', 'INVALID_FORMAT');
    return ms;
  };
  const joinedAt = instant('joinedAt');
  const leftAt = instant('leftAt');
  if (joinedAt !== null && leftAt !== null && leftAt < joinedAt) {
    throw invalidBody(`${at}.properties.leftAt`, 'is before joinedAt');
  }
  return { joinedAt, leftAt };
}

/**
 * Records one subscriber state for every input's contact and adds a timeline event to each
 * contact. All or nothing: a missing contact or a bad input leaves no trace.
 * Returns the contacts affected, one per contact even when inputs repeat it (the last input wins).
 */
function recordAttendance(
  req: HubspotRequest,
  { db, clock }: HubspotContext,
  event: MarketingEvent,
  find: ContactFinder,
): Contact[] {
  const state = subscriberState(req);
  const inputs = inputsOf<AttendanceInput>(req);
  const now = clock.now();
  return db.transaction(() => {
    const missing: string[] = [];
    const errors: HubspotError['errors'] = [];
    const byContact = new Map<number, { contact: Contact; input: AttendanceInput; times: ReturnType<typeof attendanceTimes> }>();
    inputs.forEach((input, i) => {
      const at = `inputs[${i}]`;
      if (!Number.isInteger(input.interactionDateTime)) {
        throw invalidBody(`${at}.interactionDateTime`, 'must be epoch milliseconds', 'INVALID_TYPE');
      }
      const times = attendanceTimes(state, input.properties ?? {}, at);
      const contact = find(db, input, at);
      if (contact) {
        byContact.set(contact.vid, { contact, input, times });
      } else {
        const name = input.email ?? String(input.vid);
        missing.push(name);
        errors.push({ message: `${at} names contact ${name}, which does not exist`, in: 'body', code: 'OBJECT_NOT_FOUND' });
      }
    });
    if (missing.length) {
      throw new HubspotError(
        404,
        'OBJECT_NOT_FOUND',
        `Contacts not found: ${missing.join(', ')}; this endpoint records existing contacts only`,
        errors,
      );
    }
    const upsert = db.prepare(
      `INSERT INTO marketing_event_attendance (event_id, contact_vid, state, occurred_at, joined_at, left_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (event_id, contact_vid) DO UPDATE SET
         state = excluded.state, occurred_at = excluded.occurred_at, joined_at = excluded.joined_at, left_at = excluded.left_at`,
    );
    const timeline = db.prepare(
      `INSERT INTO contact_timeline_events (contact_vid, event_id, event_name, state, occurred_at, properties, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const { contact, input, times } of byContact.values()) {
      const eventId = Number(event.objectId);
      upsert.run(eventId, contact.vid, state, input.interactionDateTime, times.joinedAt, times.leftAt, now);
      timeline.run(contact.vid, eventId, event.details.eventName, state, input.interactionDateTime, JSON.stringify(input.properties ?? {}), now);
    }
    return [...byContact.values()].map((entry) => entry.contact);
  })();
}

export interface TimelineEvent {
  id: number;
  contactId: number;
  marketingEventId: string;
  eventName: string;
  state: SubscriberState;
  occurredAt: number;
  properties: Record<string, string>;
  createdAt: number;
}

/** The marketing-event entries on a contact's timeline, oldest first. */
export function timelineEvents(db: Database.Database, contactId: number): TimelineEvent[] {
  const rows = db.prepare('SELECT * FROM contact_timeline_events WHERE contact_vid = ? ORDER BY id').all(contactId) as Array<{
    id: number;
    contact_vid: number;
    event_id: number;
    event_name: string;
    state: SubscriberState;
    occurred_at: number;
    properties: string;
    created_at: number;
  }>;
  return rows.map((row) => ({
    id: row.id,
    contactId: row.contact_vid,
    marketingEventId: String(row.event_id),
    eventName: row.event_name,
    state: row.state,
    occurredAt: row.occurred_at,
    properties: JSON.parse(row.properties),
    createdAt: row.created_at,
  }));
}

const BREAKDOWN_STATES: readonly string[] = ['REGISTERED', 'ATTENDED', 'CANCELLED', 'NO_SHOW', 'EMPTY'];

/** Participations of one event or one contact, oldest first, filtered by state (and contact) and paged. */
function breakdown(req: HubspotRequest, { db, clock }: HubspotContext, scope: { event: MarketingEvent } | { contact: Contact }) {
  const now = clock.now();
  const state = text(req.query, 'state')?.toUpperCase();
  if (state !== undefined && !BREAKDOWN_STATES.includes(state)) {
    throw invalid('state', `must be one of ${BREAKDOWN_STATES.join(', ')}; got '${state}'`);
  }
  const identifier = 'event' in scope ? text(req.query, 'contactIdentifier') : undefined;
  // null when the identifier names no contact: then nothing matches.
  const contactVid = identifier === undefined ? undefined : (findContact(db, identifier)?.vid ?? null);

  const rows = (
    'event' in scope
      ? db.prepare('SELECT * FROM marketing_event_attendance WHERE event_id = ? ORDER BY id').all(Number(scope.event.objectId))
      : db.prepare('SELECT * FROM marketing_event_attendance WHERE contact_vid = ? ORDER BY id').all(scope.contact.vid)
  ) as AttendanceRow[];
  const events = new Map<number, MarketingEvent>();
  const matching = rows.flatMap((row) => {
    if (contactVid !== undefined && row.contact_vid !== contactVid) return [];
    const event = events.get(row.event_id) ?? eventById(db, String(row.event_id));
    events.set(row.event_id, event);
    const attendance = attendanceState(row, event, now);
    return state === undefined || attendance === state ? [{ row, event, attendanceState: attendance }] : [];
  });
  const { results, paging } = page(matching, req.query, 10);

  return {
    total: matching.length,
    ...(paging && { paging }),
    results: results.map(({ row, event, attendanceState }) => {
      const contact = getContact(db, row.contact_vid)!;
      return {
        id: String(row.id),
        createdAt: iso(row.created_at),
        properties: { occurredAt: row.occurred_at, attendanceState, ...attendanceDuration(row, event) },
        associations: {
          marketingEvent: {
            marketingEventId: event.objectId,
            externalAccountId: event.externalAccountId,
            externalEventId: event.externalEventId,
            name: event.details.eventName,
          },
          contact: {
            contactId: String(contact.vid),
            email: contact.email,
            firstname: contact.properties.firstname,
            lastname: contact.properties.lastname,
          },
        },
      };
    }),
  };
}

/**
 * How long an attendee stayed, and what share of the scheduled event that covers. The breakdown
 * schema has no joinedAt/leftAt fields, so the stored times surface as this duration (and verbatim
 * on the contact's timeline event).
 */
function attendanceDuration(row: AttendanceRow, event: MarketingEvent) {
  if (row.joined_at === null || row.left_at === null) return {};
  const attendanceDurationSeconds = Math.floor((row.left_at - row.joined_at) / 1000);
  const { startDateTime, endDateTime } = event.details;
  const start = startDateTime ? Date.parse(startDateTime) : NaN;
  const end = endDateTime ? Date.parse(endDateTime) : NaN;
  if (!(end > start)) return { attendanceDurationSeconds };
  const overlap = Math.max(0, Math.min(row.left_at, end) - Math.max(row.joined_at, start));
  return { attendanceDurationSeconds, attendancePercentage: String(Math.round((overlap / (end - start)) * 10000) / 100) };
}

// ---------------------------------------------------------------------------------------------
// Lists

function associateList(db: Database.Database, event: MarketingEvent, listId: string | undefined): HubspotResponse {
  const list = getList(db, listId ?? '');
  if (!list) throw notFound(`List ${listId}`);
  db.prepare('INSERT OR IGNORE INTO marketing_event_lists (event_id, list_id) VALUES (?, ?)').run(Number(event.objectId), Number(list.listId));
  return { status: 204 };
}

function disassociateList(db: Database.Database, event: MarketingEvent, listId: string | undefined): HubspotResponse {
  const list = getList(db, listId ?? '');
  if (!list) throw notFound(`List ${listId}`);
  db.prepare('DELETE FROM marketing_event_lists WHERE event_id = ? AND list_id = ?').run(Number(event.objectId), Number(list.listId));
  return { status: 204 };
}

function eventLists(db: Database.Database, event: MarketingEvent): HubspotResponse {
  const ids = db.prepare('SELECT list_id FROM marketing_event_lists WHERE event_id = ? ORDER BY list_id').all(Number(event.objectId)) as Array<{
    list_id: number;
  }>;
  const results = ids.flatMap(({ list_id }) => {
    const list = getList(db, String(list_id));
    return list ? [publicList(list)] : [];
  });
  return ok({ total: results.length, results });
}

// ---------------------------------------------------------------------------------------------
// Request and response plumbing

const ok = (body: unknown): HubspotResponse => ({ status: 200, body });

/** A 400 naming the offending body field, shaped like the HTTP layer's own validation errors. */
function invalidBody(field: string, problem: string, code = 'INVALID_VALUE') {
  const message = `${field} ${problem}`;
  return badRequest(message, [{ message, in: 'body', code }]);
}

function requiredQuery(req: HubspotRequest, name: string): string {
  const value = text(req.query, name);
  if (!value) throw invalid(name, 'is required');
  return value;
}

function inputsOf<T>(req: HubspotRequest): T[] {
  const inputs = (req.body as { inputs?: unknown } | undefined)?.inputs;
  if (!Array.isArray(inputs)) throw invalidBody('inputs', 'must be an array', 'INVALID_TYPE');
  return inputs as T[];
}

function batchResult(now: number, results: unknown[]) {
  return { status: 'COMPLETE', results, startedAt: iso(now), completedAt: iso(now) };
}

interface Refusal {
  message: string;
  context: Record<string, string[]>;
}

/** 204 when every requested deletion happened, else 207 naming each one that did not. */
function deletionResult(now: number, deleted: unknown[], refusals: Refusal[]): HubspotResponse {
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

// ---------------------------------------------------------------------------------------------
// Handlers, keyed by upstream operation label; the catalog tool name is noted above each.

export const eventHandlers: Record<string, Handler> = {
  // GetAllMarketingEvents: every event of the portal, whichever app created it, by objectId.
  'get-/marketing/v3/marketing-events/_getAll': (req, { db, clock }) => {
    const rows = db.prepare('SELECT * FROM marketing_events ORDER BY object_id').all() as EventRow[];
    const { results, paging } = page(rows, req.query, 10);
    const now = clock.now();
    return ok({ results: results.map((row) => objectReadView(db, toEvent(row), now)), ...(paging && { paging }) });
  },

  // CreateMarketingEvent
  'post-/marketing/v3/marketing-events/events_create': (req, { db, clock }) => {
    const input = req.body as EventInput;
    if (findOwnEvent(db, req.appId, input.externalAccountId, input.externalEventId)) {
      throw new HubspotError(
        409,
        'CONFLICT',
        `Marketing event ${input.externalEventId} of external account ${input.externalAccountId} already exists; update or upsert it instead`,
      );
    }
    return ok(defaultView(insertEvent(db, req.appId, input, clock.now())));
  },

  // UpsertMarketingEvents
  'post-/marketing/v3/marketing-events/events/upsert_upsert': (req, { db, clock }) => {
    const now = clock.now();
    const inputs = inputsOf<EventInput>(req);
    const events = db.transaction(() => inputs.map((input) => upsertEvent(db, req.appId, input, now)))();
    return ok(batchResult(now, events.map(publicView)));
  },

  // UpsertMarketingEvent
  'put-/marketing/v3/marketing-events/events/{externalEventId}_upsert': (req, { db, clock }) => {
    const input = req.body as EventInput;
    if (input.externalEventId !== req.params.externalEventId) {
      throw invalidBody('externalEventId', `'${input.externalEventId}' differs from the path's '${req.params.externalEventId}'`);
    }
    return ok(publicView(upsertEvent(db, req.appId, input, clock.now())));
  },

  // GetMarketingEventDetails
  'get-/marketing/v3/marketing-events/events/{externalEventId}_getDetails': (req, { db, clock }) => {
    const event = ownEvent(req, db);
    const counts = participationCounts(db, event, clock.now());
    return ok({
      ...publicView(event),
      externalEventId: event.externalEventId,
      registrants: counts.registered,
      attendees: counts.attended,
      cancellations: counts.cancelled,
      noShows: counts.noShows,
    });
  },

  // UpdateMarketingEventDetails
  'patch-/marketing/v3/marketing-events/events/{externalEventId}_update': (req, { db, clock }) => {
    const event = ownEvent(req, db);
    return ok(publicView(saveDetails(db, event, withChanges(event.details, req.body as EventChanges), clock.now())));
  },

  // DeleteMarketingEvent: only the creating app's events answer to external ids.
  'delete-/marketing/v3/marketing-events/events/{externalEventId}_archive': (req, { db }) => {
    deleteEvent(db, ownEvent(req, db));
    return { status: 204 };
  },

  // CancelMarketingEvent
  'post-/marketing/v3/marketing-events/events/{externalEventId}/cancel_cancel': (req, { db, clock }) => {
    const event = ownEvent(req, db);
    return ok(defaultView(saveDetails(db, event, { ...event.details, eventCancelled: true }, clock.now())));
  },

  // MarkMarketingEventCompleted
  'post-/marketing/v3/marketing-events/events/{externalEventId}/complete_complete': (req, { db, clock }) => {
    const event = ownEvent(req, db);
    const { startDateTime, endDateTime } = (req.body ?? {}) as { startDateTime?: string; endDateTime?: string };
    const details = {
      ...event.details,
      startDateTime: isoDateTime(startDateTime, 'startDateTime'),
      endDateTime: isoDateTime(endDateTime, 'endDateTime'),
      eventCompleted: true,
    };
    checkOrder(details.startDateTime, details.endDateTime);
    return ok(defaultView(saveDetails(db, event, details, clock.now())));
  },

  // RemoveMarketingEvents: each input names its app, and only the calling app's own events go.
  'post-/marketing/v3/marketing-events/events/delete_archive': (req, { db, clock }) => {
    const inputs = inputsOf<{ externalAccountId: string; externalEventId: string; appId: number }>(req);
    const deleted: unknown[] = [];
    const refusals: Refusal[] = [];
    db.transaction(() => {
      for (const input of inputs) {
        const { externalAccountId, externalEventId, appId } = input;
        const event = appId === req.appId ? findOwnEvent(db, appId, externalAccountId, externalEventId) : undefined;
        if (event) {
          deleteEvent(db, event);
          deleted.push(input);
          continue;
        }
        const message =
          appId === req.appId
            ? `Marketing event ${externalEventId} of external account ${externalAccountId} created by app ${appId} not found`
            : `Marketing event ${externalEventId} of external account ${externalAccountId} not deleted: app ${appId} is not the calling app ${req.appId}, and only the app that created an event can delete it`;
        refusals.push({
          message,
          context: { externalAccountId: [externalAccountId], externalEventId: [externalEventId], appId: [String(appId)] },
        });
      }
    })();
    return deletionResult(clock.now(), deleted, refusals);
  },

  // FindCrmMarketingEvents: external event ids starting with q, across apps so a caller can see who owns what.
  'get-/marketing/v3/marketing-events/events/search_doSearch': (req, { db }) => {
    const q = requiredQuery(req, 'q');
    const rows = db
      .prepare('SELECT * FROM marketing_events WHERE substr(external_event_id, 1, length(?)) = ? ORDER BY object_id')
      .all(q, q) as EventRow[];
    return ok({
      results: rows.map(toEvent).map((e) => ({
        objectId: e.objectId,
        externalEventId: e.externalEventId,
        externalAccountId: e.externalAccountId,
        appId: e.appId,
      })),
    });
  },

  // SearchMarketingEventsByExternalId: every event with exactly this external id, in any account or app.
  'get-/marketing/v3/marketing-events/{externalEventId}/identifiers_searchPortalEvents': (req, { db }) => {
    const rows = db
      .prepare('SELECT * FROM marketing_events WHERE external_event_id = ? ORDER BY object_id')
      .all(req.params.externalEventId ?? '') as EventRow[];
    const results = rows.map(toEvent).map((e) => ({
      objectId: e.objectId,
      externalEventId: e.externalEventId,
      externalAccountId: e.externalAccountId,
      marketingEventName: e.details.eventName,
      appInfo: appInfo(e),
    }));
    return ok({ total: results.length, results });
  },

  // FetchEventDetails
  'get-/marketing/v3/marketing-events/{objectId}_getByObjectId': (req, { db, clock }) =>
    ok(objectReadView(db, eventById(db, req.params.objectId), clock.now())),

  // ModifyEventInformation
  'patch-/marketing/v3/marketing-events/{objectId}_updateByObjectId': (req, { db, clock }) => {
    const event = eventById(db, req.params.objectId);
    return ok(objectView(saveDetails(db, event, withChanges(event.details, req.body as EventChanges), clock.now())));
  },

  // RemoveMarketingEvent: by objectId any app may delete.
  'delete-/marketing/v3/marketing-events/{objectId}_archiveByObjectId': (req, { db }) => {
    deleteEvent(db, eventById(db, req.params.objectId));
    return { status: 204 };
  },

  // UpdateMarketingEventsBatch: all or nothing, since the response has no room for per-event errors.
  'post-/marketing/v3/marketing-events/batch/update_updateByObjectId': (req, { db, clock }) => {
    const now = clock.now();
    const inputs = inputsOf<EventChanges & { objectId: string }>(req);
    const missing = inputs.filter((input) => !loadEvent(db, input.objectId)).map((input) => input.objectId);
    if (missing.length) throw notFound(`Marketing events ${missing.join(', ')}`);
    const events = db.transaction(() =>
      inputs.map(({ objectId, ...changes }) => {
        const event = eventById(db, objectId);
        return saveDetails(db, event, withChanges(event.details, changes), now);
      }),
    )();
    return ok(batchResult(now, events.map(objectView)));
  },

  // DeleteMarketingEvents: 204 when all were deleted, 207 naming those that did not exist.
  'post-/marketing/v3/marketing-events/batch/archive_archiveByObjectId': (req, { db, clock }) => {
    const objectIds = [...new Set(inputsOf<{ objectId: string }>(req).map((input) => input.objectId))];
    const deleted: unknown[] = [];
    const refusals: Refusal[] = [];
    db.transaction(() => {
      for (const objectId of objectIds) {
        const event = loadEvent(db, objectId);
        if (event) {
          deleteEvent(db, event);
          deleted.push({ objectId });
        } else {
          refusals.push({ message: `Marketing event ${objectId} not found`, context: { objectId: [objectId] } });
        }
      }
    })();
    return deletionResult(clock.now(), deleted, refusals);
  },

  // RecordEventAttendance
  'post-/marketing/v3/marketing-events/{objectId}/attendance/{subscriberState}/create_recordByContactId': (req, ctx) => {
    const contacts = recordAttendance(req, ctx, eventById(ctx.db, req.params.objectId), byVid);
    return ok(batchResult(ctx.clock.now(), contacts.map((c) => ({ vid: c.vid }))));
  },

  // RegisterEventParticipation: unknown emails become new contacts.
  'post-/marketing/v3/marketing-events/{objectId}/attendance/{subscriberState}/email-create_recordByEmail': (req, ctx) => {
    const contacts = recordAttendance(req, ctx, eventById(ctx.db, req.params.objectId), byEmailCreating);
    return ok(batchResult(ctx.clock.now(), contacts.map((c) => ({ vid: c.vid, email: c.email }))));
  },

  // RecordMarketingEventAttendance
  'post-/marketing/v3/marketing-events/attendance/{externalEventId}/{subscriberState}/create_recordByContactIds': (req, ctx) => {
    const contacts = recordAttendance(req, ctx, ownEvent(req, ctx.db), byVid);
    return ok(batchResult(ctx.clock.now(), contacts.map((c) => ({ vid: c.vid }))));
  },

  // RecordEventParticipationCrm: unknown emails become new contacts.
  'post-/marketing/v3/marketing-events/attendance/{externalEventId}/{subscriberState}/email-create_recordByContactEmails': (req, ctx) => {
    const contacts = recordAttendance(req, ctx, ownEvent(req, ctx.db), byEmailCreating);
    return ok(batchResult(ctx.clock.now(), contacts.map((c) => ({ vid: c.vid, email: c.email }))));
  },

  // RecordCrmSubscriberState: contacts must exist.
  'post-/marketing/v3/marketing-events/events/{externalEventId}/{subscriberState}/upsert_upsertByContactId': (req, ctx) => {
    recordAttendance(req, ctx, ownEvent(req, ctx.db), byVid);
    return { status: 204 };
  },

  // RecordSubscriberState: contacts must exist, even though they are named by email.
  'post-/marketing/v3/marketing-events/events/{externalEventId}/{subscriberState}/email-upsert_upsertByContactEmail': (req, ctx) => {
    recordAttendance(req, ctx, ownEvent(req, ctx.db), byEmail);
    return { status: 204 };
  },

  // GetMarketingEventParticipationCounters
  'get-/marketing/v3/marketing-events/participations/{marketingEventId}_getParticipationsCountersByMarketingEventId': (req, { db, clock }) =>
    ok(participationCounts(db, eventById(db, req.params.marketingEventId), clock.now())),

  // GetEventParticipationCounters
  'get-/marketing/v3/marketing-events/participations/{externalAccountId}/{externalEventId}_getParticipationsCountersByEventExternalId': (
    req,
    { db, clock },
  ) => ok(participationCounts(db, ownEvent(req, db, req.params.externalAccountId), clock.now())),

  // GetMarketingEventParticipationsBreakdown
  'get-/marketing/v3/marketing-events/participations/{marketingEventId}/breakdown_getParticipationsBreakdownByMarketingEventId': (req, ctx) =>
    ok(breakdown(req, ctx, { event: eventById(ctx.db, req.params.marketingEventId) })),

  // GetMarketingEventParticipationBreakdown
  'get-/marketing/v3/marketing-events/participations/{externalAccountId}/{externalEventId}/breakdown_getParticipationsBreakdownByExternalEventId': (
    req,
    ctx,
  ) => ok(breakdown(req, ctx, { event: ownEvent(req, ctx.db, req.params.externalAccountId) })),

  // GetContactParticipationsBreakdown: the contact is named by vid or by email.
  'get-/marketing/v3/marketing-events/participations/contacts/{contactIdentifier}/breakdown_getParticipationsBreakdownByContactId': (req, ctx) => {
    const identifier = req.params.contactIdentifier ?? '';
    const contact = findContact(ctx.db, identifier);
    if (!contact) throw notFound(`Contact ${identifier}`);
    return ok(breakdown(req, ctx, { contact }));
  },

  // AssociateListWithMarketingEvent
  'put-/marketing/v3/marketing-events/associations/{marketingEventId}/lists/{listId}_associateByMarketingEventId': (req, { db }) =>
    associateList(db, eventById(db, req.params.marketingEventId), req.params.listId),

  // DisassociateListFromMarketingEvent
  'delete-/marketing/v3/marketing-events/associations/{marketingEventId}/lists/{listId}_disassociateByMarketingEventId': (req, { db }) =>
    disassociateList(db, eventById(db, req.params.marketingEventId), req.params.listId),

  // GetMarketingEventLists
  'get-/marketing/v3/marketing-events/associations/{marketingEventId}/lists_getAllByMarketingEventId': (req, { db }) =>
    eventLists(db, eventById(db, req.params.marketingEventId)),

  // LinkListToEvent
  'put-/marketing/v3/marketing-events/associations/{externalAccountId}/{externalEventId}/lists/{listId}_associateByExternalAccountAndEventIds': (
    req,
    { db },
  ) => associateList(db, ownEvent(req, db, req.params.externalAccountId), req.params.listId),

  // DisassociateMarketingEventList
  'delete-/marketing/v3/marketing-events/associations/{externalAccountId}/{externalEventId}/lists/{listId}_disassociateByExternalAccountAndEventIds': (
    req,
    { db },
  ) => disassociateList(db, ownEvent(req, db, req.params.externalAccountId), req.params.listId),

  // GetMarketingEventAssociatedLists
  'get-/marketing/v3/marketing-events/associations/{externalAccountId}/{externalEventId}/lists_getAllByExternalAccountAndEventIds': (
    req,
    { db },
  ) => eventLists(db, ownEvent(req, db, req.params.externalAccountId)),
};
