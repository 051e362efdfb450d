/**
 * The engine's limits, one mechanism for all of them: requests a minute per API key (every authenticated
 * route, MCP included), per acting user (executions and MCP requests, whichever key acts for the user) and
 * per client address (requests without a valid key, and the authorization server's endpoints); and tool
 * calls in flight per key and per user.
 *
 * Requests a minute are counted by rate-limiter-flexible in fixed windows of a minute (a window's worth
 * may come at once). With Redis shared by every engine process (`engine.shared.client`) the counts are
 * Redis's, atomic across processes, each with an in-memory insurance limiter: while Redis is away every
 * process counts alone, and counts in Redis again once it answers. Without Redis, each process counts alone.
 *
 * Calls in flight are held, not counted in windows: with Redis, each call holds a member of a sorted set
 * that expires on its own after the hold time (twice the upstream deadline), so a process that dies mid-call
 * frees its slots within that time instead of never; one script checks and takes every slot of a call
 * atomically. rate-limiter-flexible has no such semaphore (a window counter forgets calls still running when
 * its window ends). Without Redis, or while it is away, a count in this process.
 */
import { createHash, randomUUID } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { Admission, ToolError } from '@quiver/core';
import { toolError } from '@quiver/core';
import type { Redis } from 'ioredis';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Role } from '../security/api-keys.js';
import type { LimitSettings } from './settings.js';

/** What a key's limits depend on: its role, and its own limits where it has them (null: its role's). */
export interface LimitedKey {
  id: string;
  role: Role;
  rpm: number | null;
  concurrency: number | null;
}

/** Where a request stands against one policy of requests a minute (the RateLimit header fields say it). */
export interface PolicyState {
  /** The policy's name: `key`, `user`, `address`, or an endpoint of the authorization server. */
  policy: string;
  /** Requests a window allows. */
  quota: number;
  /** Requests left in the current window. */
  remaining: number;
  /** Milliseconds until the window starts again. */
  resetMs: number;
  /** This request went over the quota: it is refused. */
  exceeded: boolean;
}

/** Requests a minute: the window of every policy. */
export const WINDOW_S = 60;

/** How soon a call refused for calls in flight may try again: slots free as calls end, usually within that. */
export const CONCURRENCY_RETRY_MS = 1000;

type Library = typeof import('rate-limiter-flexible');

/** One policy of requests a minute, counted by partition (a key's id, a user, an address), whatever each partition's quota. */
export class WindowLimit {
  /** One limiter per quota (a key may have its own): with Redis they share the partition's one counter. */
  private readonly limiters = new Map<number, RateLimiterAbstract>();

  constructor(
    readonly policy: string,
    private readonly library: Library,
    private readonly redis: Redis | undefined,
  ) {}

  /** Counts one request of `partition` against `quota` (0: no limit, nothing counted). */
  async take(partition: string, quota: number): Promise<PolicyState | undefined> {
    if (quota <= 0) return undefined;
    const limiter = this.limiterOf(quota);
    let exceeded = false;
    let res: { remainingPoints: number; msBeforeNext: number };
    try {
      res = await limiter.consume(partition);
    } catch (error) {
      // Past the quota the library rejects with the counts; anything else is a failure of the store that
      // even the insurance limiter could not cover: the request goes through rather than fail.
      if (!(error instanceof this.library.RateLimiterRes)) return undefined;
      res = error;
      exceeded = true;
    }
    return { policy: this.policy, quota, remaining: res.remainingPoints, resetMs: Math.max(0, res.msBeforeNext), exceeded };
  }

  private limiterOf(quota: number): RateLimiterAbstract {
    let limiter = this.limiters.get(quota);
    if (limiter) return limiter;
    const { RateLimiterMemory, RateLimiterRedis } = this.library;
    const options = { points: quota, duration: WINDOW_S, keyPrefix: `rpm:${this.policy}` };
    const memory = new RateLimiterMemory(options);
    limiter = this.redis
      ? new RateLimiterRedis({
          ...options,
          storeClient: this.redis,
          // Redis away: this process counts alone (the insurance) rather than wait for it.
          rejectIfRedisNotReady: true,
          insuranceLimiter: memory,
          // A partition over its quota is refused from memory until its window ends: Redis is not asked again.
          inMemoryBlockOnConsumed: quota + 1,
        })
      : memory;
    this.limiters.set(quota, limiter);
    return limiter;
  }
}

/**
 * Slots of calls in flight. With Redis: one sorted set per partition, a member per call whose score is
 * when its hold ends; the script forgets ended holds, refuses when a partition is full, and otherwise
 * takes a slot in every partition at once. It answers 0, or the (1-based) index of the full partition.
 */
const ACQUIRE = `
local now = redis.call('TIME')
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', nowMs)
  if redis.call('ZCARD', key) >= tonumber(ARGV[i + 2]) then return i end
end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, nowMs + tonumber(ARGV[1]), ARGV[2])
  redis.call('PEXPIRE', key, ARGV[1])
end
return 0
`;

type SlotsRedis = Redis & { quiverAcquireSlots(keyCount: number, ...args: (string | number)[]): Promise<number> };

class CallSlots {
  private readonly local = new Map<string, number>();
  private readonly redis: SlotsRedis | undefined;

  constructor(
    redis: Redis | undefined,
    /** How long a call holds its slots in Redis at most, should its process die before releasing them. */
    private readonly holdMs: number,
  ) {
    if (redis) {
      redis.defineCommand('quiverAcquireSlots', { lua: ACQUIRE });
      this.redis = redis as SlotsRedis;
    }
  }

