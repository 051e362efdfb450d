/**
 * The engine's own limits, from the environment (0 turns a limit off):
 *
 *   QUIVER_LIMIT_KEY_RPM           requests a minute per API key: one number for every role, or by role,
 *                                  e.g. `admin:1200,service:6000,user:600` (the default; roles not named keep theirs)
 *   QUIVER_LIMIT_KEY_CONCURRENCY   tool calls in flight per API key, likewise (default `admin:50,service:200,user:10`)
 *   QUIVER_LIMIT_USER_RPM          requests a minute per acting user: executions and MCP requests, whatever key acts for them (300)
 *   QUIVER_LIMIT_USER_CONCURRENCY  tool calls in flight per acting user (10)
 *   QUIVER_LIMIT_ADDRESS_RPM       requests a minute per client address without a valid API key (600)
 *
 * A key's own limits (`rpm`, `concurrency`, set when it is made or changed) override its role's.
 * No heavy import here: the command line reads these settings without loading the engine.
 */
import type { Role } from '../security/api-keys.js';

export interface LimitSettings {
  /** Requests a minute per API key, by role; 0: no limit. */
  keyRpm: Record<Role, number>;
  /** Tool calls in flight per API key, by role; 0: no limit. */
  keyConcurrency: Record<Role, number>;
  /** Requests a minute per acting user (executions and MCP requests); 0: no limit. */
  userRpm: number;
  /** Tool calls in flight per acting user; 0: no limit. */
  userConcurrency: number;
  /** Requests a minute per client address, for requests without a valid API key; 0: no limit. */
  addressRpm: number;
}

/**
 * Defaults that protect without getting in the way: a service key serves many users, so it may do more
 * than one person's key, and each user is held to what one agent loop needs, whichever key acts for them.
 */
export const defaultLimits: LimitSettings = {
  keyRpm: { admin: 1200, service: 6000, user: 600 },
  keyConcurrency: { admin: 50, service: 200, user: 10 },
  userRpm: 300,
  userConcurrency: 10,
  addressRpm: 600,
};

/** The largest limit a key may have of its own: what the database keeps (a 32-bit integer, on PostgreSQL). */
export const MAX_KEY_LIMIT = 2_147_483_647;

/** No limit at all (tests and benchmarks that measure without them). */
export const noLimits: LimitSettings = {
  keyRpm: { admin: 0, service: 0, user: 0 },
  keyConcurrency: { admin: 0, service: 0, user: 0 },
  userRpm: 0,
  userConcurrency: 0,
  addressRpm: 0,
};

export function limitSettings(env: Record<string, string | undefined>): LimitSettings {
  return {
    keyRpm: byRole('QUIVER_LIMIT_KEY_RPM', env.QUIVER_LIMIT_KEY_RPM, defaultLimits.keyRpm),
    keyConcurrency: byRole('QUIVER_LIMIT_KEY_CONCURRENCY', env.QUIVER_LIMIT_KEY_CONCURRENCY, defaultLimits.keyConcurrency),
    userRpm: count('QUIVER_LIMIT_USER_RPM', env.QUIVER_LIMIT_USER_RPM, defaultLimits.userRpm),
    userConcurrency: count('QUIVER_LIMIT_USER_CONCURRENCY', env.QUIVER_LIMIT_USER_CONCURRENCY, defaultLimits.userConcurrency),
    addressRpm: count('QUIVER_LIMIT_ADDRESS_RPM', env.QUIVER_LIMIT_ADDRESS_RPM, defaultLimits.addressRpm),
  };
}

/** A whole number from 0, or the default when unset. */
function count(name: string, setting: string | undefined, fallback: number): number {
  if (setting === undefined || setting.trim() === '') return fallback;
  const value = Number(setting);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number (0 for no limit), not '${setting}'`);
  return value;
}

/** `600` for every role, or `admin:1200,user:600`: the roles named are set, the others keep their default. */
function byRole(name: string, setting: string | undefined, fallback: Record<Role, number>): Record<Role, number> {
  if (setting === undefined || setting.trim() === '') return { ...fallback };
  if (/^\s*\d+\s*$/.test(setting)) {
    const value = count(name, setting, 0);
    return { admin: value, service: value, user: value };
  }
  const limits = { ...fallback };
  for (const part of setting
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)) {
    const [role, value] = part.split(':').map((item) => item.trim());
    if (!role || !(role in limits) || value === undefined || !/^\d+$/.test(value)) {
      throw new Error(`${name} must be a whole number, or look like admin:1200,service:6000,user:600 (0 for no limit), not '${setting}'`);
    }
    limits[role as Role] = Number(value);
  }
  return limits;
}
