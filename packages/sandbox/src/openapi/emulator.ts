/**
 * An emulator for any OpenAPI 3.x document, on the shared emulator layer: the document's operations become
 * the operation table (so routing, path, query and body validation, the answer check, recording and rate
 * limits are the built-in emulators' own), header and cookie parameters are checked here, and every operation
 * demands a credential of the scheme it declares, matching what the emulator granted. Answers come from the
 * document's examples, or are generated from the response schema, and always validate against it. Where the
 * paths show an obvious collection (`POST /things`, `GET|PUT|PATCH|DELETE /things/{id}`), what a create
 * answered is what a read answers, an update changes it and a delete removes it (404 after), per emulator.
 * Refusals are RFC 9457 problems (application/problem+json), or the document's own error shape where it
 * documents one for the status.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import type Database from 'better-sqlite3';
import { defineEmulator, type Emulator, type EmulatorCore, type EmulatorOptions, type EmulatorRequest } from '../emulator/define.js';
import type { JsonSchema, Operation } from '../emulator/operations.js';
import { retryAfterSeconds, type RateLimitDialect } from '../emulator/rate-limit.js';
import { EmulatorError, type AuthenticationRequest, type EmulatorResponse } from '../emulator/server.js';
import { closeObjects, pointAtDefinitions } from '../emulator/validation.js';
import { generate, uuid, fromPattern } from './generate.js';
import type { Node } from './schema.js';
import { cookies, credentialReader, DEFAULT_BASIC_USER, DEFAULT_CREDENTIAL, joined, PUBLIC_CALLER, type CredentialReader } from './security.js';
import { buildTable, type DocumentedResponse, type OpenApiTable, type OperationInfo, type SecurityRequirement } from './table.js';

const addFormats = addFormatsModule as unknown as FormatsPlugin;

export interface OpenApiEmulatorOptions extends EmulatorOptions {
  /** The OpenAPI 3.x document (bundled: only internal `#/...` references), or the path of its JSON file. */
  document: Node | string;
  /**
   * What each security scheme accepts, by scheme name (Basic as `user:password`; a bare secret is the password
   * of user `quiver`); one string for every scheme. Schemes not named accept `quiver-sandbox-token`.
   */
  credentials?: string | Record<string, string>;
  /** A path prefix every operation is served under (the server URL's path, when a client keeps it). Default: none. */
  basePath?: string;
  /**
   * What a read of an id nobody created answers, in a collection that has a create operation: `answer` (the
   * default) gives the document's example or a generated one carrying that id; `not-found` refuses with 404.
   * A deleted id is a 404 either way.
   */
  unknownIds?: 'answer' | 'not-found';
}

/** The OpenAPI emulator's own members, besides the shared ones. */
export interface OpenApiTools {
  /** The document's title. */
  title: string;
  /** The credential each security scheme accepts, by scheme name (Basic as `user:password`). */
  credentials: Record<string, string>;
  /** Makes `credential` one more that `scheme` accepts. */
  grant(scheme: string, credential: string): void;
  /** The operations served, by label (operationId, or `METHOD /path`). */
  operations: string[];
  /** Operations the emulator does not serve, each with its reason. */
  skipped: string[];
}

export type OpenApiEmulator = Emulator & OpenApiTools;

/** A refusal of the OpenAPI emulator itself (credentials, headers, unknown ids), rendered like the layer's. */
export class OpenApiRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly label?: string,
    readonly headers?: Record<string, string>,
    readonly field?: string,
  ) {
    super(message);
  }
}

interface Role {
  kind: 'create' | 'list' | 'read' | 'update' | 'delete';
  /** The collection's path template, e.g. `/owners/{ownerId}/pets`. */
  collection: string;
  /** The item path's parameter, for item operations. */
  idParameter?: string;
}

