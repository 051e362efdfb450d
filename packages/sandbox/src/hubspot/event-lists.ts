import type Database from 'better-sqlite3';
import { notFound, type Handler, type HubspotResponse } from './context.js';
import { getList, publicList } from './crm.js';
import { eventById, type MarketingEvent, ok, ownEvent } from './event-store.js';

/** Contact lists associated with marketing events, named by objectId or by the creating app's external ids. */
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

export const eventListHandlers: Record<string, Handler> = {
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
  'put-/marketing/v3/marketing-events/associations/{externalAccountId}/{externalEventId}/lists/{listId}_associateByExternalAccountAndEventIds': (req, { db }) =>
    associateList(db, ownEvent(req, db, req.params.externalAccountId), req.params.listId),

  // DisassociateMarketingEventList
  'delete-/marketing/v3/marketing-events/associations/{externalAccountId}/{externalEventId}/lists/{listId}_disassociateByExternalAccountAndEventIds': (
    req,
    { db },
  ) => disassociateList(db, ownEvent(req, db, req.params.externalAccountId), req.params.listId),

  // GetMarketingEventAssociatedLists
  'get-/marketing/v3/marketing-events/associations/{externalAccountId}/{externalEventId}/lists_getAllByExternalAccountAndEventIds': (req, { db }) =>
    eventLists(db, ownEvent(req, db, req.params.externalAccountId)),
};
