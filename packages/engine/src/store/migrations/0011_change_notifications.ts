import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * PostgreSQL tells every engine process at once when a table they keep in memory changes: triggers on
 * each send `NOTIFY quiver_changes, '<schema>.<table>'` when the writing transaction commits, whoever
 * writes (an engine process, `quiver keys revoke`, an operator's SQL), and store/changes.ts LISTENs.
 * Rows made or deleted notify once per statement; a row updated notifies unless all that changed is a
 * column no process keeps (a key's or a secret's last use, the toolkits a worker was last seen serving),
 * so that using a key wakes no process, while any other column, one added later included, does.
 * PostgreSQL folds identical notifications of one transaction into one.
 *
 * SQLite has no notifications: processes sharing one file keep polling, and this migration does nothing there.
 */
const TABLES: Record<string, string[]> = {
  api_keys: ['last_used_at'],
  secrets: ['last_accessed_at'],
  connections: [],
  auth_providers: [],
  workers: ['toolkits'],
};

// Kysely hands a migration no dialect; its executor's adapter says which database this is.
const onPostgres = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!onPostgres(db)) return;
  await sql`
    create or replace function quiver_notify_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('quiver_changes', tg_table_schema || '.' || tg_table_name);
      return null;
    end
    $$`.execute(db);
  for (const [table, unwatched] of Object.entries(TABLES)) {
    const trigger = (suffix: string) => sql.id(`${table}_notify_${suffix}`);
    await sql`
      create trigger ${trigger('rows')} after insert or delete on ${sql.table(table)}
      for each statement execute function quiver_notify_change()`.execute(db);
    // The row as JSON without the columns nobody keeps: the trigger's condition admits no parameter, and the names are this file's.
    const kept = (row: 'old' | 'new') => sql.raw(`(to_jsonb(${row}) - '{${unwatched.join(',')}}'::text[])`);
    await sql`
      create trigger ${trigger('update')} after update on ${sql.table(table)}
      for each row when (${kept('old')} is distinct from ${kept('new')}) execute function quiver_notify_change()`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!onPostgres(db)) return;
  for (const table of Object.keys(TABLES)) {
    for (const suffix of ['rows', 'update']) await sql`drop trigger if exists ${sql.id(`${table}_notify_${suffix}`)} on ${sql.table(table)}`.execute(db);
  }
  await sql`drop function if exists quiver_notify_change()`.execute(db);
}
