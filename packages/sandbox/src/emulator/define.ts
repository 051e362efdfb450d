/**
 * One emulator, wired once. A service defines its operation table, handlers, tables, credentials, error
 * shape and rate-limit dialect; `defineEmulator` turns that into a start function that opens the state
 * (SQLite, in memory or in a file), takes the clock, checks that the handlers and the table agree, serves
 * each host on loopback through the shared HTTP layer (routing, validation, recording), runs every handler
 * in one transaction, refuses any credential that was not issued, with the service's own error, and counts
 * each credential's requests against its rate limit (rate-limit.ts), telling it in the service's headers.
 */
import { createHash, randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { createClock, type Clock } from './clock.js';
import { pageLinks } from './paging.js';
import { checkHandlers, resetTables, serviceDatabase } from './database.js';
import type { OperationTable } from './operations.js';
import { RateLimitRefusal, RateLimits, type RateLimitDialect, type RateLimitSetting, type RateWindow } from './rate-limit.js';
import { startEmulator, type AuthenticationRequest, type EmulatorResponse, type RecordedRequest, type RunningEmulator } from './server.js';

/**
 * What every handler receives: the call, already valid against its operation, and who makes it. `Body` is
 * the shape a handler reads its body as; unknown until the handler declares it.
 */
export type EmulatorRequest<Principal, Body = unknown> = Principal & {
  /** The operation's label in the table, e.g. "post-/marketing/v3/campaigns" or "repos/get". */
  operation: string;
  /** The request path as sent. */
  path: string;
  /** Path parameters by upstream name, URL-decoded. */
  params: Record<string, string>;
  /** Query parameters by upstream name; an array parameter is always an array, read as its upstream sends it. */
  query: Record<string, string | string[]>;
  /** Lower-cased names. */
  headers: Record<string, string>;
  /** The parsed body, valid against the operation's request schema; undefined when none was sent. */
  body: Body;
};

/**
 * One signature for every handler. A handler that reads its body declares the body's type on its request
 * (`(req: HubspotRequest<CampaignInput>, ctx) => ...`): the layer has checked the body against the
 * operation's schema before the handler runs, so the declaration states what is known. (Method syntax
 * makes the parameter bivariant, which is what lets a handler narrow `unknown` to its own body type.)
 */
export type Handler<Principal, Context, Body = unknown> = {
  handle(request: EmulatorRequest<Principal, Body>, ctx: Context): EmulatorResponse;
}['handle'];

export interface EmulatorOptions {
  /** The clock handlers read; tests pass one they control. Default: real time. */
  clock?: Clock;
  /** SQLite file for state that outlives the process. Default: in memory. */
  dbPath?: string;
  /** Requests each credential may make per window. Default: the service's window, with a generous count. */
  limit?: RateLimitSetting;
  /** The loopback port of the first host; a service's further hosts take the ports after it. Default: ones the system picks. */
  port?: number;
}

/** The shared parts a service builds its context and its test methods from. */
export interface EmulatorCore {
  db: Database.Database;
  clock: Clock;
  /** Runs `work` as one transaction, so that a step that throws halfway leaves no trace. */
  inTransaction<T>(work: () => T): T;
  /** Base URL per host, filled in once the hosts listen. */
  urls: Record<string, string>;
  /** Makes `credential` one the emulator accepts; answers it. */
  issue(credential: string): string;
}

/** How a service's requests carry credentials, and how it answers one it does not know. */
export interface CredentialScheme<Principal, Context> {
  /**
   * The credential a request carries (a bearer token, Basic `site:key`), or undefined when it carries none of the right shape.
   * `request` is where it goes, for services whose operations take different credentials (an API key in the query).
   */
  read(headers: Record<string, string>, request: AuthenticationRequest): string | undefined;
  /** The service's own refusal of a missing (undefined) or unknown credential. */
  refuse(credential: string | undefined, ctx: Context, request: AuthenticationRequest): Error;
  /** Who an issued credential acts as, on the host the request came to; runs in the request's transaction. */
  principal(credential: string, ctx: Context, host: string): Principal;
  /** How the service's tokens begin (`ghp_`, `pat-na1-`), for the ones `issueToken()` makes up. */
  tokenPrefix?: string;
}

export interface EmulatorDefinition<Principal, Context, Api> {
  /** The service's name, for startup errors. */
  name: string;
  operations: OperationTable;
  handlers: Record<string, Handler<Principal, Context>>;
  /** Answers operations without a handler; without it, every operation must have one. */
  fallback?: Handler<Principal, Context>;
  /** Creates the service's tables (and seeds rows it always has); runs again on reset. */
  createTables(db: Database.Database): void;
  /** Enforce foreign keys (deleting a row deletes what belongs to it). */
  foreignKeys?: boolean;
  /** Names of the hosts the service answers on, each its own origin over the one state; the first is `url`. */
  hosts?: readonly string[];
  /** What handlers see besides the request: built once per start. */
  context(core: EmulatorCore): Context | Promise<Context>;
  credentials: CredentialScheme<Principal, Context>;
  /** The context as one caller sees it, when that differs (GitHub hides private repositories from outsiders). */
  scope?(ctx: Context, principal: Principal): Context;
  /** Renders anything a request threw as the service's error; `operation` once routing found it. */
  renderError(error: unknown, operation: string | undefined, ctx: Context): EmulatorResponse;
  /** How the service tells each credential's rate-limit budget, and refuses a request over it. */
  rateLimit: RateLimitDialect<Principal>;
  /** The service's own methods for tests and the sandbox: seeding, inspecting. */
  api(core: EmulatorCore, ctx: Context): Api;
  /** Further state to forget on reset, beyond the tables. */
  reset?(ctx: Context): void;
  close?(ctx: Context): Promise<void>;
}

export interface Emulator {
  /** Base URL of the first host, e.g. http://127.0.0.1:43121; operation paths go after it. */
  url: string;
  /** Every request received, in order (host by host), refused ones included. */
  readonly requests: RecordedRequest[];
  clock: Clock;
  /** The state, for tests to seed or inspect directly. */
  db: Database.Database;
  /**
   * A credential the emulator accepts from now on: a fresh token, or `credential` itself (a test that
   * wants a readable one). Requests with any other credential are refused as the service refuses them.
   * Issued credentials outlive `reset()`; what they act as is made anew on first use.
   */
  issueToken(credential?: string): string;
  /** Requests each credential may make per window, from now on (a window under way keeps its count). */
  setRateLimit(limit: RateLimitSetting): void;
  /** Empties all state (rows the service always has come back), the request log and the rate-limit windows (the start's limit comes back). */
  reset(): void;
  close(): Promise<void>;
}

/** Only a digest of each issued credential is kept, as a service keeps its tokens. */
const CREDENTIALS_TABLE = 'issued_credentials';

export function defineEmulator<Principal, Context, Api>(
  definition: EmulatorDefinition<Principal, Context, Api>,
): (options?: EmulatorOptions) => Promise<Emulator & Api> {
  const { name, operations, handlers, fallback, credentials } = definition;
  const hosts = definition.hosts ?? ['default'];
  const createTables = (db: Database.Database) => {
    db.exec(`CREATE TABLE IF NOT EXISTS ${CREDENTIALS_TABLE} (digest TEXT PRIMARY KEY)`);
    definition.createTables(db);
  };

  return async (options = {}) => {
    checkHandlers(name, operations, handlers, !fallback);
    const clock = options.clock ?? createClock();
    const { db, inTransaction } = serviceDatabase(options.dbPath);
    if (definition.foreignKeys) db.pragma('foreign_keys = ON');
    createTables(db);
    const digest = (credential: string) => createHash('sha256').update(credential).digest('hex');
    const issue = (credential: string) => {
      db.prepare(`INSERT OR IGNORE INTO ${CREDENTIALS_TABLE} (digest) VALUES (?)`).run(digest(credential));
      return credential;
    };
    const issued = (credential: string) => db.prepare(`SELECT 1 FROM ${CREDENTIALS_TABLE} WHERE digest = ?`).get(digest(credential)) !== undefined;
    const core: EmulatorCore = { db, clock, inTransaction, urls: {}, issue };
    const ctx = await definition.context(core);
    const limits = new RateLimits(clock, options.limit ?? definition.rateLimit.default);
    // The budget's headers on every answer to a credential, errors included; an answer's own win.
    const told = (response: EmulatorResponse, window: RateWindow | undefined): EmulatorResponse => {
      const headers = window && definition.rateLimit.headers?.(window);
      return headers ? { ...response, headers: { ...headers, ...response.headers } } : response;
    };

    const serve = (host: string, index: number) =>
      startEmulator<{ principal: Principal; window: RateWindow }>({
        operations,
        ...(options.port !== undefined && { port: options.port + index }),
        authenticate(headers, request) {
          const credential = credentials.read(headers, request);
          if (credential === undefined || !issued(credential)) throw credentials.refuse(credential, ctx, request);
          const principal = inTransaction(() => credentials.principal(credential, ctx, host));
          const { window, spent } = limits.take(digest(credential));
          if (spent) throw new RateLimitRefusal(told(definition.rateLimit.refusal(window, principal), window));
          return { principal, window };
        },
        handle({ label, path, search, params, query, headers, body }, { principal, window }) {
          const handler = handlers[label] ?? fallback!;
          const request = { ...principal, operation: label, path, params, query, headers, body } as EmulatorRequest<Principal>;
          const seen = definition.scope ? definition.scope(ctx, principal) : ctx;
          const response = inTransaction(() => handler(request, seen));
          // A page of a longer list links to the others, as its handler's `linkedPage` recorded it.
          const link = response.status < 300 ? pageLinks(query, `${core.urls[host]}${path}${search && `?${search}`}`) : undefined;
          return told(link ? { ...response, headers: { ...response.headers, link } } : response, window);
        },
        renderError: (error, label, caller) => {
          if (error instanceof RateLimitRefusal) return error.response;
          return told(definition.renderError(error, label, ctx), caller?.window);
        },
      });
    // A host that cannot listen (its port in use) fails the start, with the hosts that did closed again.
    const listening = await Promise.allSettled(hosts.map((host, index) => serve(host, index)));
    const refused = listening.find((outcome) => outcome.status === 'rejected');
    if (refused) {
      await Promise.all(listening.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.close() : undefined)));
      await definition.close?.(ctx);
      db.close();
      throw refused.reason;
    }
    const servers: RunningEmulator[] = listening.map((outcome) => (outcome as PromiseFulfilledResult<RunningEmulator>).value);
    for (const [index, host] of hosts.entries()) core.urls[host] = servers[index]!.url;

    const emulator: Emulator = {
      url: servers[0]!.url,
      get requests() {
        return servers.length === 1 ? servers[0]!.requests : servers.flatMap((server) => server.requests);
      },
      clock,
      db,
      issueToken: (credential) => issue(credential ?? `${credentials.tokenPrefix ?? ''}${randomBytes(20).toString('hex')}`),
      setRateLimit: (limit) => limits.set(limit),
      reset() {
        resetTables(db, createTables, [CREDENTIALS_TABLE]);
        limits.reset();
        definition.reset?.(ctx);
        for (const server of servers) server.requests.length = 0;
      },
      async close() {
        await Promise.all(servers.map((server) => server.close()));
        await definition.close?.(ctx);
        db.close();
      },
    };
    // Descriptors, not values, so that `requests` stays live; the shared members win over a service's.
    return Object.defineProperties(definition.api(core, ctx) as object, Object.getOwnPropertyDescriptors(emulator)) as Emulator & Api;
  };
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(headers: Record<string, string>): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1];
}
