/**
 * A limit of requests per minute for each key (a client address), as a token bucket: a key may spend
 * its whole minute's worth at once, then one more each time a token comes back. In memory, per engine
 * process, and bounded: past `maxKeys` the keys seen longest ago are forgotten (which only ever lets a
 * request through).
 */
import { isIPv6 } from 'node:net';

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
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    /** Requests per minute per key; 0 for no limit. */
    readonly perMinute: number,
    private readonly maxKeys = 10_000,
  ) {}

  /** Counts a request of `key`: 0 when it may go now, else the milliseconds until it may. */
  take(key: string, now = Date.now()): number {
    if (this.perMinute <= 0) return 0;
    const perMs = this.perMinute / 60_000;
    const known = this.buckets.get(key);
    const tokens = known ? Math.min(this.perMinute, known.tokens + (now - known.at) * perMs) : this.perMinute;
    this.buckets.delete(key);
    if (tokens < 1) {
      this.buckets.set(key, { tokens, at: now });
      return Math.ceil((1 - tokens) / perMs);
    }
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    if (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value!);
    return 0;
  }
}
