/**
 * End-to-end tests of every CommerceTools tool through the real dispatcher. The toolkit has no upstream:
 * the lookups read its static data and the two mode-driven tools keep users and orders in its SQLite
 * store, here a file in a temporary directory, which a second connection counts to prove that a refused
 * call stored nothing. The last test checks that all six tools were called successfully.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { UpstreamClient, type ToolError } from '@quiver/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommerceTools, openCommerceStore, type CommerceStore } from '../src/commerce/index.js';
import { ToolClient } from './tool-client.helpers.js';
import { builtinToolkitsFor } from '../src/index.js';

// Ids from the shop's static data.
const MAYA = { id: '0372b1bb-5ae6-4c91-837d-797114c89c70', email: 'maya.patel@example.com' }; // gold, San Francisco
const NOAH = { id: 'ca33b83d-e957-4bd7-97c0-ff99daaf9c14', email: 'noah.williams@example.com' }; // bronze, Boston
const TEE = 'e6799f48-e73a-4564-aa32-e4a0f5fdb5a3'; // 24.00, size and color required
const MUG = '10e2a090-de27-41c1-842d-078e0afbdba7'; // 16.00, Kitchen, color required, engraving up to 20
const SKILLET = 'da47e455-8426-41e4-9ac9-ec3c39b34cad'; // 45.00, Kitchen, no customizations
const HEADPHONES = '6780608d-a2fc-4f14-a3e1-91450e6ebd56'; // 229.00, color required
const PEN = '9033a1c8-0072-4769-a2b9-974abb49ab64'; // 75.00, nib and finish required
const NOTEBOOK = '0e60a7b6-0d5e-4dbd-9a76-0e7d6de8520e'; // 19.00, Stationery

const covered = new Set<string>();
let directory: string;
let file: string;
let store: CommerceStore;
let counter: Database.Database;
let client: UpstreamClient;
let runtime: ToolClient;

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'quiver-commerce-'));
  file = join(directory, 'commerce.db');
  store = openCommerceStore(file);
  counter = new Database(file, { readonly: true });
  client = new UpstreamClient({ maxRetries: 0 });
  runtime = runtimeOn(store);
});

afterAll(async () => {
  counter?.close();
  store?.close();
  await client?.close();
  rmSync(directory, { recursive: true, force: true });
});

/** The shop on this store. No upstream: the client is never used. */
const runtimeOn = (on?: CommerceStore) => new ToolClient(createCommerceTools(on && { store: on }), { covered, client });

const call = (tool: string, input: Record<string, unknown> = {}, through = runtime) => through.call(tool, input);

/** A lookup's string output, parsed. */
async function lookup(tool: string, input: Record<string, unknown> = {}, through = runtime): Promise<any> {
  const value = await call(tool, input, through);
  expect(typeof value).toBe('string');
  return JSON.parse(value as string);
}

const fail = (tool: string, input: unknown): Promise<ToolError> => runtime.fail(tool, input);

const rows = () => ({
  users: (counter.prepare('SELECT count(*) AS n FROM users').get() as { n: number }).n,
  orders: (counter.prepare('SELECT count(*) AS n FROM orders').get() as { n: number }).n,
});

/** The error of a call that must fail and must store nothing. */
async function refused(tool: string, input: unknown): Promise<ToolError> {
  const before = rows();
  const error = await fail(tool, input);
  expect(rows(), 'users and orders stored').toEqual(before);
  return error;
}

/** A mode-driven call the shop refuses: RETRY, naming each JSON pointer, nothing stored. */
async function expectRetry(tool: string, input: Record<string, unknown>, pointers: string[]): Promise<ToolError> {
  const error = await refused(tool, input);
  expect(error.kind).toBe('TOOL_RUNTIME_RETRY');
  expect(error.can_retry).toBe(true);
  for (const pointer of pointers) expect(error.message).toContain(`${pointer} (`);
  expect(error.additional_prompt_content).toBeTruthy();
  return error;
}

