import type { Kysely } from 'kysely';

/**
 * The audit trail: one row per administrative change (a key created or revoked, a secret set, a worker
 * registered, ...), with who made it, from where, and what changed, never a secret value. Listed newest
 * first, by target and by acting key; rows older than the retention are deleted by each engine process.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text')
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_key_id', 'text')
    .addColumn('actor_key_prefix', 'text')
    .addColumn('actor_name', 'text')
    .addColumn('actor_role', 'text')
    .addColumn('client_address', 'text')
    .addColumn('request_id', 'text')
    .addColumn('change', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_events_recent').on('audit_events').columns(['occurred_at', 'id']).execute();
  await db.schema.createIndex('audit_events_target').on('audit_events').columns(['target_type', 'target_id']).execute();
  await db.schema.createIndex('audit_events_actor').on('audit_events').column('actor_key_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_events').ifExists().execute();
}
