/**
 * Helpers for the RepoHostApi end-to-end tests (repo-host-*.test.ts only): a client per GitHub user
 * that calls tools through the real Runtime against the GitHub emulator, a deterministic generator of
 * schema-valid inputs (parameter schemas and mode-driven request-body schemas), and the emulator's
 * request log read per call.
 */
import { readFileSync } from 'node:fs';
import { UpstreamClient, validate, type ServingPolicy, type UpstreamRequest } from '@quiver/core';
import type { GithubEmulator, RecordedRequest } from '@quiver/sandbox';
import { repoHost } from '@quiver/toolkits';
import { ToolClient } from './tool-client.helpers.js';

export const TOOLKIT = 'RepoHostApi';

export type Schema = { [keyword: string]: any };

export interface CatalogParameter {
  name: string;
  description: string;
  required: boolean;
  schema: Schema;
  in?: 'path' | 'query' | 'header' | 'body';
  upstream?: string;
}

export interface CatalogTool {
  name: string;
  parameters: CatalogParameter[];
  http: { method: string; path: string; contentType?: string };
  requestBody?: { contentType: string; schema: Schema };
}

/** The generated catalog, read from its file so the expectations do not come from the registry under test. */
export const catalog = JSON.parse(readFileSync(new URL('../src/repo-host/catalog.json', import.meta.url), 'utf8')) as {
  name: string;
  baseUrl: string;
  tools: CatalogTool[];
};

export const catalogTool = (name: string): CatalogTool => {
  const found = catalog.tools.find((tool) => tool.name === name);
  if (!found) throw new Error(`no RepoHostApi tool ${name}`);
  return found;
};

// ------------------------------------------------------------------------------------------------
// Clients

export interface ClientOptions {
  /** Context base URL; default the emulator's. */
  baseUrl?: string;
  secrets?: Record<string, string>;
  /** Upstream client retries; default 0 so that each call reaches the emulator at most once. */
  maxRetries?: number;
  /** Calls shaped as a server shapes them (the response budget, `fields`). */
  policy?: ServingPolicy;
}

/** The upstream client, keeping the HTTP status of every answer it received (a tool's value does not carry it). */
export class RecordingUpstream extends UpstreamClient {
  readonly statuses: number[] = [];

  override async send(request: UpstreamRequest): ReturnType<UpstreamClient['send']> {
    const outcome = await super.send(request);
    this.statuses.push('response' in outcome ? outcome.response.status : (outcome.error.status_code ?? 0));
    return outcome;
  }
}

/** Calls RepoHostApi tools as one GitHub user (one token). */
export class RepoHostClient extends ToolClient {
  readonly upstream: RecordingUpstream;

  constructor(
    readonly emulator: GithubEmulator,
    readonly token: string,
    options: ClientOptions = {},
  ) {
    const upstream = new RecordingUpstream({ maxRetries: options.maxRetries ?? 0, retryBaseDelayMs: 10 });
    super(repoHost, {
      upstream: { url: options.baseUrl ?? emulator.url, requests: emulator.requests },
      token,
      secrets: options.secrets,
      client: upstream,
      verbose: true,
      policy: options.policy,
    });
    this.upstream = upstream;
  }

  /** The HTTP status of the last answer this client received. */
  get lastStatus(): number | undefined {
    return this.upstream.statuses.at(-1);
  }
}

/** The requests the emulator received while `work` ran, and its result. */
export async function recording<T>(emulator: GithubEmulator, work: () => Promise<T>): Promise<{ result: T; requests: RecordedRequest[] }> {
  const before = emulator.requests.length;
  const result = await work();
  return { result, requests: emulator.requests.slice(before) };
}

/** Whether a received path (as sent, percent-encoded) fills the tool's path template. */
export function matchesTemplate(template: string, path: string): boolean {
  const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
  return new RegExp(`^${pattern}$`).test(path);
}

// ------------------------------------------------------------------------------------------------
// Input generation

/** Values by upstream name that name the seeded state (owner, repo, issue number, ...). */
export type Known = Record<string, unknown>;

/** The allowed values a description states ("One of: a, b, c.") where the schema has no enum. */
export function statedValues(description: string | undefined): string[] | undefined {
  const match = /One of: (.*?)\.?$/.exec(description ?? '');
  return match ? match[1]!.split(', ').map((value) => value.trim()) : undefined;
}

const FORMATS: Record<string, string> = {
  'date-time': '2025-01-15T10:00:00Z',
  date: '2025-01-15',
  uri: 'https://example.com/quiver',
  email: 'mona@example.com',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  uuid: '00000000-0000-4000-8000-000000000000',
};

/**
 * A deterministic value that satisfies `schema`: enums and stated values take their first value,
 * oneOf/anyOf their first branch, objects their required properties, arrays `minItems` items (at
 * least one), numbers their minimum; strings honour format, minLength, maxLength and simple patterns.
 * `known` supplies a value by property name where the name says what it identifies.
 */
