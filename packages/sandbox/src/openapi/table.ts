/**
 * An OpenAPI 3.x document as the emulator framework's operation table (path and query parameters, the
 * request body by content type, the documented successes), plus what the table does not hold and the
 * OpenAPI emulator checks itself: header and cookie parameters, each operation's security requirements,
 * and every documented response with its examples (errors included, to shape refusals by).
 */
import type { JsonSchema, Operation, OperationTable, QueryParameter } from '../emulator/operations.js';
import { closeObjects } from '../emulator/validation.js';
import { asFormField, defName, type Node, SchemaConverter } from './schema.js';

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface SecurityScheme {
  name: string;
  /** bearer (HTTP bearer, OAuth 2 and OpenID Connect tokens), basic, apiKey, or another HTTP scheme by its name. */
  kind: 'bearer' | 'basic' | 'apiKey' | 'http';
  /** For apiKey: where and under which name; for `http`, the scheme's name (Digest, ...). */
  in?: 'header' | 'query' | 'cookie';
  parameter?: string;
  scheme?: string;
  type: string;
}

/** One way to call an operation: every named scheme at once. An empty one means no credential. */
export type SecurityRequirement = string[];

export interface ParameterCheck {
  name: string;
  required: boolean;
  schema: JsonSchema;
}

export interface DocumentedResponse {
  /** The media type answered, when the response has content. */
  contentType?: string;
  json: boolean;
  schema?: JsonSchema;
  /** Examples the document gives for this response's content, in order. */
  examples: unknown[];
}

export interface OperationInfo {
  label: string;
  method: string;
  path: string;
  headers: ParameterCheck[];
  cookies: ParameterCheck[];
  security: SecurityRequirement[];
  /** By status as the document writes it: "200", "4XX", "default". */
  responses: Record<string, DocumentedResponse>;
}

export interface OpenApiTable {
  title: string;
  table: OperationTable;
  operations: Record<string, OperationInfo>;
  schemes: Record<string, SecurityScheme>;
  /** The document-wide requirements (for paths no operation has). */
  security: SecurityRequirement[];
  /** What was left out of the emulator, and why. */
  skipped: string[];
  converter: SchemaConverter;
}

/** Names a requirement no credential meets (its schemes are ones the emulator cannot check). */
export const UNSUPPORTED = '<unsupported scheme>';

/** Headers a client sends for other reasons; OpenAPI says parameters of these names are ignored. */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

