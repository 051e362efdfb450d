/**
 * Writes the HubSpot emulator's operation table (packages/sandbox/src/hubspot/operations.json) from the
 * marketing catalog (method, path, parameters) and its structural schemas (bodies, statuses).
 *
 * The schemas are reduced to structure the emulator's validator can apply strictly: `allOf` is merged,
 * `oneOf` becomes `anyOf`, single-variant unions are unwrapped, `default` and empty `properties` are
 * dropped. Large subschemas that repeat (the email and form records) are shared through `$defs`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Generator } from './index.js';

type Schema = { [keyword: string]: unknown };

interface CatalogParam {
  name: string;
  type: string;
  required: boolean;
  in?: 'path' | 'query' | 'header' | 'body';
  upstream?: string;
  enum?: unknown[];
}

interface CatalogTool {
  name: string;
  operation: string;
  method: string;
  path: string;
  params: CatalogParam[];
}

interface SchemaEntry {
  method: string;
  path: string;
  request_content_type?: string;
  request_body?: Schema;
  success_status?: number | null;
  response_body?: Schema;
}

const output = 'packages/sandbox/src/hubspot/operations.json';

/** Readable names for shared records; other shared subschemas are named after the field holding them. */
const recordNames: Array<[name: string, tool: string, body: 'requestBody' | 'responseBody']> = [
  ['MarketingEmail', 'GetMarketingEmailDetails', 'responseBody'],
  ['MarketingEmailUpdate', 'UpdateEmailDraft', 'requestBody'],
  ['EmailRevision', 'GetMarketingEmailRevision', 'responseBody'],
  ['Form', 'GetFormById', 'responseBody'],
  ['Campaign', 'UpdateCampaignProperties', 'responseBody'],
  ['CampaignWithAssets', 'GetCampaignDetails', 'responseBody'],
  ['CampaignBatchResponse', 'UpdateCampaignBatch', 'responseBody'],
  ['CampaignBudgetItem', 'GetCampaignBudget', 'responseBody'],
  ['SmtpToken', 'GetSmtpTokenById', 'responseBody'],
  ['MarketingEvent', 'CreateMarketingEvent', 'responseBody'],
  ['MarketingEventInput', 'CreateMarketingEvent', 'requestBody'],
  ['MarketingEventPublic', 'UpsertMarketingEvent', 'responseBody'],
  ['MarketingEventByObjectId', 'FetchEventDetails', 'responseBody'],
  ['MarketingEventUpdateResult', 'ModifyEventInformation', 'responseBody'],
  ['ParticipationBreakdownPage', 'GetContactParticipationsBreakdown', 'responseBody'],
  ['ParticipationCounters', 'GetEventParticipationCounters', 'responseBody'],
  ['AttendanceResponse', 'RecordEventAttendance', 'responseBody'],
  ['AttendanceByEmailResponse', 'RegisterEventParticipation', 'responseBody'],
  ['EventListAssociations', 'GetMarketingEventLists', 'responseBody'],
];

/** Subschemas smaller than this many characters of JSON stay inline. */
const shareThreshold = 500;

export const hubspotEmulator: Generator = (sharedDir) => {
  const catalog = readJson(join(sharedDir, 'catalog', 'CrmMarketingApi.json')) as { tools: CatalogTool[] };
  const schemas = readJson(join(sharedDir, 'catalog', 'schemas', 'CrmMarketingApi.json')) as Record<string, SchemaEntry[]>;

  const operations: Record<string, Schema> = {};
  const byTool = new Map<string, Schema>();
  for (const tool of [...catalog.tools].sort((a, b) => compare(a.operation, b.operation))) {
    const entry = schemas[tool.name]?.[0];
    if (!entry) throw new Error(`hubspot-emulator: no schema entry for ${tool.name}`);
    if (entry.method !== tool.method || entry.path !== tool.path) {
      throw new Error(`hubspot-emulator: ${tool.name} is ${tool.method} ${tool.path} in the catalog but ${entry.method} ${entry.path} in its schema`);
    }
    const operation = describe(tool, entry);
    operations[tool.operation] = operation;
    byTool.set(tool.name, operation);
  }
  checkRoutesAreDistinct(catalog.tools);

  const hints = new Map<string, string>();
  for (const [name, tool, body] of recordNames) {
    const schema = byTool.get(tool)?.[body];
    if (!schema) throw new Error(`hubspot-emulator: no ${body} on ${tool} to name ${name}`);
    hints.set(canonical(schema), name);
  }
  const $defs = shareRepeated(operations, hints);
  return [{ path: output, content: `${JSON.stringify(sortKeys({ $defs, operations }), null, 2)}\n` }];
};