interface Context {
  db: Database.Database;
  model: OpenApiTable;
  check: Checker;
  reader: CredentialReader;
  roles: Record<string, Role>;
  /** The property that holds an item's id, by collection template. */
  idFields: Record<string, string>;
  /** The read operation of each collection, whose schema stored items are held to. */
  readers: Record<string, string>;
  creatable: Set<string>;
  unknownIds: 'answer' | 'not-found';
  answers: Map<string, unknown>;
}

type Request = EmulatorRequest<object>;

export async function startOpenApiEmulator(options: OpenApiEmulatorOptions): Promise<OpenApiEmulator> {
  const document = typeof options.document === 'string' ? (JSON.parse(readFileSync(options.document, 'utf8')) as Node) : options.document;
  const model = buildTable(document);
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  if (basePath) for (const operation of Object.values(model.table.operations)) operation.path = `${basePath}${operation.path}`;
  const schemeNames = Object.keys(model.schemes);
  const given = options.credentials;
  if (given && typeof given === 'object') {
    const unknown = Object.keys(given).filter((name) => !model.schemes[name]);
    if (unknown.length)
      throw new Error(`OpenAPI emulator: no security scheme ${unknown.join(', ')} in the document (it has ${schemeNames.join(', ') || 'none'})`);
  }
  const credentials: Record<string, string> = {};
  for (const name of schemeNames) {
    const value = (typeof given === 'string' ? given : given?.[name]) ?? DEFAULT_CREDENTIAL;
    credentials[name] = model.schemes[name]!.kind === 'basic' && !value.includes(':') ? `${DEFAULT_BASIC_USER}:${value}` : value;
  }
  const accepted = new Map<string, Set<string>>(schemeNames.map((name) => [name, new Set([credentials[name]!])]));
  const grantedCredentials = new Set<string>();
  const requirements = [model.security, ...Object.values(model.operations).map((info) => info.security)].flat();
  const requirementsOf = (label: string | undefined) => (label ? (model.operations[label]?.security ?? model.security) : model.security);
  let issue: (credential: string) => void = () => {};
  const grantCombinations = (scheme?: string, value?: string) => {
    for (const requirement of requirements) {
      if (requirement.length === 0 || (scheme && !requirement.includes(scheme)) || !requirement.every((name) => accepted.has(name))) continue;
      const credential = joined(
        requirement,
        requirement.map((name) => (name === scheme ? value! : credentials[name]!)),
      );
      grantedCredentials.add(credential);
      issue(credential);
    }
  };
  const reader = credentialReader(model.schemes, requirementsOf, (credential) => grantedCredentials.has(credential));

  const start = defineEmulator<object, Context, OpenApiTools>({
    name: model.title,
    operations: model.table,
    handlers: {},
    fallback: (request, ctx) => answer(request as Request, ctx),
    createTables,
    context: (core: EmulatorCore) => {
      issue = (credential) => core.issue(credential);
      core.issue(PUBLIC_CALLER);
      grantCombinations();
      return {
        db: core.db,
        model,
        check: new Checker(model.table.$defs),
        reader,
        ...resourceRoles(model),
        unknownIds: options.unknownIds ?? 'answer',
        answers: new Map(),
      };
    },
    credentials: {
      read: (headers, request) => reader.read(headers, request),
      refuse: (credential, _ctx, request) => refusal(credential, request, reader, requirementsOf),
      principal: () => ({}),
    },
    renderError,
    rateLimit,
    api: () => ({
      title: model.title,
      credentials: { ...credentials },
      grant(scheme, value) {
        const known = accepted.get(scheme);
        if (!known) throw new Error(`OpenAPI emulator: no security scheme ${scheme}`);
        const credential = model.schemes[scheme]!.kind === 'basic' && !value.includes(':') ? `${DEFAULT_BASIC_USER}:${value}` : value;
        known.add(credential);
        grantCombinations(scheme, credential);
      },
      operations: Object.keys(model.table.operations),
      skipped: [...model.skipped],
    }),
  });
  return start(options);
}

