/**
 * The upstreams' rate-limit budgets (core's budgets.ts), shared by every engine process through Redis when
 * `REDIS_URL` names one: a budget spent through one process is honoured by all, without a request sent.
 *
 * Each budget is one Redis hash, `upstream-budget:<origin>|<HMAC of the credential>` (never a token),
 * changed only by the two scripts below, which follow budgets.ts's rules (`MemoryBudgetStore.take`,
 * `mergeWindow`) in one atomic step each: a request taken by one process is taken for all, so that
 * processes together send no more than a window has left. A hash expires once nothing in it matters.
 *
 * Redis is a help, never a dependency: every reading is also kept in this process's memory, which answers
 * while Redis is away (a command that fails answers from memory too); once Redis answers again, Redis does.
 * Which origins have any budget at all is read from Redis at most once a second, so that calls to an
 * upstream that has never said anything of its budgets cost no round trip.
 */
import { MemoryBudgetStore, RESOURCE_PREFIX, SAME_WINDOW_MS, UpstreamBudgets, type BudgetReading, type BudgetStore } from '@quiver/core';
import type { Redis } from 'ioredis';
import type { SharedStore } from './redis.js';

/** Under the shared store's own key prefix. */
const BUDGET_KEY = 'upstream-budget:';
const ORIGINS_KEY = 'upstream-budget-origins';
/** How stale this process's list of origins with budgets may be. */
const ORIGINS_REFRESH_MS = 1_000;
/** The list outlives every budget in it (an hour's window, a day's recheck). */
const ORIGINS_TTL_MS = 25 * 3_600_000;

/** Reads a window's `remaining:resetAt`. */
const LUA_WINDOW = `
local function window(value)
  local sep = string.find(value, ':', 1, true)
  return tonumber(string.sub(value, 1, sep - 1)), tonumber(string.sub(value, sep + 1))
end
local function int(n) return string.format('%.0f', n) end
`;

/**
 * KEYS[1] the budget; ARGV[1] the request's resource, ARGV[2] now (ms). 0 and a request taken from each
 * live window the request counts against, or the time before which it may not be sent (nothing taken).
 */
const TAKE = `${LUA_WINDOW}
local now = tonumber(ARGV[2])
local prefix = '${RESOURCE_PREFIX}'
local fields = redis.call('HGETALL', KEYS[1])
local blocked = 0
local live = {}
for i = 1, #fields, 2 do
  local name, value = fields[i], fields[i + 1]
  if name == 'blocked' then
    local t = tonumber(value)
    if t > now and t > blocked then blocked = t end
  elseif string.sub(name, 1, #prefix) ~= prefix or name == prefix .. ARGV[1] then
    local remaining, resetAt = window(value)
    if resetAt > now then
      if remaining <= 0 then
        if resetAt > blocked then blocked = resetAt end
      else
        live[#live + 1] = { name, remaining, resetAt }
      end
    end
  end
end
if blocked > 0 then return int(blocked) end
for _, w in ipairs(live) do redis.call('HSET', KEYS[1], w[1], int(w[2] - 1) .. ':' .. int(w[3])) end
return 0
`;

/**
 * KEYS[1] the budget, KEYS[2] the set of origins with budgets; ARGV[1] the origin, ARGV[2] now, ARGV[3]
 * blocked until (0: not), then name, remaining, resetAt of each window read.
 */
const RECORD = `${LUA_WINDOW}
local now = tonumber(ARGV[2])
local latest = now
local blocked = tonumber(ARGV[3])
if blocked > now then
  local old = tonumber(redis.call('HGET', KEYS[1], 'blocked') or '0')
  if blocked > old then redis.call('HSET', KEYS[1], 'blocked', int(blocked)) else blocked = old end
  if blocked > latest then latest = blocked end
end
for i = 4, #ARGV, 3 do
  local name, remaining, resetAt = ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
  local old = redis.call('HGET', KEYS[1], name)
  if old then
    local oldRemaining, oldReset = window(old)
    if oldReset > now then
      if math.abs(oldReset - resetAt) <= ${SAME_WINDOW_MS} then
        remaining = math.min(oldRemaining, remaining)
        resetAt = math.max(oldReset, resetAt)
      elseif oldReset > resetAt then
        remaining = oldRemaining
        resetAt = oldReset
      end
    end
  end
  redis.call('HSET', KEYS[1], name, int(remaining) .. ':' .. int(resetAt))
  if resetAt > latest then latest = resetAt end
end
if latest - now > redis.call('PTTL', KEYS[1]) then redis.call('PEXPIRE', KEYS[1], int(math.ceil(latest - now))) end
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ${ORIGINS_TTL_MS})
return 1
`;

type BudgetCommands = Redis & {
  quiverBudgetTake(key: string, resource: string, now: number): Promise<string | number>;
  quiverBudgetRecord(key: string, origins: string, ...args: Array<string | number>): Promise<number>;
};

/** Budgets in Redis, this process's memory standing in while Redis is away. */
export class SharedBudgetStore implements BudgetStore {
  private readonly memory = new MemoryBudgetStore();
  private readonly redis: BudgetCommands;
  private origins = new Set<string>();
  private originsReadAt = 0;
  private reading: Promise<void> | undefined;

  constructor(
    client: Redis,
    private readonly away: () => string | undefined,
  ) {
    client.defineCommand('quiverBudgetTake', { numberOfKeys: 1, lua: TAKE });
    client.defineCommand('quiverBudgetRecord', { numberOfKeys: 2, lua: RECORD });
    this.redis = client as BudgetCommands;
  }

  mayHold(origin: string): boolean | Promise<boolean> {
    if (this.away()) return this.memory.mayHold(origin);
    if (this.origins.has(origin)) return true;
    if (Date.now() - this.originsReadAt < ORIGINS_REFRESH_MS) return false;
    return this.readOrigins().then(() => this.origins.has(origin));
  }

  async take(key: string, resource: string, now: number): Promise<number> {
    if (this.away()) return this.memory.take(key, resource, now);
    try {
      return Number(await this.redis.quiverBudgetTake(BUDGET_KEY + key, resource, now));
    } catch {
      return this.memory.take(key, resource, now);
    }
  }

  async record(key: string, origin: string, reading: BudgetReading, now: number): Promise<void> {
    this.memory.record(key, origin, reading, now);
    this.origins.add(origin);
    if (this.away()) return;
    const windows = reading.windows.flatMap((window) => [window.name, window.remaining, window.resetAt]);
    await this.redis.quiverBudgetRecord(BUDGET_KEY + key, ORIGINS_KEY, origin, now, reading.blockedUntil ?? 0, ...windows).catch(() => {});
  }

  /** One read at a time, whoever asks; a failure is a read too (memory's origins stand in until the next). */
  private readOrigins(): Promise<void> {
    this.reading ??= this.redis
      .smembers(ORIGINS_KEY)
      .then((origins) => {
        this.origins = new Set([...origins, ...this.origins]);
      })
      .catch(() => {})
      .finally(() => {
        this.originsReadAt = Date.now();
        this.reading = undefined;
      });
    return this.reading;
  }
}

/**
 * The engine's budgets: in Redis when the shared store has a client, else in memory. `secret` hashes the
 * credentials: every process sharing the store must have the same (the engine derives it from the master key).
 */
export function upstreamBudgets(shared: SharedStore, secret: Uint8Array): UpstreamBudgets {
  return new UpstreamBudgets({ secret, ...(shared.client && { store: new SharedBudgetStore(shared.client, () => shared.degraded()) }) });
}
