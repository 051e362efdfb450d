/**
 * Session verification: whether the browser that completes a flow must be confirmed as the user the
 * flow was started for (POST /v1/auth/confirm_user) before the tokens are stored.
 */
import type { Kysely } from 'kysely';
import { invalid } from '../errors.js';
import type { Database } from '../store/schema.js';

export interface SessionVerification {
  unsafe_skip_verification: boolean;
  verifier_url: string | null;
}

/**
 * Verification is skipped until a verifier URL is set: the engine has no accounts of its own to check
 * a browser session against, so "on" needs the application's verifier.
 */
export const defaultSessionVerification: SessionVerification = { unsafe_skip_verification: true, verifier_url: null };

export class SessionVerificationSetting {
  constructor(private readonly db: Kysely<Database>) {}

  async get(): Promise<SessionVerification> {
    const row = await this.db.selectFrom('settings').select('value').where('key', '=', 'session_verification').executeTakeFirst();
    return row ? { ...defaultSessionVerification, ...(JSON.parse(row.value) as SessionVerification) } : defaultSessionVerification;
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
    if (!next.unsafe_skip_verification && !next.verifier_url) throw invalid('verification needs a verifier_url: the engine has no user sessions of its own to check');
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