function createTables(db: Database.Database): void {
  db.exec(`CREATE TABLE IF NOT EXISTS openapi_resources (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    collection TEXT NOT NULL,
    id TEXT NOT NULL,
    body TEXT,
    deleted INTEGER NOT NULL DEFAULT 0,
    UNIQUE (collection, id)
  )`);
  db.exec('CREATE TABLE IF NOT EXISTS openapi_counters (collection TEXT PRIMARY KEY, next INTEGER NOT NULL)');
}

function refusal(
  credential: string | undefined,
  request: AuthenticationRequest,
  reader: CredentialReader,
  requirementsOf: (label: string | undefined) => SecurityRequirement[],
): OpenApiRefusal {
  const { detail, challenge } = reader.describe(requirementsOf(request.label));
  const headers = challenge ? { 'www-authenticate': challenge } : undefined;
  const message = credential === undefined ? `this operation requires credentials: ${detail}` : `the credential is not valid for this operation: ${detail}`;
  return new OpenApiRefusal(401, message, request.label, headers);
}

const rateLimit: RateLimitDialect<unknown> = {
  default: { requests: 1_000_000, windowMs: 60_000 },
  refusal: (window) => ({
    status: 429,
    headers: { 'retry-after': String(retryAfterSeconds(window)), 'content-type': 'application/problem+json' },
    body: problem(429, 'rate limit exceeded'),
  }),
};

// ---------------------------------------------------------------------------------------------------------
// Checking data against converted schemas

/** Strict validation of bodies against the converted schemas (objects closed, as the layer checks them); coercing for headers. */
class Checker {
  private readonly strict: Ajv;
  private readonly coercing: Ajv;
  private readonly cache = new WeakMap<JsonSchema, ValidateFunction>();
  private readonly coercedCache = new WeakMap<JsonSchema, ValidateFunction>();
  private static readonly ID = 'quiver:openapi-definitions';

  constructor(defs: Record<string, JsonSchema>) {
    this.strict = new Ajv({ strict: false, inlineRefs: false, code: { optimize: false } });
    this.coercing = new Ajv({ strict: false, coerceTypes: 'array' });
    addFormats(this.strict);
    addFormats(this.coercing);
    const closed = Object.fromEntries(Object.entries(defs).map(([name, schema]) => [name, closeObjects(schema)]));
    this.strict.addSchema({ $id: Checker.ID, $defs: closed });
  }

  valid(schema: JsonSchema, data: unknown): boolean {
    return this.errors(schema, data) === undefined;
  }

  errors(schema: JsonSchema, data: unknown): ErrorObject[] | undefined {
    let validate = this.cache.get(schema);
    if (!validate) {
      validate = this.strict.compile(pointAtDefinitions(closeObjects(schema), Checker.ID));
      this.cache.set(schema, validate);
    }
    return validate(data) ? undefined : (validate.errors ?? []);
  }

  /** Text values (headers, cookies) read as their schemas' types. */
  coerced(schema: JsonSchema, data: Record<string, string>): ErrorObject | undefined {
    let validate = this.coercedCache.get(schema);
    if (!validate) {
      validate = this.coercing.compile(schema);
      this.coercedCache.set(schema, validate);
    }
    return validate(structuredClone(data)) ? undefined : validate.errors?.[0];
  }
}

// ---------------------------------------------------------------------------------------------------------
// Answering

function answer(request: Request, ctx: Context): EmulatorResponse {
  const label = request.operation;
  const info = ctx.model.operations[label]!;
  const operation = ctx.model.table.operations[label]!;
  checkParameters(info, request, ctx);
  const role = ctx.roles[label];
  if (role) {
    const handled = answerResource(role, request, operation, ctx);
    if (handled) return handled;
  }
  return plain(label, operation, ctx);
}

function plain(label: string, operation: Operation, ctx: Context): EmulatorResponse {
  const status = operation.successStatus;
  if (!operation.responseBody) return { status };
  return { status, body: structuredClone(documentedAnswer(label, status, ctx)) };
}