export function buildTable(document: Node): OpenApiTable {
  if (typeof document !== 'object' || document === null) throw new Error('OpenAPI emulator: the document must be an object');
  if (document.swagger) throw new Error('OpenAPI emulator: a Swagger 2.0 document must be converted to OpenAPI 3.x first');
  if (typeof document.openapi !== 'string' || !document.openapi.startsWith('3.')) throw new Error('OpenAPI emulator: the document is not OpenAPI 3.x');
  const converter = new SchemaConverter(document);
  const schemes = securitySchemes(document, converter);
  const skipped: string[] = [];
  // No requirement (or an empty list) is a public operation; a scheme the emulator cannot check makes that
  // way of calling impossible, not free; mutual TLS is left to the transport, which loopback does not have.
  const requirements = (raw: unknown): SecurityRequirement[] => {
    if (!Array.isArray(raw) || raw.length === 0) return [[]];
    const out: SecurityRequirement[] = [];
    for (const requirement of raw as Node[]) {
      const names = Object.keys(requirement ?? {}).filter((name) => document.components?.securitySchemes?.[name]?.type !== 'mutualTLS');
      if (names.every((name) => schemes[name])) out.push(names.sort());
    }
    return out.length ? out : [[UNSUPPORTED]];
  };
  const security = requirements(document.security);
  const operations: Record<string, Operation> = {};
  const infos: Record<string, OperationInfo> = {};
  const used = new Set<string>();

  for (const [path, rawItem] of Object.entries<Node>(document.paths ?? {})) {
    const item = converter.follow(rawItem);
    for (const method of METHODS) {
      const source = item[method] as Node | undefined;
      if (!source) continue;
      const where = `${method.toUpperCase()} ${path}`;
      let label = typeof source.operationId === 'string' && source.operationId ? source.operationId : where;
      if (used.has(label)) label = `${label} (${where})`;
      used.add(label);
      try {
        // A `#fragment` tells apart operations on one method and path (`/files/{id}#add_shared_link`): it is
        // never sent, so each is served on the path without it, and a request is the one whose checks it passes.
        const served = path.replace(/#.*$/, '');
        const [operation, info] = describeOperation(converter, document, served, method, item, source, label);
        info.security = source.security !== undefined ? requirements(source.security) : security;
        // An API key in the query is a query parameter the validator must not call unknown.
        for (const name of new Set(info.security.flat())) {
          const scheme = schemes[name];
          if (scheme?.kind === 'apiKey' && scheme.in === 'query')
            operation.queryParameters[scheme.parameter!] ??= { required: false, schema: { type: 'string' } };
        }
        operations[label] = operation;
        infos[label] = info;
      } catch (error) {
        skipped.push(`${where}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  return {
    title: String(document.info?.title ?? 'OpenAPI'),
    table: { $defs: converter.definitions(), operations },
    operations: infos,
    schemes,
    security,
    skipped,
    converter,
  };
}

function securitySchemes(document: Node, converter: SchemaConverter): Record<string, SecurityScheme> {
  const out: Record<string, SecurityScheme> = {};
  for (const [name, raw] of Object.entries<Node>(document.components?.securitySchemes ?? {})) {
    const scheme = converter.follow(raw);
    if (scheme.type === 'oauth2' || scheme.type === 'openIdConnect') out[name] = { name, kind: 'bearer', type: scheme.type };
    else if (scheme.type === 'apiKey' && ['header', 'query', 'cookie'].includes(scheme.in) && scheme.name)
      out[name] = { name, kind: 'apiKey', in: scheme.in, parameter: scheme.name, type: 'apiKey' };
    else if (scheme.type === 'http') {
      const http = String(scheme.scheme ?? '').toLowerCase();
      if (http === 'bearer') out[name] = { name, kind: 'bearer', type: 'http' };
      else if (http === 'basic') out[name] = { name, kind: 'basic', type: 'http' };
      else if (http) out[name] = { name, kind: 'http', scheme: String(scheme.scheme), type: 'http' };
    }
  }
  return out;
}

function describeOperation(
  converter: SchemaConverter,
  document: Node,
  path: string,
  method: string,
  item: Node,
  source: Node,
  label: string,
): [Operation, OperationInfo] {
  const operation: Operation = { method: method.toUpperCase(), path, pathParameters: {}, queryParameters: {}, successStatus: 200 };
  const info: OperationInfo = { label, method: operation.method, path, headers: [], cookies: [], security: [], responses: {} };

  // Operation parameters override the path item's of the same name and location.
  const parameters = new Map<string, Node>();
  for (const raw of [...(item.parameters ?? []), ...(source.parameters ?? [])]) {
    const parameter = converter.follow(raw);
    if (parameter?.name && parameter.in) parameters.set(`${parameter.in} ${parameter.name}`, parameter);
  }
  for (const parameter of parameters.values()) {
    const schema = parameterSchema(converter, parameter);
    const required = parameter.required === true;
    switch (parameter.in) {
      case 'path':
        // An array or object in the path travels as one text (`1,2,3`); the emulator takes it as such.
        operation.pathParameters[parameter.name] = ['array', 'object'].some((type) => [schema.type].flat().includes(type)) ? { type: 'string' } : schema;
        break;
      case 'query':
        addQueryParameter(operation, parameter, schema, required);
        break;
      case 'header':
        if (!IGNORED_HEADERS.has(String(parameter.name).toLowerCase())) info.headers.push({ name: String(parameter.name).toLowerCase(), required, schema });
        break;
      case 'cookie':
        info.cookies.push({ name: parameter.name, required, schema });
        break;
    }
  }
  for (const match of path.matchAll(/\{([^}]+)\}/g)) operation.pathParameters[match[1]!] ??= { type: 'string' };

  if (source.requestBody) describeBody(converter, operation, converter.follow(source.requestBody));

  for (const [status, raw] of Object.entries<Node>(source.responses ?? {}))
    info.responses[status.toUpperCase()] = documentedResponse(converter, document, converter.follow(raw));
  const successes = Object.keys(info.responses)
    .filter((status) => /^2\d\d$/.test(status))
    .sort();
  const fallback = info.responses['2XX'] ?? info.responses.DEFAULT;
  if (successes.length === 0) {
    if (fallback) info.responses['200'] = fallback;
    else info.responses['200'] = { json: false, examples: [] };
    successes.push('200');
  }
  const [first, ...others] = successes;
  Object.assign(operation, successOf(Number(first), info.responses[first!]!));
  for (const status of others) {
    const { responseBody, responseContentType } = successOf(Number(status), info.responses[status]!);
    operation.otherSuccesses ??= {};
    operation.otherSuccesses[Number(status)] = {
      ...(responseBody && { responseBody }),
      ...(responseContentType && { responseContentType }),
    };
  }
  return [operation, info];
}

function successOf(status: number, response: DocumentedResponse): Pick<Operation, 'successStatus' | 'responseBody' | 'responseContentType'> {
  const out: Pick<Operation, 'successStatus' | 'responseBody' | 'responseContentType'> = { successStatus: status };
  // 204 and 304 carry no body, whatever a document says.
  if (!response.contentType || status === 204) return out;
  out.responseBody = response.json ? (response.schema ?? {}) : { type: 'string' };
  if (!response.json) out.responseContentType = response.contentType;
  return out;
}

function parameterSchema(converter: SchemaConverter, parameter: Node): JsonSchema {
  const raw = parameter.schema ?? (parameter.content ? Object.values<Node>(parameter.content)[0]?.schema : undefined) ?? { type: 'string' };
  const schema = converter.inlineAll(converter.convert(raw, 'request'));
  // A header or query value is text: an example or default of another type would only document.
  return schema;
}

/**
 * Query parameters by the names they travel under: an object parameter of style deepObject is its
 * fields `name[field]`, one of style form (exploded, the default) its fields by their own names.
 */
function addQueryParameter(operation: Operation, parameter: Node, schema: JsonSchema, required: boolean): void {
  const style = parameter.style ?? 'form';
  const explode = parameter.explode ?? style === 'form';
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('object') && schema.properties && (style === 'deepObject' || (style === 'form' && explode))) {
    const requiredFields = new Set((schema.required as string[] | undefined) ?? []);
    for (const [field, child] of Object.entries(schema.properties as Record<string, JsonSchema>)) {
      const name = style === 'deepObject' ? `${parameter.name}[${field}]` : field;
      operation.queryParameters[name] = { required: required && requiredFields.has(field), schema: child };
    }
    return;
  }
  const query: QueryParameter = { required, schema };
  if (types.includes('array') && explode === false) query.explode = false;
  // An array of objects has no form of its own in a query: each item travels as its JSON text, as the
  // request builder sends it.
  const items = (schema.items as JsonSchema | undefined) ?? {};
  if (types.includes('array') && ([items.type].flat().includes('object') || items.properties)) {
    query.json = true;
    // Its objects are checked as strictly as a body's.
    query.schema = closeObjects(schema);
  }
  operation.queryParameters[parameter.name] = query;
}

/** Content types by preference: JSON, then form, then multipart, then text, then anything. */
function preference(mediaType: string): number {
  if (isJsonType(mediaType)) return 0;
  if (mediaType === 'application/x-www-form-urlencoded') return 1;
  if (mediaType === 'multipart/form-data') return 2;
  if (mediaType.startsWith('text/')) return 3;
  return 4;
}

export const isJsonType = (mediaType: string) => mediaType === 'application/json' || /\+json$/.test(mediaType);

function describeBody(converter: SchemaConverter, operation: Operation, body: Node): void {
  const declared = Object.entries<Node>(body.content ?? {}).map(([type, media]) => [type.split(';')[0]!.trim().toLowerCase(), media] as const);
  const contents = declared.filter(([type]) => type.includes('/') && !type.includes('*')).sort(([a], [b]) => preference(a) - preference(b));
  if (declared.length === 0) return;
  if (contents.length === 0) {
    // Only `*/*` or `application/*`: the body may be anything; JSON is read as JSON.
    operation.requestContentType = 'application/json';
    operation.requestBody = {};
  } else {
    const schemas = contents.map(([type, media]) => bodySchema(converter, type, media.schema));
    const [primary] = contents;
    operation.requestContentType = primary![0];
    operation.requestBody = schemas[0]!;
    // Further content types are accepted where they are read to the same schema.
    const same = contents.slice(1).filter((_, index) => JSON.stringify(schemas[index + 1]) === JSON.stringify(schemas[0]));
    if (same.length) operation.alternativeContentTypes = same.map(([type]) => type);
  }
  if (body.required !== true) operation.requestBodyOptional = true;
  // A wildcard (`*/*`, `application/*`) allows any media type it covers that is not named: JSON and form
  // fields read by its schema, anything else as text.
  const named = new Set([operation.requestContentType, ...contents.map(([type]) => type)]);
  const others: Record<string, JsonSchema> = {};
  for (const [wildcard, media] of declared.filter(([type]) => /^(\*|[\w.+-]+)\/\*$/.test(type))) {
    const covers = (type: string) => wildcard === '*/*' || type.startsWith(wildcard.slice(0, -1));
    for (const type of ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data']) {
      if (covers(type) && !named.has(type)) others[type] ??= bodySchema(converter, type, media.schema);
    }
    others[wildcard] ??= { type: 'string' };
  }
  if (Object.keys(others).length) operation.otherRequestBodies = others;
}

function bodySchema(converter: SchemaConverter, mediaType: string, raw: unknown): JsonSchema {
  const schema = converter.convert(raw ?? {}, 'request');
  if (isJsonType(mediaType)) return schema;
  if (mediaType === 'application/x-www-form-urlencoded' || mediaType === 'multipart/form-data') {
    const object = converter.inline(schema);
    const properties = Object.fromEntries(
      Object.entries((object.properties as Record<string, JsonSchema> | undefined) ?? {}).map(([name, child]) => [
        name,
        asFormField(converter.inlineAll(child), mediaType === 'application/x-www-form-urlencoded'),
      ]),
    );
    const out: JsonSchema = { type: 'object', ...(object.properties ? { properties } : {}) };
    if (Array.isArray(object.required) && object.required.length) out.required = object.required;
    if (object.additionalProperties !== undefined) out.additionalProperties = object.additionalProperties !== false;
    return out;
  }
  // Text, XML, bytes: read as the text sent.
  return { type: 'string' };
}

function documentedResponse(converter: SchemaConverter, document: Node, response: Node): DocumentedResponse {
  const contents = Object.entries<Node>(response?.content ?? {})
    .map(([type, media]) => [type.split(';')[0]!.trim().toLowerCase(), media] as const)
    .sort(([a], [b]) => preference(a) - preference(b));
  const [chosen] = contents;
  if (!chosen) return { json: false, examples: [] };
  const [type, media] = chosen;
  const contentType = type.includes('*') ? 'application/json' : type;
  const json = isJsonType(contentType);
  const examples: unknown[] = [];
  if (media.example !== undefined) examples.push(media.example);
  for (const example of Object.values<Node>(media.examples ?? {})) {
    const resolved = converter.follow(example);
    if (resolved && 'value' in resolved) examples.push(resolved.value);
  }
  void document;
  return { contentType, json, schema: media.schema === undefined ? undefined : converter.convert(media.schema, 'response'), examples };
}

/** The def name a response schema's top-level reference points at, if any (for tests and tools). */
export const responseDef = (name: string) => defName(name, 'response');
