/**
 * CommerceTools: a demo shop with no upstream. Every tool is a handler: the lookups read the static
 * data that ships with the toolkit, and CreateUser and CreateOrder keep what they create in the
 * toolkit's own store, so later calls (GetCustomerInfo, CreateOrder for a new user) see it.
 */
import { defineToolkit, type Tool, type Toolkit } from '@quiver/core';
import { readCatalog } from '../catalog.js';
import { getAvailableProducts, getDiscountCodes, getShippingRates } from './catalogue.js';
import { createUser, getCustomerInfo } from './customers.js';
import { createOrder } from './orders.js';
import { defaultStoreLocation, openCommerceStore, type CommerceStore } from './store.js';

export { openCommerceStore, defaultStoreLocation, type CommerceStore } from './store.js';

export interface CommerceOptions {
  /** Where users and orders are kept. Default: `commerce.db` in the data directory, opened on first use. */
  store?: CommerceStore;
}

export function createCommerceTools(options: CommerceOptions = {}): Toolkit {
  let store = options.store;
  // Opened on the first call that needs it, so that loading the toolkit (to list tools) creates no file.
  const opened = (): CommerceStore => (store ??= openCommerceStore(defaultStoreLocation()));
  const tool = (name: string): Tool => toolkit.tools.find((candidate) => candidate.name === name)!;

  const toolkit = defineToolkit(readCatalog(new URL('./catalog.json', import.meta.url)), {
    CreateOrder: (input) => createOrder(tool('CreateOrder'), input, opened()),
    CreateUser: (input) => createUser(tool('CreateUser'), input, opened()),
    GetAvailableProducts: () => getAvailableProducts(),
    GetCustomerInfo: (input) => getCustomerInfo(input, opened()),
    GetDiscountCodes: () => getDiscountCodes(),
    GetShippingRates: (input) => getShippingRates(input),
  });
  return toolkit;
}

export const commerceTools = createCommerceTools();
