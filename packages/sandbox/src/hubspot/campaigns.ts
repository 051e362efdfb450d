/**
 * Marketing campaigns: single and batch create, read, update and delete. A campaign is an id and a
 * bag of string properties; `hs_name` is required, and an empty string in an update resets a property.
 */
import { randomUUID } from 'node:crypto';
import { badRequest, notFound, type Handler, type HubspotContext, type HubspotRequest } from './context.js';
import { assetsByType } from './campaign-assets.js';
import { deleteCampaign, findCampaign, propertiesOf, requireCampaign, type CampaignRow } from './campaign-store.js';
import { page } from './paging.js';
import { dateWindow, text, texts } from './query.js';
import { iso } from './time.js';

/** Spec part 8: campaigns per batch. */
const BATCH_LIMIT = 50;
const SORTABLE = ['hs_name', 'createdAt', 'updatedAt'];

type Properties = Record<string, string>;

/** HubSpot's batch body: `{ inputs: [...] }`. */
type Batch<Input> = { inputs: Input[] };

function render(row: CampaignRow, selected?: string[]) {
  const properties = propertiesOf(row);
  return {
    id: row.id,
    properties: selected ? Object.fromEntries(selected.filter((name) => name in properties).map((name) => [name, properties[name]!])) : properties,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    // Every portal has the default business unit 0.
    businessUnits: [{ id: 0 }],
  };
}

function renderWithAssets(ctx: HubspotContext, row: CampaignRow, query: HubspotRequest['query']) {
  return { ...render(row, texts(query, 'properties')), assets: assetsByType(ctx, row.id, dateWindow(query)) };
}

function create(ctx: HubspotContext, properties: Properties, field: string): CampaignRow {
  const kept = Object.fromEntries(Object.entries(properties).filter(([, value]) => value !== ''));
  if (!kept.hs_name) throw badRequest(`${field}.hs_name is required`, [{ message: `${field}.hs_name is required`, in: 'body', code: 'REQUIRED' }]);
  const id = randomUUID();
  const now = ctx.clock.now();
  ctx.db.prepare('INSERT INTO campaigns (id, properties, created_at, updated_at) VALUES (?, ?, ?, ?)').run(id, JSON.stringify(kept), now, now);
  return findCampaign(ctx.db, id)!;
}