/** Required header and cookie parameters, and the values sent, against their schemas. */
function checkParameters(info: OperationInfo, request: Request, ctx: Context): void {
  for (const [kind, parameters, values] of [
    ['header', info.headers, request.headers],
    ['cookie', info.cookies, cookies(request.headers.cookie)],
  ] as const) {
    for (const parameter of parameters) {
      const value = values[parameter.name];
      if (value === undefined) {
        if (parameter.required) throw new OpenApiRefusal(400, `${kind} '${parameter.name}' is required`, info.label, undefined, parameter.name);
        continue;
      }
      const error = ctx.check.coerced({ type: 'object', properties: { value: parameter.schema } }, { value });
      if (error) throw new OpenApiRefusal(400, `${kind} '${parameter.name}' ${error.message ?? 'is invalid'}`, info.label, undefined, parameter.name);
    }
  }
}

/** The schema documented for a success status of an operation. */
function successSchema(operation: Operation, status: number): JsonSchema | undefined {
  return status === operation.successStatus ? operation.responseBody : operation.otherSuccesses?.[status]?.responseBody;
}

/**
 * The document's answer for a success status: its first example that validates, else data generated from
 * the schema (with the schema's own examples, then without them). Kept, so that it is the same every time.
 */
function documentedAnswer(label: string, status: number, ctx: Context): unknown {
  const key = `${label} ${status}`;
  if (ctx.answers.has(key)) return ctx.answers.get(key);
  const operation = ctx.model.table.operations[label]!;
  const schema = successSchema(operation, status) ?? {};
  const documented = ctx.model.operations[label]!.responses[String(status)];
  const json = documented?.json !== false;
  const candidates: unknown[] = [...(documented?.examples ?? [])];
  if (!json) candidates.push('');
  else candidates.push(generate(schema, { defs: ctx.model.table.$defs }), generate(schema, { defs: ctx.model.table.$defs, examples: false }));
  for (const candidate of candidates) {
    if (!json && typeof candidate !== 'string') continue;
    if (ctx.check.valid(schema, candidate)) {
      ctx.answers.set(key, candidate);
      return candidate;
    }
  }
  const errors = ctx.check.errors(schema, candidates.at(-1));
  throw new OpenApiRefusal(500, `the emulator could not make an answer that matches the response schema (${describeErrors(errors)})`, label);
}

function describeErrors(errors: ErrorObject[] | undefined): string {
  const first = errors?.[0];
  return first ? `${first.instancePath || 'the body'} ${first.message ?? 'is invalid'}` : 'unknown';
}

// ---------------------------------------------------------------------------------------------------------
// Collections: create, read, update, delete and list kept consistent

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function resourceRoles(model: OpenApiTable): Pick<Context, 'roles' | 'idFields' | 'readers' | 'creatable'> {
  const roles: Record<string, Role> = {};
  const items = new Map<string, string>();
  for (const [label, operation] of Object.entries(model.table.operations)) {
    const match = /^(.+)\/\{([^}]+)\}$/.exec(operation.path);
    if (!match) continue;
    const kind = ({ GET: 'read', PUT: 'update', PATCH: 'update', DELETE: 'delete' } as const)[operation.method];
    if (!kind) continue;
    roles[label] = { kind, collection: match[1]!, idParameter: match[2]! };
    items.set(match[1]!, match[2]!);
  }
  const creatable = new Set<string>();
  const readers: Record<string, string> = {};
  for (const [label, operation] of Object.entries(model.table.operations)) {
    if (!items.has(operation.path)) continue;
    if (operation.method === 'POST') {
      roles[label] = { kind: 'create', collection: operation.path };
      creatable.add(operation.path);
    }
    if (operation.method === 'GET') roles[label] = { kind: 'list', collection: operation.path };
  }
  for (const [label, role] of Object.entries(roles)) if (role.kind === 'read') readers[role.collection] = label;
  // The id lives in the property named like the path parameter, or `id`.
  const idFields: Record<string, string> = {};
  for (const [collection, parameter] of items) {
    const sources = Object.entries(roles)
      .filter(([, role]) => role.collection === collection && (role.kind === 'create' || role.kind === 'read'))
      .map(([label]) => model.table.operations[label]!.responseBody);
    for (const schema of sources) {
      const properties = schema && (model.converter.inline(schema).properties as Record<string, unknown> | undefined);
      if (!properties) continue;
      const names = Object.keys(properties);
      const normal = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');
      const field =
        names.find((name) => name === parameter) ??
        names.find((name) => name === 'id') ??
        names.find((name) => normal(name) === normal(parameter)) ??
        names.find((name) => normal(name) === 'id' || normal(`${name}`) === normal(parameter).replace(/id$/, ''));
      if (field) {
        idFields[collection] = field;
        break;
      }
    }
  }
  return { roles, idFields, readers, creatable };
}

