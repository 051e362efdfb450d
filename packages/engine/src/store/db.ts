/**
 * The engine's database: SQLite in the data directory by default, PostgreSQL when DATABASE_URL is a
 * postgres:// URL. One schema, one set of migrations, run on open.
 */
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type MigrationProvider } from 'kysely';
import { migrations } from './migrations/index.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /** PostgreSQL's connection pool, as its metrics read it; SQLite has one connection and no pool. */
  pool?: { readonly totalCount: number; readonly idleCount: number; readonly waitingCount: number };
  close(): Promise<void>;
}

/** `postgres://...` or `postgresql://...` for PostgreSQL; an absolute file path (or `:memory:`) for SQLite. */
export async function openStore(location: string): Promise<Store> {
  const dialect = dialectOf(location);
  const postgres = dialect === 'postgres';
  const { db, pool } = postgres ? await postgresDb(location) : { db: await sqliteDb(location), pool: undefined };
  await migrate(db, postgres);
  return { db, dialect, pool, close: () => db.destroy() };
}

const accepted = 'a postgres:// or postgresql:// URL, or the absolute path of a SQLite file';

/**
 * Which database a location names. Anything else is refused in one line, rather than taken for a
 * SQLite file named after it in whatever the working directory is (a URL's credentials are not repeated).
 */
function dialectOf(location: string): Dialect {
  if (/^postgres(ql)?:\/\//i.test(location)) return 'postgres';
  if (location === ':memory:' || isAbsolute(location)) return 'sqlite';
  const variable = 'DATABASE_URL (or "database" in the config file)';
  // A scheme, but not a Windows drive letter (C:\...), which isAbsolute has taken already there.
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(location)?.[1];
  if (scheme) throw new Error(`${variable} uses the scheme '${scheme.toLowerCase()}:', which the engine does not support: use ${accepted}.`);
  throw new Error(`${variable} is '${location}', a relative path: use ${accepted}, so that it does not depend on the working directory.`);
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

async function postgresDb(url: string): Promise<{ db: Kysely<Database>; pool: import('pg').Pool }> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // A connection the server ends (a restart, an outage) fails its query, if it runs one, and is dropped by
  // the pool, which opens another for the next. The error event it also emits, on the pool for an idle
  // connection and on the connection itself for one in use, would end the process unheard: the engine
  // stays up instead, not ready (GET /v1/ready), until the database is back.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), pool };
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
