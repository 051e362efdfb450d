/**
 * End-to-end tests of every CrmMarketingApi tool: input validation, request building, HTTP and the
 * response, against the HubSpot emulator (which refuses any request that does not match its operation).
 * Each tool is called at least once with its answer or its effect asserted; the last test checks that
 * all 90 catalog tools were called successfully.
 */
import { createClock, formDefinition, startHubspotEmulator, type HubspotEmulator } from '@quiver/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMonths, AppClient, catalog, customProperty, eventInput, unique } from './crm-marketing.helpers.js';

const covered = new Set<string>();
let emulator: HubspotEmulator;
/** The calling app. */
let app: AppClient;
/** A second app (another token), for "only events created by the calling app". */
let otherApp: AppClient;

beforeAll(async () => {
  emulator = await startHubspotEmulator({ clock: createClock(Date.UTC(2025, 0, 15, 9)) });
  app = new AppClient(emulator, 'app-one-token', covered);
  otherApp = new AppClient(emulator, 'app-two-token', covered);
});

afterAll(async () => {
  await emulator?.close();
});

/** Runs `work` and asserts that the emulator received no request meanwhile. */
async function expectNothingSent<T>(work: () => Promise<T>): Promise<T> {
  const before = emulator.requests.length;
  const result = await work();
  expect(emulator.requests.length, 'requests the emulator received').toBe(before);
  return result;
}

// ------------------------------------------------------------------------------------------------
// Shared setup steps, each through the tools.

async function createCampaign(properties: Record<string, string> = {}): Promise<any> {
  return app.execute('CreateMarketingCampaign', {}, { properties: { hs_name: unique('Campaign'), ...properties } });
}

async function createForm(name = unique('Form')): Promise<any> {
  return app.execute('CreateMarketingForm', {}, formDefinition(name));
}

async function createEmail(fields: Record<string, unknown> = {}): Promise<any> {
  return app.execute('CreateMarketingEmail', {}, { name: unique('Email'), subject: 'Version A', language: 'en', ...fields });
}

const ACCOUNT = 'quiver-account';

/** An event of the calling app (or of `client`), from one hour to two hours after the emulator's now. */
async function createEvent(client: AppClient = app, extra: Record<string, unknown> = {}): Promise<any> {
  const start = emulator.clock.now() + 3_600_000;
  const body = eventInput(ACCOUNT, unique('ev'), {
    startDateTime: new Date(start).toISOString(),
    endDateTime: new Date(start + 3_600_000).toISOString(),
    ...extra,
  });
  const created = await client.execute('CreateMarketingEvent', {}, body);
  // The answer carries the object id but not the external ids; keep them beside it.
  return { ...created, externalAccountId: body.externalAccountId, externalEventId: body.externalEventId };
}

/** The marketing-event entries on contacts' timelines; no tool reads them, so this looks in the emulator's state. */
function timelineOf(eventObjectId: string): Array<{ contact_vid: number; state: string; properties: string }> {
  return emulator.db
    .prepare('SELECT contact_vid, state, properties FROM contact_timeline_events WHERE event_id = ? ORDER BY id')
    .all(Number(eventObjectId)) as Array<{ contact_vid: number; state: string; properties: string }>;
}

// ------------------------------------------------------------------------------------------------