function collectionKey(template: string, params: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

interface Row {
  body: string | null;
  deleted: number;
}

function answerResource(role: Role, request: Request, operation: Operation, ctx: Context): EmulatorResponse | undefined {
  const idField = ctx.idFields[role.collection];
  if (!idField) return undefined;
  const key = collectionKey(role.collection, request.params);
  const label = request.operation;
  const status = operation.successStatus;
  const schema = operation.responseBody;
  const readLabel = ctx.readers[role.collection];
  const itemSchema = (readLabel && ctx.model.table.operations[readLabel]!.responseBody) || schema;

  if (role.kind === 'create') {
    if (!schema) return undefined;
    const base = structuredClone(documentedAnswer(label, status, ctx));
    if (!isObject(base)) return undefined;
    const created = overlay(base, request.body, (candidate) => ctx.check.valid(schema, candidate));
    const n = nextNumber(ctx.db, key);
    const id = newId(created, idField, n, (candidate) => ctx.check.valid(schema, candidate) && (!itemSchema || ctx.check.valid(itemSchema, candidate)));
    store(ctx.db, key, String(id), created);
    return { status, body: created };
  }
  if (role.kind === 'list') {
    if (!schema) return undefined;
    const rows = ctx.db.prepare('SELECT body FROM openapi_resources WHERE collection = ? AND deleted = 0 ORDER BY seq').all(key) as Row[];
    if (rows.length === 0) return undefined;
    const items = rows.map((row) => JSON.parse(row.body!) as unknown);
    const base = structuredClone(documentedAnswer(label, status, ctx));
    const candidates: unknown[] = Array.isArray(base) ? [items] : [];
    if (isObject(base)) for (const [name, value] of Object.entries(base)) if (Array.isArray(value)) candidates.push({ ...base, [name]: items });
    const listed = candidates.find((candidate) => ctx.check.valid(schema, candidate));
    return listed === undefined ? undefined : { status, body: listed };
  }

  const id = request.params[role.idParameter!]!;
  const row = ctx.db.prepare('SELECT body, deleted FROM openapi_resources WHERE collection = ? AND id = ?').get(key, id) as Row | undefined;
  const name = role.collection.split('/').filter(Boolean).at(-1) ?? 'item';
  if (row?.deleted || (!row && ctx.unknownIds === 'not-found' && ctx.creatable.has(role.collection))) {
    throw new OpenApiRefusal(404, `no ${name} with ${role.idParameter} ${id}${row?.deleted ? ' (it was deleted)' : ''}`, label);
  }
  // What the item is now: as stored, or (never created here) the document's answer carrying the id asked for.
  const current = (): Record<string, unknown> | undefined => {
    if (row?.body) return JSON.parse(row.body) as Record<string, unknown>;
    const source = readLabel ?? (schema ? label : undefined);
    if (!source) return undefined;
    const sourceOperation = ctx.model.table.operations[source]!;
    const base = structuredClone(documentedAnswer(source, sourceOperation.successStatus, ctx));
    if (!isObject(base)) return undefined;
    return withId(base, idField, id, (candidate) => ctx.check.valid(sourceOperation.responseBody ?? {}, candidate));
  };

  if (role.kind === 'read') {
    const item = current();
    if (item === undefined || !schema) return undefined;
    if (ctx.check.valid(schema, item)) return { status, body: item };
    return { status, body: overlay(structuredClone(documentedAnswer(label, status, ctx)) as Record<string, unknown>, item, (c) => ctx.check.valid(schema, c)) };
  }
  if (role.kind === 'update') {
    const item = current();
    if (item === undefined) return undefined;
    const changed = overlay(item, request.body, (candidate) => !itemSchema || ctx.check.valid(itemSchema, candidate));
    store(ctx.db, key, id, changed);
    if (!schema) return { status };
    if (ctx.check.valid(schema, changed)) return { status, body: changed };
    const base = structuredClone(documentedAnswer(label, status, ctx));
    return { status, body: isObject(base) ? overlay(base, changed, (c) => ctx.check.valid(schema, c)) : base };
  }
  // delete
  ctx.db
    .prepare('INSERT INTO openapi_resources (collection, id, body, deleted) VALUES (?, ?, NULL, 1) ON CONFLICT (collection, id) DO UPDATE SET deleted = 1')
    .run(key, id);
  return plain(label, operation, ctx);
}

function nextNumber(db: Database.Database, key: string): number {
  const row = db.prepare('SELECT next FROM openapi_counters WHERE collection = ?').get(key) as { next: number } | undefined;
  const n = row?.next ?? 1;
  db.prepare('INSERT INTO openapi_counters (collection, next) VALUES (?, ?) ON CONFLICT (collection) DO UPDATE SET next = excluded.next').run(key, n + 1);
  return n;
}

function store(db: Database.Database, key: string, id: string, body: unknown): void {
  db.prepare(
    'INSERT INTO openapi_resources (collection, id, body, deleted) VALUES (?, ?, ?, 0) ON CONFLICT (collection, id) DO UPDATE SET body = excluded.body, deleted = 0',
  ).run(key, id, JSON.stringify(body));
}

/** The request's fields laid over `target`, each kept only where the result still validates (form text read as numbers and flags too). */
function overlay(target: Record<string, unknown>, source: unknown, valid: (candidate: Record<string, unknown>) => boolean): Record<string, unknown> {
  let out = target;
  if (!isObject(source)) return out;
  for (const [name, value] of Object.entries(source)) {
    const readings = typeof value === 'string' ? [value, Number(value), value === 'true' ? true : value === 'false' ? false : undefined] : [value];
    for (const reading of readings) {
      if (reading === undefined || (typeof reading === 'number' && Number.isNaN(reading))) continue;
      const candidate = { ...out, [name]: reading };
      if (valid(candidate)) {
        out = candidate;
        break;
      }
    }
  }
  return out;
}

/** A fresh id for the n-th item created in a collection, in the form the id's schema takes. */
function newId(item: Record<string, unknown>, field: string, n: number, valid: (candidate: Record<string, unknown>) => boolean): unknown {
  const base = item[field];
  const candidates: unknown[] =
    typeof base === 'number'
      ? [n, base + n]
      : [uuid(1000 + n), String(n), `${String(base ?? 'id')}-${n}`, ...(typeof base === 'string' ? [fromPatternLike(base, n)] : [])];
  for (const candidate of candidates) {
    if (candidate === undefined) continue;
    if (valid({ ...item, [field]: candidate })) {
      item[field] = candidate;
      return candidate;
    }
  }
  return base;
}

/** A string like `example` that differs in its digits: `usr_1a2b` → `usr_1a2b` with its last digit run replaced. */
function fromPatternLike(example: string, n: number): string | undefined {
  return /\d+(?!.*\d)/.test(example) ? example.replace(/\d+(?!.*\d)/, (digits) => String(n).padStart(digits.length, '0')) : fromPattern(example, n);
}

function withId(item: Record<string, unknown>, field: string, id: string, valid: (candidate: Record<string, unknown>) => boolean): Record<string, unknown> {
  for (const candidate of [id, Number(id)]) {
    if (typeof candidate === 'number' && Number.isNaN(candidate)) continue;
    const out = { ...item, [field]: candidate };
    if (valid(out)) return out;
  }
  return item;
}

// ---------------------------------------------------------------------------------------------------------
// Refusals

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
};

