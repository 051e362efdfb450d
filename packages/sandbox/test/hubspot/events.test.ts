import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { createClock } from '../../src/emulator/clock.js';
import { createValidator } from '../../src/emulator/validation.js';
import { HubspotError, type HubspotContext, type HubspotResponse } from '../../src/hubspot/context.js';
import { createContact, createList, findContactByEmail, getContact, getList } from '../../src/hubspot/crm.js';
import { eventAttendanceHandlers, timelineEvents } from '../../src/hubspot/event-attendance.js';
import { eventListHandlers } from '../../src/hubspot/event-lists.js';
import { createEventTables } from '../../src/hubspot/event-store.js';
import { eventHandlers as eventRecordHandlers } from '../../src/hubspot/events.js';

const eventHandlers = { ...eventRecordHandlers, ...eventAttendanceHandlers, ...eventListHandlers };
import { operationTable } from '../../src/hubspot/table.js';

// The HTTP layer's own check of each answer against the generated operation table (closed objects).
const validator = createValidator(operationTable);

const OP = {
  getAll: 'get-/marketing/v3/marketing-events/_getAll',
  create: 'post-/marketing/v3/marketing-events/events_create',
  upsertBatch: 'post-/marketing/v3/marketing-events/events/upsert_upsert',
  upsert: 'put-/marketing/v3/marketing-events/events/{externalEventId}_upsert',
  details: 'get-/marketing/v3/marketing-events/events/{externalEventId}_getDetails',
  update: 'patch-/marketing/v3/marketing-events/events/{externalEventId}_update',
  deleteByExternal: 'delete-/marketing/v3/marketing-events/events/{externalEventId}_archive',
  cancel: 'post-/marketing/v3/marketing-events/events/{externalEventId}/cancel_cancel',
  complete: 'post-/marketing/v3/marketing-events/events/{externalEventId}/complete_complete',
  removeByApp: 'post-/marketing/v3/marketing-events/events/delete_archive',
  search: 'get-/marketing/v3/marketing-events/events/search_doSearch',
  identifiers: 'get-/marketing/v3/marketing-events/{externalEventId}/identifiers_searchPortalEvents',
  fetch: 'get-/marketing/v3/marketing-events/{objectId}_getByObjectId',
  modify: 'patch-/marketing/v3/marketing-events/{objectId}_updateByObjectId',
  removeById: 'delete-/marketing/v3/marketing-events/{objectId}_archiveByObjectId',
  batchUpdate: 'post-/marketing/v3/marketing-events/batch/update_updateByObjectId',
  batchArchive: 'post-/marketing/v3/marketing-events/batch/archive_archiveByObjectId',
  attendById: 'post-/marketing/v3/marketing-events/{objectId}/attendance/{subscriberState}/create_recordByContactId',
  attendEmailById: 'post-/marketing/v3/marketing-events/{objectId}/attendance/{subscriberState}/email-create_recordByEmail',
  attendByExternal: 'post-/marketing/v3/marketing-events/attendance/{externalEventId}/{subscriberState}/create_recordByContactIds',
  attendEmailByExternal: 'post-/marketing/v3/marketing-events/attendance/{externalEventId}/{subscriberState}/email-create_recordByContactEmails',
  upsertState: 'post-/marketing/v3/marketing-events/events/{externalEventId}/{subscriberState}/upsert_upsertByContactId',
  emailUpsertState: 'post-/marketing/v3/marketing-events/events/{externalEventId}/{subscriberState}/email-upsert_upsertByContactEmail',
  counters: 'get-/marketing/v3/marketing-events/participations/{marketingEventId}_getParticipationsCountersByMarketingEventId',
  countersByExternal: 'get-/marketing/v3/marketing-events/participations/{externalAccountId}/{externalEventId}_getParticipationsCountersByEventExternalId',
  breakdown: 'get-/marketing/v3/marketing-events/participations/{marketingEventId}/breakdown_getParticipationsBreakdownByMarketingEventId',
  breakdownByExternal:
    'get-/marketing/v3/marketing-events/participations/{externalAccountId}/{externalEventId}/breakdown_getParticipationsBreakdownByExternalEventId',
  contactBreakdown: 'get-/marketing/v3/marketing-events/participations/contacts/{contactIdentifier}/breakdown_getParticipationsBreakdownByContactId',
  linkList: 'put-/marketing/v3/marketing-events/associations/{marketingEventId}/lists/{listId}_associateByMarketingEventId',
  unlinkList: 'delete-/marketing/v3/marketing-events/associations/{marketingEventId}/lists/{listId}_disassociateByMarketingEventId',
  lists: 'get-/marketing/v3/marketing-events/associations/{marketingEventId}/lists_getAllByMarketingEventId',
  linkListByExternal:
    'put-/marketing/v3/marketing-events/associations/{externalAccountId}/{externalEventId}/lists/{listId}_associateByExternalAccountAndEventIds',
  unlinkListByExternal:
    'delete-/marketing/v3/marketing-events/associations/{externalAccountId}/{externalEventId}/lists/{listId}_disassociateByExternalAccountAndEventIds',
  listsByExternal: 'get-/marketing/v3/marketing-events/associations/{externalAccountId}/{externalEventId}/lists_getAllByExternalAccountAndEventIds',
} as const;

