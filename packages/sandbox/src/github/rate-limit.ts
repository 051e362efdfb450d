/**
 * GitHub's rate limits, switched on by tests: every answer carries the x-ratelimit-* headers of a
 * 5000-an-hour budget; `primary` makes requests fail as an exhausted budget does (403 with
 * x-ratelimit-remaining: 0), `secondary` as abuse detection does (429 with Retry-After), either
 * after `remaining` more requests have gone through.
 */
import type { Clock } from '../emulator/clock.js';
import { DOCUMENTATION_URL } from './errors.js';

export type RateLimitSetting =
  | { kind: 'off' }
  | { kind: 'primary'; remaining?: number }
  | { kind: 'secondary'; retryAfterSeconds?: number; remaining?: number };

const LIMIT = 5000;
const WINDOW_MS = 3_600_000;

/** A refusal for being over a limit; rendered with its headers. */
export class RateLimited extends Error {
  constructor(
    readonly status: 403 | 429,
    message: string,
    readonly headers: Record<string, string>,
  ) {
    super(message);
  }

  get body() {
    return { message: this.message, documentation_url: `${DOCUMENTATION_URL}/overview/resources-in-the-rest-api#rate-limiting` };
  }
}

export class RateLimits {
  private setting: RateLimitSetting = { kind: 'off' };
  /** Requests the switch still lets through before it bites. */
  private allowance = 0;
  /** The hour's budget starts with its first request, as GitHub's does. */
  private windowStart: number | undefined;
  private used = 0;

  constructor(private readonly clock: Clock) {}

  /** A fresh budget, with the switch off. */
  reset(): void {
    this.set({ kind: 'off' });
    this.windowStart = undefined;
    this.used = 0;
  }

  set(setting: RateLimitSetting): void {
    this.setting = setting;
    this.allowance = setting.kind === 'off' ? 0 : (setting.remaining ?? 0);
  }

  /** Counts a request by `userId`; throws RateLimited when the switch says it is over a limit. */
  take(userId: number): void {
    this.roll();
    if (this.setting.kind !== 'off') {
      if (this.allowance <= 0) {
        if (this.setting.kind === 'primary') {
          throw new RateLimited(403, `API rate limit exceeded for user ID ${userId}.`, {
            ...this.headers(),
            'x-ratelimit-remaining': '0',
            'x-ratelimit-used': String(LIMIT),
          });
        }
        throw new RateLimited(429, 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', {
          ...this.headers(),
          'retry-after': String(this.setting.retryAfterSeconds ?? 60),
        });
      }
      this.allowance -= 1;
    }
    this.used += 1;
  }

  /** The budget as GitHub reports it. Under a primary limit the switch's allowance is what remains. */
  headers(): Record<string, string> {
    this.roll();
    const remaining = this.setting.kind === 'primary' ? this.allowance : Math.max(LIMIT - this.used, 0);
    return {
      'x-ratelimit-limit': String(LIMIT),
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': String(Math.floor((this.windowStart! + WINDOW_MS) / 1000)),
      'x-ratelimit-used': String(this.setting.kind === 'primary' ? LIMIT - remaining : this.used),
      'x-ratelimit-resource': 'core',
    };
  }

  private roll(): void {
    const now = this.clock.now();
    if (this.windowStart === undefined || now >= this.windowStart + WINDOW_MS) {
      this.windowStart = now;
      this.used = 0;
    }
  }
}
