import type { Kysely } from 'kysely';

/**
 * Workers remember the toolkits they were last seen to serve, so that their tools are routed to them
 * (and refused naming them) while they are down or disabled. Immediate executions are recorded like
 * scheduled ones, with their duration and error kind, for the activity views.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('workers').addColumn('toolkits', 'text').execute();
  await db.schema.alterTable('executions').addColumn('duration_ms', 'real').execute();
  await db.schema.alterTable('executions').addColumn('error_kind', 'text').execute();
  await db.schema.createIndex('executions_recent').on('executions').columns(['created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('executions_recent').ifExists().execute();
  await db.schema.alterTable('executions').dropColumn('error_kind').execute();
  await db.schema.alterTable('executions').dropColumn('duration_ms').execute();
  await db.schema.alterTable('workers').dropColumn('toolkits').execute();
}
