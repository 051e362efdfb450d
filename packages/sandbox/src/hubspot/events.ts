import type Database from 'better-sqlite3';
import { type Handler, HubspotError, notFound } from './context.js';
import { participationCounts } from './event-attendance.js';
import {
  appInfo,
  batchResult,
  checkOrder,
  defaultView,
  deleteEvent,
  deletionResult,
  eventById,
  type EventChanges,
  type EventInput,
  type EventRow,
  eventStatus,
  findOwnEvent,
  inputsOf,
  insertEvent,
  invalidBody,
  isoDateTime,
  loadEvent,
  type MarketingEvent,
  objectView,
  ok,
  ownEvent,
  publicView,
  type Refusal,
  requiredQuery,
  saveDetails,
  toEvent,
  upsertEvent,
  withChanges,
} from './event-store.js';
import { page } from './paging.js';

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

/**
 * Marketing events themselves: create, read, update, cancel, complete, delete and search, by external ids
 * (the creating app's) or by objectId (any app's). Handlers are keyed by upstream operation label; the
 * catalog tool name is noted above each.
 */

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
    const rows = db.prepare('SELECT * FROM marketing_events WHERE substr(external_event_id, 1, length(?)) = ? ORDER BY object_id').all(q, q) as EventRow[];
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
};
