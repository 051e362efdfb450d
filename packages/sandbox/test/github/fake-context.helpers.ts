/**
 * Helpers for the domain modules' tests, which call handlers directly: an in-memory database, a
 * small fake GithubContext (a tiny repos table, open-ended users, samples from the description's
 * examples), and a check of each answer against the operation's response schema in the generated
 * ghes-3.8 table, with objects closed as the HTTP layer closes them.
 */
import Database from 'better-sqlite3';
import { stillClock } from '../../src/emulator/clock.js';
import { createValidator } from '../../src/emulator/validation.js';
import {
  GithubError,
  notFound,
  type GithubContext,
  type GithubRequest,
  type GithubResponse,
  type GithubUser,
  type Handler,
  type Repository,
} from '../../src/github/context.js';
import { githubOperations } from '../../src/github/table.js';

type Json = any;

const { table, examples } = githubOperations;
const validator = createValidator(table);

function documented(operation: string, status: number): { responseBody?: unknown } {
  const found = table.operations[operation];
  if (!found) throw new Error(`no operation ${operation} in ghes-3.8`);
  const answer = status === found.successStatus ? found : found.otherSuccesses?.[status];
  if (!answer) throw new Error(`${operation} documents no ${status} response`);
  return answer;
}

/** Fails unless `response` is a documented success of the operation whose body fits its schema. */
export function expectConforms(operation: string, response: GithubResponse): void {
  // Redirects (a membership check's 302) carry no body; the table documents successes only.
  if (response.status >= 300 && response.status < 400) {
    if (response.body !== undefined) throw new Error(`${operation} ${response.status} must answer without a body`);
    return;
  }
  if (!documented(operation, response.status).responseBody) {
    if (response.body !== undefined) throw new Error(`${operation} ${response.status} must answer without a body`);
    return;
  }
  const issue = validator.response(operation, JSON.parse(JSON.stringify(response.body)), response.status);
  if (issue) throw new Error(`${operation} ${response.status} breaks its schema: ${issue.message}`);
}

/** The operation's documented example (the first), as the HTTP layer's sample would give. */
function sample(operation: string, status?: number): Json {
  const found = table.operations[operation];
  if (!found) throw new Error(`no operation ${operation} in ghes-3.8`);
  return structuredClone(examples[operation]?.[status ?? found.successStatus] ?? {});
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
    clock: stillClock(Date.UTC(2025, 0, 15, 12)),
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
    const path = table.operations[operation]?.path ?? '';
    return handler({ operation, path, params: {}, query: {}, headers: {}, body: undefined, user: ctx.user(login), ...request }, ctx);
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
