/** The read-only lookups over the shop's static data; each answers JSON text, as the spec's string outputs. */
import { toolError, type ToolResult } from '@quiver/core';
import { activeDiscountCodes, currency, deliveryTime, products, shippingRates } from './data.js';

export async function getAvailableProducts(): Promise<ToolResult> {
  return { value: JSON.stringify({ currency, products }) };
}

export async function getDiscountCodes(): Promise<ToolResult> {
  const codes = activeDiscountCodes.map(({ active: _, ...code }) => code);
  return { value: JSON.stringify({ discount_codes: codes }) };
}

export async function getShippingRates(args: Record<string, unknown>): Promise<ToolResult> {
  const code = String(args.country_code).toUpperCase();
  const country = shippingRates[code];
  if (!country) {
    const served = Object.keys(shippingRates).join(', ');
    return toolError('UPSTREAM_RUNTIME_NOT_FOUND', `The shop does not ship to ${code}. It ships to: ${served}.`);
  }
  const options = country.options.map((option) => ({ ...option, delivery_time: deliveryTime(option) }));
  return { value: JSON.stringify({ country_code: code, country: country.name, currency, options }) };
}
