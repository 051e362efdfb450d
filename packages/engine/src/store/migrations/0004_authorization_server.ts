import type { Kysely } from 'kysely';

/**
 * The authorization server's state (clients, grants, codes, tokens, sessions, interactions): one row
 * per object, found by the SHA-256 of its id, so that a leaked database yields no usable token.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('authorization_server_objects')
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('id_hash', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text')
    .addColumn('uid_hash', 'text')
    .addColumn('user_code_hash', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('consumed_at', 'text')
    .addPrimaryKeyConstraint('authorization_server_objects_pk', ['model', 'id_hash'])
    .execute();
  await db.schema.createIndex('authorization_server_objects_grant').on('authorization_server_objects').column('grant_id').execute();
  await db.schema.createIndex('authorization_server_objects_uid').on('authorization_server_objects').columns(['model', 'uid_hash']).execute();
  await db.schema.createIndex('authorization_server_objects_user_code').on('authorization_server_objects').columns(['model', 'user_code_hash']).execute();
  await db.schema.createIndex('authorization_server_objects_expiry').on('authorization_server_objects').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('authorization_server_objects').ifExists().execute();
}
