/**
 * Upstream rate-limit budgets. Each upstream answer's rate-limit headers say how much of its budget the
 * credential that sent it has left and when that comes back; they are kept per (upstream origin,
 * credential), so that a call the upstream would refuse is not sent at all, in this process or (with a
 * shared store) in any other.
 *
 * One model for every dialect: a budget holds windows, each with the requests it has left and the time it
 * resets, and possibly a time before which nothing may be sent (a Retry-After). The dialects:
 *   - `x-ratelimit-remaining` / `x-ratelimit-reset` (GitHub, ClickUp and most APIs): the reset in epoch
 *     seconds, or in seconds from now when the number is too small to be a date; GitHub's
 *     `x-ratelimit-resource` makes the window that resource's alone (core, search, graphql, ...);
 *   - `ratelimit-remaining` / `ratelimit-reset` (the IETF draft; seconds from now);
 *   - HubSpot's `X-HubSpot-RateLimit-Remaining` over `-Interval-Milliseconds` (a rolling window),
 *     `-Secondly-Remaining` (one second) and `-Daily-Remaining` (HubSpot's day ends at midnight in the
 *     account's time zone, which no header tells: a spent day is looked at again every hour);
 *   - `Retry-After` (seconds or an HTTP date) on a rate-limit refusal (Graph, Figma, Dropbox, Pylon, GitHub's
 *     secondary limits); a refusal that says nothing of when blocks for a second (a minute for GitHub, as
 *     its documentation asks).
 *
 * The key never holds the credential: it is an HMAC-SHA256 of the Authorization value under a secret of
 * the engine's (random per process when none is given), so neither the budgets, logs, metrics nor a shared
 * store ever hold a token. A request without an Authorization header has no budget. The keys of the
 * credentials last used are remembered beside them (this process only, bounded, as the engine's own
 * caches of tokens are), so that a credential is hashed once and not on every call.
 */
import { BoundedMemo } from './bounded-memo.js';
import { createHmac, randomBytes } from 'node:crypto';
import type { UpstreamRequest } from './request.js';

export interface BudgetWindow {
  /** `resource:<name>` for a window of one resource of the upstream's (GitHub's); any other name counts every request. */
  name: string;
  /** Requests the window has left. */
  remaining: number;
  /** When it resets, in epoch milliseconds. */
  resetAt: number;
}

/** What one answer says of its credential's budget. */
export interface BudgetReading {
  windows: BudgetWindow[];
  /** Nothing may be sent before this time (epoch milliseconds): a refusal's Retry-After. */
  blockedUntil?: number;
}

/**
 * Where budgets are kept: in this process (MemoryBudgetStore), or shared by every process (the engine's,
 * on Redis). Whatever the store, `take` and `record` follow the rules of `spentUntil` and `mergeWindow`.
 */
export interface BudgetStore {
  /** Whether any budget of `origin` may be held: false spares a call the hashing of its credential and the look-up. */
  mayHold(origin: string): boolean | Promise<boolean>;
  /**
   * Takes one request from the budget `key` for a request counted against `resource`: 0 when it may be
   * sent (each live window it counts against has one request fewer), otherwise the time before which it
   * may not (and nothing is taken).
   */
  take(key: string, resource: string, now: number): number | Promise<number>;
  /** Keeps what an answer of `origin` said of the budget `key`. */
  record(key: string, origin: string, reading: BudgetReading, now: number): void | Promise<void>;
}

/** The budget a request counts against, its credential's hash made only once it is needed. */
export interface RequestBudget {
  origin: string;
  resource: string;
  authorization: string;
  key?: string;
}

export interface UpstreamBudgetsOptions {
  /** Where budgets are kept. Default: this process's memory. */
  store?: BudgetStore;
  /** The key the credentials are hashed with; processes that share a store must share it. Default: random. */
  secret?: Uint8Array;
  /** The clock budgets are read with (tests give an emulator's). Default: Date.now. */
  now?: () => number;
}

/** The budgets of one upstream client: which budget a request counts against, what answers say of it, and whether it is spent. */
export class UpstreamBudgets {
  readonly store: BudgetStore;
  readonly now: () => number;
  private readonly secret: Uint8Array;
  /** The key of each credential recently used, by its Authorization value: an HMAC costs more than the rest of a call's budget. */
  private readonly keys: BoundedMemo<string, string>;

  constructor(options: UpstreamBudgetsOptions = {}, maxKeys = 1_000) {
    this.keys = new BoundedMemo(maxKeys);
    this.store = options.store ?? new MemoryBudgetStore();
    this.secret = options.secret ?? randomBytes(32);
    this.now = options.now ?? Date.now;
  }

  /** The budget `request` counts against; none without a credential (the upstream counts those by address). */
  budgetOf(request: UpstreamRequest): RequestBudget | undefined {
    const authorization = request.headers.authorization;
    if (!authorization) return undefined;
    return { origin: originOf(request.url), resource: resourceOf(request), authorization };
  }

