/**
 * The demo shop's static data: products, customers, discount codes and shipping rates. The files are
 * ours and hand-written; the generator reads them too, to put the valid ids and codes in the request
 * schemas. Prices and costs are US dollars.
 */
import { readFileSync } from 'node:fs';

export const currency = 'USD';

export const shippingMethods = ['standard', 'express', 'overnight', 'international'] as const;
export type ShippingMethod = (typeof shippingMethods)[number];

export const loyaltyTiers = ['bronze', 'silver', 'gold'] as const;
export type LoyaltyTier = (typeof loyaltyTiers)[number];

/** A choice among options (size, color) or, with max_length, free text (an engraving). */
export interface Customization {
  name: string;
  required: boolean;
  options?: string[];
  max_length?: number;
}

export interface Product {
  id: string;
  name: string;
  category: string;
  description: string;
  price: number;
  customizations: Customization[];
}

export interface Address {
  line1: string;
  line2?: string;
  city: string;
  region?: string;
  postal_code: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
}

export interface Customer {
  id: string;
  email: string;
  profile: {
    first_name: string;
    last_name: string;
    phone?: string;
    address?: Address;
    member_since: string;
    loyalty_tier: LoyaltyTier;
  };
  preferences: {
    newsletter: boolean;
    preferred_categories: string[];
    preferred_shipping: ShippingMethod;
    contact_channel: 'email' | 'sms';
  };
}

export interface DiscountCode {
  code: string;
  description: string;
  percentage: number;
  /** An ended promotion: neither listed nor accepted. */
  active: boolean;
  /** Conditions: the item subtotal at least this, only items of this category, only customers of this tier. */
  min_subtotal?: number;
  category?: string;
  loyalty_tier?: LoyaltyTier;
}

export interface ShippingOption {
  method: ShippingMethod;
  cost: number;
  min_days: number;
  max_days: number;
}

export interface ShippingCountry {
  name: string;
  options: ShippingOption[];
}

const read = <T>(file: string): T => JSON.parse(readFileSync(new URL(`./data/${file}`, import.meta.url), 'utf8')) as T;

export const products: readonly Product[] = read('products.json');
export const customers: readonly Customer[] = read('customers.json');
export const discountCodes: readonly DiscountCode[] = read('discount-codes.json');
/** By ISO 3166-1 alpha-2 code: the countries the shop ships to. */
export const shippingRates: Readonly<Record<string, ShippingCountry>> = read('shipping-rates.json');

export const categories: readonly string[] = [...new Set(products.map((product) => product.category))];
export const activeDiscountCodes: readonly DiscountCode[] = discountCodes.filter((code) => code.active);

/** "3-5 business days", "1 business day". */
export function deliveryTime(option: ShippingOption): string {
  if (option.min_days !== option.max_days) return `${option.min_days}-${option.max_days} business days`;
  return option.min_days === 1 ? '1 business day' : `${option.min_days} business days`;
}
