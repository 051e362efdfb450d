/**
 * The engine's database: SQLite in the data directory by default, PostgreSQL when DATABASE_URL is a
 * postgres:// URL. One schema, one set of migrations, run on open.
 */
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type MigrationProvider } from 'kysely';
import { migrations } from './migrations/index.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
}

/** `postgres://...` or `postgresql://...` for PostgreSQL; anything else is a SQLite file path. */
export async function openStore(location: string): Promise<Store> {
  const postgres = /^postgres(ql)?:\/\//.test(location);
  const db = postgres ? await postgresDb(location) : await sqliteDb(location);
  await migrate(db, postgres);
  return { db, dialect: postgres ? 'postgres' : 'sqlite', close: () => db.destroy() };
}

async function sqliteDb(file: string): Promise<Kysely<Database>> {
  const { default: SQLite } = await import('better-sqlite3');
  if (file !== ':memory:') privateFile(file);
  const database = new SQLite(file);
  // WAL lets readers go on while the scheduler writes; the busy timeout covers a second process.
  database.pragma('journal_mode = WAL');
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  return new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
}

/**
 * The database holds sealed tokens and key hashes: its directory is the owner's alone (0700, when this
 * creates it) and the file is 0600 whichever command creates it first. SQLite gives its -wal and -shm
 * files the database file's mode.
 */
function privateFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
}

async function postgresDb(url: string): Promise<Kysely<Database>> {
  const { default: pg } = await import('pg');
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 10 }) }) });
}

async function migrate(db: Kysely<Database>, postgres: boolean): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  // On PostgreSQL the migration tables live in the connection's own schema, so that databases in
  // different schemas (search_path) of one server never see each other's migration state.
  const migrationTableSchema = postgres ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined;
  // Numbers are handed out to parallel work in advance: a database may have run a later one first.
  const { error, results } = await new Migrator({ db, provider, migrationTableSchema, allowUnorderedMigrations: true }).migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error || failed) throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${String((error as Error)?.message ?? error)}`);
}
