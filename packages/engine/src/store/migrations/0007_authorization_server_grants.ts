import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';

/**
 * Grants an admin can see and end: a grant's row keeps its own id in `grant_id` (as every code and token
 * of the grant does), so that ending it deletes one set of rows; `account_id` and `client_id` let grants
 * be listed by user and by client; `api_key_id` names the API key a grant or a browser session was signed
 * in with, so that revoking the key ends them; `last_used_at` is when a grant's access token last called
 * the engine.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of ['account_id', 'client_id', 'api_key_id', 'last_used_at']) {
    await db.schema.alterTable('authorization_server_objects').addColumn(column, 'text').execute();
  }
  await db.schema.createIndex('authorization_server_objects_api_key').on('authorization_server_objects').column('api_key_id').execute();
  // Grants stored before: their ids are known only through the codes and tokens that name them.
  type Row = { model: string; id_hash: string; payload: string; grant_id: string | null; account_id: string | null; client_id: string | null };
  const objects = db as unknown as Kysely<{ authorization_server_objects: Row }>;
  for (const { id_hash, payload } of await objects
    .selectFrom('authorization_server_objects')
    .select(['id_hash', 'payload'])
    .where('model', '=', 'Grant')
    .execute()) {
    const { accountId, clientId } = JSON.parse(payload) as { accountId?: string; clientId?: string };
    await objects
      .updateTable('authorization_server_objects')
      .set({ account_id: accountId ?? null, client_id: clientId ?? null })
      .where('model', '=', 'Grant')
      .where('id_hash', '=', id_hash)
      .execute();
  }
  const named = await objects.selectFrom('authorization_server_objects').select('grant_id').distinct().where('grant_id', 'is not', null).execute();
  for (const { grant_id } of named) {
    await objects
      .updateTable('authorization_server_objects')
      .set({ grant_id })
      .where('model', '=', 'Grant')
      .where('id_hash', '=', createHash('sha256').update(grant_id!).digest('hex'))
      .execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('authorization_server_objects_api_key').ifExists().execute();
  for (const column of ['last_used_at', 'api_key_id', 'client_id', 'account_id']) {
    await db.schema.alterTable('authorization_server_objects').dropColumn(column).execute();
  }
}
