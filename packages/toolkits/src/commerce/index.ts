/**
 * CommerceTools: a demo shop with no upstream. Every tool is a handler: the lookups read the static
 * data that ships with the toolkit, and CreateUser and CreateOrder keep what they create in the
 * toolkit's own store, so later calls (GetCustomerInfo, CreateOrder for a new user) see it.
 */
import { defineToolkit, type Toolkit } from '@quiver/core';
import { bindingsOf } from '../bindings.js';
import { readCatalog } from '../read-catalog.js';
import { getAvailableProducts, getDiscountCodes, getShippingRates } from './lookups.js';
import { createUser, getCustomerInfo } from './customers.js';
import { createOrder } from './orders.js';
import { openCommerceStore, type CommerceStore } from './store.js';

export { openCommerceStore, type CommerceStore } from './store.js';

export interface CommerceOptions {
  /** Where users and orders are kept: a store, or the file to open on first use (`commerce.db` in the data directory). */
  store?: CommerceStore | string;
}

/** CommerceTools keeping what it creates in `options.store`; in memory when none is given. */
export function createCommerceTools(options: CommerceOptions = {}): Toolkit {
  let store = typeof options.store === 'object' ? options.store : undefined;
  const location = typeof options.store === 'string' ? options.store : ':memory:';
  // Opened on the first call that needs it, so that loading the toolkit (to list tools) creates no file.
  const opened = (): CommerceStore => (store ??= openCommerceStore(location));
  const data = readCatalog(new URL('./catalog.json', import.meta.url));
  const tool = bindingsOf(data);

  return defineToolkit(data, {
    CreateOrder: (input) => createOrder(tool('CreateOrder'), input, opened()),
    CreateUser: (input) => createUser(tool('CreateUser'), input, opened()),
    GetAvailableProducts: () => getAvailableProducts(),
    GetCustomerInfo: (input) => getCustomerInfo(input, opened()),
    GetDiscountCodes: () => getDiscountCodes(),
    GetShippingRates: (input) => getShippingRates(input),
  });
}

export const commerceTools = createCommerceTools();