  /**
   * 0 when the request may be sent now (and is counted against its budget), otherwise the milliseconds
   * until it may. Synchronous while the store is (in memory), and always while nothing is known of the
   * origin's budgets: the call then neither hashes its credential nor waits.
   */
  wait(budget: RequestBudget): number | Promise<number> {
    const holds = this.store.mayHold(budget.origin);
    if (holds === false) return 0;
    if (holds === true) return this.waitHeld(budget);
    return holds.then((held) => (held ? this.waitHeld(budget) : 0));
  }

  private waitHeld(budget: RequestBudget): number | Promise<number> {
    const now = this.now();
    const taken = this.store.take(this.keyOf(budget), budget.resource, now);
    return typeof taken === 'number' ? Math.max(0, taken - now) : taken.then((until) => Math.max(0, until - now));
  }

  /** Synchronous while the store is (in memory): a call's answer waits for no promise to note what it said of its budget. */
  record(budget: RequestBudget, reading: BudgetReading): void | Promise<void> {
    return this.store.record(this.keyOf(budget), budget.origin, reading, this.now());
  }

  private keyOf(budget: RequestBudget): string {
    budget.key ??= `${budget.origin}|${this.hashOf(budget.authorization)}`;
    return budget.key;
  }

  private hashOf(authorization: string): string {
    return this.keys.get(authorization, () => createHmac('sha256', this.secret).update(authorization).digest('base64url'));
  }
}

/** Windows named so count only the requests of that resource. */
export const RESOURCE_PREFIX = 'resource:';
/** Two readings whose resets are this close are of the same window (resets are often whole seconds). */
export const SAME_WINDOW_MS = 1000;
/** How long a refusal that says nothing of when blocks: a second, and GitHub's minute. */
const UNSAID_BLOCK_MS = 1000;
const GITHUB_UNSAID_BLOCK_MS = 60_000;
/** A spent HubSpot day is looked at again after this long (its end is midnight in a time zone no header tells). */
const DAILY_RECHECK_MS = 3_600_000;

/** Whether the window `name` counts the requests of `resource`. */
export const countsAgainst = (name: string, resource: string): boolean => !name.startsWith(RESOURCE_PREFIX) || name.slice(RESOURCE_PREFIX.length) === resource;

/**
 * GitHub's resource of a request, by its path (the response names it too, but only once it is sent):
 * search, code search and GraphQL have budgets of their own; everything else is core.
 */
export function resourceOf(request: UpstreamRequest): string {
  const path = request.template ?? pathOf(request.url);
  if (!path.startsWith('/search/') && !path.startsWith('/graphql')) return 'core';
  return path.startsWith('/search/code') ? 'code_search' : path.startsWith('/search/') ? 'search' : 'graphql';
}

/** scheme://host[:port], without parsing the URL. */
export function originOf(url: string): string {
  const slash = url.indexOf('/', url.indexOf('//') + 2);
  return slash === -1 ? url : url.slice(0, slash);
}

const pathOf = (url: string) => {
  const path = url.slice(originOf(url).length);
  const query = path.indexOf('?');
  return query === -1 ? path : path.slice(0, query);
};

type Headers = Record<string, string | string[] | undefined>;

const first = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);
const numberOf = (value: string | string[] | undefined): number => {
  const text = first(value);
  return text === undefined || text.trim() === '' ? Number.NaN : Number(text);
};

/**
 * What an answer says of its credential's budget, or undefined when it says nothing (no rate-limit header
 * and no refusal): the common case costs a few property reads. `refused` is whether the answer is a
 * rate-limit refusal (kindOfStatus); `resource` the request's (resourceOf).
 */
export function readBudget(headers: Headers, refused: boolean, resource: string, now: number): BudgetReading | undefined {
  const windows: BudgetWindow[] = [];
  const add = (name: string, remaining: number, resetAt: number) => {
    if (Number.isFinite(remaining) && Number.isFinite(resetAt)) windows.push({ name, remaining: Math.max(0, Math.floor(remaining)), resetAt });
  };
  const githubResource = first(headers['x-ratelimit-resource']);
  if (headers['x-ratelimit-remaining'] !== undefined) {
    add(
      githubResource ? `${RESOURCE_PREFIX}${githubResource}` : 'x-ratelimit',
      numberOf(headers['x-ratelimit-remaining']),
      resetTime(headers['x-ratelimit-reset'], now),
    );
  }
  if (headers['ratelimit-remaining'] !== undefined)
    add('ratelimit', numberOf(headers['ratelimit-remaining']), now + numberOf(headers['ratelimit-reset']) * 1000);
  if (headers['x-hubspot-ratelimit-remaining'] !== undefined) {
    add('hubspot-interval', numberOf(headers['x-hubspot-ratelimit-remaining']), now + numberOf(headers['x-hubspot-ratelimit-interval-milliseconds']));
  }
  if (headers['x-hubspot-ratelimit-secondly-remaining'] !== undefined)
    add('hubspot-secondly', numberOf(headers['x-hubspot-ratelimit-secondly-remaining']), now + 1000);
  if (headers['x-hubspot-ratelimit-daily-remaining'] !== undefined)
    add('hubspot-daily', numberOf(headers['x-hubspot-ratelimit-daily-remaining']), now + DAILY_RECHECK_MS);
  let blockedUntil: number | undefined;
  if (refused) {
    const retryAfter = retryAfterHeader(headers, now);
    // A spent window says when on its own; a refusal that says nothing at all still blocks a little.
    if (retryAfter !== undefined) blockedUntil = now + retryAfter;
    else if (!windows.some((window) => window.remaining === 0 && window.resetAt > now && countsAgainst(window.name, resource))) {
      blockedUntil = now + (githubResource ? GITHUB_UNSAID_BLOCK_MS : UNSAID_BLOCK_MS);
    }
  }
  return windows.length || blockedUntil !== undefined ? { windows, ...(blockedUntil !== undefined && { blockedUntil }) } : undefined;
}

