import type { Kysely } from 'kysely';

/** One row per immediate tool call, for the activity view and its charts; kept for a day. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tool_calls')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tool_name', 'text', (c) => c.notNull())
    .addColumn('toolkit_name', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('success', 'integer', (c) => c.notNull())
    .addColumn('error_kind', 'text')
    .addColumn('duration_ms', 'real', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tool_calls_started').on('tool_calls').column('started_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('tool_calls').ifExists().execute();
}
