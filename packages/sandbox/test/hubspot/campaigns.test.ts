import { describe, expect, it } from 'vitest';
import { formDefinition } from '../../src/hubspot/samples.js';
import { DAY, UUID, useEmulator } from './hubspot.helpers.js';

const hub = useEmulator(Date.UTC(2025, 0, 15));

async function createCampaign(properties: Record<string, string>): Promise<string> {
  const reply = await hub.call('POST', '/marketing/v3/campaigns/', { body: { properties } });
  expect(reply.status).toBe(201);
  return reply.body.id;
}

const campaignPath = (id: string) => `/marketing/v3/campaigns/${id}`;

describe('campaigns', () => {
  it('creates a campaign with a UUID and reads it back, whole or by selected properties', async () => {
    const created = await hub.call('POST', '/marketing/v3/campaigns/', { body: { properties: { hs_name: 'Spring', hs_goal: 'Leads', hs_notes: 'n' } } });
    expect(created.status).toBe(201);
    expect(created.body.id).toMatch(UUID);
    expect(created.body).toMatchObject({ properties: { hs_name: 'Spring', hs_goal: 'Leads' }, createdAt: expect.stringMatching(/^2025-01-15T00:00/) });

    const whole = await hub.call('GET', campaignPath(created.body.id));
    expect(whole.body.properties).toEqual({ hs_name: 'Spring', hs_goal: 'Leads', hs_notes: 'n' });
    const selected = await hub.call('GET', campaignPath(created.body.id), { query: { properties: ['hs_name', 'hs_notes'] } });
    expect(selected.body.properties).toEqual({ hs_name: 'Spring', hs_notes: 'n' });
  });

  it('requires hs_name', async () => {
    const reply = await hub.call('POST', '/marketing/v3/campaigns/', { body: { properties: { hs_goal: 'Leads' } } });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('properties.hs_name is required');
  });

  it('lists with a name filter, limit and after cursor, and sort', async () => {
    for (const name of ['Spring launch', 'Summer sale', 'Spring webinar', 'Autumn']) {
      await createCampaign({ hs_name: name });
      hub.emulator.clock.advance(1000);
    }
    const spring = await hub.call('GET', '/marketing/v3/campaigns/', { query: { name: 'spring' } });
    expect(spring.body.total).toBe(2);
    expect(spring.body.results.map((c: any) => c.properties.hs_name)).toEqual(['Spring launch', 'Spring webinar']);

    const first = await hub.call('GET', '/marketing/v3/campaigns/', { query: { limit: 3, sort: '-hs_name' } });
    expect(first.body.results.map((c: any) => c.properties.hs_name)).toEqual(['Summer sale', 'Spring webinar', 'Spring launch']);
    expect(first.body.total).toBe(4);
    const rest = await hub.call('GET', '/marketing/v3/campaigns/', { query: { limit: 3, sort: '-hs_name', after: first.body.paging.next.after } });
    expect(rest.body.results.map((c: any) => c.properties.hs_name)).toEqual(['Autumn']);
    expect(rest.body.paging).toBeUndefined();

    const newest = await hub.call('GET', '/marketing/v3/campaigns/', { query: { sort: '-createdAt', limit: 1 } });
    expect(newest.body.results[0].properties.hs_name).toBe('Autumn');
    const badSort = await hub.call('GET', '/marketing/v3/campaigns/', { query: { sort: 'hs_goal' } });
    expect(badSort.status).toBe(400);
    expect(badSort.body.message).toMatch(/^sort must be one of hs_name, createdAt, updatedAt/);
  });

  it('updates properties, an empty string resetting one', async () => {
    const id = await createCampaign({ hs_name: 'Spring', hs_goal: 'Leads', hs_notes: 'draft' });
    hub.emulator.clock.advance(DAY);
    const updated = await hub.call('PATCH', campaignPath(id), { body: { properties: { hs_goal: 'Revenue', hs_notes: '' } } });
    expect(updated.status).toBe(200);
    expect(updated.body.properties).toEqual({ hs_name: 'Spring', hs_goal: 'Revenue' });
    expect(updated.body.updatedAt).toMatch(/^2025-01-16T00:00/);
    expect((await hub.call('GET', campaignPath(id))).body.properties).toEqual({ hs_name: 'Spring', hs_goal: 'Revenue' });
    expect((await hub.call('PATCH', campaignPath('no-such-campaign'), { body: { properties: {} } })).status).toBe(404);
  });

  it('answers DELETE with 204 whether or not the campaign existed', async () => {
    const id = await createCampaign({ hs_name: 'Doomed' });
    const first = await hub.call('DELETE', campaignPath(id));
    expect(first.status).toBe(204);
    expect(first.body).toBeUndefined();
    expect((await hub.call('GET', campaignPath(id))).status).toBe(404);
    expect((await hub.call('DELETE', campaignPath(id))).status).toBe(204);
    expect((await hub.call('DELETE', campaignPath('0b0b0b0b-0000-4000-8000-000000000000'))).status).toBe(204);
  });
});

