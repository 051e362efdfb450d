/**
 * The emulator built from an OpenAPI document, driven over HTTP as a tool would drive it: routing, every
 * refusal (credentials of each scheme, path, query, header, cookie and body checks) as an RFC 9457 problem or
 * the document's own error shape, answers from examples or generated from the schemas (and valid against
 * the document's schemas by an independent validator), and create/read/update/delete kept consistent.
 */
import { clientFor, type Call, type Reply } from '@quiver/test-support/json-client';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOpenApiEmulator, type OpenApiEmulator } from '../../src/index.js';
import { petstore30, shop31 } from './fixtures.js';

const addFormats = addFormatsModule as unknown as FormatsPlugin;

/** Validates a body against the schema the document gives for an operation's response, with the document's own components. */
function documentValidator(document: any, version: '3.0' | '3.1') {
  const ajv = version === '3.1' ? new Ajv2020({ strict: false }) : new Ajv({ strict: false });
  addFormats(ajv);
  // OpenAPI 3.0's `nullable`, for the independent check of 3.0 documents.
  ajv.addSchema({ ...document, $id: 'doc' });
  return (path: string, method: string, status: string, body: unknown, contentType = 'application/json') => {
    const pointer = `doc#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}/responses/${status}`;
    let response = document.paths[path][method].responses[status];
    let ref = `${pointer}/content/${contentType.replace(/\//g, '~1')}/schema`;
    if (response.$ref) {
      ref = `doc${response.$ref}/content/${contentType.replace(/\//g, '~1')}/schema`;
      response = document.components.responses[response.$ref.split('/').at(-1)];
    }
    const validate = ajv.compile({ $ref: ref });
    const ok = validate(body);
    return ok ? undefined : validate.errors;
  };
}

const problemType = (reply: Reply) => reply.headers.get('content-type');

function expectProblem(reply: Reply, status: number, detail: RegExp) {
  expect(reply.status).toBe(status);
  expect(problemType(reply)).toBe('application/problem+json');
  expect(reply.body).toMatchObject({ type: 'about:blank', status, title: expect.any(String) });
  expect(reply.body.detail).toMatch(detail);
}

