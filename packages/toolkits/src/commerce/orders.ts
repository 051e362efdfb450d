/**
 * CreateOrder: checks an order against the shop's data (customer, customizations, shipping to the
 * destination, discount conditions), prices it and stores it. Amounts are computed in cents.
 */
import { randomUUID } from 'node:crypto';
import type { Tool, ToolResult, ValidationIssue } from '@quiver/core';
import { bodyRefused, readBody } from './body.js';
import { customerById } from './customers.js';
import {
  activeDiscountCodes,
  currency,
  deliveryTime,
  products,
  shippingRates,
  type Address,
  type Customer,
  type Product,
  type ShippingMethod,
} from './data.js';
import type { CommerceStore, Order, OrderItem, Priority } from './store.js';

interface OrderBody {
  customer_id: string;
  items: Array<{ product_id: string; quantity: number; customizations?: Record<string, string> }>;
  discount_code?: string;
  shipping: { method: ShippingMethod; address?: Address & { recipient?: string } };
}

/** Records what is wrong at a JSON pointer of the body. */
type Refuse = (pointer: string, message: string) => void;

const cents = (amount: number): number => Math.round(amount * 100);
const dollars = (amountInCents: number): number => amountInCents / 100;

/** Parameters that sit beside the body and are required when the order is placed. */
const requiredForExecute = ['priority', 'notification_email'];

export async function createOrder(tool: Tool, args: Record<string, unknown>, store: CommerceStore): Promise<ToolResult> {
  const read = readBody<OrderBody>(tool, args, requiredForExecute);
  if ('error' in read) return read;
  const body = read.body;
  const issues: ValidationIssue[] = [];
  const refuse: Refuse = (pointer, message) => void issues.push({ pointer, message });

  const customer = customerById(store, body.customer_id);
  if (!customer) refuse('/customer_id', 'is not a customer of the shop; find the id with GetCustomerInfo or register the customer with CreateUser');

  const items = body.items.flatMap((item, index): OrderItem[] => {
    const product = products.find((candidate) => candidate.id === item.product_id);
    if (!product) {
      refuse(`/items/${index}/product_id`, 'is not a product of the shop; see GetAvailableProducts');
      return [];
    }
    const customizations = item.customizations ?? {};
    for (const [pointer, message] of customizationIssues(product, customizations)) refuse(`/items/${index}/customizations${pointer}`, message);
    const unit = cents(product.price);
    return [
      {
        product_id: product.id,
        name: product.name,
        category: product.category,
        quantity: item.quantity,
        customizations,
        unit_price: dollars(unit),
        line_total: dollars(unit * item.quantity),
      },
    ];
  });

  const destination = customer && shippingAddress(customer, body.shipping.address, refuse);
  // The schema (for a given address) and shippingAddress (for the one on file) admit only countries the shop ships to.
  const offered = destination ? shippingRates[destination.country]!.options : [];
  const option = offered.find((candidate) => candidate.method === body.shipping.method);
  if (destination && !option) {
    refuse('/shipping/method', `is not offered to ${destination.country}; offered there: ${offered.map((candidate) => candidate.method).join(', ')}`);
  }

  const subtotal = items.reduce((sum, item) => sum + cents(item.line_total), 0);
  const discount = body.discount_code === undefined || !customer ? null : applyDiscount(body.discount_code, items, subtotal, customer, refuse);

  if (issues.length || !customer || !destination || !option) return bodyRefused(issues);

  const shippingCost = cents(option.cost);
  const order: Order = {
    id: randomUUID(),
    status: 'confirmed',
    created_at: new Date().toISOString(),
    customer_id: customer.id,
    customer_email: customer.email,
    priority: args.priority as Priority,
    notification_email: String(args.notification_email),
    ...(typeof args.gift_message === 'string' && { gift_message: args.gift_message }),
    items,
    discount: discount && { ...discount, amount: dollars(discount.amount) },
    shipping: {
      method: option.method,
      cost: dollars(shippingCost),
      estimated_delivery: deliveryTime(option),
      address: destination,
    },
    subtotal: dollars(subtotal),
    total: dollars(subtotal - (discount?.amount ?? 0) + shippingCost),
    currency,
  };
  store.addOrder(order);
  return { value: order };
}

/** What is wrong with an item's customizations, as [pointer below /customizations, message]. */
function customizationIssues(product: Product, given: Record<string, string>): Array<[string, string]> {
  const issues: Array<[string, string]> = [];
  const known = product.customizations.map((customization) => customization.name);
  for (const name of Object.keys(given)) {
    if (!known.includes(name)) {
      const accepted = known.length ? `it accepts: ${known.join(', ')}` : 'it accepts none';
      issues.push([`/${escapePointer(name)}`, `is not a customization of ${product.name}; ${accepted}`]);
    }
  }
  for (const customization of product.customizations) {
    const pointer = `/${escapePointer(customization.name)}`;
    const value = given[customization.name];
    if (value === undefined) {
      if (customization.required) issues.push([pointer, `is required for ${product.name}`]);
    } else if (customization.options && !customization.options.includes(value)) {
      issues.push([pointer, `must be one of: ${customization.options.map((option) => `'${option}'`).join(', ')}`]);
    } else if (customization.max_length !== undefined && value.length > customization.max_length) {
      issues.push([pointer, `must be at most ${customization.max_length} characters`]);
    }
  }
  return issues;
}

const escapePointer = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** The given address, or the customer's own when none is given, provided the shop ships there. */
function shippingAddress(customer: Customer, given: OrderBody['shipping']['address'], refuse: Refuse): Order['shipping']['address'] | undefined {
  const recipient = `${customer.profile.first_name} ${customer.profile.last_name}`;
  if (given) return { ...given, recipient: given.recipient ?? recipient };
  const onFile = customer.profile.address;
  if (!onFile) {
    refuse('/shipping/address', 'is required: the customer has no address on file');
    return undefined;
  }
  if (!shippingRates[onFile.country]) {
    refuse('/shipping/address', `is required: the address on file is in ${onFile.country}, where the shop does not ship`);
    return undefined;
  }
  return { recipient, ...onFile };
}

/** The discount in cents, or null (with the reason refused) when the code's condition is not met. */
function applyDiscount(
  code: string,
  items: readonly OrderItem[],
  subtotal: number,
  customer: Customer,
  refuse: Refuse,
): { code: string; percentage: number; amount: number } | null {
  const discount = activeDiscountCodes.find((candidate) => candidate.code === code);
  if (!discount) {
    refuse('/discount_code', 'is not an active discount code; see GetDiscountCodes');
    return null;
  }
  if (discount.min_subtotal !== undefined && subtotal < cents(discount.min_subtotal)) {
    refuse(
      '/discount_code',
      `needs an item subtotal of at least ${discount.min_subtotal.toFixed(2)} ${currency}; this order's is ${dollars(subtotal).toFixed(2)}`,
    );
    return null;
  }
  if (discount.loyalty_tier && customer.profile.loyalty_tier !== discount.loyalty_tier) {
    refuse('/discount_code', `is for ${discount.loyalty_tier} loyalty members; this customer is ${customer.profile.loyalty_tier}`);
    return null;
  }
  const eligible = discount.category ? items.filter((item) => item.category === discount.category) : items;
  if (!eligible.length) {
    refuse('/discount_code', `applies only to ${discount.category} products, and the order has none`);
    return null;
  }
  const base = eligible.reduce((sum, item) => sum + cents(item.line_total), 0);
  return { code: discount.code, percentage: discount.percentage, amount: Math.round((base * discount.percentage) / 100) };
}