const orderParams = { priority: 'normal', notification_email: 'orders@example.com' };
const placeOrder = (body: unknown, params: Record<string, unknown> = orderParams, through = runtime) =>
  call('CreateOrder', { mode: 'execute', ...params, request_body: JSON.stringify(body) }, through);
const orderRetry = (body: unknown, pointers: string[], params: Record<string, unknown> = orderParams) =>
  expectRetry('CreateOrder', { mode: 'execute', ...params, request_body: JSON.stringify(body) }, pointers);

/** A valid order for Maya, to which each refusal test makes one change. */
const mayasOrder = (change: Record<string, unknown> = {}) => ({
  customer_id: MAYA.id,
  items: [{ product_id: TEE, quantity: 1, customizations: { size: 'M', color: 'navy' } }],
  shipping: { method: 'standard' },
  ...change,
});

let sequence = 0;
const newEmail = (name: string) => `${name}.${++sequence}.${Math.random().toString(36).slice(2, 8)}@example.com`;
const createUser = (body: Record<string, unknown>, through = runtime) => call('CreateUser', { mode: 'execute', request_body: JSON.stringify(body) }, through);

// ------------------------------------------------------------------------------------------------

describe('the catalog', () => {
  const toolkit = createCommerceTools();

  it('has the six tools with exactly the spec parameters', () => {
    const shape = Object.fromEntries(
      toolkit.tools.map((tool) => [tool.name, tool.parameters.map((p) => [p.name, p.schema.type, p.required, p.schema.enum ?? null])]),
    );
    const modes = ['get_request_schema', 'execute'];
    expect(shape).toEqual({
      CreateOrder: [
        ['mode', 'string', true, modes],
        ['priority', 'string', false, ['low', 'normal', 'high', 'urgent']],
        ['notification_email', 'string', false, null],
        ['request_body', 'string', false, null],
        ['gift_message', 'string', false, null],
      ],
      CreateUser: [
        ['mode', 'string', true, modes],
        ['request_body', 'string', false, null],
      ],
      GetAvailableProducts: [],
      GetCustomerInfo: [['customer_email', 'string', true, null]],
      GetDiscountCodes: [],
      GetShippingRates: [['country_code', 'string', true, null]],
    });
  });

  it('needs no credentials, has no upstream binding, and marks the lookups read-only', () => {
    for (const tool of toolkit.tools) {
      expect(tool.requirements, tool.name).toEqual({});
      expect(tool.http, tool.name).toBeUndefined();
      expect(tool.handler, tool.name).toBeTypeOf('function');
      expect(tool.description.length, tool.name).toBeGreaterThan(40);
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(tool.name.startsWith('Get'));
      expect(tool.annotations?.openWorldHint, tool.name).toBe(false);
    }
    expect(toolkit.tools.filter((tool) => tool.requestBody).map((tool) => tool.name)).toEqual(['CreateOrder', 'CreateUser']);
  });

  it('creates no store file until a tool needs one, then uses commerce.db in the data directory', async () => {
    const dataDir = join(directory, 'data-dir');
    const [byDefault] = builtinToolkitsFor({ dataDir }).filter((toolkit) => toolkit.name === 'CommerceTools');
    const runtime = new ToolClient(byDefault!, { covered, client });
    await lookup('GetAvailableProducts', {}, runtime);
    expect(existsSync(dataDir)).toBe(false);
    const user = await createUser({ email: newEmail('default.store'), first_name: 'Dee', last_name: 'Fault' }, runtime);
    expect(existsSync(join(dataDir, 'commerce.db'))).toBe(true);
    const reader = new Database(join(dataDir, 'commerce.db'), { readonly: true });
    expect(reader.prepare('SELECT id FROM users').all()).toEqual([{ id: user.id }]);
    reader.close();
  });

  it('names the store file when it cannot be opened', async () => {
    const blocked = join(directory, 'not-a-directory');
    writeFileSync(blocked, 'a file where the data directory should be');
    const runtime = new ToolClient(createCommerceTools({ store: join(blocked, 'commerce.db') }), { client });
    const result = await runtime.attempt('GetCustomerInfo', { customer_email: 'nobody@example.com' });
    expect(result).toMatchObject({ error: { kind: 'TOOL_RUNTIME_FATAL' } });
    expect(JSON.stringify(result)).toContain(`CommerceTools cannot open its store ${join(blocked, 'commerce.db')}`);
  });
});

