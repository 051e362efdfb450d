import { sql, type Kysely } from 'kysely';

/**
 * Keys with roles: admin (everything), service (tools and authorizations for any user, no administration)
 * and user (bound to `user_id`, acting only as that user). Every key made before roles is an admin key,
 * as it could do everything then.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('role', 'text', (column) => column.notNull().defaultTo(sql`'admin'`))
    .execute();
  await db.schema.alterTable('api_keys').addColumn('user_id', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('user_id').execute();
  await db.schema.alterTable('api_keys').dropColumn('role').execute();
}
