/**
 * How the OpenAPI emulator reads what public documents write loosely or against themselves, each one small:
 * an allOf is one object (whatever its parts say about null, and with required fields no part describes),
 * properties beside a union of objects, a schema written where a type belongs, `type: null` beside a union,
 * an allOf of a value and null, a schema inside a component that refers to itself, a wildcard content type
 * beside a named one, several operations on one method and path told apart by a #fragment, arrays of
 * objects in the query as JSON text per item, and a parameter within a path segment beating a bare one.
 * Each stays as strict as before everywhere else: an unknown field is still refused.
 */
import { clientFor, type Call } from '@quiver/test-support/json-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenApiEmulator, type OpenApiEmulator } from '../../src/index.js';

const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const answers = (schema: unknown) => ({ responses: { '200': { description: 'ok', ...json(schema) } } });

const document = {
  openapi: '3.0.3',
  info: { title: 'Readings', version: '1.0.0' },
  paths: {
    // allOf with a nullable object part (Asana's goal metric), in a request and an answer.
    '/goals': {
      post: {
        operationId: 'createGoal',
        requestBody: { required: true, ...json({ $ref: '#/components/schemas/Goal' }) },
        ...answers({ $ref: '#/components/schemas/Goal' }),
      },
    },
    // allOf whose required names one field no part describes (Codat's bank transaction line).
    '/lines': {
      post: {
        operationId: 'createLine',
        requestBody: {
          required: true,
          ...json({
            type: 'object',
            required: ['amount', 'date'],
            allOf: [{ type: 'object', properties: { amount: { type: 'number' } } }, { $ref: '#/components/schemas/Dates' }],
          }),
        },
        ...answers({ type: 'object', required: ['amount', 'date'], allOf: [{ type: 'object', properties: { amount: { type: 'number' } } }] }),
      },
    },
    // Properties beside a union of closed objects (Vercel's DNS records).
    '/records': {
      post: {
        operationId: 'createRecord',
        requestBody: {
          required: true,
          ...json({
            properties: { type: { type: 'string', enum: ['A', 'MX'] } },
            required: ['type'],
            anyOf: [
              {
                type: 'object',
                additionalProperties: false,
                required: ['type', 'name'],
                properties: { type: { type: 'string', enum: ['A'] }, name: { type: 'string' }, value: { type: 'string' } },
              },
              {
                type: 'object',
                additionalProperties: false,
                required: ['type', 'priority'],
                properties: { type: { type: 'string', enum: ['MX'] }, priority: { type: 'integer' } },
              },
            ],
          }),
        },
        responses: { '204': { description: 'done' } },
      },
    },
    // A schema written where the type belongs (Codat's item type).
    '/items': {
      post: {
        operationId: 'createItem',
        requestBody: { required: true, ...json({ $ref: '#/components/schemas/Item' }) },
        ...answers({ $ref: '#/components/schemas/Item' }),
      },
    },
    // `type: null` beside oneOf (Vercel's edge config values).
    '/values': {
      post: {
        operationId: 'setValue',
        requestBody: { required: true, ...json({ $ref: '#/components/schemas/Value' }) },
        ...answers({ $ref: '#/components/schemas/Value' }),
      },
    },
    // An allOf of a value and null (Codat's bill currency).
    '/bills': {
      post: {
        operationId: 'createBill',
        requestBody: { required: true, ...json({ $ref: '#/components/schemas/Bill' }) },
        ...answers({ $ref: '#/components/schemas/Bill' }),
      },
    },
    // A schema inside a component that refers to itself (Codat's push options).
    '/options': {
      post: {
        operationId: 'setOptions',
        requestBody: { required: true, ...json({ $ref: '#/components/schemas/Option/definitions/option' }) },
        ...answers({ $ref: '#/components/schemas/Option/definitions/option' }),
      },
    },
    // A wildcard content type beside multipart (Jira's column settings).
    '/columns': {
      put: {
        operationId: 'setColumns',
        requestBody: {
          content: {
            '*/*': { schema: { type: 'array', items: { type: 'string' } } },
            'multipart/form-data': { schema: { type: 'object', properties: { columns: { type: 'string' } } } },
          },
        },
        responses: { '204': { description: 'done' } },
      },
    },
    // A wildcard content type alone (Jira's avatars).
    '/avatars': {
      post: { operationId: 'storeAvatar', requestBody: { required: true, content: { '*/*': { schema: {} } } }, responses: { '204': { description: 'done' } } },
    },
    // One method and path, several operations told apart by a #fragment (Box's shared links).
    '/links/{id}': {
      put: {
        operationId: 'updateLink',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: json({ type: 'object', properties: { name: { type: 'string' } } }),
        ...answers({ type: 'object', properties: { id: { type: 'string' } } }),
      },
    },
    '/links/{id}#add_shared_link': {
      put: {
        operationId: 'addSharedLink',
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'fields', in: 'query', required: true, schema: { type: 'string' } },
        ],
        requestBody: json({ type: 'object', properties: { shared_link: { type: 'object', properties: { access: { type: 'string' } } } } }),
        ...answers({ type: 'object', properties: { id: { type: 'string' } } }),
      },
    },
    // An array of objects in the query (Box's search filters).
    '/search': {
      get: {
        operationId: 'search',
        parameters: [
          {
            name: 'filters',
            in: 'query',
            schema: { type: 'array', items: { type: 'object', properties: { scope: { type: 'string', enum: ['global', 'enterprise'] } } } },
          },
        ],
        ...answers({ type: 'object', properties: { total: { type: 'integer' } } }),
      },
    },
    // A parameter within a segment and a bare one at the same place (AEM's /{path}/{name}.rw.html).
    '/{path}/{name}': {
      post: {
        operationId: 'postNode',
        parameters: [
          { name: 'path', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'name', in: 'path', required: true, schema: { type: 'string' } },
        ],
        responses: { '204': { description: 'done' } },
      },
    },
    '/{path}/{name}.rw.html': {
      post: {
        operationId: 'postNodeRw',
        parameters: [
          { name: 'path', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'name', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'addMembers', in: 'query', schema: { type: 'string' } },
        ],
        responses: { '204': { description: 'done' } },
      },
    },
  },
  components: {
    schemas: {
      Goal: {
        allOf: [
          { $ref: '#/components/schemas/GoalBase' },
          {
            type: 'object',
            properties: {
              metric: { allOf: [{ $ref: '#/components/schemas/Metric' }, { nullable: true, type: 'object', properties: { can_manage: { type: 'boolean' } } }] },
            },
          },
        ],
      },
      GoalBase: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      Metric: { type: 'object', properties: { unit: { type: 'string', enum: ['none', 'currency'] } } },
      Dates: { allOf: [{ type: 'object', properties: { modified: { type: 'string', format: 'date-time' } } }] },
      Item: { type: 'object', required: ['kind'], properties: { kind: { type: { type: 'string', enum: ['Inventory', 'Service'] } } } },
      Value: { type: 'object', required: ['value'], properties: { value: { type: 'null', oneOf: [{ type: 'string' }, { type: 'number' }] } } },
      Bill: { type: 'object', required: ['currency'], properties: { currency: { allOf: [{ $ref: '#/components/schemas/Currency' }, { type: 'null' }] } } },
      Currency: { type: 'string', pattern: '^[A-Z]{3}$' },
      Option: {
        definitions: {
          option: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/components/schemas/Option/definitions/option' } } },
          },
        },
      },
    },
  },
};

