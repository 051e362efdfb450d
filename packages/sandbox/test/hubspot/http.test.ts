import { request } from 'node:http';
import { clientFor } from '@quiver/test-support/json-client';
import { describe, expect, it } from 'vitest';
import { hubspotHandlers, startHubspotEmulator } from '../../src/hubspot/emulator.js';
import { formDefinition } from '../../src/hubspot/samples.js';
import { UUID, useEmulator } from './hubspot.helpers.js';

const hub = useEmulator(Date.UTC(2025, 0, 15));

const campaignCount = async () => (await hub.call('GET', '/marketing/v3/campaigns/')).body.total as number;

describe('auth', () => {
  it.each([
    ['no Authorization header', null],
    ['an empty bearer token', 'Bearer '],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
  ])('refuses %s with a HubSpot-style 401, before routing', async (_case, authorization) => {
    for (const path of ['/marketing/v3/campaigns/', '/no/such/path']) {
      const reply = await hub.call('GET', path, { headers: { authorization } });
      expect(reply.status).toBe(401);
      expect(reply.body).toMatchObject({ status: 'error', category: 'INVALID_AUTHENTICATION', message: expect.stringMatching(/Bearer/) });
      expect(reply.body.correlationId).toMatch(UUID);
    }
  });

  it('treats each issued token as its own app, numbered from 1000001 in order of first sight', async () => {
    hub.emulator.issueToken('token-a');
    hub.emulator.issueToken('token-b');
    const first = await clientFor(hub.emulator.url, 'token-a')('POST', '/marketing/v3/emails/', { body: { name: 'A' } });
    const second = await clientFor(hub.emulator.url, 'token-b')('POST', '/marketing/v3/emails/', { body: { name: 'B' } });
    expect(first.body.createdById).toBe('1000001');
    expect(second.body.createdById).toBe('1000002');
    expect(hub.emulator.appIdFor('token-a')).toBe(1000001);
    expect(hub.emulator.appIdFor('token-b')).toBe(1000002);
    expect(hub.emulator.appIdFor('token-c')).toBe(1000003);
    expect(hub.emulator.appIdFor('token-a')).toBe(1000001);
  });
});

describe('routing', () => {
  it('answers 404 for an unknown path and 405 for a known path with the wrong method', async () => {
    const unknown = await hub.call('GET', '/marketing/v3/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.body.category).toBe('OBJECT_NOT_FOUND');
    const wrongMethod = await hub.call('PATCH', '/marketing/v3/campaigns/batch/create', { body: {} });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body.message).toMatch(/allowed: POST/);
  });

  it('prefers literal segments to parameters', async () => {
    // POST /emails/clone is CloneCrmEmail (it wants an id), not an operation on an email named "clone".
    const clone = await hub.call('POST', '/marketing/v3/emails/clone', { body: {} });
    expect(clone.status).toBe(400);
    expect(clone.body.message).toBe('id is required');
    // GET has no literal route there, so it is GetMarketingEmailDetails for an email "clone".
    const get = await hub.call('GET', '/marketing/v3/emails/clone');
    expect(get.status).toBe(404);
    expect(get.body.message).toBe('email clone not found');
  });

  it('takes the path as sent: an encoded dot segment is a value, not a step up to another operation', async () => {
    const id = (await hub.call('POST', '/marketing/v3/campaigns/', { body: { properties: { hs_name: 'Stays' } } })).body.id;
    // fetch would resolve %2E%2E itself, so this request goes out through node:http untouched.
    const status = await new Promise<number>((resolve, reject) => {
      const { hostname, port } = new URL(hub.emulator.url);
      request(
        { hostname, port, method: 'DELETE', path: `/marketing/v3/campaigns/${id}/assets/FORM/%2E%2E`, headers: { authorization: 'Bearer test-token' } },
        (response) => {
          response.resume();
          resolve(response.statusCode!);
        },
      )
        .on('error', reject)
        .end();
    });
    expect(status).toBe(404);
    expect(hub.emulator.requests.at(-1)!.path).toBe(`/marketing/v3/campaigns/${id}/assets/FORM/%2E%2E`);
    expect((await hub.call('GET', `/marketing/v3/campaigns/${id}`)).status).toBe(200);
  });

  it('reads a trailing slash as insignificant', async () => {
    expect((await hub.call('GET', '/marketing/v3/campaigns')).status).toBe(200);
    expect((await hub.call('GET', '/marketing/v3/campaigns/')).status).toBe(200);
  });
});

