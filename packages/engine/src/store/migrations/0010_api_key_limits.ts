import { sql, type Kysely } from 'kysely';

/**
 * A key may have limits of its own, overriding its role's (null: the role's; 0: no limit): requests a
 * minute and tool calls in flight. `updated_at` moves on every change of a key (made, revoked, its limits
 * changed), so that every process's cache of keys sees a change of limits too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('limit_rpm', 'integer').execute();
  await db.schema.alterTable('api_keys').addColumn('limit_concurrency', 'integer').execute();
  await db.schema.alterTable('api_keys').addColumn('updated_at', 'text').execute();
  await sql`update api_keys set updated_at = coalesce(revoked_at, created_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('updated_at').execute();
  await db.schema.alterTable('api_keys').dropColumn('limit_concurrency').execute();
  await db.schema.alterTable('api_keys').dropColumn('limit_rpm').execute();
}