/** An RFC 9457 problem. */
export function problem(status: number, detail: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'about:blank', title: TITLES[status] ?? 'Error', status, detail, ...extra };
}

function renderError(error: unknown, label: string | undefined, ctx: Context): EmulatorResponse {
  let status = 500;
  let detail: string;
  let headers: Record<string, string> = {};
  let extra: Record<string, unknown> = {};
  if (error instanceof OpenApiRefusal) {
    status = error.status;
    detail = error.message;
    label ??= error.label;
    headers = { ...error.headers };
    if (error.field) extra = { errors: [{ detail: error.message, field: error.field }] };
  } else if (error instanceof EmulatorError) {
    status = error.status;
    detail = error.message;
    label ??= error.label;
    if (error.issue)
      extra = { errors: [{ detail: error.issue.message, in: error.issue.in, code: error.issue.code, ...(error.issue.field && { field: error.issue.field }) }] };
    const allowed = /; allowed: (.+)$/.exec(error.message)?.[1];
    if (status === 405 && allowed) headers.allow = allowed;
  } else {
    detail = `emulator fault: ${error instanceof Error ? error.message : String(error)}`;
  }
  const info = label ? ctx.model.operations[label] : undefined;
  // A body that breaks the schema is what the document calls 422 when that is the status it documents for it.
  if (status === 400 && info && error instanceof EmulatorError && error.issue?.in === 'body' && info.responses['422'] && !info.responses['400']) status = 422;
  const documented = info && status >= 400 && status !== 500 ? documentedError(info, status) : undefined;
  if (documented) {
    const shaped = shapedError(documented, status, detail, ctx);
    if (shaped !== undefined) return { status, headers: { 'content-type': documented.contentType!, ...headers }, body: shaped };
  }
  return { status, headers: { 'content-type': 'application/problem+json', ...headers }, body: problem(status, detail, extra) };
}