/** The milliseconds a reading keeps a request of `resource` from being sent: the wait a refusal tells its caller. */
export function waitOf(reading: BudgetReading, resource: string, now: number): number {
  let until = reading.blockedUntil ?? 0;
  for (const window of reading.windows) {
    if (window.remaining === 0 && countsAgainst(window.name, resource) && window.resetAt > until) until = window.resetAt;
  }
  return Math.max(0, until - now);
}

/** Retry-After in milliseconds from now: seconds, or an HTTP date. */
export function retryAfterHeader(headers: Headers, now: number): number | undefined {
  const retryAfter = first(headers['retry-after']);
  if (retryAfter === undefined || retryAfter.trim() === '') return undefined;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** An x-ratelimit-reset as epoch milliseconds: epoch seconds, or seconds from now when too small to be a date (before 2001). */
export function resetTime(value: string | string[] | undefined, now: number): number {
  const seconds = numberOf(value);
  return seconds > 1e9 ? seconds * 1000 : now + seconds * 1000;
}

/**
 * The window kept once `next` is read where `old` was: the same window (resets within a second) keeps the
 * fewer requests left, since ours counts requests still in flight and the upstream's those sent from
 * elsewhere; otherwise the later window wins, so a late answer from an ended window changes nothing.
 */
export function mergeWindow(old: { remaining: number; resetAt: number } | undefined, next: { remaining: number; resetAt: number }, now: number) {
  if (!old || old.resetAt <= now) return next;
  if (Math.abs(old.resetAt - next.resetAt) <= SAME_WINDOW_MS)
    return { remaining: Math.min(old.remaining, next.remaining), resetAt: Math.max(old.resetAt, next.resetAt) };
  return next.resetAt > old.resetAt ? next : old;
}

interface HeldBudget {
  windows: Map<string, { remaining: number; resetAt: number }>;
  blockedUntil: number;
  /** The latest time anything in it matters. */
  expiresAt: number;
}

/** Budgets in this process's memory: the default, and the engine's while its shared store is away. */
export class MemoryBudgetStore implements BudgetStore {
  private readonly budgets = new Map<string, HeldBudget>();
  private readonly origins = new Set<string>();

  /** At most this many budgets are kept; past it, ended ones go, then the oldest. */
  constructor(private readonly maxBudgets = 10_000) {}

  mayHold(origin: string): boolean {
    return this.origins.has(origin);
  }

  take(key: string, resource: string, now: number): number {
    const held = this.budgets.get(key);
    if (!held) return 0;
    if (held.expiresAt <= now) {
      this.budgets.delete(key);
      return 0;
    }
    let until = held.blockedUntil > now ? held.blockedUntil : 0;
    for (const [name, window] of held.windows) {
      if (window.remaining <= 0 && window.resetAt > now && window.resetAt > until && countsAgainst(name, resource)) until = window.resetAt;
    }
    if (until) return until;
    for (const [name, window] of held.windows) if (window.resetAt > now && countsAgainst(name, resource)) window.remaining -= 1;
    return 0;
  }

  record(key: string, origin: string, reading: BudgetReading, now: number): void {
    this.origins.add(origin);
    let held = this.budgets.get(key);
    if (!held) {
      if (this.budgets.size >= this.maxBudgets) this.sweep(now);
      held = { windows: new Map(), blockedUntil: 0, expiresAt: 0 };
      this.budgets.set(key, held);
    }
    if (reading.blockedUntil !== undefined && reading.blockedUntil > held.blockedUntil) held.blockedUntil = reading.blockedUntil;
    // Every answer of a budgeted upstream comes through here: plain loops, and one small object per window (the
    // reading's own is not kept: `take` changes what is kept).
    for (const { name, remaining, resetAt } of reading.windows) held.windows.set(name, mergeWindow(held.windows.get(name), { remaining, resetAt }, now));
    let expiresAt = held.blockedUntil;
    for (const window of held.windows.values()) if (window.resetAt > expiresAt) expiresAt = window.resetAt;
    held.expiresAt = expiresAt;
  }

  private sweep(now: number): void {
    for (const [key, held] of this.budgets) if (held.expiresAt <= now) this.budgets.delete(key);
    // Still full: the oldest go (a Map iterates in insertion order).
    for (const key of this.budgets.keys()) {
      if (this.budgets.size < this.maxBudgets) break;
      this.budgets.delete(key);
    }
  }
}