const APP = 7001;
const OTHER_APP = 7002;
const ACCOUNT = 'acct-1';
const START = Date.UTC(2025, 2, 1, 12);

interface Call {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  appId?: number;
}

let ctx: HubspotContext;

beforeEach(() => {
  const db = new Database(':memory:');
  createEventTables(db);
  ctx = { db, clock: createClock(START) };
});

/** Runs a handler and holds its answer to what the HTTP layer demands of it. */
function call(label: string, { params = {}, query = {}, body, appId = APP }: Call = {}): { status: number; body: any } {
  const handler = eventHandlers[label];
  const operation = operationTable.operations[label];
  if (!handler || !operation) throw new Error(`no handler or operation for ${label}`);
  const response: HubspotResponse = handler({ operation: label, path: operation.path, params, query, headers: {}, body, appId }, ctx);
  const json = response.body === undefined ? undefined : JSON.parse(JSON.stringify(response.body));
  if (response.status === 207) {
    expectPartialResult(json);
  } else {
    expect(response.status, label).toBe(operation.successStatus);
    if (operation.responseBody) expect(validator.response(label, json), label).toBeUndefined();
    else expect(json, `${label} answers without a body`).toBeUndefined();
  }
  return { status: response.status, body: json };
}

/** No operation documents a 207 body; ours is a batch response whose errors have HubSpot's error shape. */
function expectPartialResult(body: any): void {
  expect(body).toEqual({
    status: 'COMPLETE',
    results: expect.any(Array),
    numErrors: body.errors.length,
    errors: expect.any(Array),
    startedAt: expect.any(String),
    completedAt: expect.any(String),
  });
  for (const error of body.errors) {
    expect(error).toEqual({
      status: 'error',
      category: 'OBJECT_NOT_FOUND',
      message: expect.any(String),
      context: expect.any(Object),
      links: {},
      errors: [{ message: error.message }],
    });
  }
}

function failure(label: string, request: Call = {}): HubspotError {
  try {
    call(label, request);
  } catch (error) {
    if (error instanceof HubspotError) return error;
    throw error;
  }
  throw new Error(`${label} succeeded`);
}

function createEvent(externalEventId: string, fields: Record<string, unknown> = {}, appId = APP, externalAccountId = ACCOUNT) {
  const body = { externalAccountId, externalEventId, eventName: `Event ${externalEventId}`, eventOrganizer: 'Quiver', ...fields };
  return call(OP.create, { body, appId }).body as { objectId: string; eventName: string };
}

const external = (externalEventId: string, extra: Call = {}): Call => ({
  ...extra,
  params: { externalEventId, ...extra.params },
  query: { externalAccountId: ACCOUNT, ...extra.query },
});

function fetchStatus(objectId: string): number {
  try {
    return call(OP.fetch, { params: { objectId } }).status;
  } catch (error) {
    return (error as HubspotError).status;
  }
}

const attendanceInputs = (vids: number[], properties?: Record<string, string>) => ({
  inputs: vids.map((vid) => ({ vid, interactionDateTime: START, ...(properties && { properties }) })),
});

describe('handler table', () => {
  it('has exactly one handler per marketing-events operation', () => {
    const expected = Object.entries(operationTable.operations)
      .filter(([, op]) => op.path.startsWith('/marketing/v3/marketing-events'))
      .map(([label]) => label)
      .sort();
    expect(expected).toHaveLength(34);
    expect(Object.keys(eventHandlers).sort()).toEqual(expected);
  });
});

describe('CRM seeds and helpers', () => {
  it('seeds contacts 1001-1005 and lists 501-503, and numbers new records after them', () => {
    expect(getContact(ctx.db, 1001)).toMatchObject({ email: 'ada.lovelace@example.com', properties: { firstname: 'Ada' } });
    expect(findContactByEmail(ctx.db, 'Edsger.Dijkstra@Example.com')?.vid).toBe(1005);
    expect(getList(ctx.db, '503')?.name).toBe('Customers');
    expect(createContact(ctx.db, 'New.Person@example.com', { firstname: 'New' })).toEqual({
      vid: 1006,
      email: 'new.person@example.com',
      properties: { firstname: 'New' },
    });
    expect(createList(ctx.db, 'VIPs', START).listId).toBe('504');
  });

  it('leaves the seeds alone when the tables are created again', () => {
    createContact(ctx.db, 'someone@example.com');
    createEventTables(ctx.db);
    expect(getContact(ctx.db, 1006)?.email).toBe('someone@example.com');
    expect(getContact(ctx.db, 1001)?.email).toBe('ada.lovelace@example.com');
  });
});

