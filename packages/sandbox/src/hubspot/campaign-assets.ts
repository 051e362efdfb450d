/**
 * Assets associated with a campaign: forms, (static) object lists and external web pages. Forms and
 * lists must exist to be associated; a form asset reports its submissions inside the date window.
 */
import { badRequest, notFound, type Handler, type HubspotContext } from './context.js';
import { requireCampaign } from './campaign-store.js';
import { getList } from './crm.js';
import { findForm, formName, submissionsTo } from './forms.js';
import { page } from './paging.js';
import { dateWindow } from './query.js';

const ASSET_TYPES = ['FORM', 'OBJECT_LIST', 'EXTERNAL_WEB_URL'];

type Window = { from: number; to: number };

export interface Asset {
  id: string;
  name?: string;
  metrics: Record<string, number>;
}

function requireAssetType(type: string): void {
  if (!ASSET_TYPES.includes(type)) {
    throw badRequest(`assetType must be one of ${ASSET_TYPES.join(', ')}`, [
      { message: `unsupported asset type '${type}'`, in: 'path', code: 'INVALID_VALUE' },
    ]);
  }
}

function describeAsset(ctx: HubspotContext, type: string, id: string, window: Window): Asset {
  if (type === 'FORM') {
    const form = findForm(ctx, id);
    const submissions = submissionsTo(ctx, [id]).filter((s) => s.submittedAt >= window.from && s.submittedAt <= window.to);
    return { id, ...(form && { name: formName(form) }), metrics: { SUBMISSIONS: submissions.length } };
  }
  if (type === 'OBJECT_LIST') {
    const list = getList(ctx.db, id);
    return { id, ...(list && { name: list.name }), metrics: {} };
  }
  return { id, metrics: {} };
}

export function assetIds(ctx: HubspotContext, campaignId: string, type: string): string[] {
  const rows = ctx.db
    .prepare('SELECT asset_id FROM campaign_assets WHERE campaign_id = ? AND asset_type = ? ORDER BY associated_at, rowid')
    .all(campaignId, type) as Array<{ asset_id: string }>;
  return rows.map((row) => row.asset_id);
}

/** The `assets` of a campaign record: each associated type with its assets. */
export function assetsByType(ctx: HubspotContext, campaignId: string, window: Window): Record<string, { results: Asset[] }> {
  const assets: Record<string, { results: Asset[] }> = {};
  for (const type of ASSET_TYPES) {
    const ids = assetIds(ctx, campaignId, type);
    if (ids.length) assets[type] = { results: ids.map((id) => describeAsset(ctx, type, id, window)) };
  }
  return assets;
}

const OP = {
  associate: 'put-/marketing/v3/campaigns/{campaignGuid}/assets/{assetType}/{assetId}',
  disassociate: 'delete-/marketing/v3/campaigns/{campaignGuid}/assets/{assetType}/{assetId}',
  list: 'get-/marketing/v3/campaigns/{campaignGuid}/assets/{assetType}',
};

export const campaignAssetHandlers: Record<string, Handler> = {
  [OP.associate]: ({ params }, ctx) => {
    const [campaignGuid, assetType, assetId] = [params.campaignGuid!, params.assetType!, params.assetId!];
    requireCampaign(ctx.db, campaignGuid);
    requireAssetType(assetType);
    const form = assetType === 'FORM' ? findForm(ctx, assetId) : undefined;
    if (assetType === 'FORM' && (!form || form.archived_at !== null)) throw notFound(`form ${assetId}`);
    if (assetType === 'OBJECT_LIST' && !getList(ctx.db, assetId)) throw notFound(`list ${assetId}`);
    ctx.db
      .prepare('INSERT OR IGNORE INTO campaign_assets (campaign_id, asset_type, asset_id, associated_at) VALUES (?, ?, ?, ?)')
      .run(campaignGuid, assetType, assetId, ctx.clock.now());
    return { status: 204 };
  },

  [OP.disassociate]: ({ params }, ctx) => {
    const [campaignGuid, assetType, assetId] = [params.campaignGuid!, params.assetType!, params.assetId!];
    requireCampaign(ctx.db, campaignGuid);
    requireAssetType(assetType);
    const removed = ctx.db
      .prepare('DELETE FROM campaign_assets WHERE campaign_id = ? AND asset_type = ? AND asset_id = ?')
      .run(campaignGuid, assetType, assetId).changes;
    if (!removed) throw notFound(`${assetType} asset ${assetId} of campaign ${campaignGuid}`);
    return { status: 204 };
  },

  [OP.list]: ({ params, query }, ctx) => {
    const [campaignGuid, assetType] = [params.campaignGuid!, params.assetType!];
    requireCampaign(ctx.db, campaignGuid);
    requireAssetType(assetType);
    const window = dateWindow(query);
    const assets = assetIds(ctx, campaignGuid, assetType).map((id) => describeAsset(ctx, assetType, id, window));
    return { status: 200, body: page(assets, query, 20) };
  },
};
