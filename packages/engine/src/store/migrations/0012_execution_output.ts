import type { Kysely } from 'kysely';

/**
 * An immediate call's record keeps, for the day the record is kept, the result its caller got (its value,
 * or its error without the stack), as JSON; its input goes in `input`. Null: nothing was kept (a scheduled
 * execution's results are its attempts', and older records had none).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('executions').addColumn('output', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('executions').dropColumn('output').execute();
}