describe('events', () => {
  it('creates an event owned by the calling app and reads it back both ways', () => {
    const created = createEvent('webinar-1', {
      eventType: 'WEBINAR',
      startDateTime: '2025-03-10T15:00:00Z',
      customProperties: [{ name: 'topic', value: 'APIs', sourceUpstreamDeployable: 'quiver' }],
    });
    expect(created.objectId).toMatch(/^\d+$/);
    expect(created).toMatchObject({ eventName: 'Event webinar-1', eventCancelled: false, eventCompleted: false });

    const byId = call(OP.fetch, { params: { objectId: created.objectId }, appId: OTHER_APP }).body;
    expect(byId).toMatchObject({
      objectId: created.objectId,
      externalEventId: 'webinar-1',
      eventType: 'WEBINAR',
      startDateTime: '2025-03-10T15:00:00.000Z',
      appInfo: { id: String(APP) },
      customProperties: [{ name: 'topic', value: 'APIs' }],
      eventStatus: 'UPCOMING',
      registrants: 0,
    });
    expect(byId.customProperties[0]).not.toHaveProperty('sourceUpstreamDeployable');

    const byExternal = call(OP.details, external('webinar-1')).body;
    expect(byExternal).toMatchObject({ id: created.objectId, externalEventId: 'webinar-1', attendees: 0, noShows: 0 });
    expect(byExternal.customProperties[0]).toMatchObject({ sourceUpstreamDeployable: 'quiver' });
  });

  it('answers 404 to another app using the external ids', () => {
    createEvent('webinar-1');
    const error = failure(OP.details, { ...external('webinar-1'), appId: OTHER_APP });
    expect(error.status).toBe(404);
    expect(error.category).toBe('OBJECT_NOT_FOUND');
  });

  it('refuses to create the same external ids twice for one app, but another app may reuse them', () => {
    createEvent('webinar-1');
    expect(failure(OP.create, { body: { externalAccountId: ACCOUNT, externalEventId: 'webinar-1', eventName: 'x', eventOrganizer: 'y' } }).status).toBe(409);
    expect(createEvent('webinar-1', {}, OTHER_APP).objectId).toMatch(/^\d+$/);
  });

  it('updates by external id, merging custom properties by name', () => {
    createEvent('webinar-1', {
      customProperties: [
        { name: 'topic', value: 'APIs', sourceUpstreamDeployable: 'quiver' },
        { name: 'room', value: 'A', sourceUpstreamDeployable: 'quiver' },
      ],
    });
    const updated = call(
      OP.update,
      external('webinar-1', {
        body: { eventDescription: 'Deep dive', customProperties: [{ name: 'room', value: 'B', sourceUpstreamDeployable: 'quiver' }] },
      }),
    ).body;
    expect(updated.eventDescription).toBe('Deep dive');
    expect(updated.eventName).toBe('Event webinar-1');
    expect(updated.customProperties.map((p: { name: string; value: string }) => `${p.name}=${p.value}`)).toEqual(['topic=APIs', 'room=B']);
  });

  it('updates by objectId from any app', () => {
    const { objectId } = createEvent('webinar-1');
    const body = { eventName: 'Renamed', customProperties: [{ name: 'tier', value: 'gold', sourceUpstreamDeployable: 'quiver' }] };
    const updated = call(OP.modify, { params: { objectId }, body, appId: OTHER_APP }).body;
    expect(updated).toMatchObject({ objectId, eventName: 'Renamed', customProperties: [{ name: 'tier', value: 'gold' }] });
    expect(call(OP.fetch, { params: { objectId } }).body.eventName).toBe('Renamed');
  });

  it('rejects an end before the start', () => {
    const error = failure(OP.create, {
      body: {
        externalAccountId: ACCOUNT,
        externalEventId: 'backwards',
        eventName: 'Backwards',
        eventOrganizer: 'Quiver',
        startDateTime: '2025-03-10T15:00:00Z',
        endDateTime: '2025-03-10T14:00:00Z',
      },
    });
    expect(error.status).toBe(400);
    expect(error.message).toContain('endDateTime');
  });

  it('upserts one event: creates, then replaces its fields keeping its objectId', () => {
    const body = { externalAccountId: ACCOUNT, externalEventId: 'conf', eventName: 'Conf', eventOrganizer: 'Quiver', eventType: 'CONFERENCE' };
    const first = call(OP.upsert, { params: { externalEventId: 'conf' }, body }).body;
    const { eventType: _dropped, ...withoutType } = body;
    const second = call(OP.upsert, { params: { externalEventId: 'conf' }, body: { ...withoutType, eventName: 'Conf 2025' } }).body;
    expect(second.objectId).toBe(first.objectId);
    expect(second.eventName).toBe('Conf 2025');
    expect(second).not.toHaveProperty('eventType');
    expect(call(OP.identifiers, { params: { externalEventId: 'conf' } }).body.total).toBe(1);
  });

  it('rejects an upsert whose body names another external event than the path', () => {
    const body = { externalAccountId: ACCOUNT, externalEventId: 'other', eventName: 'Conf', eventOrganizer: 'Quiver' };
    const error = failure(OP.upsert, { params: { externalEventId: 'conf' }, body });
    expect(error.status).toBe(400);
    expect(error.message).toContain('externalEventId');
    expect(error.errors[0]?.in).toBe('body');
  });

  it('upserts a batch, creating new events and updating existing ones', () => {
    const { objectId } = createEvent('a');
    const inputs = ['a', 'b'].map((id) => ({ externalAccountId: ACCOUNT, externalEventId: id, eventName: `Batch ${id}`, eventOrganizer: 'Quiver' }));
    const result = call(OP.upsertBatch, { body: { inputs } }).body;
    expect(result.status).toBe('COMPLETE');
    expect(result.results.map((e: { eventName: string }) => e.eventName)).toEqual(['Batch a', 'Batch b']);
    expect(result.results[0].objectId).toBe(objectId);
    expect(call(OP.getAll).body.results).toHaveLength(2);
  });

  it('updates a batch by objectId, all or nothing', () => {
    const a = createEvent('a');
    const b = createEvent('b');
    const inputs = [
      { objectId: a.objectId, eventName: 'A!', customProperties: [] },
      { objectId: b.objectId, eventUrl: 'https://example.com/b', customProperties: [] },
    ];
    const result = call(OP.batchUpdate, { body: { inputs } }).body;
    expect(result.results.map((e: { objectId: string }) => e.objectId)).toEqual([a.objectId, b.objectId]);
    expect(call(OP.fetch, { params: { objectId: b.objectId } }).body.eventUrl).toBe('https://example.com/b');

    const error = failure(OP.batchUpdate, {
      body: {
        inputs: [
          { objectId: a.objectId, eventName: 'Never', customProperties: [] },
          { objectId: '999', customProperties: [] },
        ],
      },
    });
    expect(error.status).toBe(404);
    expect(error.message).toContain('999');
    expect(call(OP.fetch, { params: { objectId: a.objectId } }).body.eventName).toBe('A!');
  });

  it('cancels an event of the calling app only', () => {
    const { objectId } = createEvent('webinar-1');
    expect(failure(OP.cancel, { ...external('webinar-1'), appId: OTHER_APP }).status).toBe(404);
    expect(call(OP.fetch, { params: { objectId } }).body.eventCancelled).toBe(false);

    const cancelled = call(OP.cancel, external('webinar-1')).body;
    expect(cancelled).toMatchObject({ objectId, eventCancelled: true });
    expect(call(OP.fetch, { params: { objectId } }).body).toMatchObject({ eventCancelled: true, eventStatus: 'CANCELLED' });
  });

  it('completes an event with its start and end date-times', () => {
    const { objectId } = createEvent('webinar-1');
    const body = { startDateTime: '2025-03-01T10:00:00Z', endDateTime: '2025-03-01T11:00:00Z' };
    const completed = call(OP.complete, external('webinar-1', { body })).body;
    expect(completed).toMatchObject({
      objectId,
      eventCompleted: true,
      startDateTime: '2025-03-01T10:00:00.000Z',
      endDateTime: '2025-03-01T11:00:00.000Z',
    });
    expect(call(OP.fetch, { params: { objectId } }).body.eventStatus).toBe('COMPLETED');

    const backwards = failure(OP.complete, external('webinar-1', { body: { startDateTime: body.endDateTime, endDateTime: body.startDateTime } }));
    expect(backwards.status).toBe(400);
    expect(backwards.message).toMatch(/^endDateTime /);
  });

  it('pages through all events of the portal by objectId', () => {
    const ids = ['a', 'b', 'c'].map((id, i) => createEvent(id, {}, i === 1 ? OTHER_APP : APP).objectId);
    const first = call(OP.getAll, { query: { limit: '2' } }).body;
    expect(first.results.map((e: { objectId: string }) => e.objectId)).toEqual(ids.slice(0, 2));
    const second = call(OP.getAll, { query: { limit: '2', after: first.paging.next.after } }).body;
    expect(second.results.map((e: { objectId: string }) => e.objectId)).toEqual(ids.slice(2));
    expect(second.paging).toBeUndefined();
    expect(failure(OP.getAll, { query: { limit: '500' } }).message).toMatch(/^limit /);
  });

  it('searches external event ids by prefix, and finds every event sharing an external id', () => {
    const mine = createEvent('summit-2025');
    const otherAccount = createEvent('summit-2025', {}, APP, 'acct-2');
    const otherApp = createEvent('summit-2025', {}, OTHER_APP);
    createEvent('webinar-9');

    const found = call(OP.search, { query: { q: 'summit' } }).body.results;
    expect(found.map((r: { objectId: string }) => r.objectId)).toEqual([mine.objectId, otherAccount.objectId, otherApp.objectId]);
    expect(found[2]).toMatchObject({ appId: OTHER_APP, externalAccountId: ACCOUNT });

    const identifiers = call(OP.identifiers, { params: { externalEventId: 'summit-2025' } }).body;
    expect(identifiers.total).toBe(3);
    expect(identifiers.results.map((r: { externalAccountId: string }) => r.externalAccountId)).toEqual([ACCOUNT, 'acct-2', ACCOUNT]);
    expect(identifiers.results[0].marketingEventName).toBe('Event summit-2025');
    expect(call(OP.identifiers, { params: { externalEventId: 'summit' } }).body.total).toBe(0);
  });
});

