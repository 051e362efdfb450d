/**
 * GitHub's rate limits. The primary limit is the shared layer's budget per credential (a token is a user):
 * every answer carries GitHub's x-ratelimit-* headers (limit, remaining, reset in epoch seconds, used,
 * resource), and a request over the budget is refused as GitHub refuses it: 403 "API rate limit exceeded
 * for user ID ..." with x-ratelimit-remaining: 0. Its default is GitHub's own, 5000 an hour.
 *
 * Secondary limits (abuse detection) have no budget a client can see; a test switches one on
 * (`emulator.rateLimit(...)`): after `remaining` more requests, 429 with Retry-After, as GitHub answers.
 */
import type { RateLimitDialect } from '../emulator/rate-limit.js';
import { resetSeconds } from '../emulator/rate-limit.js';
import { DOCUMENTATION_URL } from './errors.js';

export type SecondaryRateLimit = { kind: 'off' } | { kind: 'secondary'; retryAfterSeconds?: number; remaining?: number };

const RATE_LIMIT_DOCUMENTATION = `${DOCUMENTATION_URL}/overview/resources-in-the-rest-api#rate-limiting`;

/** GitHub's primary limit, on the shared layer. */
export const githubRateLimit: RateLimitDialect<{ user: { id: number } }> = {
  default: { requests: 5000, windowMs: 3_600_000 },
  headers: (window) => ({
    'x-ratelimit-limit': String(window.limit),
    'x-ratelimit-remaining': String(window.remaining),
    'x-ratelimit-reset': String(resetSeconds(window)),
    'x-ratelimit-used': String(window.used),
    'x-ratelimit-resource': 'core',
  }),
  refusal: (_window, { user }) => ({
    status: 403,
    body: { message: `API rate limit exceeded for user ID ${user.id}.`, documentation_url: RATE_LIMIT_DOCUMENTATION },
  }),
};

/** A refusal by the secondary limit; rendered with its Retry-After. */
export class RateLimited extends Error {
  readonly status = 429;
  constructor(readonly retryAfterSeconds: number) {
    super('You have exceeded a secondary rate limit. Please wait a few minutes before you try again.');
  }

  get body() {
    return { message: this.message, documentation_url: RATE_LIMIT_DOCUMENTATION };
  }

  get headers() {
    return { 'retry-after': String(this.retryAfterSeconds) };
  }
}

/** The secondary limit's switch. */
export class SecondaryLimit {
  private setting: SecondaryRateLimit = { kind: 'off' };
  /** Requests the switch still lets through before it bites. */
  private allowance = 0;

  set(setting: SecondaryRateLimit): void {
    this.setting = setting;
    this.allowance = setting.kind === 'off' ? 0 : (setting.remaining ?? 0);
  }

  /** Counts a request; throws RateLimited when the switch says it is over the limit. */
  take(): void {
    if (this.setting.kind === 'off') return;
    if (this.allowance <= 0) throw new RateLimited(this.setting.retryAfterSeconds ?? 60);
    this.allowance -= 1;
  }
}
