/**
 * Session verification: whether the browser that completes a flow must be confirmed as the user the
 * flow was started for (POST /v1/auth/confirm_user) before the tokens are stored.
 */
import type { Kysely } from 'kysely';
import { invalid } from '../errors.js';
import { isLoopback } from '@quiver/core';
import type { Database } from '../store/schema.js';

export interface SessionVerification {
  unsafe_skip_verification: boolean;
  verifier_url: string | null;
}

/**
 * On a loopback-only engine verification is skipped until a verifier URL is set: the engine has no
 * accounts of its own to check a browser session against, so "on" needs the application's verifier.
 */
export const defaultSessionVerification: SessionVerification = { unsafe_skip_verification: true, verifier_url: null };

/** Beyond loopback: on, and nothing to verify against yet, so flows fail until a verifier URL is set or verification is skipped. */
const verificationAwaitingVerifier: SessionVerification = { unsafe_skip_verification: false, verifier_url: null };

/** Whether the engine's listening address reaches beyond this machine. */
export const listensBeyondLoopback = (host: string): boolean => !isLoopback(host);

export class SessionVerificationSetting {
  constructor(
    private readonly db: Kysely<Database>,
    /** Whether the engine listens beyond loopback: then verification is on until explicitly skipped. */
    private readonly beyondLoopback = false,
  ) {}

  /**
   * The setting, or the default: skipped on a loopback-only engine (its browser is its user's own), on
   * whenever the engine listens beyond loopback, where only an explicit opt-out turns it off.
   */
  async get(): Promise<SessionVerification> {
    const row = await this.db.selectFrom('settings').select('value').where('key', '=', 'session_verification').executeTakeFirst();
    const fallback = this.beyondLoopback ? verificationAwaitingVerifier : defaultSessionVerification;
    return row ? { ...fallback, ...(JSON.parse(row.value) as SessionVerification) } : fallback;
  }

  /** Why a flow may not complete now: verification is on with no verifier to send the browser to. */
  async refusal(): Promise<string | undefined> {
    const verification = await this.get();
    if (verification.unsafe_skip_verification || verification.verifier_url) return undefined;
    return (
      'session verification is on (the engine listens beyond loopback) and no verifier_url is set; ' +
      'set one with PUT /v1/admin/settings/session_verification, or opt out there with unsafe_skip_verification: true'
    );
  }

  /**
   * Either `unsafe_skip_verification: true`, or a `verifier_url` (which turns verification on): the
   * callback then sends the browser to `verifier_url?flow_id=...`, and the application confirms its
   * signed-in user with POST /v1/auth/confirm_user before the tokens are stored.
   */
  async set(change: Partial<SessionVerification>): Promise<SessionVerification> {
    const current = await this.get();
    if (change.unsafe_skip_verification === true && change.verifier_url) throw invalid('set either unsafe_skip_verification: true or a verifier_url, not both');
    let next: SessionVerification;
    if (change.unsafe_skip_verification === true) next = { unsafe_skip_verification: true, verifier_url: null };
    else if (change.verifier_url) next = { unsafe_skip_verification: false, verifier_url: checkedVerifierUrl(change.verifier_url) };
    else if (change.unsafe_skip_verification === false) next = { ...current, unsafe_skip_verification: false };
    else next = current;
    if (!next.unsafe_skip_verification && !next.verifier_url)
      throw invalid('verification needs a verifier_url: the engine has no user sessions of its own to check');
    const value = JSON.stringify(next);
    await this.db
      .insertInto('settings')
      .values({ key: 'session_verification', value })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
      .execute();
    return next;
  }
}

function checkedVerifierUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'https:' || url.protocol === 'http:') return url.href;
  } catch {
    // fall through
  }
  throw invalid(`verifier_url must be an http(s) URL, got '${value}'`);
}
