/**
 * A campaign's budget items and spend items, and the totals computed from them. Both kinds share one
 * shape (name, amount, order, description) and one table; ids are integers, rendered as strings.
 */
import { notFound, type Handler, type HubspotContext } from './context.js';
import { propertiesOf, requireCampaign } from './campaign-store.js';
import { responseEnum } from './table.js';

type Kind = 'budget' | 'spend';

interface ItemRow {
  id: number;
  name: string;
  amount: number;
  item_order: number;
  description: string | null;
  created_at: number;
  updated_at: number;
}

interface ItemInput {
  name: string;
  amount: number;
  order: number;
  description?: string;
}

const render = (row: ItemRow) => ({
  id: String(row.id),
  name: row.name,
  amount: row.amount,
  order: row.item_order,
  ...(row.description !== null && { description: row.description }),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

function itemsOf(ctx: HubspotContext, campaignId: string, kind: Kind): ItemRow[] {
  return ctx.db.prepare('SELECT * FROM campaign_items WHERE campaign_id = ? AND kind = ? ORDER BY item_order, id').all(campaignId, kind) as ItemRow[];
}

/** An item of this kind on this campaign: another campaign's item is not found here. */
function requireItem(ctx: HubspotContext, campaignId: string, kind: Kind, id: string): ItemRow {
  requireCampaign(ctx.db, campaignId);
  const row = ctx.db.prepare('SELECT * FROM campaign_items WHERE id = ? AND campaign_id = ? AND kind = ?').get(Number(id), campaignId, kind) as
    | ItemRow
    | undefined;
  if (!row) throw notFound(`${kind} item ${id} of campaign ${campaignId}`);
  return row;
}

/** Create, read, replace and delete for one kind of item. */
function itemHandlers(kind: Kind, idParam: string, base: string): Record<string, Handler> {
  const one = `${base}/{${idParam}}`;
  return {
    [`post-${base}`]: ({ params, body }, ctx) => {
      requireCampaign(ctx.db, params.campaignGuid!);
      const input = body as ItemInput;
      const now = ctx.clock.now();
      const { lastInsertRowid } = ctx.db
        .prepare(
          'INSERT INTO campaign_items (campaign_id, kind, name, amount, item_order, description, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        )
        .run(params.campaignGuid, kind, input.name, input.amount, input.order, input.description ?? null, now, now);
      return { status: 201, body: render(requireItem(ctx, params.campaignGuid!, kind, String(lastInsertRowid))) };
    },
    [`get-${one}`]: ({ params }, ctx) => ({ status: 200, body: render(requireItem(ctx, params.campaignGuid!, kind, params[idParam]!)) }),
    [`put-${one}`]: ({ params, body }, ctx) => {
      const row = requireItem(ctx, params.campaignGuid!, kind, params[idParam]!);
      const input = body as ItemInput;
      ctx.db
        .prepare('UPDATE campaign_items SET name = ?, amount = ?, item_order = ?, description = ?, updated_at = ? WHERE id = ?')
        .run(input.name, input.amount, input.order, input.description ?? null, ctx.clock.now(), row.id);
      return { status: 200, body: render(requireItem(ctx, params.campaignGuid!, kind, String(row.id))) };
    },
    [`delete-${one}`]: ({ params }, ctx) => {
      const row = requireItem(ctx, params.campaignGuid!, kind, params[idParam]!);
      ctx.db.prepare('DELETE FROM campaign_items WHERE id = ?').run(row.id);
      return { status: 204 };
    },
  };
}

const TOTALS = 'get-/marketing/v3/campaigns/{campaignGuid}/budget/totals';

/** The currency codes HubSpot reports in; a campaign whose hs_currency_code is none of them reports USD. */
const currencyCodes = new Set(responseEnum(TOTALS, 'currencyCode'));

export function currencyOf(properties: Record<string, string>): string {
  const code = properties.hs_currency_code;
  return code && currencyCodes.has(code) ? code : 'USD';
}

const sum = (rows: ItemRow[]) => rows.reduce((total, row) => total + row.amount, 0);

export const campaignBudgetHandlers: Record<string, Handler> = {
  ...itemHandlers('budget', 'budgetId', '/marketing/v3/campaigns/{campaignGuid}/budget'),
  ...itemHandlers('spend', 'spendId', '/marketing/v3/campaigns/{campaignGuid}/spend'),

  [TOTALS]: ({ params }, ctx) => {
    const campaign = requireCampaign(ctx.db, params.campaignGuid!);
    const budgetItems = itemsOf(ctx, campaign.id, 'budget');
    const spendItems = itemsOf(ctx, campaign.id, 'spend');
    return {
      status: 200,
      body: {
        budgetItems: budgetItems.map(render),
        spendItems: spendItems.map(render),
        budgetTotal: sum(budgetItems),
        spendTotal: sum(spendItems),
        remainingBudget: sum(budgetItems) - sum(spendItems),
        currencyCode: currencyOf(propertiesOf(campaign)),
      },
    };
  },
};