describe('request validation', () => {
  const campaign = async () => (await hub.call('POST', '/marketing/v3/campaigns/', { body: { properties: { hs_name: 'Spring' } } })).body.id as string;

  it('rejects an unknown query parameter, naming it', async () => {
    const reply = await hub.call('GET', '/marketing/v3/campaigns/', { query: { foo: 'bar' } });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ status: 'error', category: 'VALIDATION_ERROR', message: "unknown query parameter 'foo'" });
    expect(reply.body.errors).toEqual([{ message: "unknown query parameter 'foo'", in: 'query', code: 'UNKNOWN_FIELD' }]);
    expect(reply.body.correlationId).toMatch(UUID);
  });

  it('rejects a mistyped query parameter and a missing required one', async () => {
    const mistyped = await hub.call('GET', '/marketing/v3/campaigns/', { query: { limit: 'ten' } });
    expect(mistyped.status).toBe(400);
    expect(mistyped.body.message).toBe("query parameter 'limit' must be an integer");
    const repeated = await hub.call('GET', '/marketing/v3/forms/', { query: { archived: ['true', 'false'] } });
    expect(repeated.status).toBe(400);
    expect(repeated.body.message).toBe("query parameter 'archived' must be a boolean");
    const missing = await hub.call('POST', '/marketing/v3/marketing-events/events/ev-1/cancel');
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe("query parameter 'externalAccountId' is required");
  });

  it('rejects a mistyped path parameter', async () => {
    const reply = await hub.call('GET', `/marketing/v3/campaigns/${await campaign()}/budget/first`);
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe("path parameter 'budgetId' must be an integer");
  });

  it('rejects missing, ill-typed and unknown body fields, naming the field', async () => {
    const id = await campaign();
    const missing = await hub.call('POST', '/marketing/v3/campaigns/batch/archive', { body: { inputs: [{ id }, { id }, { id }, {}] } });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe('inputs[3].id is required');
    expect(missing.body.errors[0]).toMatchObject({ in: 'body', code: 'REQUIRED' });

    const illTyped = await hub.call('POST', `/marketing/v3/campaigns/${id}/budget`, { body: { name: 'Ads', amount: '100', order: 1 } });
    expect(illTyped.status).toBe(400);
    expect(illTyped.body.message).toBe('amount must be a number');

    const unknown = await hub.call('POST', `/marketing/v3/campaigns/${id}/budget`, { body: { name: 'Ads', amount: 100, order: 1, currency: 'EUR' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe('currency is not a known field');

    const nested = await hub.call('POST', '/marketing/v4/email/single-send', { body: { emailId: 1, message: { to: 'a@example.com', subject: 'Hi' } } });
    expect(nested.status).toBe(400);
    expect(nested.body.message).toBe('message.subject is not a known field');

    // The campaign still has no budget: nothing refused reached the handler.
    const totals = await hub.call('GET', `/marketing/v3/campaigns/${id}/budget/totals`);
    expect(totals.body.budgetItems).toEqual([]);
  });

  it('names the failing field inside a union (a form field of the wrong shape)', async () => {
    const definition = formDefinition('Signup');
    delete (definition.fieldGroups[0]!.fields[1] as Record<string, unknown>).label;
    const reply = await hub.call('POST', '/marketing/v3/forms/', { body: definition });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('fieldGroups[0].fields[1].label is required');
  });

  it('rejects a body where the operation takes none, a missing body, bad JSON and a non-JSON content type', async () => {
    const email = (await hub.call('POST', '/marketing/v3/emails/', { body: { name: 'Welcome' } })).body.id;
    const unexpected = await hub.call('POST', `/marketing/v3/emails/${email}/publish`, { body: { now: true } });
    expect(unexpected.status).toBe(400);
    expect(unexpected.body.message).toBe('this operation takes no request body');

    const absent = await hub.call('POST', '/marketing/v3/campaigns/');
    expect(absent.status).toBe(400);
    expect(absent.body.message).toBe('request body is required');

    const badJson = await hub.call('POST', '/marketing/v3/campaigns/', { rawBody: '{"properties": ' });
    expect(badJson.status).toBe(400);
    expect(badJson.body.message).toBe('request body is not valid JSON');

    const form = await hub.call('POST', '/marketing/v3/campaigns/', {
      rawBody: 'properties=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    expect(form.body.message).toMatch(/content type must be application\/json/);
    expect(await campaignCount()).toBe(0);
  });
});

describe('request log', () => {
  it('records every request, refused ones too, without the authorization header', async () => {
    await hub.call('POST', '/marketing/v3/campaigns/', { body: { properties: { hs_name: 'Logged' } }, query: { extra: '1' } });
    await hub.call('GET', '/marketing/v3/campaigns/', { query: { properties: ['hs_name', 'hs_goal'] } });
    expect(hub.emulator.requests).toHaveLength(2);
    expect(hub.emulator.requests[0]).toMatchObject({
      method: 'POST',
      path: '/marketing/v3/campaigns/',
      query: { extra: '1' },
      body: { properties: { hs_name: 'Logged' } },
    });
    expect(hub.emulator.requests[0]!.headers['content-type']).toBe('application/json');
    expect(hub.emulator.requests[1]!.query).toEqual({ properties: ['hs_name', 'hs_goal'] });
    for (const request of hub.emulator.requests) expect(request.headers).not.toHaveProperty('authorization');
  });

  it('is emptied, with all state, by reset()', async () => {
    await hub.call('POST', '/marketing/v3/campaigns/', { body: { properties: { hs_name: 'Gone' } } });
    hub.emulator.reset();
    expect(hub.emulator.requests).toHaveLength(0);
    expect(await campaignCount()).toBe(0);
    // Seed records come back after a reset.
    expect(hub.emulator.db.prepare('SELECT email FROM contacts WHERE vid = 1001').get()).toEqual({ email: 'ada.lovelace@example.com' });
  });
});

describe('integrity', () => {
  it('runs each call as one transaction: a batch refused halfway leaves nothing behind', async () => {
    const reply = await hub.call('POST', '/marketing/v3/campaigns/batch/create', {
      body: { inputs: [{ properties: { hs_name: 'Kept?' } }, { properties: { hs_goal: 'no name' } }] },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('inputs[1].properties.hs_name is required');
    expect(await campaignCount()).toBe(0);
  });

  it('answers 500 when a handler breaks its response schema, instead of passing the body on', async () => {
    const label = 'get-/marketing/v3/transactional/smtp-tokens/{tokenId}_getTokenById';
    const original = hubspotHandlers[label]!;
    hubspotHandlers[label] = () => ({ status: 200, body: { id: 42 } });
    try {
      const reply = await hub.call('GET', '/marketing/v3/transactional/smtp-tokens/abc');
      expect(reply.status).toBe(500);
      expect(reply.body.message).toMatch(/breaks its schema/);
    } finally {
      hubspotHandlers[label] = original;
    }
  });

  it('refuses to start when an operation has no handler', async () => {
    const label = 'get-/marketing/v3/emails/statistics/list';
    const original = hubspotHandlers[label]!;
    delete hubspotHandlers[label];
    try {
      await expect(startHubspotEmulator()).rejects.toThrow(`no handler for ${label}`);
    } finally {
      hubspotHandlers[label] = original;
    }
  });
});