describe('OpenAPI 3.0 pet store (bearer, JSON, form, multipart)', () => {
  let emulator: OpenApiEmulator;
  let call: Call;
  const check = documentValidator(petstore30, '3.0');

  beforeAll(async () => {
    emulator = await startOpenApiEmulator({ document: structuredClone(petstore30), credentials: { bearerAuth: 'pet-token' } });
    call = clientFor(emulator.url, 'pet-token');
  });
  afterAll(() => emulator.close());
  beforeEach(() => emulator.reset());

  it('reports what it serves and the credential each scheme accepts', () => {
    expect(emulator.title).toBe('Pet Store');
    expect(emulator.operations).toEqual(['listPets', 'createPet', 'showPetById', 'deletePet', 'updatePet', 'uploadPhoto', 'login', 'getInventory']);
    expect(emulator.skipped).toEqual([]);
    expect(emulator.credentials).toEqual({ bearerAuth: 'pet-token' });
  });

  it('answers from the document example, valid against the schema', async () => {
    const reply = await call('GET', '/pets');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([{ id: 1, name: 'Rex', tag: 'dog', status: 'available' }]);
    expect(check('/pets', 'get', '200', reply.body)).toBeUndefined();
  });

  it('refuses a missing or wrong bearer token with 401, a problem and a challenge', async () => {
    const missing = await call('GET', '/pets/1', { headers: { authorization: null } });
    expectProblem(missing, 401, /requires credentials: send Authorization: Bearer <token> \(bearerAuth\)/);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="emulator"');
    expectProblem(await clientFor(emulator.url, 'other-token')('GET', '/pets/1'), 401, /not valid/);
    expectProblem(await call('GET', '/pets/1', { headers: { authorization: 'Basic cGV0LXRva2Vu' } }), 401, /requires credentials/);
  });

  it("shapes a refusal by the document's error schema where it declares one for the status (here `default`)", async () => {
    const refused = await call('GET', '/pets', { headers: { authorization: null } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('content-type')).toBe('application/json');
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="emulator"');
    expect(refused.body).toEqual({ code: 401, message: expect.stringMatching(/requires credentials/) });
    expect(check('/pets', 'get', 'default', refused.body)).toBeUndefined();
  });

  it('refuses unknown paths with 404 and other methods with 405 and Allow', async () => {
    expectProblem(await call('GET', '/owners'), 404, /no operation at \/owners/);
    const wrong = await call('PUT', '/pets');
    expectProblem(wrong, 405, /PUT is not allowed/);
    expect(wrong.headers.get('allow')).toBe('GET, POST');
  });

  it('checks path and query parameters: types, bounds, enums, unknown names; arrays as repeated keys', async () => {
    const badId = await call('GET', '/pets/abc');
    // The operation documents its own error shape for 400s only through `default`... showPetById has none: a problem.
    expectProblem(badId, 400, /path parameter 'petId' must be an integer/);
    expect(badId.body.errors).toEqual([expect.objectContaining({ in: 'path', code: 'INVALID_TYPE', field: 'petId' })]);
    // listPets documents `default` with its Error schema: refusals take that shape.
    const tooMany = await call('GET', '/pets', { query: { limit: 500 } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual({ code: 400, message: expect.stringMatching(/query parameter 'limit' must be <= 100/) });
    expect(check('/pets', 'get', 'default', tooMany.body)).toBeUndefined();
    expect((await call('GET', '/pets', { query: { status: 'lost' } })).body.message).toMatch(/must be one of: available, pending, sold/);
    expect((await call('GET', '/pets', { query: { colour: 'red' } })).body.message).toMatch(/unknown query parameter 'colour'/);
    expect((await call('GET', '/pets', { query: { tags: ['a', 'b'], limit: 5, status: 'sold' } })).status).toBe(200);
  });

  it('checks a JSON body against the request schema: required, types, unknown fields, content type', async () => {
    const missing = await call('POST', '/pets', { body: { tag: 'cat' } });
    expect(missing).toMatchObject({ status: 400, body: { code: 400, message: 'name is required' } });
    expect((await call('POST', '/pets', { body: { name: 'Tom', legs: 4 } })).body.message).toBe('legs is not a known field');
    expect((await call('POST', '/pets', { body: { name: 7 } })).body.message).toBe('name must be a string');
    expect((await call('POST', '/pets', { rawBody: '{"name":', headers: { 'content-type': 'application/json' } })).body.message).toMatch(/not valid JSON/);
    expect((await call('POST', '/pets', { rawBody: 'name=Tom', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    expect((await call('POST', '/pets')).status).toBe(400);
    // nullable (3.0) is honoured; the read-only id need not be sent.
    expect((await call('POST', '/pets', { body: { name: 'Tom', tag: null } })).status).toBe(201);
  });

  it('keeps create, read, update, delete and list consistent, and answers 404 in the document shape after a delete', async () => {
    const created = await call('POST', '/pets', { body: { name: 'Tom', tag: 'cat', status: 'pending' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: 1, name: 'Tom', tag: 'cat', status: 'pending' });
    expect(check('/pets', 'post', '201', created.body)).toBeUndefined();
    const second = await call('POST', '/pets', { body: { name: 'Kit' } });
    expect(second.body.id).toBe(2);
    expect(second.body.name).toBe('Kit');

    expect((await call('GET', '/pets/1')).body).toEqual(created.body);
    const listed = await call('GET', '/pets');
    expect(listed.body.map((pet: { name: string }) => pet.name)).toEqual(['Tom', 'Kit']);

    const updated = await call('PATCH', '/pets/1', { body: { status: 'sold' } });
    expect(updated.body).toEqual({ ...created.body, status: 'sold' });
    expect((await call('GET', '/pets/1')).body.status).toBe('sold');

    expect((await call('DELETE', '/pets/1')).status).toBe(204);
    const gone = await call('GET', '/pets/1');
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ code: 404, message: 'no pets with petId 1 (it was deleted)' });
    expect(check('/pets/{petId}', 'get', '404', gone.body)).toBeUndefined();
    expect((await call('DELETE', '/pets/1')).status).toBe(404);
    expect((await call('GET', '/pets')).body.map((pet: { name: string }) => pet.name)).toEqual(['Kit']);
  });

  it('answers an id nobody created with the documented item carrying that id, the same every time', async () => {
    const first = await call('GET', '/pets/42');
    expect(first.status).toBe(200);
    expect(first.body.id).toBe(42);
    expect(check('/pets/{petId}', 'get', '200', first.body)).toBeUndefined();
    expect((await call('GET', '/pets/42')).body).toEqual(first.body);
  });

  it('takes a form body (public operation), reading fields as their types', async () => {
    const form = (body: string) =>
      call('POST', '/login', { rawBody: body, headers: { authorization: null, 'content-type': 'application/x-www-form-urlencoded' } });
    const ok = await form('username=ada&password=secret&remember=true&ttl=60');
    expect(ok.status).toBe(200);
    expect(check('/login', 'post', '200', ok.body)).toBeUndefined();
    expectProblem(await form('username=ada'), 400, /password is required/);
    expectProblem(await form('username=ada&password=x&remember=maybe'), 400, /remember must be one of: true, false/);
    expectProblem(await form('username=ada&password=x&ttl=soon'), 400, /ttl must match pattern/);
    expectProblem(await form('username=ada&password=x&admin=1'), 400, /admin is not a known field/);
    expect((await call('POST', '/login', { body: { username: 'ada', password: 'x' }, headers: { authorization: null } })).status).toBe(415);
  });

  it('takes a multipart body with a file', async () => {
    const send = (form: FormData) => fetch(`${emulator.url}/pets/7/photos`, { method: 'POST', headers: { authorization: 'Bearer pet-token' }, body: form });
    const form = new FormData();
    form.append('file', new Blob(['\x89PNG...']), 'rex.png');
    form.append('caption', 'Rex at the beach');
    const ok = await send(form);
    expect(ok.status).toBe(201);
    const body = await ok.json();
    expect(check('/pets/{petId}/photos', 'post', '201', body)).toBeUndefined();
    const missing = new FormData();
    missing.append('caption', 'no file');
    const refused = await send(missing);
    expect(refused.status).toBe(400);
    expect((await refused.json()).detail).toBe('file is required');
    const long = new FormData();
    long.append('file', new Blob(['x']));
    long.append('caption', 'x'.repeat(41));
    expect((await send(long)).status).toBe(400);
  });

  it('checks required header and cookie parameters, and header types', async () => {
    const headers = { 'x-request-id': '3fa85f64-5717-4562-b3fc-2c963f66afa6', cookie: 'session=abc; theme=dark' };
    const ok = await call('GET', '/stores/st-001/inventory', { headers });
    expect(ok.status).toBe(200);
    expect(check('/stores/{storeId}/inventory', 'get', '200', ok.body)).toBeUndefined();
    expectProblem(await call('GET', '/stores/st-001/inventory', { headers: { ...headers, 'x-request-id': null } }), 400, /header 'x-request-id' is required/);
    expectProblem(
      await call('GET', '/stores/st-001/inventory', { headers: { ...headers, 'x-request-id': 'nope' } }),
      400,
      /header 'x-request-id' must match format "uuid"/,
    );
    expectProblem(await call('GET', '/stores/st-001/inventory', { headers: { ...headers, 'x-page-size': '500' } }), 400, /header 'x-page-size' must be <= 50/);
    expectProblem(await call('GET', '/stores/st-001/inventory', { headers: { ...headers, cookie: 'theme=dark' } }), 400, /cookie 'session' is required/);
    expectProblem(await call('GET', '/stores/st-1/inventory', { headers }), 400, /path parameter 'storeId' must match pattern/);
  });

  it('accepts tokens issued or granted later, and answers the same on a second emulator', async () => {
    emulator.grant('bearerAuth', 'second-token');
    expect((await clientFor(emulator.url, 'second-token')('GET', '/pets')).status).toBe(200);
    emulator.issueToken('issued-token');
    expect((await clientFor(emulator.url, 'issued-token')('GET', '/pets')).status).toBe(200);
    const twin = await startOpenApiEmulator({ document: structuredClone(petstore30), credentials: 'pet-token' });
    try {
      const twinCall = clientFor(twin.url, 'pet-token');
      for (const path of ['/pets/5', '/stores/st-002/inventory']) {
        const headers = { 'x-request-id': '3fa85f64-5717-4562-b3fc-2c963f66afa6', cookie: 'session=s' };
        expect((await twinCall('GET', path, { headers })).body).toEqual((await call('GET', path, { headers })).body);
      }
    } finally {
      await twin.close();
    }
  });
});

describe('OpenAPI 3.1 shop (API keys in header, query and cookie, Basic, OAuth 2)', () => {
  let emulator: OpenApiEmulator;
  const check = documentValidator(shop31, '3.1');
  const key = { 'x-api-key': 'shop-key', authorization: null };
  let call: Call;

  beforeAll(async () => {
    emulator = await startOpenApiEmulator({
      document: structuredClone(shop31),
      credentials: { apiKeyHeader: 'shop-key', apiKeyQuery: 'query-key', apiKeyCookie: 'cookie-key', basicAuth: 'admin:hunter2', oauth: 'oauth-token' },
    });
    call = clientFor(emulator.url);
  });
  afterAll(() => emulator.close());
  beforeEach(() => emulator.reset());

  it('takes an API key in a header, and refuses a missing or wrong one', async () => {
    expect((await call('GET', '/orders', { headers: key })).status).toBe(200);
    expectProblem(await call('GET', '/orders', { headers: { authorization: null } }), 401, /API key in header 'X-API-Key'/);
    expectProblem(await call('GET', '/orders', { headers: { ...key, 'x-api-key': 'nope' } }), 401, /not valid/);
    // A token of another scheme is no API key.
    expectProblem(await clientFor(emulator.url, 'shop-key')('GET', '/orders'), 401, /requires credentials/);
  });

  it('takes an API key in the query (not an unknown parameter), and refuses it elsewhere', async () => {
    const ok = await call('GET', '/reports/daily', { query: { day: '2024-03-01', api_key: 'query-key' }, headers: { authorization: null } });
    expect(ok.status).toBe(200);
    expect(check('/reports/daily', 'get', '200', ok.body)).toBeUndefined();
    expectProblem(await call('GET', '/reports/daily', { query: { day: '2024-03-01' }, headers: key }), 401, /API key in query parameter 'api_key'/);
    expectProblem(
      await call('GET', '/reports/daily', { query: { day: 'March', api_key: 'query-key' }, headers: { authorization: null } }),
      400,
      /query parameter 'day' must be a valid date/,
    );
  });

  it('takes an API key in a cookie', async () => {
    const ok = await call('GET', '/cart', { headers: { authorization: null, cookie: 'theme=dark; shop_session=cookie-key' } });
    expect(ok.status).toBe(200);
    expect(check('/cart', 'get', '200', ok.body)).toBeUndefined();
    expectProblem(await call('GET', '/cart', { headers: { authorization: null, cookie: 'shop_session=other' } }), 401, /not valid/);
  });

  it('takes Basic credentials, and answers text from its example', async () => {
    const basic = (pair: string) => `Basic ${Buffer.from(pair).toString('base64')}`;
    const ok = await call('GET', '/admin/stats', { headers: { authorization: basic('admin:hunter2') } });
    expect(ok).toMatchObject({ status: 200, body: 'orders=12' });
    expect(ok.headers.get('content-type')).toBe('text/plain');
    const wrong = await call('GET', '/admin/stats', { headers: { authorization: basic('admin:guess') } });
    expectProblem(wrong, 401, /not valid/);
    expect((await call('GET', '/admin/stats', { headers: { authorization: null } })).headers.get('www-authenticate')).toBe('Basic realm="emulator"');
  });

  it('takes an OAuth 2 bearer token or, as the alternative requirement, the API key; answers generated data', async () => {
    const byToken = await clientFor(emulator.url, 'oauth-token')('GET', '/me');
    expect(byToken.status).toBe(200);
    expect(byToken.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), email: 'user@example.com', kind: 'user', scopes: ['scope', 'scope-2'] });
    expect(check('/me', 'get', '200', byToken.body)).toBeUndefined();
    expect((await call('GET', '/me', { headers: key })).body).toEqual(byToken.body);
    expectProblem(await clientFor(emulator.url, 'shop-key')('GET', '/me'), 401, /not valid.*Bearer <token> \(oauth\), or the API key in header 'X-API-Key'/);
  });

  it('refuses an invalid body with 422 in the document error shape, as the document says', async () => {
    const refused = await call('POST', '/orders', { headers: key, body: { sku: 'BAD', quantity: 1 } });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ error: { message: expect.stringMatching(/sku must match pattern/), fields: expect.any(Array) } });
    expect(check('/orders', 'post', '422', refused.body)).toBeUndefined();
    expect((await call('POST', '/orders', { headers: key, body: { sku: 'SKU-1', quantity: 0 } })).status).toBe(422);
  });

  it('creates orders from the example with fresh ids in the id pattern, reads and lists them', async () => {
    const created = await call('POST', '/orders', { headers: key, body: { sku: 'SKU-77', quantity: 3, note: 'gift' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: 'ord_0001', sku: 'SKU-77', quantity: 3, state: 'open', note: 'gift' });
    expect(check('/orders', 'post', '201', created.body)).toBeUndefined();
    const second = await call('POST', '/orders', { headers: key, body: { sku: 'SKU-78', quantity: 1 } });
    expect(second.body.id).toBe('ord_0002');
    expect((await call('GET', '/orders/ord_0001', { headers: key })).body).toEqual(created.body);
    const page = await call('GET', '/orders', { headers: key, query: { 'filter[state]': 'open' } });
    expect(page.body.items.map((order: { id: string }) => order.id)).toEqual(['ord_0001', 'ord_0002']);
    expect(check('/orders', 'get', '200', page.body)).toBeUndefined();
    expectProblem(await call('GET', '/orders', { headers: key, query: { 'filter[state]': 'lost' } }), 400, /filter\[state\]/);
    expectProblem(await call('GET', '/orders/42', { headers: key }), 400, /must match pattern/);
  });

  it('refuses ids nobody created when told to', async () => {
    const strict = await startOpenApiEmulator({ document: structuredClone(shop31), credentials: 'k', unknownIds: 'not-found' });
    try {
      const reply = await clientFor(strict.url)('GET', '/orders/ord_0009', { headers: { 'x-api-key': 'k', authorization: null } });
      expectProblem(reply, 404, /no orders with orderId ord_0009/);
    } finally {
      await strict.close();
    }
  });
});

describe('starting', () => {
  it('refuses Swagger 2.0, unknown schemes in credentials, and serves on a given port', async () => {
    await expect(startOpenApiEmulator({ document: { swagger: '2.0', paths: {} } })).rejects.toThrow(/converted to OpenAPI 3/);
    await expect(startOpenApiEmulator({ document: structuredClone(petstore30), credentials: { apiKey: 'x' } })).rejects.toThrow(/no security scheme apiKey/);
    const probe = await startOpenApiEmulator({ document: structuredClone(petstore30) });
    const port = Number(new URL(probe.url).port);
    await probe.close();
    const fixed = await startOpenApiEmulator({ document: structuredClone(petstore30), port });
    try {
      expect(fixed.url).toBe(`http://127.0.0.1:${port}`);
      expect(fixed.credentials).toEqual({ bearerAuth: 'quiver-sandbox-token' });
      expect((await clientFor(fixed.url, 'quiver-sandbox-token')('GET', '/pets')).status).toBe(200);
    } finally {
      await fixed.close();
    }
  });
});