  /** Takes a slot in each partition under its limit, or none: the index of the full one otherwise. */
  async acquire(slots: { partition: string; limit: number }[]): Promise<{ full: number } | { release(): void }> {
    const redis = this.redis;
    if (redis?.status === 'ready') {
      const id = randomUUID();
      const keys = slots.map((slot) => `calls:${slot.partition}`);
      try {
        const full = await redis.quiverAcquireSlots(keys.length, ...keys, this.holdMs, id, ...slots.map((slot) => slot.limit));
        if (full) return { full: full - 1 };
        // One round trip for every slot; a release that fails leaves the hold to expire by itself.
        return {
          release: () =>
            void redis
              .pipeline(keys.map((key) => ['zrem', key, id]))
              .exec()
              .catch(() => {}),
        };
      } catch {
        // Redis failed this once: counted in this process instead.
      }
    }
    return this.acquireLocally(slots);
  }

  private acquireLocally(slots: { partition: string; limit: number }[]): { full: number } | { release(): void } {
    const full = slots.findIndex((slot) => (this.local.get(slot.partition) ?? 0) >= slot.limit);
    if (full >= 0) return { full };
    for (const { partition } of slots) this.local.set(partition, (this.local.get(partition) ?? 0) + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        for (const { partition } of slots) {
          const held = (this.local.get(partition) ?? 1) - 1;
          if (held > 0) this.local.set(partition, held);
          else this.local.delete(partition);
        }
      },
    };
  }
}

export interface LimitsOptions {
  /** The Redis every process shares, when there is one (its commands fail fast while it is away). */
  redis?: Redis;
  /** How long a call holds its slots in Redis at most (a process may die mid-call). */
  holdMs: number;
}

/** Every limit of the engine. */
export class Limits {
  private readonly windows = new Map<string, WindowLimit>();
  private readonly slots: CallSlots;

  private constructor(
    readonly settings: LimitSettings,
    private readonly library: Library,
    private readonly redis: Redis | undefined,
    holdMs: number,
  ) {
    this.slots = new CallSlots(redis, holdMs);
  }

  /** The limits with their library loaded (on first use: a command that opens no engine never loads it). */
  static async open(settings: LimitSettings, options: LimitsOptions): Promise<Limits> {
    const library = await import('rate-limiter-flexible');
    return new Limits(settings, (library.default ?? library) as Library, options.redis, options.holdMs);
  }

  /** The requests a minute of one policy (its name is its partitions' namespace in Redis). */
  perMinute(policy: string): WindowLimit {
    let limit = this.windows.get(policy);
    if (!limit) {
      limit = new WindowLimit(policy, this.library, this.redis);
      this.windows.set(policy, limit);
    }
    return limit;
  }

  /** A key's requests a minute: its own, else its role's. */
  keyRpm(key: LimitedKey): number {
    return key.rpm ?? this.settings.keyRpm[key.role];
  }

  /** A key's calls in flight: its own, else its role's. */
  keyConcurrency(key: LimitedKey): number {
    return key.concurrency ?? this.settings.keyConcurrency[key.role];
  }

  /** Counts a request of an API key. */
  key(key: LimitedKey): Promise<PolicyState | undefined> {
    return this.perMinute('key').take(key.id, this.keyRpm(key));
  }

  /** Counts a request acting for a user (an execution, an MCP request). */
  user(userId: string): Promise<PolicyState | undefined> {
    return this.perMinute('user').take(userPartition(userId), this.settings.userRpm);
  }

  /** Counts a request without a valid API key, from a client address. */
  address(address: string): Promise<PolicyState | undefined> {
    return this.perMinute('address').take(addressKey(address), this.settings.addressRpm);
  }

  /**
   * What lets a tool call run once its key and its user have a slot free (the dispatcher's `CallOptions.admit`);
   * undefined where neither has a limit of calls in flight, so that the dispatcher asks nothing.
   */
  admission(key: LimitedKey | undefined, userId: string | undefined): (() => Promise<Admission>) | undefined {
    const slots: { partition: string; limit: number; refusal: () => string }[] = [];
    const keyLimit = key ? this.keyConcurrency(key) : 0;
    if (key && keyLimit > 0) {
      slots.push({ partition: `key:${key.id}`, limit: keyLimit, refusal: () => `This API key already has ${keyLimit} tool calls in flight, its limit` });
    }
    const userLimit = this.settings.userConcurrency;
    if (userId && userLimit > 0) {
      slots.push({
        partition: `user:${userPartition(userId)}`,
        limit: userLimit,
        refusal: () => `This user already has ${userLimit} tool calls in flight, the limit per user`,
      });
    }
    if (!slots.length) return undefined;
    return async () => {
      const taken = await this.slots.acquire(slots);
      if ('release' in taken) return taken;
      const message = `${slots[taken.full]!.refusal()}: call again once one of them has finished (in about a second).`;
      return { refused: rateLimited(message, CONCURRENCY_RETRY_MS) };
    };
  }
}

/** The error of a call the engine's limits refused. */
export function rateLimited(message: string, retryAfterMs: number): ToolError {
  return toolError('TOOL_RUNTIME_RATE_LIMIT', message, { retry_after_ms: retryAfterMs }).error;
}

/** A user id as a partition: as it is, unless it is long (a hash then, so that no caller makes keys of any size). */
function userPartition(userId: string): string {
  return userId.length <= 128 ? userId : `sha256:${createHash('sha256').update(userId).digest('base64url')}`;
}

/**
 * The key a client address is counted under: an IPv4 address as it is (written as such when it comes
 * IPv4-mapped), an IPv6 address by its /64, the block one subscriber or host is given and can spend
 * address after address of.
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return mapped;
  const bare = address.replace(/%.*$/, '');
  if (!isIPv6(bare)) return address;
  const [head = '', tail] = bare.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