/** Merges property changes; an empty string removes the property. */
function update(ctx: HubspotContext, row: CampaignRow, changes: Properties, field: string): CampaignRow {
  const properties = propertiesOf(row);
  for (const [name, value] of Object.entries(changes)) {
    if (value === '') delete properties[name];
    else properties[name] = value;
  }
  if (!properties.hs_name)
    throw badRequest(`${field}.hs_name cannot be reset`, [{ message: `${field}.hs_name cannot be reset`, in: 'body', code: 'INVALID_VALUE' }]);
  ctx.db.prepare('UPDATE campaigns SET properties = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(properties), ctx.clock.now(), row.id);
  return findCampaign(ctx.db, row.id)!;
}

function checkBatchSize(inputs: unknown[]): void {
  if (inputs.length > BATCH_LIMIT) {
    const message = `inputs may hold at most ${BATCH_LIMIT} campaigns per batch; got ${inputs.length}`;
    throw badRequest(message, [{ message, in: 'body', code: 'TOO_MANY_INPUTS' }]);
  }
}

function batchResult(ctx: HubspotContext, results: unknown[]) {
  const now = iso(ctx.clock.now());
  return { status: 'COMPLETE', results, requestedAt: now, startedAt: now, completedAt: now };
}

function sortRows(rows: CampaignRow[], sort: string | undefined): CampaignRow[] {
  if (sort === undefined) return rows;
  const descending = sort.startsWith('-');
  const key = descending ? sort.slice(1) : sort;
  if (!SORTABLE.includes(key)) {
    throw badRequest(`sort must be one of ${SORTABLE.join(', ')}, optionally prefixed with '-'`, [
      { message: `cannot sort by '${key}'`, in: 'query', code: 'INVALID_VALUE' },
    ]);
  }
  const value = (row: CampaignRow): string | number =>
    key === 'createdAt' ? row.created_at : key === 'updatedAt' ? row.updated_at : (propertiesOf(row).hs_name ?? '').toLowerCase();
  // Array.prototype.sort is stable, so ties keep creation order.
  return [...rows].sort((a, b) => {
    const order = value(a) < value(b) ? -1 : value(a) > value(b) ? 1 : 0;
    return descending ? -order : order;
  });
}

const allCampaigns = (ctx: HubspotContext): CampaignRow[] =>
  ctx.db.prepare('SELECT id, properties, created_at, updated_at FROM campaigns ORDER BY seq').all() as CampaignRow[];

const OP = {
  create: 'post-/marketing/v3/campaigns/',
  list: 'get-/marketing/v3/campaigns/',
  get: 'get-/marketing/v3/campaigns/{campaignGuid}',
  update: 'patch-/marketing/v3/campaigns/{campaignGuid}',
  delete: 'delete-/marketing/v3/campaigns/{campaignGuid}',
  batchCreate: 'post-/marketing/v3/campaigns/batch/create',
  batchRead: 'post-/marketing/v3/campaigns/batch/read',
  batchUpdate: 'post-/marketing/v3/campaigns/batch/update',
  batchArchive: 'post-/marketing/v3/campaigns/batch/archive',
};

export const campaignHandlers: Record<string, Handler> = {
  [OP.create]: ({ body }: HubspotRequest<{ properties: Properties }>, ctx) => ({ status: 201, body: render(create(ctx, body.properties, 'properties')) }),

  [OP.list]: ({ query }, ctx) => {
    const name = text(query, 'name')?.toLowerCase();
    const matching = allCampaigns(ctx).filter((row) => name === undefined || (propertiesOf(row).hs_name ?? '').toLowerCase().includes(name));
    const selected = texts(query, 'properties');
    const { results, paging } = page(sortRows(matching, text(query, 'sort')), query, 50);
    return { status: 200, body: { total: matching.length, results: results.map((row) => render(row, selected)), ...(paging && { paging }) } };
  },

  [OP.get]: ({ params, query }, ctx) => ({ status: 200, body: renderWithAssets(ctx, requireCampaign(ctx.db, params.campaignGuid!), query) }),

  [OP.update]: ({ params, body }: HubspotRequest<{ properties: Properties }>, ctx) => ({
    status: 200,
    body: render(update(ctx, requireCampaign(ctx.db, params.campaignGuid!), body.properties, 'properties')),
  }),

  // Spec part 7: 204 whether or not the campaign existed.
  [OP.delete]: ({ params }, ctx) => {
    deleteCampaign(ctx.db, params.campaignGuid!);
    return { status: 204 };
  },

  [OP.batchCreate]: ({ body }: HubspotRequest<Batch<{ properties: Properties }>>, ctx) => {
    const { inputs } = body;
    checkBatchSize(inputs);
    const created = inputs.map((input, i) => render(create(ctx, input.properties, `inputs[${i}].properties`)));
    return { status: 201, body: batchResult(ctx, created) };
  },

  // Ids that name no campaign are left out of the results, as HubSpot's batch reads do.
  [OP.batchRead]: ({ body, query }: HubspotRequest<Batch<{ id: string }>>, ctx) => {
    const { inputs } = body;
    checkBatchSize(inputs);
    const rows = [...new Set(inputs.map((input) => input.id))].map((id) => findCampaign(ctx.db, id)).filter((row) => row !== undefined);
    return {
      status: 200,
      body: batchResult(
        ctx,
        rows.map((row) => renderWithAssets(ctx, row, query)),
      ),
    };
  },

  // All or nothing: one unknown id fails the batch before anything changes.
  [OP.batchUpdate]: ({ body }: HubspotRequest<Batch<{ id: string; properties: Properties }>>, ctx) => {
    const { inputs } = body;
    checkBatchSize(inputs);
    const missing = inputs.filter((input) => !findCampaign(ctx.db, input.id)).map((input) => input.id);
    if (missing.length) throw notFound(`campaigns ${missing.join(', ')}`);
    const updated = inputs.map((input, i) => render(update(ctx, findCampaign(ctx.db, input.id)!, input.properties, `inputs[${i}].properties`)));
    return { status: 200, body: batchResult(ctx, updated) };
  },

  // Spec part 7: the answer says the request was processed, not which deletions happened.
  [OP.batchArchive]: ({ body }: HubspotRequest<Batch<{ id: string }>>, ctx) => {
    const { inputs } = body;
    checkBatchSize(inputs);
    for (const input of inputs) deleteCampaign(ctx.db, input.id);
    return { status: 204 };
  },
};