describe('campaigns', () => {
  it('creates a campaign and reads it back', async () => {
    const name = unique('Spring launch');
    const created = await app.execute('CreateMarketingCampaign', {}, { properties: { hs_name: name, hs_notes: 'first notes', hs_start_date: '2025-03-01' } });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.properties).toEqual({ hs_name: name, hs_notes: 'first notes', hs_start_date: '2025-03-01' });

    const read = await app.call('GetCampaignDetails', { campaign_guid: created.id });
    expect(read.id).toBe(created.id);
    expect(read.properties).toEqual(created.properties);
    expect(read.assets).toEqual({});

    const selected = await app.call('GetCampaignDetails', {
      campaign_guid: created.id,
      properties_list: ['hs_name'],
      metrics_start_date: '2025-01-01',
      end_date_for_asset_metrics: '2025-12-31',
    });
    expect(selected.properties).toEqual({ hs_name: name });
  });

  it('lists campaigns filtered by name, sorted, with selected properties and paging', async () => {
    const prefix = unique('Listing');
    for (const suffix of ['charlie', 'Alpha', 'bravo']) await createCampaign({ hs_name: `${prefix} ${suffix}`, hs_notes: 'n' });

    const first = await app.call('GetMarketingCampaigns', {
      campaign_name_filter: prefix,
      sort_by: 'hs_name',
      max_results_limit: 2,
      requested_properties: ['hs_name'],
    });
    expect(first.total).toBe(3);
    expect(first.results.map((c: any) => c.properties)).toEqual([{ hs_name: `${prefix} Alpha` }, { hs_name: `${prefix} bravo` }]);
    expect(first.paging.next.after).toBeTruthy();

    const rest = await app.call('GetMarketingCampaigns', {
      campaign_name_filter: prefix,
      sort_by: 'hs_name',
      max_results_limit: 2,
      pagination_cursor: first.paging.next.after,
    });
    expect(rest.results.map((c: any) => c.properties.hs_name)).toEqual([`${prefix} charlie`]);
    expect(rest.paging).toBeUndefined();

    const descending = await app.call('GetMarketingCampaigns', { campaign_name_filter: prefix, sort_by: '-hs_name' });
    expect(descending.results.map((c: any) => c.properties.hs_name)).toEqual([`${prefix} charlie`, `${prefix} bravo`, `${prefix} Alpha`]);
  });

  it('updates properties; an empty string resets one', async () => {
    const campaign = await createCampaign({ hs_notes: 'to be removed', hs_audience: 'developers' });
    const updated = await app.execute('UpdateCampaignProperties', { campaign_uuid: campaign.id }, { properties: { hs_notes: '', hs_audience: 'marketers' } });
    expect(updated.properties).toEqual({ hs_name: campaign.properties.hs_name, hs_audience: 'marketers' });

    const read = await app.call('GetCampaignDetails', { campaign_guid: campaign.id });
    expect(read.properties).toEqual({ hs_name: campaign.properties.hs_name, hs_audience: 'marketers' });
  });

  it('creates, reads and updates campaigns in batches', async () => {
    const prefix = unique('Batch');
    const created = await app.execute(
      'CreateMarketingCampaignBatch',
      {},
      {
        inputs: ['one', 'two', 'three'].map((n) => ({ properties: { hs_name: `${prefix} ${n}`, hs_notes: n } })),
      },
    );
    expect(created.status).toBe('COMPLETE');
    // The response order may differ from the request's (spec 4.2), so compare as sets.
    expect(created.results.map((c: any) => c.properties.hs_name).sort()).toEqual([`${prefix} one`, `${prefix} three`, `${prefix} two`]);
    const ids: string[] = created.results.map((c: any) => c.id);

    const read = await app.execute(
      'FetchMarketingCampaignBatches',
      { fetch_start_date: '2025-01-01', end_date_for_asset_metrics: '2025-12-31', requested_properties: ['hs_notes'] },
      { inputs: [...ids, '00000000-0000-0000-0000-000000000000'].map((id) => ({ id })) },
    );
    expect(read.results.map((c: any) => c.id).sort()).toEqual([...ids].sort());
    expect(read.results.map((c: any) => c.properties.hs_notes).sort()).toEqual(['one', 'three', 'two']);
    expect(read.results.every((c: any) => Object.keys(c.properties).join() === 'hs_notes')).toBe(true);

    const updated = await app.execute(
      'UpdateCampaignBatch',
      {},
      {
        inputs: [
          { id: ids[0], properties: { hs_notes: 'changed' } },
          { id: ids[1], properties: { hs_notes: '' } },
        ],
      },
    );
    expect(updated.results).toHaveLength(2);
    expect((await app.call('GetCampaignDetails', { campaign_guid: ids[0] })).properties.hs_notes).toBe('changed');
    expect((await app.call('GetCampaignDetails', { campaign_guid: ids[1] })).properties).not.toHaveProperty('hs_notes');
    expect((await app.call('GetCampaignDetails', { campaign_guid: ids[2] })).properties.hs_notes).toBe('three');
  });

  it('state: DeleteMarketingCampaign answers 204 whether or not the campaign existed', async () => {
    const campaign = await createCampaign();
    expect(await app.call('DeleteMarketingCampaign', { campaign_guid: campaign.id })).toEqual({ success: true, status: 204 });
    const gone = await app.fail('GetCampaignDetails', { campaign_guid: campaign.id });
    expect(gone.kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');

    // Again, now that it does not exist, and for an id that never existed.
    expect(await app.call('DeleteMarketingCampaign', { campaign_guid: campaign.id })).toEqual({ success: true, status: 204 });
    expect(await app.call('DeleteMarketingCampaign', { campaign_guid: '11111111-2222-3333-4444-555555555555' })).toEqual({ success: true, status: 204 });
  });

  it('state: ArchiveCampaignsBatch says only that the request was processed, and removes the campaigns', async () => {
    const keep = await createCampaign();
    const a = await createCampaign();
    const b = await createCampaign();
    const answer = await app.execute('ArchiveCampaignsBatch', {}, { inputs: [{ id: a.id }, { id: b.id }, { id: '99999999-9999-9999-9999-999999999999' }] });
    // Processed: no per-campaign outcome, even though one id named no campaign.
    expect(answer).toEqual({ success: true, status: 204 });
    for (const id of [a.id, b.id]) expect((await app.fail('GetCampaignDetails', { campaign_guid: id })).kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');
    expect((await app.call('GetCampaignDetails', { campaign_guid: keep.id })).id).toBe(keep.id);
  });
});

describe('limits: 50 campaigns per batch', () => {
  const batchTools = ['CreateMarketingCampaignBatch', 'UpdateCampaignBatch', 'ArchiveCampaignsBatch'];

  it('the batch tools document the limit but leave it to the upstream (no maxItems in their schemas)', () => {
    for (const name of batchTools) {
      const schema = catalog.tools.find((tool) => tool.name === name)!.requestBody!.schema as any;
      expect(schema.properties.inputs.maxItems, name).toBeUndefined();
      expect(schema.properties.inputs.description, name).toMatch(/at most 50/);
    }
  });

  it('accepts 50 campaigns in each batch tool and refuses 51', async () => {
    const prefix = unique('Fifty');
    const created = await app.execute(
      'CreateMarketingCampaignBatch',
      {},
      {
        inputs: Array.from({ length: 50 }, (_, i) => ({ properties: { hs_name: `${prefix} ${i}` } })),
      },
    );
    expect(created.results).toHaveLength(50);
    const ids: string[] = created.results.map((c: any) => c.id);

    // 51 to create: refused by the emulator, and nothing is created.
    const before = emulator.requests.length;
    const tooMany = await app.failExecute(
      'CreateMarketingCampaignBatch',
      {},
      {
        inputs: Array.from({ length: 51 }, (_, i) => ({ properties: { hs_name: `${prefix} extra ${i}` } })),
      },
    );
    expect(emulator.requests.length).toBe(before + 1);
    expect(tooMany.kind).toBe('UPSTREAM_RUNTIME_BAD_REQUEST');
    expect(tooMany.message).toMatch(/at most 50 campaigns per batch/);
    expect((await app.call('GetMarketingCampaigns', { campaign_name_filter: `${prefix} extra` })).total).toBe(0);

    const updated = await app.execute('UpdateCampaignBatch', {}, { inputs: ids.map((id) => ({ id, properties: { hs_notes: 'fifty' } })) });
    expect(updated.results).toHaveLength(50);
    const tooManyUpdates = await app.failExecute(
      'UpdateCampaignBatch',
      {},
      {
        inputs: [...ids, ids[0]].map((id) => ({ id, properties: { hs_notes: 'fifty-one' } })),
      },
    );
    expect(tooManyUpdates.kind).toBe('UPSTREAM_RUNTIME_BAD_REQUEST');
    expect(tooManyUpdates.message).toMatch(/at most 50 campaigns per batch/);
    expect((await app.call('GetCampaignDetails', { campaign_guid: ids[0] })).properties.hs_notes).toBe('fifty');

    const tooManyDeletes = await app.failExecute('ArchiveCampaignsBatch', {}, { inputs: [...ids, ids[0]].map((id) => ({ id })) });
    expect(tooManyDeletes.kind).toBe('UPSTREAM_RUNTIME_BAD_REQUEST');
    expect(tooManyDeletes.message).toMatch(/at most 50 campaigns per batch/);
    expect((await app.call('GetMarketingCampaigns', { campaign_name_filter: prefix })).total).toBe(50);

    expect(await app.execute('ArchiveCampaignsBatch', {}, { inputs: ids.map((id) => ({ id })) })).toEqual({ success: true, status: 204 });
    expect((await app.call('GetMarketingCampaigns', { campaign_name_filter: prefix })).total).toBe(0);
  });
});

describe('campaign budget and spend', () => {
  it('adds, reads, updates and totals budget and spend items', async () => {
    const campaign = await createCampaign({ hs_currency_code: 'EUR' });
    const budget = await app.call('AddCampaignBudgetItem', {
      campaign_id: campaign.id,
      budget_item_name: 'Ads',
      budget_amount: 1000.5,
      budget_item_order: 1,
      budget_item_description: 'Paid social',
    });
    expect(budget).toMatchObject({ name: 'Ads', amount: 1000.5, order: 1, description: 'Paid social' });
    const budgetId = Number(budget.id);
    expect(Number.isInteger(budgetId)).toBe(true);

    expect(await app.call('GetCampaignBudget', { campaign_guid: campaign.id, budget_item_id: budgetId })).toMatchObject({
      id: budget.id,
      name: 'Ads',
      amount: 1000.5,
    });

    const updatedBudget = await app.call('UpdateCampaignBudget', {
      campaign_guid: campaign.id,
      budget_id: budgetId,
      budget_item_name: 'Ads (revised)',
      budget_amount: 1200,
      priority_order: 2,
      budget_item_description: 'Paid social and search',
    });
    expect(updatedBudget).toMatchObject({ id: budget.id, name: 'Ads (revised)', amount: 1200, order: 2, description: 'Paid social and search' });

    const spend = await app.call('CreateCampaignSpend', {
      campaign_id: campaign.id,
      spend_item_name: 'March ads',
      spend_amount: 300,
      spend_item_order: 1,
      spend_description: 'First month',
    });
    expect(spend).toMatchObject({ name: 'March ads', amount: 300, order: 1, description: 'First month' });
    const spendId = Number(spend.id);
    expect(await app.call('GetCampaignSpendItem', { campaign_guid: campaign.id, spend_item_identifier: spendId })).toMatchObject({ id: spend.id, amount: 300 });

    const updatedSpend = await app.call('UpdateCampaignSpend', {
      campaign_guid: campaign.id,
      spend_identifier: spendId,
      spend_item_name: 'March ads',
      spend_amount: 450.25,
      spend_order: 3,
      spend_item_description: 'Corrected',
    });
    expect(updatedSpend).toMatchObject({ id: spend.id, amount: 450.25, order: 3, description: 'Corrected' });

    const totals = await app.call('GetCampaignBudgetDetails', { campaign_unique_identifier: campaign.id });
    expect(totals).toMatchObject({ budgetTotal: 1200, spendTotal: 450.25, remainingBudget: 749.75, currencyCode: 'EUR' });
    expect(totals.budgetItems.map((item: any) => item.id)).toEqual([budget.id]);
    expect(totals.spendItems.map((item: any) => item.id)).toEqual([spend.id]);
  });

  it('state: DeleteCampaignBudgetItem and RemoveCampaignSpendItem remove the items', async () => {
    const campaign = await createCampaign();
    const keep = await app.call('AddCampaignBudgetItem', { campaign_id: campaign.id, budget_item_name: 'Keep', budget_amount: 10, budget_item_order: 1 });
    const drop = await app.call('AddCampaignBudgetItem', { campaign_id: campaign.id, budget_item_name: 'Drop', budget_amount: 20, budget_item_order: 2 });
    const spend = await app.call('CreateCampaignSpend', { campaign_id: campaign.id, spend_item_name: 'Spent', spend_amount: 5, spend_item_order: 1 });

    expect(await app.call('DeleteCampaignBudgetItem', { campaign_guid: campaign.id, budget_item_id: Number(drop.id) })).toEqual({ success: true, status: 204 });
    expect((await app.fail('GetCampaignBudget', { campaign_guid: campaign.id, budget_item_id: Number(drop.id) })).kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');

    expect(await app.call('RemoveCampaignSpendItem', { campaign_identifier: campaign.id, spend_item_id: Number(spend.id) })).toEqual({
      success: true,
      status: 204,
    });
    expect((await app.fail('GetCampaignSpendItem', { campaign_guid: campaign.id, spend_item_identifier: Number(spend.id) })).kind).toBe(
      'UPSTREAM_RUNTIME_NOT_FOUND',
    );

    const totals = await app.call('GetCampaignBudgetDetails', { campaign_unique_identifier: campaign.id });
    expect(totals.budgetItems.map((item: any) => item.id)).toEqual([keep.id]);
    expect(totals.spendItems).toEqual([]);
    expect(totals).toMatchObject({ budgetTotal: 10, spendTotal: 0, remainingBudget: 10 });

    // Removing again: the item no longer exists.
    expect((await app.fail('DeleteCampaignBudgetItem', { campaign_guid: campaign.id, budget_item_id: Number(drop.id) })).kind).toBe(
      'UPSTREAM_RUNTIME_NOT_FOUND',
    );
  });
});

describe('campaign assets and reports', () => {
  it('associates, lists and disassociates forms, lists and web pages', async () => {
    const campaign = await createCampaign();
    const form = await createForm();
    const associate = (asset_type: string, asset_id: string) =>
      app.call('AssociateAssetWithCampaign', { campaign_unique_identifier: campaign.id, asset_type, asset_id });

    expect(await associate('FORM', form.id)).toEqual({ success: true, status: 204 });
    expect(await associate('OBJECT_LIST', '501')).toEqual({ success: true, status: 204 });
    expect(await associate('EXTERNAL_WEB_URL', 'pricing-page')).toEqual({ success: true, status: 204 });

    const lists = await app.call('ListCampaignAssets', {
      campaign_identifier: campaign.id,
      asset_type: 'OBJECT_LIST',
      maximum_results_limit: '10',
      metrics_start_date: '2025-01-01',
      end_date_for_asset_metrics: '2025-12-31',
    });
    expect(lists.results).toEqual([{ id: '501', name: 'Webinar registrants', metrics: {} }]);
    const forms = await app.call('ListCampaignAssets', { campaign_identifier: campaign.id, asset_type: 'FORM' });
    expect(forms.results).toEqual([{ id: form.id, name: form.name, metrics: { SUBMISSIONS: 0 } }]);

    const details = await app.call('GetCampaignDetails', { campaign_guid: campaign.id });
    expect(Object.keys(details.assets).sort()).toEqual(['EXTERNAL_WEB_URL', 'FORM', 'OBJECT_LIST']);

    expect(await app.call('DisassociateCampaignAsset', { campaign_unique_identifier: campaign.id, asset_type: 'OBJECT_LIST', asset_id: '501' })).toEqual({
      success: true,
      status: 204,
    });
    expect((await app.call('ListCampaignAssets', { campaign_identifier: campaign.id, asset_type: 'OBJECT_LIST' })).results).toEqual([]);
    const pages = await app.call('ListCampaignAssets', { campaign_identifier: campaign.id, asset_type: 'EXTERNAL_WEB_URL', pagination_cursor: '0' });
    expect(pages.results.map((asset: any) => asset.id)).toEqual(['pricing-page']);
  });

  it('reports the contacts, metrics and revenue from submissions to the campaign’s forms', async () => {
    const campaign = await createCampaign({ hs_currency_code: 'EUR' });
    const form = await createForm();
    await app.call('AssociateAssetWithCampaign', { campaign_unique_identifier: campaign.id, asset_type: 'FORM', asset_id: form.id });
    // Submissions arrive on another HubSpot API; the emulator takes them directly.
    const submission = emulator.submitForm(form.id, { email: `${unique('visitor')}@example.com`, firstname: 'Vera' });
    const vid = String(submission.contactVid);

    const window = { start_date: '2025-01-01', report_end_date: '2030-12-31' };
    for (const contact_type_filter of ['influencedContacts', 'contactFirstTouch', 'contactLastTouch']) {
      const ids = await app.call('FetchCampaignContactIds', { campaign_identifier: campaign.id, contact_type_filter, contact_fetch_limit: 10, ...window });
      expect(ids.results, contact_type_filter).toEqual([{ id: vid }]);
    }
    const outside = await app.call('FetchCampaignContactIds', {
      campaign_identifier: campaign.id,
      contact_type_filter: 'influencedContacts',
      start_date: '2024-01-01',
      report_end_date: '2024-12-31',
    });
    expect(outside.results).toEqual([]);

    expect(
      await app.call('GetCampaignAttributionMetrics', {
        campaign_unique_identifier: campaign.id,
        start_date_for_report: '2025-01-01',
        report_end_date: '2030-12-31',
      }),
    ).toEqual({
      sessions: 0,
      influencedContacts: 1,
      newContactsFirstTouch: 1,
      newContactsLastTouch: 1,
    });

    expect(
      await app.call('GetCampaignRevenueReport', {
        campaign_unique_identifier: campaign.id,
        attribution_model: 'LINEAR',
        report_start_date: '2025-01-01',
        report_end_date: '2030-12-31',
      }),
    ).toMatchObject({ contactsNumber: 1, dealsNumber: 0, currencyCode: 'EUR' });

    const assets = await app.call('ListCampaignAssets', { campaign_identifier: campaign.id, asset_type: 'FORM' });
    expect(assets.results[0].metrics).toEqual({ SUBMISSIONS: 1 });
  });
});

describe('forms', () => {
  it('creates a form and reads it by id and in the list', async () => {
    const name = unique('Contact us');
    const form = await app.execute('CreateMarketingForm', {}, formDefinition(name));
    expect(form).toMatchObject({ name, archived: false, formType: 'hubspot' });
    expect(form.id).toBeTruthy();

    const read = await app.call('GetFormById', { form_id: form.id });
    expect(read).toMatchObject({ id: form.id, name, archived: false });
    expect(read.fieldGroups[0].fields.map((field: any) => field.name)).toEqual(['email', 'firstname']);

    const all: string[] = [];
    let after: string | undefined;
    do {
      const page = await app.call('ListCrmForms', { included_form_types: ['hubspot'], results_per_page: 2, ...(after && { paging_cursor_token: after }) });
      expect(page.results.length).toBeLessThanOrEqual(2);
      all.push(...page.results.map((f: any) => f.id));
      after = page.paging?.next.after;
    } while (after);
    expect(all).toContain(form.id);
  });

  it('replaces a form (PUT) and merges changes into it (PATCH)', async () => {
    const form = await createForm();
    const replaced = await app.execute('UpdateCrmForm', { crm_form_id: form.id }, { ...formDefinition('Replaced name'), id: form.id });
    expect(replaced).toMatchObject({ id: form.id, name: 'Replaced name' });

    const patched = await app.execute('UpdateCrmMarketingForm', { form_id: form.id }, { name: 'Patched name' });
    expect(patched).toMatchObject({ id: form.id, name: 'Patched name' });
    // PATCH keeps what it does not mention.
    expect(patched.fieldGroups[0].fields.map((field: any) => field.name)).toEqual(['email', 'firstname']);
    expect((await app.call('GetFormById', { form_id: form.id })).name).toBe('Patched name');
  });

  it('state: an archived form takes no submissions and is permanently deleted 3 months after archiving', async () => {
    const form = await createForm();
    emulator.submitForm(form.id, { email: 'ada.lovelace@example.com' });
    expect(await app.call('ArchiveMarketingForm', { form_id: form.id })).toEqual({ success: true, status: 204 });

    expect((await app.fail('GetFormById', { form_id: form.id })).kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');
    const archived = await app.call('GetFormById', { form_id: form.id, return_archived_only: true });
    expect(archived).toMatchObject({ id: form.id, archived: true });
    const archivedList = await app.call('ListCrmForms', { return_only_archived_forms: true, results_per_page: 100 });
    expect(archivedList.results.map((f: any) => f.id)).toContain(form.id);
    const activeList = await app.call('ListCrmForms', { results_per_page: 100 });
    expect(activeList.results.map((f: any) => f.id)).not.toContain(form.id);

    // New submissions are prevented.
    expect(() => emulator.submitForm(form.id, { email: 'grace.hopper@example.com' })).toThrow(/archived/);

    // Just before the three months are up the archived form is still there; just after, it is gone for good.
    const deleteAt = addMonths(Date.parse(archived.archivedAt), 3);
    emulator.clock.advance(deleteAt - emulator.clock.now() - 60_000);
    expect((await app.call('GetFormById', { form_id: form.id, return_archived_only: true })).id).toBe(form.id);
    emulator.clock.advance(120_000);
    expect((await app.fail('GetFormById', { form_id: form.id, return_archived_only: true })).kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');
    const afterwards = await app.call('ListCrmForms', { return_only_archived_forms: true, results_per_page: 100 });
    expect(afterwards.results.map((f: any) => f.id)).not.toContain(form.id);
  });
});

describe('marketing emails', () => {
  it('creates an email, reads it and finds it in the list', async () => {
    const email = await createEmail({ subject: 'Hello' });
    expect(email).toMatchObject({ subject: 'Hello', language: 'en', state: 'DRAFT', isPublished: false });
    expect(await app.call('GetMarketingEmailDetails', { email_id: email.id })).toMatchObject({ id: email.id, name: email.name, subject: 'Hello' });

    const list = await app.call('CrmMarketingEmailFilter', {});
    expect(list.results.map((e: any) => e.id)).toContain(email.id);
    expect(list.total).toBe(list.results.length);
  });

  it('updates properties, keeping the previous version as a revision', async () => {
    const email = await createEmail({ subject: 'Version A' });
    const updated = await app.execute('UpdateMarketingEmailProperties', { email_identifier: email.id }, { subject: 'Version B' });
    expect(updated).toMatchObject({ id: email.id, subject: 'Version B' });

    const revisions = await app.call('GetEmailRevisions', { email_id: email.id });
    expect(revisions.total).toBe(1);
    expect(revisions.results[0]).toMatchObject({ id: '1', object: { subject: 'Version A' } });

    const revision = await app.call('GetMarketingEmailRevision', { email_id: email.id, email_revision_id: '1' });
    expect(revision).toMatchObject({ id: '1', object: { id: email.id, subject: 'Version A' } });
  });

  it('state: publish makes the email live; unpublish withdraws it', async () => {
    const email = await createEmail();
    expect(await app.call('PublishCrmEmail', { crm_email_id: email.id })).toEqual({ success: true, status: 204 });
    const published = await app.call('GetMarketingEmailDetails', { email_id: email.id });
    expect(published).toMatchObject({ state: 'PUBLISHED', isPublished: true });
    expect(published.publishedAt).toBeTruthy();

    expect(await app.call('UnpublishMarketingEmail', { email_identifier: email.id })).toEqual({ success: true, status: 204 });
    const withdrawn = await app.call('GetMarketingEmailDetails', { email_id: email.id });
    expect(withdrawn.isPublished).toBe(false);
    expect(withdrawn.state).not.toBe('PUBLISHED');
    expect(withdrawn.unpublishedAt).toBeTruthy();
  });

  it('state: reset draft to live discards the draft changes', async () => {
    const email = await createEmail({ subject: 'Live subject' });
    const draft = await app.execute('UpdateEmailDraft', { email_id: email.id }, { subject: 'Draft subject' });
    expect(draft.subject).toBe('Draft subject');
    expect((await app.call('RetrieveEmailDraft', { email_id: email.id })).subject).toBe('Draft subject');
    expect((await app.call('GetMarketingEmailDetails', { email_id: email.id })).subject).toBe('Live subject');

    expect(await app.call('ResetEmailDraftToLive', { email_id: email.id })).toEqual({ success: true, status: 204 });
    expect((await app.call('RetrieveEmailDraft', { email_id: email.id })).subject).toBe('Live subject');
  });

  it('state: retrieving the draft of an email without one returns the published version', async () => {
    const email = await createEmail({ subject: 'Published subject' });
    await app.call('PublishCrmEmail', { crm_email_id: email.id });
    const draft = await app.call('RetrieveEmailDraft', { email_id: email.id });
    expect(draft).toMatchObject({ id: email.id, subject: 'Published subject', state: 'PUBLISHED' });
  });

  it('state: restoring a revision archives the current version and gives the restored one a new version number', async () => {
    const email = await createEmail({ subject: 'Version A' });
    await app.execute('UpdateMarketingEmailProperties', { email_identifier: email.id }, { subject: 'Version B' });
    // Now: version 2 (B) is current, revision 1 holds A.
    expect(await app.call('RestoreEmailRevision', { email_id: email.id, revision_id: '1' })).toEqual({ success: true, status: 204 });
    expect((await app.call('GetMarketingEmailDetails', { email_id: email.id })).subject).toBe('Version A');

    const revisions = await app.call('GetEmailRevisions', { email_id: email.id });
    expect(revisions.results.map((r: any) => [r.id, r.object.subject])).toEqual([
      ['2', 'Version B'],
      ['1', 'Version A'],
    ]);
    // The restored content is version 3: the next change archives it under that number.
    await app.execute('UpdateMarketingEmailProperties', { email_identifier: email.id }, { subject: 'Version C' });
    expect((await app.call('GetMarketingEmailRevision', { email_id: email.id, email_revision_id: '3' })).object.subject).toBe('Version A');
  });

  it('state: restoring a revision to the draft overwrites the draft and leaves the live version', async () => {
    const email = await createEmail({ subject: 'Version A' });
    await app.execute('UpdateMarketingEmailProperties', { email_identifier: email.id }, { subject: 'Version B' });
    await app.execute('UpdateEmailDraft', { email_id: email.id }, { subject: 'Unsaved draft' });

    const draft = await app.call('RestoreEmailRevisionToDraft', { email_identifier: email.id, revision_id: '1' });
    expect(draft).toMatchObject({ id: email.id, subject: 'Version A', state: 'DRAFT' });
    expect((await app.call('RetrieveEmailDraft', { email_id: email.id })).subject).toBe('Version A');
    expect((await app.call('GetMarketingEmailDetails', { email_id: email.id })).subject).toBe('Version B');
  });

  it('clones an email with a new name and language', async () => {
    const original = await createEmail({ subject: 'Original subject' });
    const clone = await app.call('CloneCrmEmail', { original_email_id: original.id, cloned_email_name: 'The clone', email_language: 'fr' });
    expect(clone).toMatchObject({ name: 'The clone', language: 'fr', subject: 'Original subject', clonedFrom: original.id, state: 'DRAFT' });
    expect(clone.id).not.toBe(original.id);
    expect((await app.call('GetMarketingEmailDetails', { email_id: clone.id })).name).toBe('The clone');
  });

  it('creates an A/B variation and finds each email’s partner', async () => {
    const master = await createEmail({ subject: 'Test me' });
    const variation = await app.call('CreateAbTestEmailVariation', { email_content_id: master.id, variation_name: 'Variant B' });
    expect(variation).toMatchObject({ name: 'Variant B', subject: 'Test me', isAb: true });
    expect(variation.id).not.toBe(master.id);

    expect((await app.call('GetEmailAbTestVariation', { email_identifier: master.id })).id).toBe(variation.id);
    expect((await app.call('GetEmailAbTestVariation', { email_identifier: variation.id })).id).toBe(master.id);
  });

  it('deletes an email', async () => {
    const email = await createEmail();
    expect(await app.call('DeleteMarketingEmail', { email_id: email.id })).toEqual({ success: true, status: 204 });
    expect((await app.fail('GetMarketingEmailDetails', { email_id: email.id })).kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');
    expect((await app.call('CrmMarketingEmailFilter', {})).results.map((e: any) => e.id)).not.toContain(email.id);
  });
});

describe('sending email and statistics', () => {
  it('sends single marketing and transactional emails, which the statistics count', async () => {
    const campaign = await createCampaign();
    const email = await createEmail({ campaign: campaign.id });
    const sentBefore = (await app.call('GetEmailStatistics', {})).aggregate.counters.sent;
    const histogramBefore = await app.call('FetchEmailStatistics', {});
    const histogramSent = (histogram: any) => histogram.results.reduce((n: number, r: any) => n + r.aggregations.counters.sent, 0);

    // A marketing single send needs a published email.
    const unpublished = await app.failExecute('SendMarketingEmail', {}, { emailId: Number(email.id), message: { to: 'ada.lovelace@example.com' } });
    expect(unpublished.kind).toBe('UPSTREAM_RUNTIME_BAD_REQUEST');
    expect(unpublished.message).toMatch(/not published/);

    await app.call('PublishCrmEmail', { crm_email_id: email.id });
    const marketing = await app.execute(
      'SendMarketingEmail',
      {},
      {
        emailId: Number(email.id),
        message: { to: 'ada.lovelace@example.com', sendId: unique('send') },
        contactProperties: { firstname: 'Ada' },
      },
    );
    expect(marketing).toMatchObject({ status: 'PENDING' });
    expect(marketing.statusId).toBeTruthy();

    const transactional = await app.execute(
      'SendTransactionalEmail',
      {},
      { emailId: Number(email.id), message: { to: 'grace.hopper@example.com', cc: ['alan.turing@example.com'] } },
    );
    expect(transactional).toMatchObject({ status: 'PENDING' });
    expect(transactional.statusId).not.toBe(marketing.statusId);

    const stats = await app.call('GetEmailStatistics', {});
    expect(stats.aggregate.counters.sent).toBe(sentBefore + 2);
    expect(stats.emails).toContain(Number(email.id));
    expect(stats.campaignAggregations[campaign.id].counters.sent).toBe(2);

    const histogram = await app.call('FetchEmailStatistics', {});
    expect(histogramSent(histogram)).toBe(histogramSent(histogramBefore) + 2);
    expect(histogram.total).toBe(histogram.results.length);
  });
});

describe('transactional SMTP tokens', () => {
  it('creates a token, reads it, and finds it by campaign name and by email campaign id', async () => {
    const campaignName = unique('Receipts');
    const token = await app.call('CreateSmtpApiToken', { campaign_name: campaignName, create_contact_for_recipients: true });
    expect(token).toMatchObject({ campaignName, createContact: true });
    expect(token.password).toBeTruthy();
    expect(emulator.checkSmtpPassword(token.id, token.password)).toBe(true);

    const read = await app.call('GetSmtpTokenById', { smtp_token_id: token.id });
    expect(read).toMatchObject({ id: token.id, campaignName, emailCampaignId: token.emailCampaignId, createContact: true });
    expect(read).not.toHaveProperty('password');

    const second = await app.call('CreateSmtpApiToken', { campaign_name: campaignName, create_contact_for_recipients: false });
    const first = await app.call('QuerySmtpTokens', { campaign_name: campaignName, maximum_tokens_to_return: 1 });
    expect(first.results.map((t: any) => t.id)).toEqual([token.id]);
    const next = await app.call('QuerySmtpTokens', {
      campaign_name: campaignName,
      maximum_tokens_to_return: 1,
      result_pagination_start: first.paging.next.after,
    });
    expect(next.results.map((t: any) => t.id)).toEqual([second.id]);

    const byCampaignId = await app.call('QuerySmtpTokens', { email_campaign_id: second.emailCampaignId });
    expect(byCampaignId.results).toEqual([expect.objectContaining({ id: second.id, createContact: false })]);
  });

  it('state: resetting the password keeps the token and invalidates the old password', async () => {
    const token = await app.call('CreateSmtpApiToken', { campaign_name: unique('Alerts'), create_contact_for_recipients: false });
    const reset = await app.call('ResetPasswordForToken', { token_identifier: token.id });
    expect(reset).toMatchObject({ id: token.id, emailCampaignId: token.emailCampaignId });
    expect(reset.password).toBeTruthy();
    expect(reset.password).not.toBe(token.password);
    expect(emulator.checkSmtpPassword(token.id, token.password)).toBe(false);
    expect(emulator.checkSmtpPassword(token.id, reset.password)).toBe(true);
  });

  it('deletes a token', async () => {
    const token = await app.call('CreateSmtpApiToken', { campaign_name: unique('Gone'), create_contact_for_recipients: false });
    expect(await app.call('DeleteSmtpToken', { smtp_token_id: token.id })).toEqual({ success: true, status: 204 });
    expect((await app.fail('GetSmtpTokenById', { smtp_token_id: token.id })).kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');
    expect(emulator.checkSmtpPassword(token.id, token.password)).toBe(false);
  });
});

describe('marketing events', () => {
  it('creates an event and reads it by external ids and by object id', async () => {
    const event = await createEvent(app, { eventType: 'WEBINAR', eventDescription: 'Intro', customProperties: [customProperty('room', 'A')] });
    expect(event).toMatchObject({ eventType: 'WEBINAR', eventDescription: 'Intro', eventCancelled: false, eventCompleted: false });
    expect(event.objectId).toMatch(/^\d+$/);

    const byExternal = await app.call('GetMarketingEventDetails', { external_account_id: ACCOUNT, marketing_event_id: event.externalEventId });
    expect(byExternal).toMatchObject({ id: event.objectId, eventName: event.eventName, registrants: 0, attendees: 0, cancellations: 0 });

    const byObjectId = await app.call('FetchEventDetails', { marketing_event_object_id: event.objectId });
    expect(byObjectId).toMatchObject({
      objectId: event.objectId,
      externalEventId: event.externalEventId,
      eventStatus: 'UPCOMING',
      customProperties: [{ name: 'room', value: 'A' }],
      appInfo: { id: String(app.appId) },
    });
  });

  it('updates an event by external ids and by object id', async () => {
    const event = await createEvent();
    const byExternal = await app.execute(
      'UpdateMarketingEventDetails',
      { external_account_id: ACCOUNT, external_event_id: event.externalEventId },
      { eventDescription: 'Updated by external id', customProperties: [customProperty('room', 'B')] },
    );
    expect(byExternal).toMatchObject({ id: event.objectId, eventDescription: 'Updated by external id' });

    const byObjectId = await app.execute('ModifyEventInformation', { event_internal_id: event.objectId }, { customProperties: [], eventName: 'Renamed event' });
    expect(byObjectId).toMatchObject({ objectId: event.objectId, eventName: 'Renamed event', eventDescription: 'Updated by external id' });

    const read = await app.call('FetchEventDetails', { marketing_event_object_id: event.objectId });
    expect(read).toMatchObject({ eventName: 'Renamed event', eventDescription: 'Updated by external id', customProperties: [{ name: 'room', value: 'B' }] });
  });

  it('upserts events one at a time and in a batch, keeping object ids of existing events', async () => {
    const externalEventId = unique('upsert');
    const created = await app.execute(
      'UpsertMarketingEvent',
      { external_event_id: externalEventId },
      eventInput(ACCOUNT, externalEventId, { eventType: 'CONFERENCE' }),
    );
    expect(created).toMatchObject({ eventName: `Event ${externalEventId}`, eventType: 'CONFERENCE' });
    const replaced = await app.execute(
      'UpsertMarketingEvent',
      { external_event_id: externalEventId },
      eventInput(ACCOUNT, externalEventId, { eventName: 'Replaced' }),
    );
    expect(replaced).toMatchObject({ id: created.id, eventName: 'Replaced' });

    const newId = unique('upsert');
    const batch = await app.execute(
      'UpsertMarketingEvents',
      {},
      {
        inputs: [eventInput(ACCOUNT, externalEventId, { eventName: 'Batch replaced' }), eventInput(ACCOUNT, newId)],
      },
    );
    expect(batch.results).toHaveLength(2);
    const byName = Object.fromEntries(batch.results.map((e: any) => [e.eventName, e]));
    expect(byName['Batch replaced'].id).toBe(created.id);
    expect(byName[`Event ${newId}`].id).not.toBe(created.id);
    expect((await app.call('GetMarketingEventDetails', { external_account_id: ACCOUNT, marketing_event_id: newId })).eventName).toBe(`Event ${newId}`);
  });

  it('updates events in a batch by object id', async () => {
    const a = await createEvent();
    const b = await createEvent();
    const result = await app.execute(
      'UpdateMarketingEventsBatch',
      {},
      {
        inputs: [
          { objectId: a.objectId, customProperties: [], eventName: 'Batch A' },
          { objectId: b.objectId, customProperties: [customProperty('track', 'main')], eventUrl: 'https://example.com/b' },
        ],
      },
    );
    expect(result.results.map((e: any) => e.objectId).sort()).toEqual([a.objectId, b.objectId].sort());
    expect((await app.call('FetchEventDetails', { marketing_event_object_id: a.objectId })).eventName).toBe('Batch A');
    expect(await app.call('FetchEventDetails', { marketing_event_object_id: b.objectId })).toMatchObject({
      eventUrl: 'https://example.com/b',
      customProperties: [{ name: 'track', value: 'main' }],
    });
  });

  it('pages through all events of the portal', async () => {
    const mine = await createEvent();
    const theirs = await createEvent(otherApp);
    const seen: string[] = [];
    let after: string | undefined;
    do {
      const page = await app.call('GetAllMarketingEvents', { response_limit: 3, ...(after && { cursor_position_after: after }) });
      expect(page.results.length).toBeLessThanOrEqual(3);
      seen.push(...page.results.map((e: any) => e.objectId));
      after = page.paging?.next.after;
    } while (after);
    expect(seen).toEqual(expect.arrayContaining([mine.objectId, theirs.objectId]));
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('searches by external event id prefix and by exact external event id across apps', async () => {
    const shared = unique('shared');
    const mine = await app.execute('CreateMarketingEvent', {}, eventInput(ACCOUNT, shared));
    const theirs = await otherApp.execute('CreateMarketingEvent', {}, eventInput(ACCOUNT, shared, { eventName: 'Their event' }));

    const found = await app.call('FindCrmMarketingEvents', { external_event_id: shared.slice(0, -3) });
    expect(found.results).toEqual(
      expect.arrayContaining([
        { objectId: mine.objectId, externalEventId: shared, externalAccountId: ACCOUNT, appId: app.appId },
        { objectId: theirs.objectId, externalEventId: shared, externalAccountId: ACCOUNT, appId: otherApp.appId },
      ]),
    );

    const identifiers = await app.call('SearchMarketingEventsByExternalId', { external_event_id: shared });
    expect(identifiers.total).toBe(2);
    expect(identifiers.results.map((r: any) => [r.objectId, r.marketingEventName])).toEqual([
      [mine.objectId, `Event ${shared}`],
      [theirs.objectId, 'Their event'],
    ]);
  });

  it('state: CancelMarketingEvent cancels the event', async () => {
    const event = await createEvent();
    const cancelled = await app.call('CancelMarketingEvent', { external_account_id: ACCOUNT, external_event_id: event.externalEventId });
    expect(cancelled).toMatchObject({ objectId: event.objectId, eventCancelled: true });
    expect(await app.call('FetchEventDetails', { marketing_event_object_id: event.objectId })).toMatchObject({
      eventCancelled: true,
      eventStatus: 'CANCELLED',
    });

    // Only the creating app knows the event by its external ids.
    const foreign = await otherApp.fail('CancelMarketingEvent', { external_account_id: ACCOUNT, external_event_id: (await createEvent()).externalEventId });
    expect(foreign.kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');
  });

  it('state: MarkMarketingEventCompleted completes the event with its start and end', async () => {
    const event = await createEvent();
    const start = '2025-01-10T15:00:00.000Z';
    const end = '2025-01-10T16:30:00.000Z';
    const completed = await app.call('MarkMarketingEventCompleted', {
      external_account_id: ACCOUNT,
      marketing_event_id: event.externalEventId,
      event_start_date_time: start,
      event_end_datetime: end,
    });
    expect(completed).toMatchObject({ objectId: event.objectId, eventCompleted: true, startDateTime: start, endDateTime: end });
    expect(await app.call('FetchEventDetails', { marketing_event_object_id: event.objectId })).toMatchObject({
      eventCompleted: true,
      eventStatus: 'COMPLETED',
    });
  });
});

describe('request building', () => {
  it('encodes reserved characters in path and query values so they reach the emulator intact', async () => {
    const externalEventId = `${unique('room 4/B')}?x=1#frag%`;
    const created = await app.execute('CreateMarketingEvent', {}, eventInput('account/with slash', externalEventId));
    const read = await app.call('GetMarketingEventDetails', { external_account_id: 'account/with slash', marketing_event_id: externalEventId });
    expect(read).toMatchObject({ id: created.objectId, externalEventId });
    const sent = emulator.requests.at(-1)!;
    expect(sent.query).toEqual({ externalAccountId: 'account/with slash' });
    expect(sent.path).toBe(`/marketing/v3/marketing-events/events/${encodeURIComponent(externalEventId)}`);
  });
});

describe('marketing event deletion', () => {
  it('state: DeleteMarketingEvent deletes by external ids, only for the app that created the event', async () => {
    const event = await createEvent();
    const refused = await otherApp.fail('DeleteMarketingEvent', { external_account_id: ACCOUNT, marketing_event_id: event.externalEventId });
    expect(refused.kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');
    expect((await app.call('FetchEventDetails', { marketing_event_object_id: event.objectId })).objectId).toBe(event.objectId);

    expect(await app.call('DeleteMarketingEvent', { external_account_id: ACCOUNT, marketing_event_id: event.externalEventId })).toEqual({
      success: true,
      status: 204,
    });
    expect((await app.fail('FetchEventDetails', { marketing_event_object_id: event.objectId })).kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');
  });

  it('state: RemoveMarketingEvent deletes by object id', async () => {
    const event = await createEvent();
    expect(await app.call('RemoveMarketingEvent', { marketing_event_id: event.objectId })).toEqual({ success: true, status: 204 });
    expect((await app.fail('GetMarketingEventDetails', { external_account_id: ACCOUNT, marketing_event_id: event.externalEventId })).kind).toBe(
      'UPSTREAM_RUNTIME_NOT_FOUND',
    );
  });

  it('state: RemoveMarketingEvents deletes only the calling app’s events and names the ones it refused', async () => {
    const mine = await createEvent();
    const theirs = await createEvent(otherApp);
    const ref = (event: any, appId: number) => ({ externalAccountId: ACCOUNT, externalEventId: event.externalEventId, appId });

    const result = await app.execute('RemoveMarketingEvents', {}, { inputs: [ref(mine, app.appId), ref(theirs, otherApp.appId)] });
    expect(result.results).toEqual([ref(mine, app.appId)]);
    expect(result.numErrors).toBe(1);
    expect(result.errors[0].message).toMatch(/only the app that created an event can delete it/);
    expect(result.errors[0].context).toEqual({ externalAccountId: [ACCOUNT], externalEventId: [theirs.externalEventId], appId: [String(otherApp.appId)] });

    expect((await app.fail('FetchEventDetails', { marketing_event_object_id: mine.objectId })).kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');
    expect((await app.call('FetchEventDetails', { marketing_event_object_id: theirs.objectId })).objectId).toBe(theirs.objectId);

    // The creating app may delete it; when every deletion happens the answer is a plain 204.
    expect(await otherApp.execute('RemoveMarketingEvents', {}, { inputs: [ref(theirs, otherApp.appId)] })).toEqual({ success: true, status: 204 });
    expect((await app.fail('FetchEventDetails', { marketing_event_object_id: theirs.objectId })).kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');
  });

  it('state: DeleteMarketingEvents reports whether all or only some events were deleted', async () => {
    const a = await createEvent();
    const b = await createEvent(otherApp);
    expect(await app.execute('DeleteMarketingEvents', {}, { inputs: [{ objectId: a.objectId }, { objectId: b.objectId }] })).toEqual({
      success: true,
      status: 204,
    });
    for (const event of [a, b])
      expect((await app.fail('FetchEventDetails', { marketing_event_object_id: event.objectId })).kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');

    const c = await createEvent();
    const some = await app.execute('DeleteMarketingEvents', {}, { inputs: [{ objectId: c.objectId }, { objectId: a.objectId }] });
    expect(some.results).toEqual([{ objectId: c.objectId }]);
    expect(some.numErrors).toBe(1);
    expect(some.errors[0].context).toEqual({ objectId: [a.objectId] });
    expect((await app.fail('FetchEventDetails', { marketing_event_object_id: c.objectId })).kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');
  });
});

describe('event lists', () => {
  it('associates and disassociates a list by object id', async () => {
    const event = await createEvent();
    expect(await app.call('AssociateListWithMarketingEvent', { marketing_event_id: event.objectId, list_id: '501' })).toEqual({ success: true, status: 204 });
    const lists = await app.call('GetMarketingEventLists', { marketing_event_id: event.objectId });
    expect(lists.total).toBe(1);
    expect(lists.results[0]).toMatchObject({ listId: '501', name: 'Webinar registrants' });

    expect(await app.call('DisassociateListFromMarketingEvent', { marketing_event_id: event.objectId, list_identifier: '501' })).toEqual({
      success: true,
      status: 204,
    });
    expect((await app.call('GetMarketingEventLists', { marketing_event_id: event.objectId })).results).toEqual([]);
  });

  it('associates and disassociates a list by external ids, for the creating app only', async () => {
    const event = await createEvent();
    const ids = { external_account_id: ACCOUNT, external_event_id: event.externalEventId };
    expect(await app.call('LinkListToEvent', { ...ids, ils_list_id: '502' })).toEqual({ success: true, status: 204 });
    const lists = await app.call('GetMarketingEventAssociatedLists', ids);
    expect(lists.results.map((l: any) => [l.listId, l.name])).toEqual([['502', 'Newsletter subscribers']]);
    // The object-id view sees the same association.
    expect((await app.call('GetMarketingEventLists', { marketing_event_id: event.objectId })).results.map((l: any) => l.listId)).toEqual(['502']);

    expect((await otherApp.fail('LinkListToEvent', { ...ids, ils_list_id: '503' })).kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');

    expect(
      await app.call('DisassociateMarketingEventList', { external_account_id: ACCOUNT, marketing_event_id: event.externalEventId, list_id: '502' }),
    ).toEqual({ success: true, status: 204 });
    expect((await app.call('GetMarketingEventAssociatedLists', ids)).results).toEqual([]);
  });
});

describe('attendance and subscriber state', () => {
  const at = () => emulator.clock.now();

  it('state: register, then attend with joinedAt/leftAt, then cancel; one timeline event per contact per call', async () => {
    const event = await createEvent();
    const registered = await app.execute(
      'RecordEventAttendance',
      { marketing_event_id: event.objectId, attendance_state: 'register' },
      {
        inputs: [
          { vid: 1001, interactionDateTime: at() },
          { vid: 1002, interactionDateTime: at() },
        ],
      },
    );
    expect(registered.results).toEqual([{ vid: 1001 }, { vid: 1002 }]);
    expect(await app.call('GetMarketingEventParticipationCounters', { marketing_event_id: Number(event.objectId) })).toMatchObject({
      registered: 2,
      attended: 0,
      cancelled: 0,
    });
    expect(timelineOf(event.objectId).map((t) => [t.contact_vid, t.state])).toEqual([
      [1001, 'register'],
      [1002, 'register'],
    ]);

    // Attend, through the external ids, for the first half hour of the one-hour event.
    const start = Date.parse(event.startDateTime);
    const properties = { joinedAt: String(start), leftAt: new Date(start + 1_800_000).toISOString() };
    const attended = await app.execute(
      'RecordMarketingEventAttendance',
      { external_event_id: event.externalEventId, new_subscriber_state: 'attend', external_account_id: ACCOUNT },
      { inputs: [{ vid: 1001, interactionDateTime: start, properties }] },
    );
    expect(attended.results).toEqual([{ vid: 1001 }]);
    const attendedRows = await app.call('GetMarketingEventParticipationsBreakdown', {
      marketing_event_id: Number(event.objectId),
      participation_state: 'ATTENDED',
    });
    expect(attendedRows.results).toHaveLength(1);
    expect(attendedRows.results[0].properties).toMatchObject({ attendanceState: 'ATTENDED', attendanceDurationSeconds: 1800, attendancePercentage: '50' });
    expect(JSON.parse(timelineOf(event.objectId).at(-1)!.properties)).toEqual(properties);

    await app.execute(
      'RecordEventAttendance',
      { marketing_event_id: event.objectId, attendance_state: 'cancel' },
      { inputs: [{ vid: 1002, interactionDateTime: at() }] },
    );
    expect(await app.call('GetMarketingEventParticipationCounters', { marketing_event_id: Number(event.objectId) })).toMatchObject({
      registered: 0,
      attended: 1,
      cancelled: 1,
    });
    expect(timelineOf(event.objectId).map((t) => [t.contact_vid, t.state])).toEqual([
      [1001, 'register'],
      [1002, 'register'],
      [1001, 'attend'],
      [1002, 'cancel'],
    ]);
  });

  it('refuses joinedAt/leftAt outside attend and records nothing', async () => {
    const event = await createEvent();
    const error = await app.failExecute(
      'RecordEventAttendance',
      { marketing_event_id: event.objectId, attendance_state: 'register' },
      { inputs: [{ vid: 1003, interactionDateTime: at(), properties: { joinedAt: String(at()) } }] },
    );
    expect(error.kind).toBe('UPSTREAM_RUNTIME_BAD_REQUEST');
    expect(error.message).toMatch(/joinedAt/);
    expect(timelineOf(event.objectId)).toEqual([]);
  });

  it('state: RegisterEventParticipation (by object id) creates unknown contacts by email and adds a timeline event to each', async () => {
    const event = await createEvent();
    const newEmail = `${unique('newcomer')}@example.com`;
    const result = await app.execute(
      'RegisterEventParticipation',
      { marketing_event_id: event.objectId, attendance_state: 'register' },
      {
        inputs: [
          { email: newEmail, interactionDateTime: at(), contactProperties: { firstname: 'Nora', lastname: 'Newcomer' } },
          { email: 'grace.hopper@example.com', interactionDateTime: at(), contactProperties: { firstname: 'Ignored' } },
        ],
      },
    );
    const created = result.results.find((r: any) => r.email === newEmail);
    expect(created.vid).toBeGreaterThan(1005);
    expect(result.results).toContainEqual({ vid: 1002, email: 'grace.hopper@example.com' });

    const contact = await app.call('GetContactParticipationsBreakdown', { contact_identifier: newEmail });
    expect(contact.results[0].associations.contact).toMatchObject({ contactId: String(created.vid), email: newEmail, firstname: 'Nora', lastname: 'Newcomer' });
    // An existing contact keeps its own properties.
    const grace = await app.call('GetContactParticipationsBreakdown', { contact_identifier: '1002' });
    expect(grace.results.map((r: any) => r.associations.contact.firstname)).toContain('Grace');

    expect(
      timelineOf(event.objectId)
        .map((t) => t.contact_vid)
        .sort(),
    ).toEqual([1002, created.vid].sort());
  });

  it('state: RecordEventParticipationCrm (by external ids) creates unknown contacts by email and adds a timeline event to each', async () => {
    const event = await createEvent();
    const newEmail = `${unique('walkin')}@example.com`;
    const result = await app.execute(
      'RecordEventParticipationCrm',
      { external_event_id: event.externalEventId, subscriber_state: 'attend', external_account_id: ACCOUNT },
      { inputs: [{ email: newEmail, interactionDateTime: at() }] },
    );
    expect(result.results).toHaveLength(1);
    expect(result.results[0].email).toBe(newEmail);
    const vid = result.results[0].vid;
    expect((await app.call('GetContactParticipationsBreakdown', { contact_identifier: String(vid) })).results[0].properties.attendanceState).toBe('ATTENDED');
    expect(timelineOf(event.objectId).map((t) => [t.contact_vid, t.state])).toEqual([[vid, 'attend']]);
  });

  it('state: RecordCrmSubscriberState needs existing contacts (by id)', async () => {
    const event = await createEvent();
    const params = { external_account_id: ACCOUNT, event_id_in_external_app: event.externalEventId, subscriber_state: 'register' };
    expect(await app.execute('RecordCrmSubscriberState', params, { inputs: [{ vid: 1004, interactionDateTime: at() }] })).toEqual({
      success: true,
      status: 204,
    });
    expect(await app.call('GetMarketingEventParticipationCounters', { marketing_event_id: Number(event.objectId) })).toMatchObject({ registered: 1 });

    const missing = await app.failExecute('RecordCrmSubscriberState', params, {
      inputs: [
        { vid: 1005, interactionDateTime: at() },
        { vid: 987654, interactionDateTime: at() },
      ],
    });
    expect(missing.kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');
    expect(missing.message).toMatch(/987654/);
    // All or nothing: the existing contact in the refused call was not recorded either.
    expect(await app.call('GetMarketingEventParticipationCounters', { marketing_event_id: Number(event.objectId) })).toMatchObject({ registered: 1 });
  });

  it('state: RecordSubscriberState needs existing contacts (by email) and never creates one', async () => {
    const event = await createEvent();
    const params = { external_account_id: ACCOUNT, marketing_event_id: event.externalEventId, subscriber_state: 'attend' };
    expect(await app.execute('RecordSubscriberState', params, { inputs: [{ email: 'alan.turing@example.com', interactionDateTime: at() }] })).toEqual({
      success: true,
      status: 204,
    });
    const alan = await app.call('GetMarketingEventParticipationBreakdown', {
      external_account_id: ACCOUNT,
      external_event_id: event.externalEventId,
      contact_identifier: 'alan.turing@example.com',
    });
    expect(alan.results.map((r: any) => r.properties.attendanceState)).toEqual(['ATTENDED']);

    const stranger = `${unique('stranger')}@example.com`;
    const missing = await app.failExecute('RecordSubscriberState', params, { inputs: [{ email: stranger, interactionDateTime: at() }] });
    expect(missing.kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');
    expect((await app.fail('GetContactParticipationsBreakdown', { contact_identifier: stranger })).kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');
  });
});

describe('participation counters and breakdowns', () => {
  it('counts and breaks down participations by event (object id and external ids) and by contact', async () => {
    const event = await createEvent();
    const now = emulator.clock.now();
    await app.execute(
      'RecordEventAttendance',
      { marketing_event_id: event.objectId, attendance_state: 'register' },
      { inputs: [1001, 1002, 1003].map((vid) => ({ vid, interactionDateTime: now })) },
    );
    await app.execute(
      'RecordEventAttendance',
      { marketing_event_id: event.objectId, attendance_state: 'attend' },
      { inputs: [{ vid: 1003, interactionDateTime: now }] },
    );

    const counters = { registered: 2, attended: 1, cancelled: 0 };
    expect(await app.call('GetMarketingEventParticipationCounters', { marketing_event_id: Number(event.objectId) })).toMatchObject(counters);
    expect(await app.call('GetEventParticipationCounters', { external_account_id: ACCOUNT, event_id: event.externalEventId })).toMatchObject(counters);
    expect((await otherApp.fail('GetEventParticipationCounters', { external_account_id: ACCOUNT, event_id: event.externalEventId })).kind).toBe(
      'UPSTREAM_RUNTIME_NOT_FOUND',
    );

    const firstPage = await app.call('GetMarketingEventParticipationsBreakdown', {
      marketing_event_id: Number(event.objectId),
      participation_state: 'REGISTERED',
      response_size_limit: 1,
    });
    expect(firstPage.total).toBe(2);
    expect(firstPage.results.map((r: any) => r.associations.contact.contactId)).toEqual(['1001']);
    const secondPage = await app.call('GetMarketingEventParticipationsBreakdown', {
      marketing_event_id: Number(event.objectId),
      participation_state: 'REGISTERED',
      response_size_limit: 1,
      last_retrieved_position_cursor: firstPage.paging.next.after,
    });
    expect(secondPage.results.map((r: any) => r.associations.contact.contactId)).toEqual(['1002']);

    const byContact = await app.call('GetMarketingEventParticipationsBreakdown', {
      marketing_event_id: Number(event.objectId),
      contact_identifier: 'alan.turing@example.com',
    });
    expect(byContact.results.map((r: any) => [r.associations.contact.contactId, r.properties.attendanceState])).toEqual([['1003', 'ATTENDED']]);

    const external = await app.call('GetMarketingEventParticipationBreakdown', {
      external_account_id: ACCOUNT,
      external_event_id: event.externalEventId,
      participation_state_filter: 'ATTENDED',
      response_size_limit: 10,
    });
    expect(external.results).toHaveLength(1);
    expect(external.results[0].associations.marketingEvent).toMatchObject({
      marketingEventId: event.objectId,
      externalEventId: event.externalEventId,
      name: event.eventName,
    });

    const contactBreakdown = await app.call('GetContactParticipationsBreakdown', {
      contact_identifier: '1003',
      participation_state: 'ATTENDED',
      response_size_limit: 100,
    });
    expect(contactBreakdown.results.map((r: any) => r.associations.marketingEvent.marketingEventId)).toContain(event.objectId);
    expect(contactBreakdown.results.every((r: any) => r.properties.attendanceState === 'ATTENDED')).toBe(true);
  });
});

// ------------------------------------------------------------------------------------------------
// Bad input: each refusal names the parameter, and nothing reaches the emulator.

describe('bad input is refused before anything is sent', () => {
  const cases: Array<[string, string, Record<string, unknown>, RegExp]> = [
    ['missing required', 'AddCampaignBudgetItem', { campaign_id: 'c', budget_amount: 1, budget_item_order: 1 }, /parameter 'budget_item_name' is required/],
    ['string given a number', 'GetCampaignDetails', { campaign_guid: 42 }, /parameter 'campaign_guid' must be a string/],
    ['integer given a fraction', 'GetCampaignBudget', { campaign_guid: 'c', budget_item_id: 1.5 }, /parameter 'budget_item_id' must be an integer/],
    ['integer given a string', 'GetMarketingEventParticipationCounters', { marketing_event_id: '12' }, /parameter 'marketing_event_id' must be an integer/],
    [
      'number given a string',
      'AddCampaignBudgetItem',
      { campaign_id: 'c', budget_item_name: 'n', budget_amount: '100', budget_item_order: 1 },
      /parameter 'budget_amount' must be a number/,
    ],
    [
      'boolean given a string',
      'CreateSmtpApiToken',
      { campaign_name: 'x', create_contact_for_recipients: 'yes' },
      /parameter 'create_contact_for_recipients' must be a boolean/,
    ],
    ['array given a string', 'GetMarketingCampaigns', { requested_properties: 'hs_name' }, /parameter 'requested_properties' must be an array/],
    ['array item of the wrong type', 'ListCrmForms', { included_form_types: ['hubspot', 7] }, /parameter 'included_form_types\[1\]' must be a string/],
    ['bad mode', 'CreateMarketingCampaign', { mode: 'run' }, /parameter 'mode' must be one of: 'get_request_schema', 'execute'/],
    ['missing mode', 'CreateMarketingCampaign', { request_body: '{}' }, /parameter 'mode' is required/],
    ['unknown parameter', 'GetCampaignDetails', { campaign_guid: 'c', campaignGuid: 'c' }, /parameter 'campaignGuid' is not a known field/],
    [
      'unknown parameter on a mode-driven tool',
      'UpdateCampaignProperties',
      { mode: 'execute', campaign_uuid: 'c', body: '{}' },
      /parameter 'body' is not a known field/,
    ],
    [
      'request_body not a string',
      'CreateMarketingCampaign',
      { mode: 'execute', request_body: { properties: {} } },
      /parameter 'request_body' must be a string/,
    ],
  ];

  it.each(cases)('%s (%s)', async (_label, tool, input, message) => {
    const error = await expectNothingSent(() => app.fail(tool, input));
    expect(error.kind).toBe('TOOL_RUNTIME_BAD_INPUT_VALUE');
    expect(error.message).toMatch(message);
    expect(error.message).toContain(tool);
  });

  it('refuses an input that is not an object', async () => {
    const error = await expectNothingSent(() => app.fail('GetCampaignDetails', ['c'] as unknown as Record<string, unknown>));
    expect(error.kind).toBe('TOOL_RUNTIME_BAD_INPUT_VALUE');
    expect(error.message).toMatch(/JSON object of parameters/);
  });

  const modeCases: Array<[string, string, Record<string, unknown>, RegExp]> = [
    ['missing path parameter', 'UpdateCampaignProperties', { request_body: '{"properties":{}}' }, /^Missing campaign_uuid: required when mode is "execute"\.$/],
    [
      'missing query parameter',
      'UpdateMarketingEventDetails',
      { external_event_id: 'e', request_body: '{}' },
      /^Missing external_account_id: required when mode is "execute"\.$/,
    ],
    [
      'missing path and query parameters',
      'RecordMarketingEventAttendance',
      { new_subscriber_state: 'register', request_body: '{"inputs":[]}' },
      /^Missing external_event_id, external_account_id: required when mode is "execute"\.$/,
    ],
    [
      'missing optional-looking query parameters',
      'FetchMarketingCampaignBatches',
      { fetch_start_date: '2025-01-01', request_body: '{"inputs":[]}' },
      /^Missing end_date_for_asset_metrics, requested_properties: required/,
    ],
    ['absent request_body', 'CreateMarketingCampaign', {}, /^request_body is required when mode is "execute"\.$/],
    ['empty request_body', 'CreateMarketingCampaign', { request_body: '' }, /^request_body is required when mode is "execute"\.$/],
    ['blank request_body', 'ArchiveCampaignsBatch', { request_body: '   ' }, /^request_body is required when mode is "execute"\.$/],
    ['invalid JSON', 'CreateMarketingCampaign', { request_body: '{"properties": {"hs_name": "x"' }, /^request_body is not valid JSON: /],
    [
      'schema: wrong type',
      'CreateMarketingCampaign',
      { request_body: '{"properties":{"hs_name":5}}' },
      /\/properties\/hs_name \(properties\.hs_name\) must be a string/,
    ],
    ['schema: missing field', 'CreateMarketingCampaign', { request_body: '{}' }, /\/properties \(properties\) is required/],
    ['schema: unknown field', 'CreateMarketingCampaign', { request_body: '{"properties":{},"name":"x"}' }, /\/name \(name\) is not a known field/],
    ['schema: not an object', 'CreateMarketingCampaign', { request_body: '"just text"' }, /\/ \(the body\) must be an object/],
    [
      'schema: nested item',
      'RecordEventAttendance',
      { marketing_event_id: '1', attendance_state: 'register', request_body: '{"inputs":[{"vid":1001}]}' },
      /\/inputs\/0\/interactionDateTime \(inputs\[0\]\.interactionDateTime\) is required/,
    ],
    [
      'schema: bad enum inside the body',
      'CreateMarketingForm',
      { request_body: JSON.stringify({ ...formDefinition('f'), formType: 'captured' }) },
      /\/formType \(formType\) must be one of: 'hubspot'/,
    ],
  ];

  it.each(modeCases)('mode execute: %s (%s)', async (_label, tool, input, message) => {
    const error = await expectNothingSent(() => app.fail(tool, { mode: 'execute', ...input }));
    expect(error.kind).toBe('TOOL_RUNTIME_RETRY');
    expect(error.can_retry).toBe(true);
    expect(error.message).toMatch(message);
    expect(error.additional_prompt_content).toBeTruthy();
  });

  it('a schema violation tells the caller the schema to follow', async () => {
    const error = await expectNothingSent(() => app.fail('CreateMarketingCampaign', { mode: 'execute', request_body: '{}' }));
    const schema = catalog.tools.find((tool) => tool.name === 'CreateMarketingCampaign')!.requestBody!.schema;
    expect(error.additional_prompt_content).toContain(JSON.stringify(schema));
  });
});

describe('get_request_schema', () => {
  const modeDriven = catalog.tools.filter((tool) => tool.requestBody);

  it('there are 28 mode-driven tools', () => {
    expect(modeDriven).toHaveLength(28);
  });

  it('returns each mode-driven tool’s request-body schema from the catalog and sends nothing', async () => {
    for (const tool of modeDriven) {
      const value = (await expectNothingSent(() => app.call(tool.name, { mode: 'get_request_schema' }))) as any;
      expect(value.request_body_schema, tool.name).toEqual(tool.requestBody!.schema);
      expect(value.instructions, tool.name).toContain(`CrmMarketingApi.${tool.name}`);
      for (const parameter of tool.parameters.filter((p) => p.in === 'path' || p.in === 'query')) {
        expect(value.instructions, `${tool.name} names ${parameter.name}`).toContain(parameter.name);
      }
    }
  });

  it('ignores path, query and request_body parameters', async () => {
    const value = (await expectNothingSent(() =>
      app.call('UpdateMarketingEventDetails', { mode: 'get_request_schema', external_event_id: 'e', request_body: 'not json at all' }),
    )) as any;
    expect(value.request_body_schema).toEqual(catalog.tools.find((tool) => tool.name === 'UpdateMarketingEventDetails')!.requestBody!.schema);
  });
});

// ------------------------------------------------------------------------------------------------
// Regressions: each of these once sent a request to a different operation than the tool names, or
// showed models a wrong schema.

describe('regressions', () => {
  /** Requests the emulator received while `work` ran, as "METHOD path". */
  async function sentDuring(work: () => Promise<unknown>): Promise<string[]> {
    const before = emulator.requests.length;
    await work();
    return emulator.requests.slice(before).map((request) => `${request.method} ${request.path}`);
  }

  // A path value of "." or ".." survives encodeURIComponent and the URL parser resolves it as a dot
  // segment, so the request would go to another operation: here DisassociateCampaignAsset would become
  // DELETE /marketing/v3/campaigns/{id}. The runtime refuses such values before sending.
  it('a dot-segment path value must not turn DisassociateCampaignAsset into a campaign deletion', async () => {
    const campaign = await createCampaign();
    const sent = await sentDuring(() => app.attempt('DisassociateCampaignAsset', { campaign_unique_identifier: campaign.id, asset_type: '.', asset_id: '..' }));
    const stillThere = await app.attempt('GetCampaignDetails', { campaign_guid: campaign.id });
    expect(sent, 'requests sent for the disassociation').toEqual([]);
    expect('value' in stillThere, 'the campaign still exists').toBe(true);
  });

  // Same cause: DisassociateMarketingEventList with external ids (owner-checked) would become the
  // object-id operation (not owner-checked), letting one app remove a list from another app's event.
  it('a dot-segment path value must not let another app disassociate a list from an event it does not own', async () => {
    const event = await createEvent(app);
    await app.call('AssociateListWithMarketingEvent', { marketing_event_id: event.objectId, list_id: '503' });
    const sent = await sentDuring(() =>
      otherApp.attempt('DisassociateMarketingEventList', { external_account_id: event.objectId, marketing_event_id: '.', list_id: '503' }),
    );
    expect(sent, 'requests sent for the disassociation').toEqual([]);
    expect((await app.call('GetMarketingEventLists', { marketing_event_id: event.objectId })).results.map((l: any) => l.listId)).toEqual(['503']);
  });

  // An empty path value would leave an empty segment: GetCampaignDetails with campaign_guid "" would be
  // sent as GET /marketing/v3/campaigns/ and answer with the list of all campaigns.
  it('an empty path value is refused before sending instead of reaching another operation', async () => {
    let result: unknown;
    const sent = await sentDuring(async () => {
      result = await app.attempt('GetCampaignDetails', { campaign_guid: '' });
    });
    expect(sent, 'requests sent').toEqual([]);
    expect(result).toMatchObject({ error: { kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE' } });
  });

  // The generator must tell a schema from a map of property names: a body field called "properties"
  // once made it add a field called "additionalProperties" to 10 tools' schemas.
  it('no request-body schema declares a field named "additionalProperties"', () => {
    const offenders: string[] = [];
    // Visits schema positions only (not the property maps themselves).
    const walk = (schema: any, at: string): void => {
      if (!schema || typeof schema !== 'object') return;
      if (schema.properties && typeof schema.properties === 'object') {
        if ('additionalProperties' in schema.properties) offenders.push(at);
        for (const [name, child] of Object.entries(schema.properties)) walk(child, `${at}/${name}`);
      }
      if (schema.items) walk(schema.items, `${at}[]`);
      if (typeof schema.additionalProperties === 'object') walk(schema.additionalProperties, `${at}{}`);
      for (const keyword of ['oneOf', 'anyOf', 'allOf']) for (const [i, branch] of (schema[keyword] ?? []).entries()) walk(branch, `${at}|${i}`);
    };
    for (const tool of catalog.tools) if (tool.requestBody) walk(tool.requestBody.schema, tool.name);
    expect(offenders).toEqual([]);
  });
});

describe('coverage', () => {
  it('every one of the 90 catalog tools was called successfully through the runtime', () => {
    expect(catalog.tools).toHaveLength(90);
    const missing = catalog.tools.map((tool) => tool.name).filter((name) => !covered.has(name));
    expect(missing, `tools never called successfully: ${missing.join(', ')}`).toEqual([]);
  });
});
