/**
 * The Customer.io emulator over HTTP: Basic credentials and workspaces, the two regional hosts,
 * request validation against the operation table with Customer.io's error shapes, and the limits.
 */
import { describe, expect, it } from 'vitest';
import { basic, basicClient, CREDENTIALS, useEmulator } from './customerio.helpers.js';

const cio = useEmulator();

describe('credentials', () => {
  it('refuses a request without Basic credentials, or with a malformed pair', async () => {
    for (const authorization of [null, 'Bearer quiver-sandbox-token', `Basic ${Buffer.from('no-colon').toString('base64')}`, basic('site-1', '')]) {
      const reply = await basicClient(cio.emulator.url, authorization)('DELETE', '/api/v1/customers/ada');
      expect(reply.status).toBe(401);
      expect(reply.body.meta.error).toMatch(/^Unauthorized request/);
    }
  });

  it('makes a new site id a workspace and refuses it with another API key', async () => {
    expect((await cio.call('PUT', '/api/v1/customers/ada', { body: { plan: 'pro' } })).status).toBe(200);
    const workspace = cio.emulator.workspace(CREDENTIALS);
    expect(workspace.person('ada')?.attributes).toEqual({ plan: 'pro' });

    const wrong = await basicClient(cio.emulator.url, basic('site-1', 'key-2'))('PUT', '/api/v1/customers/ada', { body: { plan: 'free' } });
    expect(wrong).toMatchObject({ status: 401, body: { meta: { error: 'Unauthorized request: the API key does not belong to this site id' } } });
    expect(workspace.person('ada')?.attributes).toEqual({ plan: 'pro' });
  });

  it('accepts the sandbox token as an API key', async () => {
    cio.emulator.issueToken('quiver-sandbox:quiver-sandbox-token');
    const reply = await basicClient(cio.emulator.url, basic('quiver-sandbox', 'quiver-sandbox-token'))('GET', '/api/v1/accounts/region');
    expect(reply).toMatchObject({ status: 200, body: { region: 'us', url: 'https://track.customer.io' } });
  });
});

describe('regions', () => {
  it('serves both hosts; an EU workspace may call the US host but a US workspace not the EU host', async () => {
    const eu = cio.emulator.workspace({ siteId: 'site-eu', apiKey: 'key-eu', region: 'eu' });
    const euAuth = basic('site-eu', 'key-eu');
    for (const url of [cio.emulator.euUrl, cio.emulator.url]) {
      const reply = await basicClient(url, euAuth)('GET', '/api/v1/accounts/region');
      expect(reply).toMatchObject({ status: 200, body: { region: 'eu', url: 'https://track-eu.customer.io', environment_id: eu.environmentId } });
    }
    cio.emulator.workspace(CREDENTIALS);
    const refused = await basicClient(cio.emulator.euUrl, basic(CREDENTIALS.siteId, CREDENTIALS.apiKey))('GET', '/api/v1/accounts/region');
    expect(refused.status).toBe(401);
  });

  it('makes a site id first seen on the EU host an EU workspace', async () => {
    cio.emulator.issueToken('site-new:key-new');
    const reply = await basicClient(cio.emulator.euUrl, basic('site-new', 'key-new'))('GET', '/api/v1/accounts/region');
    expect(reply.body.region).toBe('eu');
    expect(cio.emulator.requests.map((request) => request.path)).toEqual(['/api/v1/accounts/region']);
  });
});

describe('request validation', () => {
  it('answers v1 errors as { meta: { error } } naming the field', async () => {
    const reply = await cio.call('PUT', '/api/v1/customers/ada/devices', { body: { device: { id: 't', platform: 'windows' } } });
    expect(reply).toMatchObject({ status: 400, body: { meta: { error: expect.stringContaining('device.platform') } } });
    const segment = await cio.call('POST', '/api/v1/segments/seven/add_customers', { body: { ids: ['a'] } });
    expect(segment).toMatchObject({ status: 400, body: { meta: { error: expect.stringContaining("path parameter 'segment_id'") } } });
    const idType = await cio.call('POST', '/api/v1/segments/1/add_customers', { query: { id_type: 'trk_id' }, body: { ids: ['a'] } });
    expect(idType.body.meta.error).toContain("query parameter 'id_type'");
  });

  it('answers v2 errors as { errors: [{ reason, field, message }] }', async () => {
    const reply = await cio.call('POST', '/api/v2/entity', { body: { type: 'person', identifiers: { trk_id: 'trk_abc' }, action: 'delete' } });
    expect(reply.status).toBe(400);
    expect(reply.body.errors).toEqual([expect.objectContaining({ message: expect.any(String), reason: expect.any(String) })]);
  });

  it('refuses more than 1000 segment ids per request', async () => {
    const segment = cio.emulator.workspace(CREDENTIALS).createSegment('Everyone');
    const ids = Array.from({ length: 1001 }, (_, i) => `p-${i}`);
    for (const action of ['add_customers', 'remove_customers']) {
      const reply = await cio.call('POST', `/api/v1/segments/${segment}/${action}`, { body: { ids } });
      expect(reply).toMatchObject({ status: 400, body: { meta: { error: 'ids must NOT have more than 1000 items' } } });
    }
    expect((await cio.call('POST', `/api/v1/segments/${segment}/add_customers`, { body: { ids: ids.slice(0, 1000) } })).status).toBe(200);
  });

  it('refuses a batch over 500 KB as a whole', async () => {
    const item = (n: number) => ({ type: 'person', identifiers: { id: `p-${n}` }, action: 'identify', attributes: { notes: 'x'.repeat(30_000) } });
    const reply = await cio.call('POST', '/api/v2/batch', { body: { batch: Array.from({ length: 18 }, (_, n) => item(n)) } });
    expect(reply).toMatchObject({ status: 413, body: { errors: [expect.objectContaining({ message: expect.stringContaining('512000') })] } });
    expect(cio.emulator.workspace(CREDENTIALS).people()).toEqual([]);
  });

  it('takes the unsubscribe body as optional', async () => {
    const workspace = cio.emulator.workspace(CREDENTIALS);
    await cio.call('PUT', '/api/v1/customers/ada', { body: {} });
    const delivery = workspace.sendMessage('ada');
    expect((await cio.call('POST', `/unsubscribe/${delivery}`)).status).toBe(200);
    expect(workspace.person('ada')!.attributes).toEqual({});
  });

  it('answers 404 for an unknown path and 405 for a wrong method', async () => {
    expect((await cio.call('GET', '/api/v1/customers/ada')).status).toBe(405);
    expect((await cio.call('GET', '/api/v1/nothing')).status).toBe(404);
  });
});
