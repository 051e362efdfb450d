import type Database from 'better-sqlite3';
import { badRequest, type Handler, type HubspotContext, HubspotError, type HubspotRequest, notFound } from './context.js';
import { type Contact, createContact, findContact, findContactByEmail, getContact } from './crm.js';
import { batchResult, eventById, hasEnded, inputsOf, invalidBody, type MarketingEvent, ok, ownEvent } from './event-store.js';
import { page } from './paging.js';
import { invalid, text } from './query.js';
import { iso } from './time.js';

/**
 * Attendance at marketing events (register, attend, cancel; by contact id or email), the contact timeline
 * entries it leaves, and participation counters and breakdowns.
 */

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

export function participationCounts(db: Database.Database, event: MarketingEvent, now: number) {
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
function recordAttendance(req: HubspotRequest, { db, clock }: HubspotContext, event: MarketingEvent, find: ContactFinder): Contact[] {
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
      throw new HubspotError(404, 'OBJECT_NOT_FOUND', `Contacts not found: ${missing.join(', ')}; this endpoint records existing contacts only`, errors);
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

export const eventAttendanceHandlers: Record<string, Handler> = {
  // RecordEventAttendance
  'post-/marketing/v3/marketing-events/{objectId}/attendance/{subscriberState}/create_recordByContactId': (req, ctx) => {
    const contacts = recordAttendance(req, ctx, eventById(ctx.db, req.params.objectId), byVid);
    return ok(
      batchResult(
        ctx.clock.now(),
        contacts.map((c) => ({ vid: c.vid })),
      ),
    );
  },

  // RegisterEventParticipation: unknown emails become new contacts.
  'post-/marketing/v3/marketing-events/{objectId}/attendance/{subscriberState}/email-create_recordByEmail': (req, ctx) => {
    const contacts = recordAttendance(req, ctx, eventById(ctx.db, req.params.objectId), byEmailCreating);
    return ok(
      batchResult(
        ctx.clock.now(),
        contacts.map((c) => ({ vid: c.vid, email: c.email })),
      ),
    );
  },

  // RecordMarketingEventAttendance
  'post-/marketing/v3/marketing-events/attendance/{externalEventId}/{subscriberState}/create_recordByContactIds': (req, ctx) => {
    const contacts = recordAttendance(req, ctx, ownEvent(req, ctx.db), byVid);
    return ok(
      batchResult(
        ctx.clock.now(),
        contacts.map((c) => ({ vid: c.vid })),
      ),
    );
  },

  // RecordEventParticipationCrm: unknown emails become new contacts.
  'post-/marketing/v3/marketing-events/attendance/{externalEventId}/{subscriberState}/email-create_recordByContactEmails': (req, ctx) => {
    const contacts = recordAttendance(req, ctx, ownEvent(req, ctx.db), byEmailCreating);
    return ok(
      batchResult(
        ctx.clock.now(),
        contacts.map((c) => ({ vid: c.vid, email: c.email })),
      ),
    );
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
  'get-/marketing/v3/marketing-events/participations/{externalAccountId}/{externalEventId}_getParticipationsCountersByEventExternalId': (req, { db, clock }) =>
    ok(participationCounts(db, ownEvent(req, db, req.params.externalAccountId), clock.now())),

  // GetMarketingEventParticipationsBreakdown
  'get-/marketing/v3/marketing-events/participations/{marketingEventId}/breakdown_getParticipationsBreakdownByMarketingEventId': (req, ctx) =>
    ok(breakdown(req, ctx, { event: eventById(ctx.db, req.params.marketingEventId) })),

  // GetMarketingEventParticipationBreakdown
  'get-/marketing/v3/marketing-events/participations/{externalAccountId}/{externalEventId}/breakdown_getParticipationsBreakdownByExternalEventId': (req, ctx) =>
    ok(breakdown(req, ctx, { event: ownEvent(req, ctx.db, req.params.externalAccountId) })),

  // GetContactParticipationsBreakdown: the contact is named by vid or by email.
  'get-/marketing/v3/marketing-events/participations/contacts/{contactIdentifier}/breakdown_getParticipationsBreakdownByContactId': (req, ctx) => {
    const identifier = req.params.contactIdentifier ?? '';
    const contact = findContact(ctx.db, identifier);
    if (!contact) throw notFound(`Contact ${identifier}`);
    return ok(breakdown(req, ctx, { contact }));
  },
};
