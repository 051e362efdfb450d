/**
 * Grants as an admin sees them: who (the user) let which client do what (scopes, on which resource),
 * signed in how (an identity provider, or an API key), and since when. Ending a grant deletes it with
 * every code and token it issued; each engine process looks tokens up in the database on every request,
 * so they stop working at once everywhere. Revoking an API key ends what was signed in with it: its
 * grants and the browser sessions it left.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

export const hashOf = (value: string) => createHash('sha256').update(value).digest('hex');

export interface GrantFilter {
  user_id?: string;
  client_id?: string;
}

export interface GrantInfo {
  id: string;
  client_id: string;
  client_name: string | null;
  user_id: string;
  scopes: string[];
  resources: string[];
  /** The API key the person signed in with; null for a sign-in at the identity provider. */
  api_key: { id: string; prefix: string; name: string; revoked: boolean } | null;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
}

/** oidc-provider's stored grant: the scopes granted per resource. */
interface StoredGrant {
  iat?: number;
  resources?: Record<string, string>;
}

/** Live grants, newest first. */
export async function listGrants(db: Kysely<Database>, filter: GrantFilter = {}): Promise<GrantInfo[]> {
  let query = db
    .selectFrom('authorization_server_objects as g')
    .leftJoin('api_keys as k', 'k.id', 'g.api_key_id')
    .select([
      'g.grant_id',
      'g.account_id',
      'g.client_id',
      'g.payload',
      'g.expires_at',
      'g.last_used_at',
      'k.id as key_id',
      'k.prefix',
      'k.name',
      'k.revoked_at',
    ])
    .where('g.model', '=', 'Grant')
    .where('g.grant_id', 'is not', null)
    .where((eb) => eb.or([eb('g.expires_at', 'is', null), eb('g.expires_at', '>', new Date().toISOString())]));
  if (filter.user_id) query = query.where('g.account_id', '=', filter.user_id);
  if (filter.client_id) query = query.where('g.client_id', '=', filter.client_id);
  const rows = await query.execute();
  const names = await clientNames(
    db,
    rows.map((row) => row.client_id ?? ''),
  );
  return rows
    .map((row): GrantInfo => {
      const stored = JSON.parse(row.payload) as StoredGrant;
      const resources = Object.keys(stored.resources ?? {});
      return {
        id: row.grant_id!,
        client_id: row.client_id ?? '',
        client_name: names.get(row.client_id ?? '') ?? null,
        user_id: row.account_id ?? '',
        scopes: [...new Set(Object.values(stored.resources ?? {}).flatMap((scope) => scope.split(' ').filter(Boolean)))],
        resources,
        api_key: row.key_id ? { id: row.key_id, prefix: row.prefix!, name: row.name!, revoked: row.revoked_at !== null } : null,
        created_at: new Date((stored.iat ?? 0) * 1000).toISOString(),
        last_used_at: row.last_used_at,
        expires_at: row.expires_at,
      };
    })
    .sort((a, b) => b.created_at.localeCompare(a.created_at) || a.id.localeCompare(b.id));
}

/** Names of registered clients (a client described by a metadata document is not stored: none). */
async function clientNames(db: Kysely<Database>, clientIds: string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(clientIds.filter(Boolean))];
  if (!wanted.length) return new Map();
  const byHash = new Map(wanted.map((id) => [hashOf(id), id]));
  const rows = await db
    .selectFrom('authorization_server_objects')
    .select(['id_hash', 'payload'])
    .where('model', '=', 'Client')
    .where('id_hash', 'in', [...byHash.keys()])
    .execute();
  return new Map(
    rows.flatMap((row) => {
      const name = (JSON.parse(row.payload) as { client_name?: unknown }).client_name;
      return typeof name === 'string' ? [[byHash.get(row.id_hash)!, name]] : [];
    }),
  );
}

/** Ends a grant: the grant, its codes and its tokens. Whose grant it was; undefined when there was no such grant. */
export async function endGrant(db: Kysely<Database>, grantId: string): Promise<{ user_id: string | null; client_id: string | null } | undefined> {
  const ended = await db.deleteFrom('authorization_server_objects').where('grant_id', '=', grantId).returning(['model', 'account_id', 'client_id']).execute();
  if (!ended.length) return undefined;
  // Whose grant it was, for the audit trail: the grant's own row says.
  const grant = ended.find((row) => row.model === 'Grant');
  return { user_id: grant?.account_id ?? null, client_id: grant?.client_id ?? null };
}

/** Ends everything signed in with the API key: its grants (with their tokens) and its browser sessions. */
export async function endSignInsOfKey(db: Kysely<Database>, keyId: string): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const grants = tx.selectFrom('authorization_server_objects').select('grant_id').where('model', '=', 'Grant').where('api_key_id', '=', keyId);
    await tx.deleteFrom('authorization_server_objects').where('grant_id', 'in', grants).execute();
    await tx.deleteFrom('authorization_server_objects').where('api_key_id', '=', keyId).execute();
  });
}

/** What a sign-in hands on to the rest of the authorization: the person, and the API key they signed in with, if any. */
export type SignInResult = {
  login?: { accountId: string };
  apiKeyId?: string;
};

/**
 * After a request of the authorization server that signed a person in (`signedIn`: with an API key, or
 * not) or issued a code for a grant: the browser session and the grant remember the key, so that
 * revoking it ends both. A key revoked while the sign-in was under way ends them at once.
 */
export async function recordSignIn(db: Kysely<Database>, { sessionUid, signedIn, grantId }: { sessionUid: string; signedIn?: SignInResult; grantId?: string }) {
  let keyId: string | null;
  if (signedIn?.login) {
    keyId = signedIn.apiKeyId ?? null;
    await db
      .updateTable('authorization_server_objects')
      .set({ api_key_id: keyId })
      .where('model', '=', 'Session')
      .where('uid_hash', '=', hashOf(sessionUid))
      .execute();
  } else keyId = await keyOfSession(db, sessionUid);
  if (grantId) {
    await db.updateTable('authorization_server_objects').set({ api_key_id: keyId }).where('model', '=', 'Grant').where('grant_id', '=', grantId).execute();
  }
  if (keyId && !(await keyStands(db, keyId))) await endSignInsOfKey(db, keyId);
}

async function keyStands(db: Kysely<Database>, keyId: string): Promise<boolean> {
  return !!(await db.selectFrom('api_keys').select('id').where('id', '=', keyId).where('revoked_at', 'is', null).executeTakeFirst());
}

/** The API key a browser session was signed in with, if any. */
async function keyOfSession(db: Kysely<Database>, sessionUid: string): Promise<string | null> {
  const row = await db
    .selectFrom('authorization_server_objects')
    .select('api_key_id')
    .where('model', '=', 'Session')
    .where('uid_hash', '=', hashOf(sessionUid))
    .executeTakeFirst();
  return row?.api_key_id ?? null;
}

/** Whether the grant stands (not ended, not expired). */
export async function grantStands(db: Kysely<Database>, grantId: string): Promise<boolean> {
  const row = await db
    .selectFrom('authorization_server_objects')
    .select('expires_at')
    .where('model', '=', 'Grant')
    .where('grant_id', '=', grantId)
    .executeTakeFirst();
  return !!row && (row.expires_at === null || row.expires_at > new Date().toISOString());
}

/** Notes a grant's use (written at most once a minute per grant, by the caller's LastUse). */
export async function grantUsed(db: Kysely<Database>, grantId: string, at: string): Promise<void> {
  await db.updateTable('authorization_server_objects').set({ last_used_at: at }).where('model', '=', 'Grant').where('grant_id', '=', grantId).execute();
}
