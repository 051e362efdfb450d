/**
 * Helpers for the domain modules' tests, which call handlers directly: an in-memory database, a
 * small fake GithubContext (a tiny repos table, open-ended users, samples from the description's
 * examples), and a check of each answer against the operation's ghes-3.8 response schema, with
 * objects closed as the HTTP layer closes them. Test-only: not part of the built package.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import Database from 'better-sqlite3';
import type { Clock } from '../../emulator/clock.js';
import { GithubError, notFound, type GithubContext, type GithubRequest, type GithubResponse, type GithubUser, type Handler, type Repository } from '../context.js';

type Json = any;

const require = createRequire(import.meta.url);
const description: Json = JSON.parse(readFileSync(require.resolve('@octokit/openapi/generated/ghes-3.8.json'), 'utf8'));

interface OperationInfo {
  responses: Record<string, Json>;
}

const operations = new Map<string, OperationInfo>();
for (const item of Object.values<Json>(description.paths)) {
  for (const operation of Object.values<Json>(item)) {
    if (operation?.operationId) operations.set(operation.operationId, { responses: operation.responses });
  }
}

function deref(node: Json): Json {
  let current = node;
  while (current?.$ref) {
    const [, section, name] = /^#\/components\/(\w+)\/(.+)$/.exec(current.$ref)!;
    current = description.components[section!][name!];
  }
  return current;
}

/** `additionalProperties: false` on every object that lists properties and is silent on others, as the HTTP layer has it. */
function closeObjects(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(closeObjects);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'example' || key === 'examples' || key === 'description') out[key] = value;
    else if (key === 'properties') out.properties = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, closeObjects(v)]));
    else out[key] = closeObjects(value);
  }
  if (schema.properties && !('additionalProperties' in schema)) out.additionalProperties = false;
  // OpenAPI's `nullable` admits null even where an `enum` leaves it out.
  if (schema.nullable === true && Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...schema.enum, null];
  if (typeof out.$ref === 'string') out.$ref = out.$ref.replace('#/components/schemas/', 'ghes#/');
  return out;
}

const addFormats = addFormatsModule as unknown as FormatsPlugin;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: 'ghes', ...closeObjects(description.components.schemas) });
const validators = new Map<string, ValidateFunction>();

function responseSchema(operation: string, status: number): Json | undefined {
  const info = operations.get(operation);
  if (!info) throw new Error(`no operation ${operation} in ghes-3.8`);
  const response = deref(info.responses[String(status)]);
  if (!response) throw new Error(`${operation} documents no ${status} response`);
  return response.content?.['application/json']?.schema;
}

/** Fails unless `response` is a documented success of the operation whose body fits its schema. */
export function expectConforms(operation: string, response: GithubResponse): void {
  const schema = responseSchema(operation, response.status);
  if (!schema) {
    if (response.body !== undefined) throw new Error(`${operation} ${response.status} must answer without a body`);
    return;
  }
  const key = `${operation} ${response.status}`;
  let validate = validators.get(key);
  if (!validate) validators.set(key, (validate = ajv.compile(closeObjects(schema))));
  if (!validate(JSON.parse(JSON.stringify(response.body)))) {
    throw new Error(`${key} breaks its schema: ${ajv.errorsText(validate.errors, { separator: '\n' })}`);
  }
}

/** The operation's documented example (the first), as the HTTP layer's sample would give. */
function sample(operation: string, status?: number): Json {
  const info = operations.get(operation);
  if (!info) throw new Error(`no operation ${operation} in ghes-3.8`);
  const code = status ?? Number(Object.keys(info.responses).find((c) => c.startsWith('2')));
  const content = deref(info.responses[String(code)])?.content?.['application/json'];
  const example = content?.examples ? deref(Object.values<Json>(content.examples)[0]).value : content?.example;
  return structuredClone(example ?? {});
}

/** Time stands still unless a test moves it, so timestamps in answers are exact. */
function frozenClock(start: number): Clock {
  let now = start;
  return {
    now: () => now,
    advance: (ms) => void (now += ms),
    set: (ms) => void (now = ms),
  };
}

export interface FakeContext extends GithubContext {
  /** Adds a repository to the tiny repos table. */
  addRepository(fullName: string, options?: { private?: boolean; defaultBranch?: string }): Repository;
}

export function fakeContext(...createTables: Array<(db: Database.Database) => void>): FakeContext {
  const db = new Database(':memory:');
  db.exec(`
    CREATE TABLE repos (id INTEGER PRIMARY KEY, owner TEXT NOT NULL, name TEXT NOT NULL, private INTEGER NOT NULL, default_branch TEXT NOT NULL);
    CREATE TABLE users (id INTEGER PRIMARY KEY AUTOINCREMENT, login TEXT NOT NULL UNIQUE COLLATE NOCASE);
  `);
  for (const create of createTables) create(db);
  const toRepository = (row: Json): Repository => ({
    id: row.id,
    owner: row.owner,
    name: row.name,
    fullName: `${row.owner}/${row.name}`,
    private: row.private === 1,
    defaultBranch: row.default_branch,
  });
  const ctx: FakeContext = {
    db,
    clock: frozenClock(Date.UTC(2025, 0, 15, 12)),
    repository(owner, name) {
      const row = db.prepare('SELECT * FROM repos WHERE owner = ? COLLATE NOCASE AND name = ? COLLATE NOCASE').get(owner, name);
      if (!row) throw notFound();
      return toRepository(row);
    },
    user(login): GithubUser {
      db.prepare('INSERT OR IGNORE INTO users (login) VALUES (?)').run(login);
      return db.prepare('SELECT id, login FROM users WHERE login = ?').get(login) as GithubUser;
    },
    sample,
    addRepository(fullName, options = {}) {
      const [owner, name] = fullName.split('/');
      ctx.user(owner!);
      const id = 1000 + (db.prepare('SELECT COUNT(*) AS n FROM repos').get() as { n: number }).n + 1;
      db.prepare('INSERT INTO repos (id, owner, name, private, default_branch) VALUES (?, ?, ?, ?, ?)').run(
        id,
        owner,
        name,
        options.private ? 1 : 0,
        options.defaultBranch ?? 'main',
      );
      return ctx.repository(owner!, name!);
    },
  };
  return ctx;
}

export interface Caller {
  /** Calls the handler and checks the answer against the operation's response schema. */
  (operation: string, request?: Partial<GithubRequest>): { status: number; body: Json; headers?: Record<string, string> };
  /** Calls the handler expecting a GithubError, and returns it. */
  fails(operation: string, request?: Partial<GithubRequest>): GithubError;
  /** Acts as another user from now on. */
  as(login: string): Caller;
}

export function caller(ctx: GithubContext, handlers: Record<string, Handler>, login = 'octocat'): Caller {
  const run = (operation: string, request: Partial<GithubRequest> = {}) => {
    const handler = handlers[operation];
    if (!handler) throw new Error(`no handler for ${operation}`);
    return handler({ operation, params: {}, query: {}, body: undefined, user: ctx.user(login), ...request }, ctx);
  };
  const call = ((operation, request) => {
    const response = run(operation, request);
    expectConforms(operation, response);
    return { ...response, body: response.body === undefined ? undefined : JSON.parse(JSON.stringify(response.body)) };
  }) as Caller;
  call.fails = (operation, request) => {
    try {
      run(operation, request);
    } catch (error) {
      if (error instanceof GithubError) return error;
      throw error;
    }
    throw new Error(`${operation} succeeded; expected a GithubError`);
  };
  call.as = (other) => caller(ctx, handlers, other);
  return call;
}
