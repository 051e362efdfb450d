/**
 * Valid inputs for any imported tool, made from its schemas, and the request it builds turned back into what
 * a server sees (path, query, headers, parsed body) for an independent OpenAPI request validator.
 */
import { buildRequest, inputSchema, validate, type JsonSchema, type ToolData } from '@quiver/core';

type Node = Record<string, any>;

const candidates = ['abc', 'a', 'A', '1', 'ab12', 'abc-def', 'ABC', 'a1b2c3', '2024-01-01', 'x@example.com', 'AB', '00', 'US', 'USD', 'en', 'en-US'];

/** A value the schema accepts (checked with the runtime's own validator), or undefined when none was found. */
export function valueFor(schema: JsonSchema, depth = 0): unknown {
  const s = schema as Node;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum.find((value: unknown) => value !== null) ?? s.enum[0];
  for (const keyword of ['anyOf', 'oneOf']) {
    if (!Array.isArray(s[keyword])) continue;
    // A value of one variant only, where there is one: the source may say oneOf where the catalog says anyOf.
    const branches = s[keyword] as Node[];
    const values = branches
      .map((branch) => valueFor({ ...withoutKeys(s, [keyword]), ...branch }, depth + 1))
      .filter((value) => value !== undefined && !validate(schema, value).length);
    const alone = values.find((value) => branches.filter((branch) => !validate({ ...withoutKeys(s, [keyword]), ...branch }, value).length).length === 1);
    return alone ?? values[0];
  }
  if (Array.isArray(s.allOf)) {
    const merged: Node = { ...withoutKeys(s, ['allOf']), properties: { ...s.properties }, required: [...(s.required ?? [])] };
    for (const part of s.allOf as Node[]) {
      for (const [key, value] of Object.entries(part)) if (!(key in merged)) merged[key] = value;
      Object.assign(merged.properties, part.properties);
      merged.required.push(...(part.required ?? []));
    }
    if (!Object.keys(merged.properties).length) delete merged.properties;
    return valueFor(merged, depth + 1);
  }
  const types: string[] = Array.isArray(s.type) ? s.type.filter((type: string) => type !== 'null') : s.type ? [s.type] : s.properties ? ['object'] : ['string'];
  const type = types[0] ?? 'null';
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return true;
    case 'integer':
    case 'number': {
      let n = typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : 1;
      if (typeof s.maximum === 'number' && n > s.maximum) n = s.maximum;
      if (typeof s.multipleOf === 'number') n = Math.ceil(n / s.multipleOf) * s.multipleOf;
      return type === 'integer' ? Math.ceil(n) : n;
    }
    case 'array': {
      const item = valueFor((s.items ?? {}) as JsonSchema, depth + 1);
      const count = Math.max(1, s.minItems ?? 1);
      return item === undefined
        ? undefined
        : Array.from({ length: count }, (_, i) => (s.uniqueItems && typeof item === 'number' ? item + i : item)).slice(
            0,
            s.uniqueItems && typeof item !== 'number' ? 1 : count,
          );
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      const required = new Set<string>(s.required ?? []);
      // A map that must hold entries gets one.
      if (s.minProperties && !Object.keys(s.properties ?? {}).length && s.additionalProperties && typeof s.additionalProperties === 'object') {
        const value = valueFor(s.additionalProperties, depth + 1);
        if (value !== undefined) out.key1 = value;
      }
      for (const [name, property] of Object.entries((s.properties ?? {}) as Record<string, Node>)) {
        if (!required.has(name) && depth > 2) continue;
        const value = valueFor(property, depth + 1);
        if (value === undefined) {
          if (required.has(name)) return undefined;
          continue;
        }
        out[name] = value;
      }
      return out;
    }
    default:
      return stringFor(s);
  }
}

function stringFor(s: Node): string | undefined {
  const formats: Record<string, string> = {
    'date-time': '2024-05-01T10:00:00Z',
    date: '2024-05-01',
    time: '10:00:00Z',
    email: 'ada@example.com',
    uuid: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
    uri: 'https://example.com/a',
    url: 'https://example.com/a',
    'uri-reference': '/a',
    hostname: 'example.com',
    ipv4: '192.0.2.1',
    ipv6: '2001:db8::1',
    byte: 'aGVsbG8=',
    duration: 'P1D',
  };
  const tries = [formats[s.format as string], ...candidates].filter((value): value is string => value !== undefined);
  const min = s.minLength ?? 0;
  for (const base of tries) {
    const value = base.length < min ? base.padEnd(min, base.at(-1) === '-' ? 'a' : base.at(-1)) : base;
    if (!validate(s, value).length) return value;
  }
  return undefined;
}

const withoutKeys = (node: Node, keys: string[]) => Object.fromEntries(Object.entries(node).filter(([key]) => !keys.includes(key)));