describe('GetAvailableProducts', () => {
  it('lists the products with UUIDs, categories, prices and customizations', async () => {
    const answer = await lookup('GetAvailableProducts');
    expect(answer.currency).toBe('USD');
    expect(answer.products).toHaveLength(36);
    expect(new Set(answer.products.map((p: any) => p.id)).size).toBe(36);
    for (const product of answer.products) {
      expect(product.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(['Apparel', 'Kitchen', 'Home', 'Stationery', 'Electronics', 'Outdoor']).toContain(product.category);
      expect(product.price).toBeGreaterThan(0);
      for (const customization of product.customizations) expect(Boolean(customization.options) !== Boolean(customization.max_length)).toBe(true);
    }
    expect(answer.products.find((p: any) => p.id === TEE)).toEqual({
      id: TEE,
      name: 'Classic Cotton Tee',
      category: 'Apparel',
      description: 'Heavyweight organic cotton T-shirt with a relaxed fit.',
      price: 24,
      customizations: [
        { name: 'size', required: true, options: ['XS', 'S', 'M', 'L', 'XL', 'XXL'] },
        { name: 'color', required: true, options: ['black', 'white', 'heather grey', 'navy'] },
      ],
    });
  });

  it('takes no parameters', async () => {
    const error = await fail('GetAvailableProducts', { category: 'Kitchen' });
    expect(error.kind).toBe('TOOL_RUNTIME_BAD_INPUT_VALUE');
    expect(error.message).toContain("parameter 'category' is not a known field");
  });
});

describe('GetDiscountCodes', () => {
  it('lists the active codes with descriptions, percentages and conditions, and not the ended one', async () => {
    const answer = await lookup('GetDiscountCodes');
    expect(answer.discount_codes).toEqual([
      { code: 'WELCOME10', description: '10% off any order.', percentage: 10 },
      { code: 'SPRING20', description: '20% off orders with a subtotal of 100.00 USD or more.', percentage: 20, min_subtotal: 100 },
      { code: 'KITCHEN15', description: '15% off Kitchen products.', percentage: 15, category: 'Kitchen' },
      { code: 'GOLD25', description: '25% off for gold loyalty members.', percentage: 25, loyalty_tier: 'gold' },
    ]);
  });
});

describe('GetShippingRates', () => {
  it('answers the options of a country with cost and delivery time', async () => {
    const answer = await lookup('GetShippingRates', { country_code: 'US' });
    expect(answer).toEqual({
      country_code: 'US',
      country: 'United States',
      currency: 'USD',
      options: [
        { method: 'standard', cost: 5.99, min_days: 3, max_days: 5, delivery_time: '3-5 business days' },
        { method: 'express', cost: 12.99, min_days: 1, max_days: 2, delivery_time: '1-2 business days' },
        { method: 'overnight', cost: 24.99, min_days: 1, max_days: 1, delivery_time: '1 business day' },
      ],
    });
  });

  it('offers international and express abroad, and takes a lower-case code', async () => {
    const answer = await lookup('GetShippingRates', { country_code: 'jp' });
    expect(answer.country).toBe('Japan');
    expect(answer.options.map((o: any) => [o.method, o.cost, o.delivery_time])).toEqual([
      ['international', 24.99, '8-14 business days'],
      ['express', 44.99, '3-5 business days'],
    ]);
    const brazil = await lookup('GetShippingRates', { country_code: 'BR' });
    expect(brazil.options.map((o: any) => o.method)).toEqual(['international']);
  });

  it('answers a country the shop does not ship to with the countries it does', async () => {
    const error = await fail('GetShippingRates', { country_code: 'AQ' });
    expect(error.kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');
    expect(error.message).toContain('does not ship to AQ');
    expect(error.message).toContain('US, CA, MX, GB');
  });

  it('refuses a code that is not two letters, or none', async () => {
    for (const input of [{ country_code: 'USA' }, { country_code: 'U1' }, {}, { country_code: 1 }]) {
      const error = await fail('GetShippingRates', input);
      expect(error.kind).toBe('TOOL_RUNTIME_BAD_INPUT_VALUE');
      expect(error.message).toContain("parameter 'country_code'");
    }
  });
});

describe('GetCustomerInfo', () => {
  it('answers a customer of the shop with UUID, profile, preferences and orders', async () => {
    const answer = await lookup('GetCustomerInfo', { customer_email: NOAH.email });
    expect(answer).toMatchObject({
      id: NOAH.id,
      email: NOAH.email,
      profile: { first_name: 'Noah', last_name: 'Williams', loyalty_tier: 'bronze', address: { city: 'Boston', country: 'US' } },
      preferences: { newsletter: false, preferred_categories: ['Electronics'], preferred_shipping: 'standard', contact_channel: 'sms' },
      orders: [],
    });
  });

  it('ignores the case of the address', async () => {
    expect((await lookup('GetCustomerInfo', { customer_email: 'Maya.Patel@Example.COM' })).id).toBe(MAYA.id);
  });

  it('answers an unknown address as not found', async () => {
    const error = await fail('GetCustomerInfo', { customer_email: 'nobody@example.com' });
    expect(error.kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');
    expect(error.message).toContain('nobody@example.com');
    expect(error.message).toContain('CreateUser');
  });

  it('refuses a value that is not an email address, or none', async () => {
    for (const input of [{ customer_email: 'maya.patel' }, {}, { customer_email: ['maya.patel@example.com'] }]) {
      const error = await fail('GetCustomerInfo', input);
      expect(error.kind).toBe('TOOL_RUNTIME_BAD_INPUT_VALUE');
      expect(error.message).toContain("parameter 'customer_email'");
    }
  });
});

describe('CreateUser', () => {
  it('returns its request schema and stores nothing', async () => {
    const before = rows();
    const answer = await call('CreateUser', { mode: 'get_request_schema' });
    expect(answer.request_body_schema).toMatchObject({
      type: 'object',
      required: ['email', 'first_name', 'last_name'],
      additionalProperties: false,
      properties: {
        email: { type: 'string', format: 'email' },
        preferences: { properties: { preferred_shipping: { enum: ['standard', 'express', 'overnight', 'international'] } } },
      },
    });
    expect(answer.instructions).toContain('mode "execute"');
    expect(rows()).toEqual(before);
  });

  it('registers a customer that GetCustomerInfo then finds', async () => {
    const email = newEmail('Grace.Hopper');
    const user = await createUser({
      email,
      first_name: 'Grace',
      last_name: 'Hopper',
      phone: '+12025550123',
      address: { line1: '1 Navy Way', city: 'Arlington', region: 'VA', postal_code: '22202', country: 'US' },
      preferences: { newsletter: true, preferred_categories: ['Electronics', 'Stationery'] },
    });
    expect(user.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(user).toMatchObject({
      email: email.toLowerCase(),
      profile: { first_name: 'Grace', last_name: 'Hopper', phone: '+12025550123', loyalty_tier: 'bronze', member_since: new Date().toISOString().slice(0, 10) },
      // What the body leaves out takes its default.
      preferences: { newsletter: true, preferred_categories: ['Electronics', 'Stationery'], preferred_shipping: 'standard', contact_channel: 'email' },
    });
    expect(await lookup('GetCustomerInfo', { customer_email: email.toUpperCase() })).toEqual({ ...user, orders: [] });
  });

  it('refuses an address that belongs to a customer, created or static, and stores nothing', async () => {
    const email = newEmail('twice');
    await createUser({ email, first_name: 'Twice', last_name: 'Over' });
    for (const taken of [email, email.toUpperCase(), MAYA.email]) {
      const error = await expectRetry('CreateUser', { mode: 'execute', request_body: JSON.stringify({ email: taken, first_name: 'A', last_name: 'B' }) }, [
        '/email',
      ]);
      expect(error.message).toContain('belongs to an existing customer');
    }
  });

  it('refuses bodies that break the schema, naming the JSON pointer, and stores nothing', async () => {
    const valid = { email: newEmail('valid'), first_name: 'Val', last_name: 'Id' };
    const cases: Array<[unknown, string]> = [
      [{ ...valid, email: 'not-an-email' }, '/email'],
      [{ email: valid.email, last_name: 'Id' }, '/first_name'],
      [{ ...valid, first_name: '' }, '/first_name'],
      [{ ...valid, phone: '555-0100' }, '/phone'],
      [{ ...valid, nickname: 'V' }, '/nickname'],
      [{ ...valid, address: { line1: '1 Main St', city: 'Springfield', postal_code: '12345', country: 'usa' } }, '/address/country'],
      [{ ...valid, address: { city: 'Springfield', postal_code: '12345', country: 'US' } }, '/address/line1'],
      [{ ...valid, preferences: { preferred_categories: ['Garden'] } }, '/preferences/preferred_categories/0'],
      [{ ...valid, preferences: { preferred_shipping: 'drone' } }, '/preferences/preferred_shipping'],
      [{ ...valid, preferences: { newsletter: 'yes' } }, '/preferences/newsletter'],
    ];
    for (const [body, pointer] of cases) {
      const error = await expectRetry('CreateUser', { mode: 'execute', request_body: JSON.stringify(body) }, [pointer]);
      expect(error.message).toContain('does not match the schema');
      expect(error.additional_prompt_content).toContain('Request body schema');
    }
  });

  it('refuses a missing, empty or unparsable body and unknown parameters', async () => {
    for (const input of [{ mode: 'execute' }, { mode: 'execute', request_body: '  ' }, { mode: 'execute', request_body: '{"email": ' }]) {
      const error = await refused('CreateUser', input);
      expect(error.kind).toBe('TOOL_RUNTIME_RETRY');
      expect(error.message).toMatch(/request_body (is required|is not valid JSON)/);
    }
    for (const input of [{ mode: 'run' }, {}, { mode: 'execute', request_body: '{}', email: 'a@example.com' }, { mode: 'execute', request_body: {} }]) {
      const error = await refused('CreateUser', input);
      expect(error.kind).toBe('TOOL_RUNTIME_BAD_INPUT_VALUE');
    }
  });
});

describe('CreateOrder', () => {
  it('returns its request schema, which carries the product ids, codes and countries, and stores nothing', async () => {
    const before = rows();
    // priority and notification_email are needed only to execute; gift_message is ignored here.
    const answer = await call('CreateOrder', { mode: 'get_request_schema', gift_message: 'ignored' });
    const schema = answer.request_body_schema;
    expect(schema.required).toEqual(['customer_id', 'items', 'shipping']);
    expect(schema.properties.items.items.properties.product_id.enum).toHaveLength(36);
    expect(schema.properties.items.items.properties.product_id.enum).toContain(TEE);
    expect(schema.properties.discount_code.enum).toEqual(['WELCOME10', 'SPRING20', 'KITCHEN15', 'GOLD25']);
    expect(schema.properties.shipping.properties.address.properties.country.enum).toContain('GB');
    expect(rows()).toEqual(before);
  });

  it('prices and stores an order, shipping to the address on file, and GetCustomerInfo shows it', async () => {
    const order = await placeOrder(
      {
        customer_id: MAYA.id,
        items: [
          { product_id: TEE, quantity: 2, customizations: { size: 'M', color: 'navy' } },
          { product_id: MUG, quantity: 1, customizations: { color: 'slate blue', engraving: 'Best coffee' } },
        ],
        discount_code: 'KITCHEN15',
        shipping: { method: 'express' },
      },
      { priority: 'high', notification_email: 'maya.alerts@example.com' },
    );
    expect(order).toMatchObject({
      status: 'confirmed',
      customer_id: MAYA.id,
      customer_email: MAYA.email,
      priority: 'high',
      notification_email: 'maya.alerts@example.com',
      items: [
        { product_id: TEE, name: 'Classic Cotton Tee', quantity: 2, unit_price: 24, line_total: 48, customizations: { size: 'M', color: 'navy' } },
        { product_id: MUG, name: 'Stoneware Mug 12 oz', quantity: 1, unit_price: 16, line_total: 16 },
      ],
      // 15% of the Kitchen items only (16.00), not of the tees.
      discount: { code: 'KITCHEN15', percentage: 15, amount: 2.4 },
      shipping: {
        method: 'express',
        cost: 12.99,
        estimated_delivery: '1-2 business days',
        address: { recipient: 'Maya Patel', line1: '742 Valencia Street', city: 'San Francisco', country: 'US' },
      },
      subtotal: 64,
      total: 74.59,
      currency: 'USD',
    });
    expect(order).not.toHaveProperty('gift_message');
    expect(order.id).toMatch(/^[0-9a-f-]{36}$/);

    const maya = await lookup('GetCustomerInfo', { customer_email: MAYA.email });
    expect(maya.orders).toContainEqual({
      id: order.id,
      created_at: order.created_at,
      status: 'confirmed',
      priority: 'high',
      items: [
        { product_id: TEE, name: 'Classic Cotton Tee', quantity: 2 },
        { product_id: MUG, name: 'Stoneware Mug 12 oz', quantity: 1 },
      ],
      total: 74.59,
      currency: 'USD',
    });
  });

  it('orders for a user CreateUser registered, to a given address abroad, with a gift message', async () => {
    const email = newEmail('ada');
    const user = await createUser({ email, first_name: 'Ada', last_name: 'Byron' });
    const order = await placeOrder(
      {
        customer_id: user.id,
        items: [
          { product_id: HEADPHONES, quantity: 1, customizations: { color: 'black' } },
          { product_id: PEN, quantity: 1, customizations: { nib: 'fine', finish: 'black' } },
        ],
        discount_code: 'SPRING20',
        shipping: { method: 'international', address: { line1: '12 St James Square', city: 'London', postal_code: 'SW1Y 4LB', country: 'GB' } },
      },
      { priority: 'urgent', notification_email: email, gift_message: 'Happy birthday!' },
    );
    // 304.00 - 20% (60.80) + 19.99 shipping to GB.
    expect(order).toMatchObject({
      customer_id: user.id,
      priority: 'urgent',
      gift_message: 'Happy birthday!',
      discount: { code: 'SPRING20', percentage: 20, amount: 60.8 },
      shipping: { method: 'international', cost: 19.99, estimated_delivery: '7-12 business days', address: { recipient: 'Ada Byron', country: 'GB' } },
      subtotal: 304,
      total: 263.19,
    });
    const ada = await lookup('GetCustomerInfo', { customer_email: email });
    expect(ada.orders.map((o: any) => o.id)).toEqual([order.id]);
  });

  it('keeps users and orders for the next process that opens the store', async () => {
    const email = newEmail('lasting');
    const user = await createUser({ email, first_name: 'Las', last_name: 'Ting' });
    const order = await placeOrder({
      customer_id: user.id,
      items: [{ product_id: SKILLET, quantity: 3 }],
      shipping: { method: 'overnight', address: { line1: '5 Elm St', city: 'Austin', region: 'TX', postal_code: '78701', country: 'US' } },
    });
    expect(order).toMatchObject({ subtotal: 135, total: 159.99, discount: null });

    const reopened = openCommerceStore(file);
    try {
      const info = await lookup('GetCustomerInfo', { customer_email: email }, runtimeOn(reopened));
      expect(info.id).toBe(user.id);
      expect(info.orders.map((o: any) => o.id)).toEqual([order.id]);
    } finally {
      reopened.close();
    }
  });

  it('applies GOLD25 for a gold member and WELCOME10 to anyone', async () => {
    const gold = await placeOrder(mayasOrder({ discount_code: 'GOLD25' }));
    expect(gold).toMatchObject({ subtotal: 24, discount: { amount: 6 }, total: 23.99 });
    const welcome = await placeOrder({ ...mayasOrder({ discount_code: 'WELCOME10' }), customer_id: NOAH.id });
    expect(welcome).toMatchObject({ subtotal: 24, discount: { amount: 2.4 }, total: 27.59 });
  });

  describe('refuses, naming the JSON pointer, and stores nothing', () => {
    it('an unknown product id', async () => {
      const error = await orderRetry(mayasOrder({ items: [{ product_id: '00000000-0000-4000-8000-000000000000', quantity: 1 }] }), ['/items/0/product_id']);
      expect(error.message).toContain('must be one of');
    });

    it('a discount code that is unknown or has ended', async () => {
      for (const code of ['BOGUS', 'SUMMER30', 'welcome10']) await orderRetry(mayasOrder({ discount_code: code }), ['/discount_code']);
    });

    it('a discount whose condition the order does not meet', async () => {
      const below = await orderRetry(mayasOrder({ discount_code: 'SPRING20' }), ['/discount_code']);
      expect(below.message).toContain('at least 100.00 USD');
      const notGold = await orderRetry({ ...mayasOrder({ discount_code: 'GOLD25' }), customer_id: NOAH.id }, ['/discount_code']);
      expect(notGold.message).toContain('this customer is bronze');
      const noKitchen = await orderRetry(mayasOrder({ discount_code: 'KITCHEN15' }), ['/discount_code']);
      expect(noKitchen.message).toContain('only to Kitchen products');
    });

    it('a customer id that is no customer, or no UUID', async () => {
      const unknown = await orderRetry(mayasOrder({ customer_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7' }), ['/customer_id']);
      expect(unknown.message).toContain('CreateUser');
      await orderRetry(mayasOrder({ customer_id: 'maya' }), ['/customer_id']);
    });

    it('customizations that are missing, unknown, not an option or too long', async () => {
      await orderRetry(mayasOrder({ items: [{ product_id: TEE, quantity: 1, customizations: { color: 'navy' } }] }), ['/items/0/customizations/size']);
      await orderRetry(mayasOrder({ items: [{ product_id: TEE, quantity: 1 }] }), ['/items/0/customizations/size', '/items/0/customizations/color']);
      const option = await orderRetry(mayasOrder({ items: [{ product_id: TEE, quantity: 1, customizations: { size: 'M', color: 'purple' } }] }), [
        '/items/0/customizations/color',
      ]);
      expect(option.message).toContain("'navy'");
      const unknown = await orderRetry(mayasOrder({ items: [{ product_id: SKILLET, quantity: 1, customizations: { engraving: 'Hi' } }] }), [
        '/items/0/customizations/engraving',
      ]);
      expect(unknown.message).toContain('accepts none');
      const long = await orderRetry(mayasOrder({ items: [{ product_id: NOTEBOOK, quantity: 1, customizations: { cover: 'olive', monogram: 'ABCD' } }] }), [
        '/items/0/customizations/monogram',
      ]);
      expect(long.message).toContain('at most 3 characters');
    });

    it('a quantity out of range and an empty order', async () => {
      for (const quantity of [0, 11, 1.5]) await orderRetry(mayasOrder({ items: [{ product_id: SKILLET, quantity }] }), ['/items/0/quantity']);
      await orderRetry(mayasOrder({ items: [] }), ['/items']);
    });

    it('a shipping method the destination is not offered', async () => {
      const error = await orderRetry(
        mayasOrder({ shipping: { method: 'overnight', address: { line1: '1 High St', city: 'Leeds', postal_code: 'LS1 1AA', country: 'GB' } } }),
        ['/shipping/method'],
      );
      expect(error.message).toContain('offered there: international, express');
      await orderRetry(mayasOrder({ shipping: { method: 'international' } }), ['/shipping/method']);
    });

    it('a destination the shop does not ship to, given or on file, and no address at all', async () => {
      await orderRetry(
        mayasOrder({ shipping: { method: 'international', address: { line1: 'Base 1', city: 'McMurdo', postal_code: '0000', country: 'AQ' } } }),
        ['/shipping/address/country'],
      );
      const abroad = await createUser({
        email: newEmail('abroad'),
        first_name: 'Ab',
        last_name: 'Road',
        address: { line1: 'Av. Corrientes 1234', city: 'Buenos Aires', postal_code: 'C1043', country: 'AR' },
      });
      const onFile = await orderRetry({ ...mayasOrder(), customer_id: abroad.id }, ['/shipping/address']);
      expect(onFile.message).toContain('in AR');
      const homeless = await createUser({ email: newEmail('nowhere'), first_name: 'No', last_name: 'Where' });
      const none = await orderRetry({ ...mayasOrder(), customer_id: homeless.id }, ['/shipping/address']);
      expect(none.message).toContain('no address on file');
    });

    it('every problem of a body at once', async () => {
      await orderRetry(
        mayasOrder({
          items: [{ product_id: TEE, quantity: 1, customizations: { size: 'XXXL', color: 'navy' } }],
          shipping: { method: 'overnight', address: { line1: '1 Rue', city: 'Lyon', postal_code: '69001', country: 'FR' } },
        }),
        ['/items/0/customizations/size', '/shipping/method'],
      );
    });

    it('fields the schema does not know, and a missing or unparsable body', async () => {
      await orderRetry(mayasOrder({ coupon: 'WELCOME10' }), ['/coupon']);
      await orderRetry(mayasOrder({ shipping: { method: 'standard', speed: 'fast' } }), ['/shipping/speed']);
      await orderRetry({ customer_id: MAYA.id, items: mayasOrder().items }, ['/shipping']);
      for (const request_body of [undefined, '', '[1,']) {
        const error = await refused('CreateOrder', { mode: 'execute', ...orderParams, request_body });
        expect(error.kind).toBe('TOOL_RUNTIME_RETRY');
      }
    });
  });

  describe('the parameters beside the body', () => {
    const body = JSON.stringify(mayasOrder());

    it('priority and notification_email are required to execute', async () => {
      const both = await refused('CreateOrder', { mode: 'execute', request_body: body });
      expect(both).toMatchObject({ kind: 'TOOL_RUNTIME_RETRY', message: 'Missing priority, notification_email: required when mode is "execute".' });
      const one = await refused('CreateOrder', { mode: 'execute', priority: 'low', request_body: body });
      expect(one.message).toContain('Missing notification_email');
    });

    it('a priority outside low, normal, high, urgent and a notification address that is not one are bad input', async () => {
      const priority = await refused('CreateOrder', { mode: 'execute', ...orderParams, priority: 'asap', request_body: body });
      expect(priority.kind).toBe('TOOL_RUNTIME_BAD_INPUT_VALUE');
      expect(priority.message).toContain("parameter 'priority' must be one of: 'low', 'normal', 'high', 'urgent'");
      const email = await refused('CreateOrder', { mode: 'execute', ...orderParams, notification_email: 'orders at example.com', request_body: body });
      expect(email.kind).toBe('TOOL_RUNTIME_BAD_INPUT_VALUE');
      expect(email.message).toContain("parameter 'notification_email'");
      const gift = await refused('CreateOrder', { mode: 'execute', ...orderParams, gift_message: 42, request_body: body });
      expect(gift.message).toContain("parameter 'gift_message' must be a string");
      const unknown = await refused('CreateOrder', { mode: 'execute', ...orderParams, customer_id: MAYA.id, request_body: body });
      expect(unknown.message).toContain("parameter 'customer_id' is not a known field");
    });

    it('every priority is accepted and kept', async () => {
      for (const priority of ['low', 'normal', 'high', 'urgent']) {
        expect((await placeOrder(mayasOrder(), { ...orderParams, priority })).priority).toBe(priority);
      }
    });
  });
});

describe('coverage', () => {
  it('called every tool successfully', () => {
    expect([...covered].sort()).toEqual(['CreateOrder', 'CreateUser', 'GetAvailableProducts', 'GetCustomerInfo', 'GetDiscountCodes', 'GetShippingRates']);
  });
});
