/**
 * The Redis that engine processes share, when `REDIS_URL` names one: what every replica must count
 * together (the engine's limits, the upstreams' rate-limit budgets) is kept there, atomically. Without it
 * each process counts alone.
 *
 * Redis is a help, never a dependency: a command sent while it is away fails at once rather than waiting
 * in a queue (the callers fall back to counting in this process), the client reconnects by itself, and the
 * change of state is said once in the log, and in `/v1/ready`'s answer, which stays ready.
 */
import type { Redis } from 'ioredis';

export interface SharedStore {
  /** The client, when one is configured; its commands fail fast while Redis is away. */
  readonly client: Redis | undefined;
  /** Undefined while Redis answers (or none is configured); otherwise why counts are per process. */
  degraded(): string | undefined;
  close(): Promise<void>;
}

export interface SharedStoreLog {
  warn(record: object, message: string): void;
  info(record: object, message: string): void;
}

/** No Redis: every count is this process's own. */
export const localStore: SharedStore = { client: undefined, degraded: () => undefined, close: async () => {} };

export interface SharedStoreOptions {
  /** Put before every key this client reads or writes, so that deployments (and tests) can share one Redis. */
  keyPrefix?: string;
  /** How long a command may wait for its answer before it fails (a Redis that stops answering). Default 1 s. */
  commandTimeoutMs?: number;
}

/**
 * Connects to the Redis at `url`; the engine starts even if it does not answer yet. `log` is read at each
 * change of state (the engine's logger exists only once its HTTP server does).
 */
export async function openSharedStore(url: string, engineLog: () => SharedStoreLog | undefined, options: SharedStoreOptions = {}): Promise<SharedStore> {
  // Redis may change state while the engine is still being opened, before there is anything to ask for a log.
  const log = () => {
    try {
      return engineLog();
    } catch {
      return undefined;
    }
  };
  const { Redis } = await import('ioredis');
  const where = safeAddress(url);
  const client = new Redis(url, {
    lazyConnect: true,
    keyPrefix: options.keyPrefix,
    // A Redis that holds the connection but stops answering costs a request at most this, then the
    // callers count in this process for that request.
    commandTimeout: options.commandTimeoutMs ?? 1_000,
    // A command while disconnected fails at once: a limit must not hold a request while Redis is away.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    // Reconnect for ever, at most every 2 s: Redis coming back is noticed within that.
    retryStrategy: (attempt) => Math.min(100 * 2 ** attempt, 2_000),
  });
  let away: string | undefined = `Redis at ${where} has not answered yet: limits are counted per process`;
  /** Whether the log has said that Redis is away (said once, when there is a log to say it in). */
  let toldAway = false;
  client.on('ready', () => {
    if (away) log()?.info({ redis: where }, 'Redis answers: limits and upstream budgets are shared by every process');
    away = undefined;
    toldAway = false;
  });
  const lost = (error?: Error) => {
    away = `Redis at ${where} does not answer: limits are counted per process`;
    const logger = toldAway ? undefined : log();
    if (!logger) return;
    logger.warn({ redis: where, err: error?.message }, 'Redis does not answer: limits and upstream budgets are counted per process until it does');
    toldAway = true;
  };
  client.on('error', lost);
  client.on('end', () => lost());
  client.on('close', () => lost());
  // A Redis that keeps the connection open but stops answering is away too: an unanswered ping drops the
  // connection, so that commands fail at once (and count in this process) until Redis answers again.
  const heartbeat = setInterval(() => {
    if (client.status !== 'ready') return;
    client.ping().catch((error: Error) => {
      // A connection that closed meanwhile is being replaced already; one still open stopped answering.
      if (client.status !== 'ready') return;
      lost(error);
      client.disconnect(true);
    });
  }, 1_000).unref();
  await client.connect().catch(() => lost());
  return {
    client,
    degraded: () => away,
    close: async () => {
      clearInterval(heartbeat);
      client.removeAllListeners();
      client.disconnect();
    },
  };
}

/** The address without a password, for the log and `/v1/ready`. */
function safeAddress(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || 6379}`;
  } catch {
    return 'REDIS_URL';
  }
}