function documentedError(info: OperationInfo, status: number): DocumentedResponse | undefined {
  const response = info.responses[String(status)] ?? info.responses[`${String(status)[0]}XX`] ?? info.responses.DEFAULT;
  return response?.json && response.schema ? response : undefined;
}

const MESSAGE_FIELDS = ['detail', 'message', 'error_description', 'error', 'title', 'description', 'msg', 'reason'];
const STATUS_FIELDS = ['status', 'code', 'statusCode', 'status_code'];

/** The document's error body for the status: its example or generated data, the message and status put where its fields say. */
function shapedError(response: DocumentedResponse, status: number, detail: string, ctx: Context): unknown {
  const schema = response.schema!;
  const defs = ctx.model.table.$defs;
  const candidates = [...response.examples, generate(schema, { defs }), generate(schema, { defs, examples: false })];
  for (const candidate of candidates) {
    if (!ctx.check.valid(schema, candidate)) continue;
    let body = structuredClone(candidate);
    if (isObject(body)) {
      const fill = (names: string[], value: unknown): boolean => {
        for (const name of names) {
          if (!isObject(body) || !(name in body)) continue;
          const attempt = { ...body, [name]: value };
          if (ctx.check.valid(schema, attempt)) {
            body = attempt;
            return true;
          }
        }
        return false;
      };
      fill(MESSAGE_FIELDS, detail);
      if (!fill(STATUS_FIELDS, status)) fill(STATUS_FIELDS, String(status));
      // An error object one level down (`{ error: { message } }`).
      for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
        if (!isObject(value)) continue;
        for (const field of MESSAGE_FIELDS) {
          if (!(field in value)) continue;
          const attempt = { ...(body as Record<string, unknown>), [name]: { ...value, [field]: detail } };
          if (ctx.check.valid(schema, attempt)) {
            body = attempt;
            break;
          }
        }
      }
    }
    return body;
  }
  return undefined;
}