function describe(tool: CatalogTool, entry: SchemaEntry): Schema {
  const placeholders = [...tool.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
  const pathParameters: Record<string, Schema> = {};
  for (const name of placeholders) {
    const param = tool.params.find((p) => p.in === 'path' && p.upstream === name);
    pathParameters[name] = param ? parameterSchema(param) : { type: 'string' };
  }
  const queryParameters: Record<string, Schema> = {};
  for (const param of tool.params.filter((p) => p.in === 'query')) {
    queryParameters[param.upstream ?? param.name] = { required: param.required, schema: parameterSchema(param) };
  }
  const operation: Schema = {
    method: tool.method,
    path: tool.path,
    pathParameters,
    queryParameters,
    // A few upstream descriptions give no success status; those operations answer without a body.
    successStatus: entry.success_status ?? (entry.response_body ? 200 : 204),
  };
  if (entry.request_body) {
    operation.requestContentType = entry.request_content_type ?? 'application/json';
    operation.requestBody = structural(entry.request_body);
  }
  if (entry.response_body) operation.responseBody = structural(entry.response_body);
  return operation;
}

/** Array parameters travel as repeated keys (`properties=a&properties=b`), each item a string. */
function parameterSchema(param: CatalogParam): Schema {
  const schema: Schema = param.type === 'array' ? { type: 'array', items: { type: 'string' } } : { type: param.type };
  if (param.enum) schema.enum = param.enum;
  return schema;
}

const kept = new Set(['type', 'format', 'enum', 'properties', 'required', 'items', 'additionalProperties', 'anyOf', 'oneOf', 'allOf']);

function structural(schema: Schema): Schema {
  let out: Schema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (!kept.has(keyword)) continue;
    if (keyword === 'properties') out.properties = mapValues(value as Record<string, Schema>, structural);
    else if (keyword === 'items' || (keyword === 'additionalProperties' && typeof value === 'object')) out[keyword] = structural(value as Schema);
    else if (keyword === 'allOf' || keyword === 'oneOf' || keyword === 'anyOf') out[keyword] = (value as Schema[]).map(structural);
    else out[keyword] = value;
  }
  if (isEmptyObject(out.properties)) delete out.properties;
  if (out.allOf) {
    const { allOf, ...rest } = out;
    out = (allOf as Schema[]).reduce(merge, rest);
  }
  if (out.oneOf) {
    // The structural schemas cut recursion short with open objects, so variants can overlap; `oneOf`
    // would then reject every value that matches two of them.
    const { oneOf, ...rest } = out;
    out = { ...rest, anyOf: oneOf };
  }
  if (out.anyOf) {
    const { anyOf, ...rest } = out;
    const variants = uniqueBy(anyOf as Schema[], canonical);
    out = variants.length === 1 ? merge(rest, variants[0]!) : { ...rest, anyOf: variants };
  }
  return out;
}

/** Both schemas must hold (allOf): unions of properties and required names. */
function merge(a: Schema, b: Schema): Schema {
  const out: Schema = { ...a };
  for (const [keyword, value] of Object.entries(b)) {
    const existing = out[keyword];
    if (existing === undefined || canonical(existing) === canonical(value)) out[keyword] = value;
    else if (keyword === 'properties') {
      const merged: Record<string, Schema> = { ...(existing as Record<string, Schema>) };
      for (const [name, schema] of Object.entries(value as Record<string, Schema>)) {
        merged[name] = merged[name] ? merge(merged[name]!, schema) : schema;
      }
      out.properties = merged;
    } else if (keyword === 'items' || keyword === 'additionalProperties') {
      out[keyword] = merge(existing as Schema, value as Schema);
    } else if (keyword === 'anyOf' && (admitsAnything(existing as Schema[]) || admitsAnything(value as Schema[]))) {
      out.anyOf = admitsAnything(existing as Schema[]) ? value : existing;
    } else if (keyword === 'anyOf' && (existing as Schema[]).length === (value as Schema[]).length) {
      // The same union written twice, one copy cut shorter: merge it variant by variant.
      out.anyOf = (existing as Schema[]).map((variant, i) => merge(variant, (value as Schema[])[i]!));
    } else if (keyword === 'required') out.required = uniqueBy([...(existing as string[]), ...(value as string[])], String);
    else throw new Error(`hubspot-emulator: cannot merge conflicting '${keyword}' in allOf`);
  }
  return out;
}

/** A union with a variant that only names a type (a cut-short recursion) constrains nothing more. */
const admitsAnything = (variants: Schema[]): boolean => variants.some((variant) => Object.keys(variant).every((key) => key === 'type'));

/**
 * Moves every large subschema that occurs more than once into `$defs`, largest first, and puts a
 * `$ref` where it stood. Names come from `hints`, else from the field holding the first occurrence.
 */