describe('campaign batches', () => {
  const inputs = (n: number, make: (i: number) => object) => ({ inputs: Array.from({ length: n }, (_, i) => make(i)) });

  it('creates up to 50 campaigns and refuses 51, naming the limit', async () => {
    const fifty = await hub.call('POST', '/marketing/v3/campaigns/batch/create', { body: inputs(50, (i) => ({ properties: { hs_name: `C${i}` } })) });
    expect(fifty.status).toBe(201);
    expect(fifty.body.status).toBe('COMPLETE');
    expect(fifty.body.results).toHaveLength(50);

    for (const operation of ['create', 'read', 'update', 'archive']) {
      const body = inputs(51, (i) =>
        operation === 'create' ? { properties: { hs_name: `D${i}` } } : operation === 'update' ? { id: 'x', properties: {} } : { id: 'x' },
      );
      const reply = await hub.call('POST', `/marketing/v3/campaigns/batch/${operation}`, { body });
      expect(reply.status, operation).toBe(400);
      expect(reply.body.message).toBe('inputs may hold at most 50 campaigns per batch; got 51');
    }
    expect((await hub.call('GET', '/marketing/v3/campaigns/')).body.total).toBe(50);
  });

  it('reads a batch, leaving out unknown ids', async () => {
    const a = await createCampaign({ hs_name: 'A', hs_goal: 'g' });
    const b = await createCampaign({ hs_name: 'B' });
    const reply = await hub.call('POST', '/marketing/v3/campaigns/batch/read', {
      body: { inputs: [{ id: b }, { id: 'missing' }, { id: a }] },
      query: { properties: 'hs_name' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.results.map((c: any) => [c.id, c.properties])).toEqual([
      [b, { hs_name: 'B' }],
      [a, { hs_name: 'A' }],
    ]);
  });

  it('updates a batch all or nothing, an empty string resetting a property', async () => {
    const a = await createCampaign({ hs_name: 'A', hs_goal: 'g' });
    const b = await createCampaign({ hs_name: 'B' });
    const updated = await hub.call('POST', '/marketing/v3/campaigns/batch/update', {
      body: {
        inputs: [
          { id: a, properties: { hs_goal: '' } },
          { id: b, properties: { hs_goal: 'new' } },
        ],
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.results.map((c: any) => c.properties)).toEqual([{ hs_name: 'A' }, { hs_name: 'B', hs_goal: 'new' }]);

    const refused = await hub.call('POST', '/marketing/v3/campaigns/batch/update', {
      body: {
        inputs: [
          { id: a, properties: { hs_goal: 'changed' } },
          { id: 'missing', properties: {} },
        ],
      },
    });
    expect(refused.status).toBe(404);
    expect((await hub.call('GET', campaignPath(a))).body.properties).toEqual({ hs_name: 'A' });
  });

  it('archives a batch answering only that it was processed', async () => {
    const a = await createCampaign({ hs_name: 'A' });
    const b = await createCampaign({ hs_name: 'B' });
    const keep = await createCampaign({ hs_name: 'Keep' });
    const reply = await hub.call('POST', '/marketing/v3/campaigns/batch/archive', { body: { inputs: [{ id: a }, { id: 'never-existed' }, { id: b }] } });
    expect(reply.status).toBe(204);
    expect(reply.body).toBeUndefined();
    const left = await hub.call('GET', '/marketing/v3/campaigns/');
    expect(left.body.results.map((c: any) => c.id)).toEqual([keep]);
  });
});

describe('budget and spend items', () => {
  it('creates, reads, updates and deletes budget items, and totals them with spend', async () => {
    const id = await createCampaign({ hs_name: 'Spring', hs_currency_code: 'EUR' });
    const ads = await hub.call('POST', `${campaignPath(id)}/budget`, { body: { name: 'Ads', amount: 1000, order: 2, description: 'Search ads' } });
    expect(ads.status).toBe(201);
    expect(ads.body).toMatchObject({ id: expect.stringMatching(/^\d+$/), name: 'Ads', amount: 1000, order: 2, description: 'Search ads' });
    const print = await hub.call('POST', `${campaignPath(id)}/budget`, { body: { name: 'Print', amount: 250.5, order: 1 } });
    const spend = await hub.call('POST', `${campaignPath(id)}/spend`, { body: { name: 'Ads week 1', amount: 300, order: 1 } });
    expect(spend.status).toBe(201);

    expect((await hub.call('GET', `${campaignPath(id)}/budget/${ads.body.id}`)).body.name).toBe('Ads');
    const replaced = await hub.call('PUT', `${campaignPath(id)}/budget/${ads.body.id}`, { body: { name: 'Search ads', amount: 1200, order: 2 } });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ name: 'Search ads', amount: 1200 });
    expect(replaced.body).not.toHaveProperty('description');

    const totals = await hub.call('GET', `${campaignPath(id)}/budget/totals`);
    expect(totals.body).toMatchObject({ budgetTotal: 1450.5, spendTotal: 300, remainingBudget: 1150.5, currencyCode: 'EUR' });
    expect(totals.body.budgetItems.map((item: any) => item.name)).toEqual(['Print', 'Search ads']);

    expect((await hub.call('DELETE', `${campaignPath(id)}/budget/${print.body.id}`)).status).toBe(204);
    expect((await hub.call('GET', `${campaignPath(id)}/budget/${print.body.id}`)).status).toBe(404);
    expect((await hub.call('DELETE', `${campaignPath(id)}/budget/${print.body.id}`)).status).toBe(404);
    expect((await hub.call('GET', `${campaignPath(id)}/budget/totals`)).body.budgetTotal).toBe(1200);
  });

  it('creates, reads, updates and removes spend items', async () => {
    const id = await createCampaign({ hs_name: 'Spring' });
    const spend = (await hub.call('POST', `${campaignPath(id)}/spend`, { body: { name: 'Venue', amount: 500, order: 1 } })).body;
    expect((await hub.call('GET', `${campaignPath(id)}/spend/${spend.id}`)).body).toMatchObject({ name: 'Venue', amount: 500 });
    const updated = await hub.call('PUT', `${campaignPath(id)}/spend/${spend.id}`, { body: { name: 'Venue', amount: 650, order: 1, description: 'deposit' } });
    expect(updated.body).toMatchObject({ amount: 650, description: 'deposit' });
    expect((await hub.call('GET', `${campaignPath(id)}/budget/totals`)).body).toMatchObject({
      spendTotal: 650,
      budgetTotal: 0,
      remainingBudget: -650,
      currencyCode: 'USD',
    });
    expect((await hub.call('DELETE', `${campaignPath(id)}/spend/${spend.id}`)).status).toBe(204);
    expect((await hub.call('GET', `${campaignPath(id)}/budget/totals`)).body.spendItems).toEqual([]);
  });

  it('keeps items to their campaign and their kind', async () => {
    const a = await createCampaign({ hs_name: 'A' });
    const b = await createCampaign({ hs_name: 'B' });
    const item = (await hub.call('POST', `${campaignPath(a)}/budget`, { body: { name: 'Ads', amount: 1, order: 1 } })).body;
    expect((await hub.call('GET', `${campaignPath(b)}/budget/${item.id}`)).status).toBe(404);
    expect((await hub.call('GET', `${campaignPath(a)}/spend/${item.id}`)).status).toBe(404);
    expect((await hub.call('POST', `${campaignPath('nope')}/budget`, { body: { name: 'Ads', amount: 1, order: 1 } })).status).toBe(404);
  });
});

describe('campaign assets', () => {
  it('associates forms, lists and web pages, lists them by type and disassociates them', async () => {
    const id = await createCampaign({ hs_name: 'Spring' });
    const form = (await hub.call('POST', '/marketing/v3/forms/', { body: formDefinition('Signup') })).body;
    expect((await hub.call('PUT', `${campaignPath(id)}/assets/FORM/${form.id}`)).status).toBe(204);
    expect((await hub.call('PUT', `${campaignPath(id)}/assets/OBJECT_LIST/501`)).status).toBe(204);
    expect((await hub.call('PUT', `${campaignPath(id)}/assets/EXTERNAL_WEB_URL/https%3A%2F%2Fexample.com%2Fspring`)).status).toBe(204);
    hub.emulator.submitForm(form.id, { email: 'ada.lovelace@example.com' });

    const forms = await hub.call('GET', `${campaignPath(id)}/assets/FORM`);
    expect(forms.body.results).toEqual([{ id: form.id, name: 'Signup', metrics: { SUBMISSIONS: 1 } }]);
    const pages = await hub.call('GET', `${campaignPath(id)}/assets/EXTERNAL_WEB_URL`);
    expect(pages.body.results).toEqual([{ id: 'https://example.com/spring', metrics: {} }]);

    const campaign = await hub.call('GET', campaignPath(id));
    expect(Object.keys(campaign.body.assets).sort()).toEqual(['EXTERNAL_WEB_URL', 'FORM', 'OBJECT_LIST']);
    expect(campaign.body.assets.OBJECT_LIST.results).toEqual([{ id: '501', name: 'Webinar registrants', metrics: {} }]);

    expect((await hub.call('DELETE', `${campaignPath(id)}/assets/OBJECT_LIST/501`)).status).toBe(204);
    expect((await hub.call('DELETE', `${campaignPath(id)}/assets/OBJECT_LIST/501`)).status).toBe(404);
    expect((await hub.call('GET', `${campaignPath(id)}/assets/OBJECT_LIST`)).body.results).toEqual([]);
  });

  it('accepts only FORM, OBJECT_LIST and EXTERNAL_WEB_URL, and only forms and lists that exist', async () => {
    const id = await createCampaign({ hs_name: 'Spring' });
    const badType = await hub.call('PUT', `${campaignPath(id)}/assets/LANDING_PAGE/123`);
    expect(badType.status).toBe(400);
    expect(badType.body.message).toBe('assetType must be one of FORM, OBJECT_LIST, EXTERNAL_WEB_URL');
    expect((await hub.call('GET', `${campaignPath(id)}/assets/EMAIL`)).status).toBe(400);
    expect((await hub.call('PUT', `${campaignPath(id)}/assets/FORM/no-such-form`)).status).toBe(404);
    expect((await hub.call('PUT', `${campaignPath(id)}/assets/OBJECT_LIST/999`)).status).toBe(404);
  });
});

describe('campaign reports', () => {
  it('computes contacts, attribution metrics and revenue from form submissions', async () => {
    const id = await createCampaign({ hs_name: 'Spring', hs_currency_code: 'GBP' });
    const campaignForm = (await hub.call('POST', '/marketing/v3/forms/', { body: formDefinition('Campaign form') })).body.id;
    const otherForm = (await hub.call('POST', '/marketing/v3/forms/', { body: formDefinition('Other form') })).body.id;
    await hub.call('PUT', `${campaignPath(id)}/assets/FORM/${campaignForm}`);

    // Ada: first touch elsewhere, last touch on the campaign. Grace: only the campaign.
    // Alan: campaign first, then elsewhere. A new visitor becomes contact 1006.
    hub.emulator.submitForm(otherForm, { email: 'ada.lovelace@example.com' });
    hub.emulator.clock.advance(DAY);
    hub.emulator.submitForm(campaignForm, { email: 'ada.lovelace@example.com' });
    hub.emulator.submitForm(campaignForm, { email: 'grace.hopper@example.com', firstname: 'Grace' });
    hub.emulator.submitForm(campaignForm, { email: 'alan.turing@example.com' });
    hub.emulator.clock.advance(DAY);
    hub.emulator.submitForm(otherForm, { email: 'alan.turing@example.com' });
    hub.emulator.submitForm(campaignForm, { email: 'new.visitor@example.com' });

    const ids = async (type: string, query = {}) =>
      (await hub.call('GET', `${campaignPath(id)}/reports/contacts/${type}`, { query })).body.results.map((r: any) => r.id);
    expect(await ids('influencedContacts')).toEqual(['1001', '1002', '1003', '1006']);
    expect(await ids('contactFirstTouch')).toEqual(['1002', '1003', '1006']);
    expect(await ids('contactLastTouch')).toEqual(['1001', '1002', '1006']);
    expect(await ids('influencedContacts', { endDate: '2025-01-16' })).toEqual(['1001', '1002', '1003']);
    const paged = await hub.call('GET', `${campaignPath(id)}/reports/contacts/influencedContacts`, { query: { limit: 3 } });
    expect(paged.body.paging.next.after).toBe('3');

    const metrics = await hub.call('GET', `${campaignPath(id)}/reports/metrics`);
    expect(metrics.body).toEqual({ sessions: 0, influencedContacts: 4, newContactsFirstTouch: 3, newContactsLastTouch: 3 });
    const windowed = await hub.call('GET', `${campaignPath(id)}/reports/metrics`, { query: { startDate: '2025-01-17' } });
    expect(windowed.body.influencedContacts).toBe(1);

    const revenue = await hub.call('GET', `${campaignPath(id)}/reports/revenue`, { query: { attributionModel: 'LINEAR' } });
    expect(revenue.body).toEqual({ contactsNumber: 4, dealsNumber: 0, dealAmount: 0, revenueAmount: 0, currencyCode: 'GBP' });
    expect((await hub.call('GET', `${campaignPath(id)}/reports/revenue`, { query: { attributionModel: 'MAGIC' } })).status).toBe(400);
    expect((await hub.call('GET', `${campaignPath(id)}/reports/contacts/everyone`)).status).toBe(400);
    expect((await hub.call('GET', `${campaignPath(id)}/reports/metrics`, { query: { startDate: 'yesterday' } })).status).toBe(400);
  });

  it('reports zeros and no contacts for a campaign with nothing recorded', async () => {
    const id = await createCampaign({ hs_name: 'Quiet' });
    expect((await hub.call('GET', `${campaignPath(id)}/reports/metrics`)).body).toEqual({
      sessions: 0,
      influencedContacts: 0,
      newContactsFirstTouch: 0,
      newContactsLastTouch: 0,
    });
    expect((await hub.call('GET', `${campaignPath(id)}/reports/contacts/influencedContacts`)).body).toEqual({ results: [] });
    expect((await hub.call('GET', `${campaignPath('missing')}/reports/metrics`)).status).toBe(404);
  });
});