describe('event deletion', () => {
  it('deletes by external id only for the creating app', () => {
    const { objectId } = createEvent('webinar-1');
    expect(failure(OP.deleteByExternal, { ...external('webinar-1'), appId: OTHER_APP }).status).toBe(404);
    expect(fetchStatus(objectId)).toBe(200);

    expect(call(OP.deleteByExternal, external('webinar-1')).status).toBe(204);
    expect(fetchStatus(objectId)).toBe(404);
  });

  it('deletes by objectId whichever app created the event', () => {
    const { objectId } = createEvent('webinar-1');
    expect(call(OP.removeById, { params: { objectId }, appId: OTHER_APP }).status).toBe(204);
    expect(fetchStatus(objectId)).toBe(404);
    expect(failure(OP.removeById, { params: { objectId } }).status).toBe(404);
  });

  it('RemoveMarketingEvents deletes only the calling app’s events and reports the rest', () => {
    const own = createEvent('own');
    const theirs = createEvent('theirs', {}, OTHER_APP);
    const inputs = [
      { externalAccountId: ACCOUNT, externalEventId: 'own', appId: APP },
      { externalAccountId: ACCOUNT, externalEventId: 'theirs', appId: OTHER_APP },
      { externalAccountId: ACCOUNT, externalEventId: 'theirs', appId: APP },
    ];
    const result = call(OP.removeByApp, { body: { inputs } });
    expect(result.status).toBe(207);
    expect(result.body.numErrors).toBe(2);
    expect(result.body.errors[0].message).toContain(`app ${OTHER_APP} is not the calling app ${APP}`);
    expect(result.body.errors[1].context).toEqual({ externalAccountId: [ACCOUNT], externalEventId: ['theirs'], appId: [String(APP)] });
    expect(fetchStatus(own.objectId)).toBe(404);
    expect(fetchStatus(theirs.objectId)).toBe(200);

    createEvent('again');
    const clean = call(OP.removeByApp, { body: { inputs: [{ externalAccountId: ACCOUNT, externalEventId: 'again', appId: APP }] } });
    expect(clean.status).toBe(204);
  });

  it('DeleteMarketingEvents answers 204 when all were deleted and 207 naming the missing when only some were', () => {
    const a = createEvent('a');
    const b = createEvent('b', {}, OTHER_APP);
    expect(call(OP.batchArchive, { body: { inputs: [{ objectId: a.objectId }, { objectId: b.objectId }] } }).status).toBe(204);
    expect([fetchStatus(a.objectId), fetchStatus(b.objectId)]).toEqual([404, 404]);

    const c = createEvent('c');
    const some = call(OP.batchArchive, { body: { inputs: [{ objectId: c.objectId }, { objectId: a.objectId }] } });
    expect(some.status).toBe(207);
    expect(some.body.results).toEqual([{ objectId: c.objectId }]);
    expect(some.body.errors).toHaveLength(1);
    expect(some.body.errors[0]).toMatchObject({ category: 'OBJECT_NOT_FOUND', context: { objectId: [a.objectId] } });
    expect(fetchStatus(c.objectId)).toBe(404);
  });

  it('takes attendance and list links with the event but keeps the contacts’ timeline', () => {
    const { objectId } = createEvent('webinar-1');
    call(OP.attendById, { params: { objectId, subscriberState: 'register' }, body: attendanceInputs([1001]) });
    call(OP.linkList, { params: { marketingEventId: objectId, listId: '501' } });
    call(OP.removeById, { params: { objectId } });
    expect(call(OP.contactBreakdown, { params: { contactIdentifier: '1001' } }).body.total).toBe(0);
    expect(ctx.db.prepare('SELECT COUNT(*) AS n FROM marketing_event_lists').get()).toEqual({ n: 0 });
    expect(timelineEvents(ctx.db, 1001)).toHaveLength(1);
  });
});

