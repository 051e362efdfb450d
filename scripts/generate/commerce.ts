/**
 * CommerceTools: the toolkit catalog, from the interface in catalog/CommerceTools.json, our own
 * descriptions (packages/toolkits/src/commerce/descriptions.json) and the shop's static data, whose
 * product ids, discount codes, categories and countries become enums of the request schemas, so that
 * the model sees the valid values and a wrong one is refused before the handler runs.
 */
import { resolve } from 'node:path';
import type { Annotations, JsonSchema, ToolData } from '../../packages/core/src/tool.js';
import { activeDiscountCodes, categories, products, shippingMethods, shippingRates } from '../../packages/toolkits/src/commerce/data.js';
import type { GeneratedFile } from '../generate.js';
import { authoredSchema, parametersOf, readDescriptions, readJson, toolkitFile, type CatalogParam } from './shared.js';

const toolkitDir = 'packages/toolkits/src/commerce';

interface CommerceCatalog {
  toolkit: string;
  tools: Array<{ name: string; mode_driven: boolean; params: CatalogParam[]; output?: string }>;
}

/** What the catalog's bare `string` leaves unsaid about a parameter: its format. */
const refinements: Record<string, JsonSchema> = {
  notification_email: { format: 'email' },
  customer_email: { format: 'email' },
  // Either case; the handler upper-cases it.
  country_code: { pattern: '^[A-Za-z]{2}$' },
};

const text = (maxLength: number): JsonSchema => ({ type: 'string', minLength: 1, maxLength });

const address = (countries: JsonSchema, extra: Record<string, JsonSchema> = {}): JsonSchema => ({
  type: 'object',
  required: ['line1', 'city', 'postal_code', 'country'],
  properties: {
    ...extra,
    line1: text(200),
    line2: text(200),
    city: text(100),
    region: { ...text(100), description: 'State, province or county, where the country uses one.' },
    postal_code: text(20),
    country: { description: 'ISO 3166-1 alpha-2 country code, upper case.', ...countries },
  },
});

const orderBody: JsonSchema = {
  type: 'object',
  required: ['customer_id', 'items', 'shipping'],
  properties: {
    customer_id: { type: 'string', format: 'uuid' },
    items: {
      type: 'array',
      minItems: 1,
      maxItems: 20,
      items: {
        type: 'object',
        required: ['product_id', 'quantity'],
        properties: {
          product_id: { type: 'string', description: 'Product UUID from GetAvailableProducts.', enum: products.map((product) => product.id) },
          quantity: { type: 'integer', minimum: 1, maximum: 10 },
          customizations: {
            type: 'object',
            description: 'The product\'s customizations by name, e.g. {"size": "M", "color": "navy"}: every required one, and optional ones as wanted.',
            additionalProperties: { type: 'string' },
          },
        },
      },
    },
    discount_code: { type: 'string', enum: activeDiscountCodes.map((code) => code.code) },
    shipping: {
      type: 'object',
      required: ['method'],
      properties: {
        method: { type: 'string', description: 'One of the methods GetShippingRates offers for the destination country.', enum: [...shippingMethods] },
        address: {
          description: "Destination, in a country the shop ships to; the customer's address on file when left out.",
          ...address(
            { type: 'string', enum: Object.keys(shippingRates) },
            { recipient: { ...text(200), description: "Name on the parcel; the customer's name when left out." } },
          ),
        },
      },
    },
  },
};

const userBody: JsonSchema = {
  type: 'object',
  required: ['email', 'first_name', 'last_name'],
  properties: {
    email: { type: 'string', format: 'email', maxLength: 254 },
    first_name: text(100),
    last_name: text(100),
    phone: { type: 'string', pattern: '^\\+[1-9][0-9]{6,14}$' },
    address: address({ type: 'string', pattern: '^[A-Z]{2}$' }),
    preferences: {
      type: 'object',
      properties: {
        newsletter: { type: 'boolean', description: 'Whether the customer receives the newsletter.' },
        preferred_categories: { type: 'array', uniqueItems: true, items: { type: 'string', enum: [...categories] } },
        preferred_shipping: { type: 'string', enum: [...shippingMethods] },
        contact_channel: { type: 'string', enum: ['email', 'sms'] },
      },
    },
  },
};

const requestBodies: Record<string, JsonSchema> = { CreateOrder: orderBody, CreateUser: userBody };

/** Every tool works on the shop's own data, never the outside world; the lookups only read. */
const lookup: Partial<Annotations> = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const creation: Partial<Annotations> = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

export function generateCommerce(sharedDir: string): GeneratedFile[] {
  const catalog = readJson(resolve(sharedDir, 'catalog/CommerceTools.json')) as CommerceCatalog;
  const descriptions = readDescriptions(toolkitDir);

  const tools = catalog.tools.map((tool): ToolData => {
    const where = (message: string) => `CommerceTools.${tool.name}: ${message}`;
    const described = descriptions.tools[tool.name];
    if (!described) throw new Error(where('no description'));

    const data: ToolData = {
      name: tool.name,
      title: described.title,
      description: described.description,
      parameters: parametersOf(tool, described, where, { refine: (param) => refinements[param.name] }),
      output: { description: described.output, ...(tool.output === 'string' && { schema: { type: 'string' } }) },
      requirements: {},
      annotations: tool.mode_driven ? creation : lookup,
    };
    if (tool.mode_driven) {
      const body = requestBodies[tool.name];
      if (!body) throw new Error(where('no request body schema'));
      data.requestBody = { contentType: 'application/json', schema: authoredSchema(body, described.body ?? {}, `Request body of ${tool.name}.`) };
    }
    return data;
  });

  // No upstream: every tool has a handler over the toolkit's own data.
  return [toolkitFile(toolkitDir, { toolkit: catalog.toolkit, default_base_url: '' }, descriptions, tools)];
}