/** A valid input of the tool: every parameter it can fill (mode-driven: `execute` with a generated body). */
export function inputFor(tool: ToolData): Record<string, unknown> | undefined {
  const input: Record<string, unknown> = {};
  for (const parameter of tool.parameters) {
    if (parameter.name === 'mode') input.mode = 'execute';
    else if (parameter.name === 'request_body' && tool.requestBody) {
      const body = valueFor(tool.requestBody.schema);
      if (body === undefined) return undefined;
      input.request_body = JSON.stringify(body);
    } else {
      const value = valueFor(parameter.schema);
      if (value === undefined || value === null) {
        if (parameter.required || parameter.in === 'path') return undefined;
        continue;
      }
      input[parameter.name] = value;
    }
  }
  return validate(inputSchema(tool), input).length ? undefined : input;
}

export interface ServerView {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body?: unknown;
}

/** The request the tool builds from the input, as a server sees it: the body parsed as its content type says. */
export function serverView(tool: ToolData, input: Record<string, unknown>, documentPath: string): ServerView {
  const base = 'https://upstream.test';
  const body = tool.requestBody ? JSON.parse(input.request_body as string) : undefined;
  const request = buildRequest({ ...tool, http: tool.http! }, input, base, body);
  if ('error' in request) throw new Error(`${tool.name}: ${request.error.message}`);
  const url = new URL(request.url);
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    query[key] = values.length > 1 ? values : values[0]!;
  }
  const contentType = request.headers['content-type'] ?? '';
  let parsed: unknown;
  if (request.body !== undefined) {
    // JSON as sent: the validator parses it itself.
    if (/json/.test(contentType)) parsed = request.body;
    else if (contentType.startsWith('application/x-www-form-urlencoded')) parsed = grouped([...new URLSearchParams(request.body)]);
    else if (contentType.startsWith('multipart/form-data')) parsed = grouped(multipartFields(request.body, contentType));
    else parsed = request.body;
  }
  // A path the document writes with a fragment (`/files/{id}#add_shared_link`) is matched with it.
  const fragment = /#.*$/.exec(documentPath)?.[0] ?? '';
  // The headers as they reach the server: HTTP adds the body's length, which no tool sets itself.
  const headers = request.body === undefined ? request.headers : { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) };
  return { method: request.method, path: decodeURI(url.pathname) + fragment, query, headers, ...(parsed !== undefined && { body: parsed }) };
}

function grouped(pairs: Array<[string, string]>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of pairs) {
    const existing = out[key];
    out[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}

function multipartFields(body: string, contentType: string): Array<[string, string]> {
  const boundary = /boundary=(.+)$/.exec(contentType)![1]!;
  return body
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((part) => {
      const [head = '', ...rest] = part.replace(/^\r\n/, '').split('\r\n\r\n');
      const name = /name="([^"]*)"/.exec(head)![1]!;
      return [name, rest.join('\r\n\r\n').replace(/\r\n$/, '')] as [string, string];
    });
}

/**
 * What a server does with text fields before validating them (form and multipart values are text): numbers,
 * booleans and JSON objects read as the operation's body schema says, and a lone value of a list as a list.
 */
export function coerceFields(value: unknown, schema: Node | undefined): unknown {
  if (!schema || !value || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) out[key] = coerce(field, schema.properties?.[key]);
  return out;
}

function coerce(value: unknown, schema: Node | undefined): unknown {
  if (!schema) return value;
  const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('array')) return (Array.isArray(value) ? value : [value]).map((item) => coerce(item, schema.items));
  if (typeof value !== 'string') return value;
  if ((types.includes('integer') || types.includes('number')) && value !== '' && Number.isFinite(Number(value))) return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  if (types.includes('object')) {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}

/**
 * The document with every reference whose pointer holds an escape (`#/paths/~1pets/get/...`) replaced by
 * what it names: openapi-backend's quick dereferencing reads pointers without unescaping them. Same meaning.
 */
export function withEscapedReferencesInlined(document: Node): Node {
  const target = (ref: string): unknown =>
    ref
      .slice(2)
      .split('/')
      .reduce<any>((node, part) => node?.[decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~')], document);
  const walk = (node: unknown, depth: number): unknown => {
    if (Array.isArray(node)) return node.map((item) => walk(item, depth));
    if (!node || typeof node !== 'object') return node;
    const ref = (node as Node).$ref;
    if (typeof ref === 'string' && /[~%]/.test(ref) && depth < 20) return walk(structuredClone(target(ref)), depth + 1);
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, walk(value, depth)]));
  };
  return walk(document, 0) as Node;
}

/** Query values as a server reads them with the parameter schemas of the source document: numbers, booleans, JSON objects. */
export function coerceQuery(query: Record<string, string | string[]>, parameters: Node[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { ...query };
  for (const parameter of parameters ?? []) {
    if (parameter?.in !== 'query' || !(parameter.name in query)) continue;
    out[parameter.name] = coerce(query[parameter.name], parameter.schema);
  }
  return out;
}