describe('attendance', () => {
  let objectId: string;
  beforeEach(() => {
    objectId = createEvent('webinar-1', { startDateTime: '2025-03-10T15:00:00Z', endDateTime: '2025-03-10T16:00:00Z' }).objectId;
  });

  const counters = () => call(OP.counters, { params: { marketingEventId: objectId } }).body;

  it('registers contacts by id and adds one timeline event to each contact per call', () => {
    const result = call(OP.attendById, { params: { objectId, subscriberState: 'register' }, body: attendanceInputs([1001, 1002]) }).body;
    expect(result).toMatchObject({ status: 'COMPLETE', results: [{ vid: 1001 }, { vid: 1002 }] });
    expect(counters()).toEqual({ registered: 2, attended: 0, cancelled: 0, noShows: 0 });
    expect(timelineEvents(ctx.db, 1001)).toEqual([
      expect.objectContaining({ contactId: 1001, marketingEventId: objectId, state: 'register', occurredAt: START }),
    ]);
    expect(timelineEvents(ctx.db, 1002)).toHaveLength(1);
    expect(timelineEvents(ctx.db, 1003)).toHaveLength(0);

    call(OP.attendById, { params: { objectId, subscriberState: 'attend' }, body: attendanceInputs([1001]) });
    expect(timelineEvents(ctx.db, 1001).map((t) => t.state)).toEqual(['register', 'attend']);
    expect(timelineEvents(ctx.db, 1002)).toHaveLength(1);
    expect(counters()).toEqual({ registered: 1, attended: 1, cancelled: 0, noShows: 0 });
  });

  it('stores joinedAt and leftAt for attend and reports the duration', () => {
    const properties = { joinedAt: '2025-03-10T15:00:00Z', leftAt: String(Date.parse('2025-03-10T15:45:00Z')) };
    call(OP.attendById, { params: { objectId, subscriberState: 'attend' }, body: attendanceInputs([1003], properties) });
    const page = call(OP.breakdown, { params: { marketingEventId: objectId } }).body;
    expect(page.total).toBe(1);
    expect(page.results[0].properties).toMatchObject({
      attendanceState: 'ATTENDED',
      occurredAt: START,
      attendanceDurationSeconds: 2700,
      attendancePercentage: '75',
    });
    expect(page.results[0].associations).toEqual({
      marketingEvent: { marketingEventId: objectId, externalAccountId: ACCOUNT, externalEventId: 'webinar-1', name: 'Event webinar-1' },
      contact: { contactId: '1003', email: 'alan.turing@example.com', firstname: 'Alan', lastname: 'Turing' },
    });
    expect(timelineEvents(ctx.db, 1003)[0]?.properties).toEqual(properties);
  });

  it('rejects joinedAt outside attend, leftAt before joinedAt, and unknown states', () => {
    const register = failure(OP.attendById, {
      params: { objectId, subscriberState: 'register' },
      body: attendanceInputs([1001], { joinedAt: '2025-03-10T15:00:00Z' }),
    });
    expect(register.status).toBe(400);
    expect(register.message).toMatch(/^inputs\[0\]\.properties\.joinedAt /);

    const backwards = failure(OP.attendById, {
      params: { objectId, subscriberState: 'attend' },
      body: attendanceInputs([1001], { joinedAt: '2025-03-10T15:30:00Z', leftAt: '2025-03-10T15:00:00Z' }),
    });
    expect(backwards.message).toMatch(/^inputs\[0\]\.properties\.leftAt /);

    const state = failure(OP.attendById, { params: { objectId, subscriberState: 'maybe' }, body: attendanceInputs([1001]) });
    expect(state.status).toBe(400);
    expect(state.message).toContain("'maybe'");
    expect(state.message).toMatch(/^subscriberState /);
    expect(timelineEvents(ctx.db, 1001)).toHaveLength(0);
  });

  it('records a cancellation', () => {
    call(OP.attendById, { params: { objectId, subscriberState: 'register' }, body: attendanceInputs([1001, 1002]) });
    call(OP.attendById, { params: { objectId, subscriberState: 'cancel' }, body: attendanceInputs([1002]) });
    expect(counters()).toEqual({ registered: 1, attended: 0, cancelled: 1, noShows: 0 });
    const cancelled = call(OP.breakdown, { params: { marketingEventId: objectId }, query: { state: 'CANCELLED' } }).body;
    expect(cancelled.results.map((r: any) => r.associations.contact.contactId)).toEqual(['1002']);
  });

  it('refuses unknown contact ids without recording anything', () => {
    const error = failure(OP.attendById, { params: { objectId, subscriberState: 'register' }, body: attendanceInputs([1001, 4242]) });
    expect(error.status).toBe(404);
    expect(error.message).toContain('4242');
    expect(error.errors).toEqual([{ message: 'inputs[1] names contact 4242, which does not exist', in: 'body', code: 'OBJECT_NOT_FOUND' }]);
    expect(timelineEvents(ctx.db, 1001)).toHaveLength(0);
    expect(counters().registered).toBe(0);
  });

  it('email-create creates missing contacts and leaves existing ones as they are', () => {
    const body = {
      inputs: [
        { email: 'New.Comer@example.com', interactionDateTime: START, contactProperties: { firstname: 'New', lastname: 'Comer' } },
        { email: 'ada.lovelace@example.com', interactionDateTime: START, contactProperties: { firstname: 'Changed' } },
      ],
    };
    const result = call(OP.attendEmailById, { params: { objectId, subscriberState: 'register' }, body }).body;
    expect(result.results).toEqual([
      { vid: 1006, email: 'new.comer@example.com' },
      { vid: 1001, email: 'ada.lovelace@example.com' },
    ]);
    expect(getContact(ctx.db, 1006)?.properties).toEqual({ firstname: 'New', lastname: 'Comer' });
    expect(getContact(ctx.db, 1001)?.properties.firstname).toBe('Ada');
    expect(timelineEvents(ctx.db, 1006)).toHaveLength(1);
    expect(timelineEvents(ctx.db, 1001)).toHaveLength(1);
  });

  it('email-create by external ids creates contacts too, for the creating app only', () => {
    const body = { inputs: [{ email: 'walk.in@example.com', interactionDateTime: START }] };
    const request = external('webinar-1', { params: { subscriberState: 'attend' }, body });
    expect(failure(OP.attendEmailByExternal, { ...request, appId: OTHER_APP }).status).toBe(404);
    expect(findContactByEmail(ctx.db, 'walk.in@example.com')).toBeUndefined();

    const result = call(OP.attendEmailByExternal, request).body;
    const vid = findContactByEmail(ctx.db, 'walk.in@example.com')?.vid;
    expect(result.results).toEqual([{ vid, email: 'walk.in@example.com' }]);
    expect(call(OP.countersByExternal, { params: { externalAccountId: ACCOUNT, externalEventId: 'webinar-1' } }).body.attended).toBe(1);
  });

  it('records by contact id through the external ids', () => {
    const result = call(OP.attendByExternal, external('webinar-1', { params: { subscriberState: 'register' }, body: attendanceInputs([1004]) })).body;
    expect(result.results).toEqual([{ vid: 1004 }]);
    expect(timelineEvents(ctx.db, 1004)).toHaveLength(1);
    expect(failure(OP.attendByExternal, external('webinar-1', { params: { subscriberState: 'register' }, body: attendanceInputs([9]) })).status).toBe(404);
  });

  it('upsert by contact id needs existing contacts', () => {
    const request = (vids: number[]) => external('webinar-1', { params: { subscriberState: 'register' }, body: attendanceInputs(vids) });
    const error = failure(OP.upsertState, request([1001, 5555]));
    expect(error.status).toBe(404);
    expect(error.message).toContain('5555');
    expect(getContact(ctx.db, 5555)).toBeUndefined();
    expect(timelineEvents(ctx.db, 1001)).toHaveLength(0);

    expect(call(OP.upsertState, request([1001, 1002])).status).toBe(204);
    expect(counters().registered).toBe(2);
    expect(timelineEvents(ctx.db, 1001)).toHaveLength(1);
    expect(timelineEvents(ctx.db, 1002)).toHaveLength(1);
  });

  it('email-upsert needs existing contacts and never creates one', () => {
    const request = (email: string) =>
      external('webinar-1', { params: { subscriberState: 'attend' }, body: { inputs: [{ email, interactionDateTime: START }] } });
    const error = failure(OP.emailUpsertState, request('stranger@example.com'));
    expect(error.status).toBe(404);
    expect(error.message).toContain('stranger@example.com');
    expect(findContactByEmail(ctx.db, 'stranger@example.com')).toBeUndefined();

    expect(call(OP.emailUpsertState, request('GRACE.HOPPER@example.com')).status).toBe(204);
    expect(counters().attended).toBe(1);
    expect(timelineEvents(ctx.db, 1002)).toEqual([expect.objectContaining({ state: 'attend' })]);
  });

  it('counts registrants who never attended as no-shows once the event is over', () => {
    call(OP.attendById, { params: { objectId, subscriberState: 'register' }, body: attendanceInputs([1001, 1002]) });
    call(OP.attendById, { params: { objectId, subscriberState: 'attend' }, body: attendanceInputs([1002]) });
    expect(counters()).toEqual({ registered: 1, attended: 1, cancelled: 0, noShows: 0 });

    ctx.clock.set(Date.parse('2025-03-10T17:00:00Z'));
    expect(counters()).toEqual({ registered: 0, attended: 1, cancelled: 0, noShows: 1 });
    expect(call(OP.fetch, { params: { objectId } }).body).toMatchObject({ registrants: 0, attendees: 1, noShows: 1 });
    const noShows = call(OP.breakdown, { params: { marketingEventId: objectId }, query: { state: 'NO_SHOW' } }).body;
    expect(noShows.results.map((r: any) => r.associations.contact.contactId)).toEqual(['1001']);
  });

  it('pages and filters the event breakdown', () => {
    call(OP.attendById, { params: { objectId, subscriberState: 'register' }, body: attendanceInputs([1001, 1002, 1003]) });
    const first = call(OP.breakdown, { params: { marketingEventId: objectId }, query: { limit: '2' } }).body;
    expect(first.total).toBe(3);
    expect(first.results.map((r: any) => r.associations.contact.contactId)).toEqual(['1001', '1002']);
    const second = call(OP.breakdownByExternal, {
      params: { externalAccountId: ACCOUNT, externalEventId: 'webinar-1' },
      query: { limit: '2', after: first.paging.next.after },
    }).body;
    expect(second.results.map((r: any) => r.associations.contact.contactId)).toEqual(['1003']);
    expect(second.paging).toBeUndefined();

    const one = call(OP.breakdown, { params: { marketingEventId: objectId }, query: { contactIdentifier: 'grace.hopper@example.com' } }).body;
    expect(one.results.map((r: any) => r.associations.contact.contactId)).toEqual(['1002']);
    expect(call(OP.breakdown, { params: { marketingEventId: objectId }, query: { contactIdentifier: 'nobody@example.com' } }).body.total).toBe(0);
    expect(failure(OP.breakdown, { params: { marketingEventId: objectId }, query: { state: 'BORED' } }).message).toMatch(/^state /);
  });

  it('breaks down one contact’s participations across events', () => {
    const other = createEvent('webinar-2').objectId;
    call(OP.attendById, { params: { objectId, subscriberState: 'register' }, body: attendanceInputs([1005]) });
    call(OP.attendById, { params: { objectId: other, subscriberState: 'attend' }, body: attendanceInputs([1005]) });

    const all = call(OP.contactBreakdown, { params: { contactIdentifier: 'edsger.dijkstra@example.com' } }).body;
    expect(all.results.map((r: any) => [r.associations.marketingEvent.marketingEventId, r.properties.attendanceState])).toEqual([
      [objectId, 'REGISTERED'],
      [other, 'ATTENDED'],
    ]);
    const attended = call(OP.contactBreakdown, { params: { contactIdentifier: '1005' }, query: { state: 'ATTENDED' } }).body;
    expect(attended.total).toBe(1);
    expect(failure(OP.contactBreakdown, { params: { contactIdentifier: '31337' } }).status).toBe(404);
  });

  it('answers 404 for an unknown event', () => {
    expect(failure(OP.attendById, { params: { objectId: '999', subscriberState: 'register' }, body: attendanceInputs([1001]) }).status).toBe(404);
    expect(failure(OP.counters, { params: { marketingEventId: '999' } }).status).toBe(404);
  });
});

