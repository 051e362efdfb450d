/** Customers: the shop's own (static) and those CreateUser registers (stored); CreateUser and GetCustomerInfo. */
import { randomUUID } from 'node:crypto';
import { toolError, type Tool, type ToolResult } from '@quiver/core';
import { bodyRefused, readBody } from './body.js';
import { customers, type Address, type Customer, type LoyaltyTier } from './data.js';
import type { CommerceStore } from './store.js';

/** Email addresses are compared without regard to case. */
const normalEmail = (email: string): string => email.trim().toLowerCase();

export function customerByEmail(store: CommerceStore, email: string): Customer | undefined {
  const wanted = normalEmail(email);
  return customers.find((customer) => customer.email === wanted) ?? store.userByEmail(wanted);
}

export function customerById(store: CommerceStore, id: string): Customer | undefined {
  const wanted = id.toLowerCase();
  return customers.find((customer) => customer.id === wanted) ?? store.userById(wanted);
}

interface UserBody {
  email: string;
  first_name: string;
  last_name: string;
  phone?: string;
  address?: Address;
  preferences?: Partial<Customer['preferences']>;
}

/** New customers start at the lowest tier. */
const startingTier: LoyaltyTier = 'bronze';

export async function createUser(tool: Tool, args: Record<string, unknown>, store: CommerceStore): Promise<ToolResult> {
  const read = readBody<UserBody>(tool, args);
  if ('error' in read) return read;
  const { email, first_name, last_name, phone, address, preferences = {} } = read.body;

  const user: Customer = {
    id: randomUUID(),
    email: normalEmail(email),
    profile: {
      first_name,
      last_name,
      ...(phone && { phone }),
      ...(address && { address }),
      member_since: new Date().toISOString().slice(0, 10),
      loyalty_tier: startingTier,
    },
    preferences: {
      newsletter: preferences.newsletter ?? false,
      preferred_categories: preferences.preferred_categories ?? [],
      preferred_shipping: preferences.preferred_shipping ?? 'standard',
      contact_channel: preferences.contact_channel ?? 'email',
    },
  };
  // The store refuses a taken address itself, so two processes cannot both register it.
  const taken = customers.some((customer) => customer.email === user.email) || !store.addUser(user);
  if (taken) return bodyRefused([{ pointer: '/email', message: 'belongs to an existing customer; look it up with GetCustomerInfo instead' }]);
  return { value: user };
}

export async function getCustomerInfo(args: Record<string, unknown>, store: CommerceStore): Promise<ToolResult> {
  const email = String(args.customer_email);
  const customer = customerByEmail(store, email);
  if (!customer) {
    return toolError('UPSTREAM_RUNTIME_NOT_FOUND', `No customer has the email address ${email}. Check the address, or register the customer with CreateUser.`);
  }
  const orders = store.ordersOf(customer.id).map((order) => ({
    id: order.id,
    created_at: order.created_at,
    status: order.status,
    priority: order.priority,
    items: order.items.map((item) => ({ product_id: item.product_id, name: item.name, quantity: item.quantity })),
    total: order.total,
    currency: order.currency,
  }));
  return { value: JSON.stringify({ ...customer, orders }) };
}
