import type { Kysely } from 'kysely';

/**
 * A scheduled execution keeps the trace context of the request that scheduled it (W3C `traceparent`), so
 * that the span of its run, hours later and in another trace, links back to that request.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('executions').addColumn('trace_parent', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('executions').dropColumn('trace_parent').execute();
}