describe('list associations', () => {
  it('associates and disassociates lists by objectId', () => {
    const { objectId } = createEvent('webinar-1');
    expect(call(OP.linkList, { params: { marketingEventId: objectId, listId: '502' } }).status).toBe(204);
    expect(call(OP.linkList, { params: { marketingEventId: objectId, listId: '501' } }).status).toBe(204);
    call(OP.linkList, { params: { marketingEventId: objectId, listId: '501' } });

    const lists = call(OP.lists, { params: { marketingEventId: objectId } }).body;
    expect(lists.total).toBe(2);
    expect(lists.results.map((l: { listId: string; name: string }) => `${l.listId} ${l.name}`)).toEqual([
      '501 Webinar registrants',
      '502 Newsletter subscribers',
    ]);

    expect(call(OP.unlinkList, { params: { marketingEventId: objectId, listId: '501' } }).status).toBe(204);
    expect(call(OP.lists, { params: { marketingEventId: objectId } }).body.results.map((l: { listId: string }) => l.listId)).toEqual(['502']);
  });

  it('associates by external ids for the creating app only', () => {
    const { objectId } = createEvent('webinar-1');
    const params = { externalAccountId: ACCOUNT, externalEventId: 'webinar-1', listId: '503' };
    expect(failure(OP.linkListByExternal, { params, appId: OTHER_APP }).status).toBe(404);
    expect(call(OP.linkListByExternal, { params }).status).toBe(204);
    expect(call(OP.listsByExternal, { params }).body.results[0]).toMatchObject({ listId: '503', name: 'Customers', processingType: 'MANUAL' });
    expect(call(OP.lists, { params: { marketingEventId: objectId } }).body.total).toBe(1);
    expect(call(OP.unlinkListByExternal, { params }).status).toBe(204);
    expect(call(OP.listsByExternal, { params }).body.total).toBe(0);
  });

  it('answers 404 for an unknown list or event', () => {
    const { objectId } = createEvent('webinar-1');
    const error = failure(OP.linkList, { params: { marketingEventId: objectId, listId: '777' } });
    expect(error.status).toBe(404);
    expect(error.message).toContain('List 777');
    expect(failure(OP.linkList, { params: { marketingEventId: '999', listId: '501' } }).status).toBe(404);
  });
});
