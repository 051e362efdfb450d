/**
 * Every emulator's rate limit, kept by the shared layer: each issued credential has a budget of requests
 * per window (fixed, starting with its first request, on the emulator's clock), counted before routing as
 * the services count them (a 404 costs a request too). A service says how its answers tell the budget (its
 * own headers, on every answer to the credential, errors included) and how it refuses a request once the
 * budget is spent (its own status, body and headers). The default budgets are generous (a million a window;
 * GitHub's own 5,000 an hour), so that suites and benchmarks that make many calls are never refused; a test
 * or the sandbox sets a smaller one.
 */
import type { Clock } from './clock.js';
import type { EmulatorResponse } from './server.js';

/** Requests each credential may make per window. */
export interface RateLimitSetting {
  requests: number;
  windowMs: number;
}

/** One credential's window, as a request leaves it. */
export interface RateWindow {
  /** Requests the window allows. */
  limit: number;
  windowMs: number;
  /** Requests counted in it, this one included (a refused one is not counted). */
  used: number;
  remaining: number;
  /** When it ends, in epoch milliseconds of the emulator's clock. */
  resetAt: number;
  /** The emulator's time of the request. */
  now: number;
}

export interface RateLimitDialect<Principal> {
  /** The service's real window, with a generous count. */
  default: RateLimitSetting;
  /** The headers every answer to a credential carries (none for services that say nothing until they refuse). */
  headers?(window: RateWindow): Record<string, string>;
  /** The service's refusal of a request over the budget. */
  refusal(window: RateWindow, principal: Principal): EmulatorResponse;
}

/** A request over its credential's budget, answered as the service refuses it. */
export class RateLimitRefusal extends Error {
  constructor(readonly response: EmulatorResponse) {
    super(`rate limit: ${response.status}`);
  }
}

/** Seconds until a window ends, as a Retry-After says it: whole seconds, rounded up, at least one. */
export const retryAfterSeconds = (window: RateWindow): number => Math.max(1, Math.ceil((window.resetAt - window.now) / 1000));

/** Epoch seconds of a window's end, rounded up so that a client waiting for it never comes back early. */
export const resetSeconds = (window: RateWindow): number => Math.ceil(window.resetAt / 1000);

export class RateLimits {
  private setting: RateLimitSetting;
  /** By credential digest: when its window started and what it has counted. */
  private readonly windows = new Map<string, { start: number; used: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly initial: RateLimitSetting,
  ) {
    this.setting = checked(initial);
  }

  /** From now on; windows under way keep their counts and start. */
  set(setting: RateLimitSetting): void {
    this.setting = checked(setting);
  }

  /** Every window forgotten, and the limit the emulator started with. */
  reset(): void {
    this.windows.clear();
    this.setting = this.initial;
  }

  /** Counts one request of the credential `digest`; `spent` when it is over the budget (and then not counted). */
  take(digest: string): { window: RateWindow; spent: boolean } {
    const now = this.clock.now();
    const { requests, windowMs } = this.setting;
    let held = this.windows.get(digest);
    if (!held || now >= held.start + windowMs) {
      held = { start: now, used: 0 };
      this.windows.set(digest, held);
    }
    const spent = held.used >= requests;
    if (!spent) held.used += 1;
    return { window: { limit: requests, windowMs, used: held.used, remaining: Math.max(0, requests - held.used), resetAt: held.start + windowMs, now }, spent };
  }
}

function checked(setting: RateLimitSetting): RateLimitSetting {
  if (!Number.isInteger(setting.requests) || setting.requests < 0 || !(setting.windowMs > 0)) {
    throw new Error(`a rate limit is a whole number of requests (0 or more) per window of more than 0 ms, not ${JSON.stringify(setting)}`);
  }
  return setting;
}
