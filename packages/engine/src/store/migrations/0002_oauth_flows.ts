import type { Kysely } from 'kysely';

/**
 * Session verification: an authorization whose browser came back waits for the application's
 * confirmation under a fresh `flow_id`, its tokens sealed in `grant_ciphertext` until then.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('authorizations').addColumn('flow_id', 'text').execute();
  await db.schema.alterTable('authorizations').addColumn('grant_ciphertext', 'text').execute();
  await db.schema.createIndex('authorizations_flow').on('authorizations').column('flow_id').unique().execute();
  await db.schema.createIndex('authorizations_by_user').on('authorizations').columns(['user_id', 'provider_id', 'status']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('authorizations_by_user').ifExists().execute();
  await db.schema.dropIndex('authorizations_flow').ifExists().execute();
  await db.schema.alterTable('authorizations').dropColumn('grant_ciphertext').execute();
  await db.schema.alterTable('authorizations').dropColumn('flow_id').execute();
}