export function valueFor(schema: Schema, name = '', known: Known = {}, depth = 0, full = false): unknown {
  if (depth > 12) return undefined;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum.find((v: unknown) => v !== null) ?? schema.enum[0];
  if ('const' in schema) return schema.const;
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(schema[keyword]) && schema[keyword].length) {
      const { [keyword]: branches, ...rest } = schema;
      const candidates = (branches as Schema[]).filter((b) => b.type !== 'null');
      // The first branch whose value (required fields only, else every field) the whole schema accepts.
      for (const branch of candidates) {
        for (const all of [full, true]) {
          const value = valueFor(mergeSchemas(rest, branch), name, known, depth + 1, all);
          if (validate(schema, value).length === 0) return value;
        }
      }
      return valueFor(mergeSchemas(rest, candidates[0] ?? {}), name, known, depth + 1, full);
    }
  }
  if (Array.isArray(schema.allOf)) {
    const { allOf, ...rest } = schema;
    return valueFor((allOf as Schema[]).reduce(mergeSchemas, rest), name, known, depth + 1, full);
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  const knownValue = name in known ? known[name] : undefined;
  switch (type ?? (schema.properties ? 'object' : schema.items ? 'array' : 'string')) {
    case 'integer':
    case 'number': {
      if (typeof knownValue === 'number') return knownValue;
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : undefined);
      const value = min ?? 1;
      return schema.maximum !== undefined ? Math.min(value, schema.maximum) : value;
    }
    case 'boolean':
      return typeof knownValue === 'boolean' ? knownValue : true;
    case 'array': {
      if (Array.isArray(knownValue)) return knownValue;
      const count = Math.max(schema.minItems ?? 1, 1);
      const itemName = singular(name);
      return Array.from({ length: count }, (_, i) => {
        const item = valueFor((schema.items as Schema) ?? {}, itemName, known, depth + 1);
        // Distinct items for uniqueItems and for lists of names.
        return typeof item === 'string' && i > 0 ? `${item}${i}` : item;
      });
    }
    case 'object': {
      if (knownValue && typeof knownValue === 'object' && !Array.isArray(knownValue)) return knownValue;
      const object: Record<string, unknown> = {};
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const keys = full ? Object.keys(properties) : ((schema.required ?? []) as string[]);
      for (const key of keys) {
        const value = valueFor(properties[key] ?? {}, key, known, depth + 1);
        if (value !== undefined) object[key] = value;
      }
      const min = schema.minProperties ?? 0;
      for (const key of Object.keys(properties)) {
        if (Object.keys(object).length >= min) break;
        if (!(key in object)) object[key] = valueFor(properties[key]!, key, known, depth + 1);
      }
      if (Object.keys(object).length < min && schema.additionalProperties) {
        object.key = valueFor(schema.additionalProperties === true ? {} : schema.additionalProperties, 'key', known, depth + 1);
      }
      return object;
    }
    default: {
      const stated = statedValues(schema.description);
      if (stated) return stated[0];
      const fits = (text: string) => !schema.pattern || new RegExp(schema.pattern).test(text);
      if (typeof knownValue === 'string' && fits(knownValue)) return knownValue;
      if (typeof knownValue === 'number' && fits(String(knownValue))) return String(knownValue);
      let text = FORMATS[schema.format as string] ?? 'quiver';
      if (schema.pattern && !new RegExp(schema.pattern).test(text)) text = fromPattern(schema.pattern) ?? text;
      if (schema.minLength && text.length < schema.minLength) text = text.padEnd(schema.minLength, 'x');
      if (schema.maxLength !== undefined && text.length > schema.maxLength) text = text.slice(0, schema.maxLength);
      return text;
    }
  }
}

/** A branch of oneOf/anyOf/allOf read together with the schema around it: properties merged, required fields joined. */
function mergeSchemas(outer: Schema, branch: Schema): Schema {
  const merged: Schema = { ...outer, ...branch };
  if (outer.properties || branch.properties) merged.properties = { ...outer.properties, ...branch.properties };
  if (outer.required || branch.required) merged.required = [...new Set([...(outer.required ?? []), ...(branch.required ?? [])])];
  return merged;
}

const singular = (name: string) => name.replace(/_ids$/, '_id').replace(/ies$/, 'y').replace(/s$/, '');

/** A string for the few simple patterns request bodies use. */
function fromPattern(pattern: string): string | undefined {
  for (const candidate of ['quiver', 'v1.0.0', '1', 'a', 'A', 'main', '0000000000000000000000000000000000000000', 'https://example.com', 'refs/heads/main']) {
    if (new RegExp(pattern).test(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The input of a tool: its required parameters (each from its schema, named values from `known` by
 * upstream name), every path parameter, and for mode-driven tools mode execute with a request body
 * built from the request-body schema. `extra` adds or replaces parameters by tool parameter name;
 * `body` replaces fields of the generated request body.
 */
export function inputFor(tool: CatalogTool, known: Known, extra: Record<string, unknown> = {}, body: Record<string, unknown> = {}): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const p of tool.parameters) {
    if (!p.in) continue;
    if (!p.required && p.in !== 'path') continue;
    const upstream = p.upstream ?? p.name;
    const schema = { ...p.schema, description: p.description };
    input[p.name] = valueFor(schema, upstream, known);
  }
  if (tool.requestBody) {
    // In mode execute the query parameters become required too.
    for (const p of tool.parameters.filter((q) => q.in === 'query'))
      input[p.name] ??= valueFor({ ...p.schema, description: p.description }, p.upstream ?? p.name, known);
    const generated = valueFor(tool.requestBody.schema, '', known);
    const merged = generated && typeof generated === 'object' && !Array.isArray(generated) ? { ...(generated as object), ...body } : generated;
    input.mode = 'execute';
    input.request_body = JSON.stringify(merged);
  }
  return { ...input, ...extra };
}
