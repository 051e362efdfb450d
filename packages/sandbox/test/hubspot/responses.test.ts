/**
 * Drives every non-event operation over HTTP with state behind it, and checks each success against
 * the operation table on the client side: the status is the operation's success status and the body
 * validates against its response schema (objects closed, as the emulator reads requests).
 */
import { clientFor, TEST_TOKEN, type CallOptions, type Reply } from '@quiver/test-support/json-client';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClock } from '../../src/emulator/clock.js';
import { createRouter } from '../../src/emulator/router.js';
import { closeObjects } from '../../src/emulator/validation.js';
import { startHubspotEmulator, type HubspotEmulator } from '../../src/hubspot/emulator.js';
import { operationTable } from '../../src/hubspot/table.js';
import { formDefinition } from '../../src/hubspot/samples.js';

const addFormats = addFormatsModule as unknown as FormatsPlugin;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const $defs = Object.fromEntries(Object.entries(operationTable.$defs).map(([name, schema]) => [name, closeObjects(schema)]));
const validators = new Map<string, ValidateFunction>();
const route = createRouter(operationTable.operations);

let emulator: HubspotEmulator;
const checked = new Map<string, number>();

beforeAll(async () => {
  emulator = await startHubspotEmulator({ clock: createClock(Date.UTC(2025, 2, 1)) });
  emulator.issueToken(TEST_TOKEN);
});
afterAll(() => emulator.close());