function shareRepeated(operations: Record<string, Schema>, hints: Map<string, string>): Record<string, Schema> {
  const $defs: Record<string, Schema> = {};
  const bodies = (): Array<[owner: Schema, key: string, label: string]> => [
    ...Object.entries(operations).flatMap(([, op]) =>
      (['requestBody', 'responseBody'] as const).filter((key) => op[key]).map((key): [Schema, string, string] => [op, key, key]),
    ),
    ...Object.keys($defs).map((name): [Schema, string, string] => [$defs, name, name]),
  ];
  for (;;) {
    const seen = new Map<string, { count: number; field: string }>();
    for (const [owner, key, label] of bodies()) {
      walk(owner[key] as Schema, label, (schema, field) => {
        const text = canonical(schema);
        if (text.length < shareThreshold) return;
        const entry = seen.get(text);
        if (entry) entry.count += 1;
        else seen.set(text, { count: 1, field });
      });
    }
    let best: [string, { count: number; field: string }] | undefined;
    for (const candidate of seen) {
      if (candidate[1].count > 1 && (!best || candidate[0].length > best[0].length)) best = candidate;
    }
    if (!best) return $defs;
    const [text, { field }] = best;
    const name = uniqueName(hints.get(text) ?? pascal(field), $defs);
    $defs[name] = JSON.parse(text) as Schema;
    const ref = { $ref: `#/$defs/${name}` };
    for (const [owner, key] of bodies()) {
      if (owner === $defs && key === name) owner[key] = replace(owner[key] as Schema, text, ref, true);
      else owner[key] = replace(owner[key] as Schema, text, ref, false);
    }
  }
}

/** Visits every subschema with the name of the field (or body) it belongs to. */
function walk(schema: Schema, field: string, visit: (schema: Schema, field: string) => void): void {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return;
  visit(schema, field);
  for (const [name, child] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) walk(child, name, visit);
  if (schema.items) walk(schema.items as Schema, `${field}Item`, visit);
  if (typeof schema.additionalProperties === 'object') walk(schema.additionalProperties as Schema, `${field}Value`, visit);
  for (const variant of (schema.anyOf ?? []) as Schema[]) walk(variant, `${discriminator(variant) ?? ''}${pascal(field)}`, visit);
}

/** The value of a variant's single-valued enum property (`fieldType: ['email']`), in PascalCase. */
function discriminator(variant: Schema): string | undefined {
  for (const property of Object.values((variant.properties ?? {}) as Record<string, Schema>)) {
    const values = property.enum as unknown[] | undefined;
    if (values?.length === 1 && typeof values[0] === 'string')
      return values[0]
        .split(/[_\W]+/)
        .map(pascal)
        .join('');
  }
  return undefined;
}

function replace(schema: Schema, text: string, ref: Schema, keepRoot: boolean): Schema {
  if (!keepRoot && canonical(schema) === text) return ref;
  const out: Schema = { ...schema };
  if (schema.properties) out.properties = mapValues(schema.properties as Record<string, Schema>, (child) => replace(child, text, ref, false));
  if (schema.items) out.items = replace(schema.items as Schema, text, ref, false);
  if (typeof schema.additionalProperties === 'object') out.additionalProperties = replace(schema.additionalProperties as Schema, text, ref, false);
  if (schema.anyOf) out.anyOf = (schema.anyOf as Schema[]).map((variant) => replace(variant, text, ref, false));
  return out;
}

function checkRoutesAreDistinct(tools: CatalogTool[]): void {
  const routes = new Set<string>();
  for (const tool of tools) {
    const route = `${tool.method} ${tool.path.replace(/\{[^}]+\}/g, '{}')}`;
    if (routes.has(route)) throw new Error(`hubspot-emulator: two operations share the route ${route}`);
    routes.add(route);
  }
}

function uniqueName(base: string, taken: Record<string, unknown>): string {
  let name = base;
  for (let n = 2; name in taken; n += 1) name = `${base}${n}`;
  return name;
}

const pascal = (field: string): string => field.charAt(0).toUpperCase() + field.slice(1);

const isEmptyObject = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;

function mapValues<T, U>(record: Record<string, T>, fn: (value: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, fn(value)]));
}

function uniqueBy<T>(items: T[], key: (item: T) => string): T[] {
  const byKey = new Map<string, T>();
  for (const item of items) if (!byKey.has(key(item))) byKey.set(key(item), item);
  return [...byKey.values()];
}

/** JSON with sorted object keys: equal schemas give equal text. Arrays keep their order. */
const canonical = (value: unknown): string => JSON.stringify(sortKeys(value));

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort(compare)
        .map((key) => [key, sortKeys((value as Schema)[key])]),
    );
  }
  return value;
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));