describe('readings of loosely written documents', () => {
  let emulator: OpenApiEmulator;
  let call: Call;

  beforeAll(async () => {
    emulator = await startOpenApiEmulator({ document: structuredClone(document) });
    call = clientFor(emulator.url, 'quiver-sandbox-token');
  });
  afterAll(() => emulator.close());

  it('reads an allOf as one object, a nullable part included: fields of every part pass, unknown ones do not', async () => {
    const created = await call('POST', '/goals', { body: { name: 'Grow', metric: { unit: 'currency', can_manage: true } } });
    // The answer is made from the same schema: it carries fields of both parts of the metric.
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ name: expect.any(String), metric: { unit: expect.any(String), can_manage: expect.any(Boolean) } });
    expect((await call('POST', '/goals', { body: { name: 'Grow', metric: { unit: 'currency', colour: 'red' } } })).body.detail).toBe(
      'metric.colour is not a known field',
    );
  });

  it('takes a field an allOf requires though no part describes it, as any value; other unknown fields are refused', async () => {
    expect((await call('POST', '/lines', { body: { amount: 1, date: '2024-01-01', modified: '2024-01-01T00:00:00Z' } })).status).toBe(200);
    expect((await call('POST', '/lines', { body: { amount: 1 } })).body.detail).toBe('date is required');
    expect((await call('POST', '/lines', { body: { amount: 1, date: 'x', colour: 'red' } })).body.detail).toBe('colour is not a known field');
  });

  it('reads properties beside a union of objects as part of each variant', async () => {
    expect((await call('POST', '/records', { body: { type: 'A', name: 'www', value: '192.0.2.1' } })).status).toBe(204);
    expect((await call('POST', '/records', { body: { type: 'MX', priority: 10 } })).status).toBe(204);
    expect((await call('POST', '/records', { body: { type: 'A', name: 'www', priority: 10 } })).status).toBe(400);
    expect((await call('POST', '/records', { body: { type: 'TXT', name: 'www' } })).status).toBe(400);
  });

  it('reads a schema written where a type belongs as no type (any value)', async () => {
    expect((await call('POST', '/items', { body: { kind: 'Service' } })).status).toBe(200);
    expect((await call('POST', '/items', { body: { kind: 7 } })).status).toBe(200);
    expect((await call('POST', '/items', { body: { kind: 'Service', colour: 'red' } })).body.detail).toBe('colour is not a known field');
  });

  it('reads `type: null` beside a union as the union or null', async () => {
    for (const value of ['x', 2, null]) expect((await call('POST', '/values', { body: { value } })).status).toBe(200);
    expect((await call('POST', '/values', { body: { value: true } })).status).toBe(400);
  });

  it('reads an allOf of a value and null as that value or null', async () => {
    for (const currency of ['EUR', null]) expect((await call('POST', '/bills', { body: { currency } })).status).toBe(200);
    expect((await call('POST', '/bills', { body: { currency: 'euro' } })).status).toBe(400);
  });

  it('serves a schema inside a component that refers to itself, to any depth', async () => {
    expect(emulator.skipped).toEqual([]);
    const deep = { name: 'a', children: [{ name: 'b', children: [{ name: 'c', children: [{ name: 'd', children: [] }] }] }] };
    expect((await call('POST', '/options', { body: deep })).status).toBe(200);
    expect((await call('POST', '/options', { body: { name: 'a', children: [{ children: [] }] } })).body.detail).toBe('children[0].name is required');
  });

  it('takes what a wildcard content type allows beside multipart: JSON by its schema, and text', async () => {
    expect((await call('PUT', '/columns', { body: ['summary', 'status'] })).status).toBe(204);
    expect((await call('PUT', '/columns', { body: [1] })).body.detail).toBe('[0] must be a string');
    const form = new FormData();
    form.append('columns', 'summary');
    expect((await fetch(`${emulator.url}/columns`, { method: 'PUT', body: form })).status).toBe(204);
    expect((await call('PUT', '/columns', { rawBody: 'summary', headers: { 'content-type': 'text/plain' } })).status).toBe(204);
    expect((await call('POST', '/avatars', { body: { any: 'thing' } })).status).toBe(204);
    expect((await call('POST', '/avatars', { rawBody: '\x89PNG', headers: { 'content-type': 'image/png' } })).status).toBe(204);
  });

  it('serves each of several operations on one method and path told apart by a #fragment', async () => {
    expect(emulator.operations).toContain('addSharedLink');
    expect((await call('PUT', '/links/7', { body: { name: 'Docs' } })).status).toBe(200);
    expect((await call('PUT', '/links/7', { query: { fields: 'shared_link' }, body: { shared_link: { access: 'open' } } })).status).toBe(200);
    expect(emulator.requests.length).toBeGreaterThan(0);
    // Neither takes it: the first one's refusal.
    const refused = await call('PUT', '/links/7', { body: { colour: 'red' } });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toBe('colour is not a known field');
  });

  it('reads each item of an array of objects in the query as its JSON text', async () => {
    expect((await call('GET', '/search', { query: { filters: ['{"scope":"enterprise"}', '{"scope":"global"}'] } })).status).toBe(200);
    expect((await call('GET', '/search', { query: { filters: '{"scope":"nowhere"}' } })).status).toBe(400);
    expect((await call('GET', '/search', { query: { filters: 'scope' } })).status).toBe(400);
    expect((await call('GET', '/search', { query: { filters: '{"scope":"global","colour":"red"}' } })).status).toBe(400);
  });

  it('routes a path segment with a parameter within text before a bare parameter', async () => {
    expect((await call('POST', '/content/page.rw.html', { query: { addMembers: 'ada' } })).status).toBe(204);
    expect((await call('POST', '/content/page', { query: { addMembers: 'ada' } })).status).toBe(400);
  });
});