/** Calls the emulator and checks a successful answer against the table. */
async function call(method: string, path: string, options?: CallOptions): Promise<Reply> {
  const reply = await clientFor(emulator.url)(method, path, options);
  const found = route(method, path);
  if (found.kind !== 'operation') throw new Error(`${method} ${path} names no operation`);
  const { label, operation } = found;
  expect(reply.status, `${label}: ${JSON.stringify(reply.body)}`).toBe(operation.successStatus);
  if (operation.responseBody) {
    let validate = validators.get(label);
    if (!validate) {
      validate = ajv.compile({ $defs, ...closeObjects(operation.responseBody) });
      validators.set(label, validate);
    }
    expect(validate(reply.body), `${label}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  } else {
    expect(reply.body, label).toBeUndefined();
  }
  checked.set(label, (checked.get(label) ?? 0) + 1);
  return reply;
}

describe('every response matches its schema', () => {
  it('for campaigns, budget, assets and reports', async () => {
    const campaigns = '/marketing/v3/campaigns';
    const id = (await call('POST', `${campaigns}/`, { body: { properties: { hs_name: 'Spring', hs_currency_code: 'EUR', hs_goal: 'Leads' } } })).body.id;
    await call('GET', `${campaigns}/`, { query: { name: 'spr', limit: 5, sort: '-createdAt', properties: ['hs_name'] } });
    await call('PATCH', `${campaigns}/${id}`, { body: { properties: { hs_goal: '' } } });
    const batch = await call('POST', `${campaigns}/batch/create`, { body: { inputs: [{ properties: { hs_name: 'B1' } }, { properties: { hs_name: 'B2' } }] } });
    const [b1, b2] = batch.body.results.map((c: any) => c.id);
    await call('POST', `${campaigns}/batch/update`, { body: { inputs: [{ id: b1, properties: { hs_notes: 'x' } }] } });

    const budget = (await call('POST', `${campaigns}/${id}/budget`, { body: { name: 'Ads', amount: 500, order: 1, description: 'Search' } })).body.id;
    await call('GET', `${campaigns}/${id}/budget/${budget}`);
    await call('PUT', `${campaigns}/${id}/budget/${budget}`, { body: { name: 'Ads', amount: 800, order: 1 } });
    const spend = (await call('POST', `${campaigns}/${id}/spend`, { body: { name: 'Week 1', amount: 120.5, order: 1 } })).body.id;
    await call('GET', `${campaigns}/${id}/spend/${spend}`);
    await call('PUT', `${campaigns}/${id}/spend/${spend}`, { body: { name: 'Week 1', amount: 130, order: 1, description: 'more' } });
    await call('GET', `${campaigns}/${id}/budget/totals`);

    const form = (await call('POST', '/marketing/v3/forms/', { body: formDefinition('Campaign form') })).body.id;
    await call('PUT', `${campaigns}/${id}/assets/FORM/${form}`);
    await call('PUT', `${campaigns}/${id}/assets/OBJECT_LIST/502`);
    await call('PUT', `${campaigns}/${id}/assets/EXTERNAL_WEB_URL/page-1`);
    emulator.submitForm(form, { email: 'ada.lovelace@example.com', firstname: 'Ada' });
    await call('GET', `${campaigns}/${id}/assets/FORM`, { query: { limit: '10', startDate: '2025-01-01', endDate: '2025-12-31' } });
    await call('GET', `${campaigns}/${id}`, { query: { properties: ['hs_name', 'hs_currency_code'], startDate: '2025-01-01' } });
    await call('POST', `${campaigns}/batch/read`, { body: { inputs: [{ id }, { id: b2 }] }, query: { properties: 'hs_name' } });
    await call('GET', `${campaigns}/${id}/reports/contacts/influencedContacts`, { query: { limit: 10 } });
    await call('GET', `${campaigns}/${id}/reports/metrics`, { query: { startDate: '2025-01-01', endDate: '2025-12-31' } });
    await call('GET', `${campaigns}/${id}/reports/revenue`, { query: { attributionModel: 'FIRST_INTERACTION' } });

    await call('DELETE', `${campaigns}/${id}/assets/OBJECT_LIST/502`);
    await call('DELETE', `${campaigns}/${id}/spend/${spend}`);
    await call('DELETE', `${campaigns}/${id}/budget/${budget}`);
    await call('POST', `${campaigns}/batch/archive`, { body: { inputs: [{ id: b1 }, { id: b2 }] } });
    await call('DELETE', `${campaigns}/${id}`);
  });

  it('for forms', async () => {
    const forms = '/marketing/v3/forms';
    const form = (await call('POST', `${forms}/`, { body: formDefinition('Signup') })).body;
    await call('GET', `${forms}/${form.id}`);
    await call('GET', `${forms}/`, { query: { limit: 10, formTypes: ['hubspot'] } });
    await call('PUT', `${forms}/${form.id}`, { body: { ...formDefinition('Signup v2'), id: form.id } });
    await call('PATCH', `${forms}/${form.id}`, {
      body: { name: 'Signup v3', legalConsentOptions: { type: 'legitimate_interest', lawfulBasis: 'lead', privacyText: 'p', subscriptionTypeIds: [1] } },
    });
    await call('DELETE', `${forms}/${form.id}`);
    await call('GET', `${forms}/${form.id}`, { query: { archived: true } });
    await call('GET', `${forms}/`, { query: { archived: true } });
  });

  it('for marketing emails, sends and statistics', async () => {
    const emails = '/marketing/v3/emails';
    const body = {
      name: 'Welcome',
      subject: 'Hello',
      language: 'en',
      businessUnitId: 3,
      campaign: 'campaign-1',
      from: { fromName: 'Team', replyTo: 'team@example.com' },
      to: { contactIds: { include: ['1001'] }, limitSendFrequency: true },
      content: { plainTextVersion: 'Hello!', styleSettings: { backgroundColor: '#ffffff' } },
      subscriptionDetails: { subscriptionId: '7' },
      webversion: { enabled: false },
      testing: { abTestPercentage: 50 },
      subcategory: 'batch',
      sendOnPublish: false,
    };
    const id = (await call('POST', `${emails}/`, { body })).body.id;
    await call('GET', `${emails}/`);
    await call('GET', `${emails}/${id}`);
    await call('PATCH', `${emails}/${id}`, { body: { subject: 'Hello v2' } });
    await call('GET', `${emails}/${id}/draft`);
    await call('PATCH', `${emails}/${id}/draft`, { body: { subject: 'Draft' } });
    await call('POST', `${emails}/${id}/draft/reset`);
    await call('GET', `${emails}/${id}/revisions`);
    await call('GET', `${emails}/${id}/revisions/1`);
    await call('POST', `${emails}/${id}/revisions/1/restore-to-draft`);
    await call('POST', `${emails}/${id}/revisions/1/restore`);
    await call('POST', `${emails}/${id}/publish`);
    await call('POST', '/marketing/v4/email/single-send', {
      body: { emailId: Number(id), message: { to: 'ada@example.com', cc: ['b@example.com'] }, customProperties: { plan: {} } },
    });
    await call('POST', '/marketing/v3/transactional/single-email/send', {
      body: { emailId: Number(id), message: { to: 'grace@example.com', sendId: 's-1' }, contactProperties: { firstname: 'Grace' } },
    });
    await call('GET', `${emails}/statistics/list`);
    await call('GET', `${emails}/statistics/histogram`);
    await call('POST', `${emails}/${id}/unpublish`);
    const clone = (await call('POST', `${emails}/clone`, { body: { id, cloneName: 'Copy', language: 'de' } })).body.id;
    const variation = (await call('POST', `${emails}/ab-test/create-variation`, { body: { contentId: clone, variationName: 'Copy B' } })).body.id;
    await call('GET', `${emails}/${variation}/ab-test/get-variation`);
    await call('GET', `${emails}/${clone}/ab-test/get-variation`);
    await call('DELETE', `${emails}/${variation}`);
  });

  it('for SMTP tokens', async () => {
    const tokens = '/marketing/v3/transactional/smtp-tokens';
    const token = (await call('POST', tokens, { body: { campaignName: 'Receipts', createContact: true } })).body;
    await call('GET', `${tokens}/${token.id}`);
    await call('GET', tokens, { query: { campaignName: 'Receipts', limit: 10 } });
    await call('POST', `${tokens}/${token.id}/password-reset`);
    await call('DELETE', `${tokens}/${token.id}`);
  });

  it('covered every operation outside marketing events', () => {
    const expected = Object.entries(operationTable.operations)
      .filter(([, operation]) => !operation.path.startsWith('/marketing/v3/marketing-events'))
      .map(([label]) => label)
      .sort();
    expect(expected).toHaveLength(56);
    expect([...checked.keys()].sort()).toEqual(expected);
  });
});
