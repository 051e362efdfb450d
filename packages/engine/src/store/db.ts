/**
 * The engine's database: SQLite in the data directory by default, PostgreSQL when DATABASE_URL is a
 * postgres:// URL. One schema, one set of migrations, run on open.
 */
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import {
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteDialect,
  sql,
  type DatabaseIntrospector,
  type LogEvent,
  type MigrationProvider,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely';
import { migrations } from './migrations/index.js';
import { DatabaseAvailability } from './outage.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /** PostgreSQL's connection pool, as its metrics read it; SQLite has one connection and no pool. */
  pool?: { readonly totalCount: number; readonly idleCount: number; readonly waitingCount: number };
  /** Whether the database answers, as this process's queries find (PostgreSQL; a SQLite file does not go away). */
  availability: DatabaseAvailability;
  /**
   * PostgreSQL: a connection of its own, outside the pool, for LISTEN (store/changes.ts). Its errors are
   * heard already (none ends the process); the caller listens for `end` and closes it.
   */
  dedicatedConnection?: () => Promise<import('pg').Client>;
  close(): Promise<void>;
}

/**
 * The name the engine's PostgreSQL connections carry (`application_name`, in `pg_stat_activity`), unless
 * the URL names another (`?application_name=...`).
 */
export const APPLICATION_NAME = 'quiver';

/** `postgres://...` or `postgresql://...` for PostgreSQL; an absolute file path (or `:memory:`) for SQLite. */
export async function openStore(location: string): Promise<Store> {
  const dialect = dialectOf(location);
  const postgres = dialect === 'postgres';
  const availability = new DatabaseAvailability();
  if (!postgres) {
    const db = await sqliteDb(location, availability);
    await migrate(db, false);
    return { db, dialect, availability, close: () => db.destroy() };
  }
  const { db, pool, dedicatedConnection } = await postgresDb(location, availability);
  try {
    await migrate(db, true);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return { db, dialect, pool, availability, dedicatedConnection, close: () => db.destroy() };
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

async function sqliteDb(file: string, availability: DatabaseAvailability): Promise<Kysely<Database>> {
  const { default: SQLite } = await import('better-sqlite3');
  if (file !== ':memory:') privateFile(file);
  const database = new SQLite(file);
  // WAL lets readers go on while the scheduler writes; the busy timeout covers a second process.
  database.pragma('journal_mode = WAL');
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  // A file closed under the engine is the only outage SQLite has; queries tell it as PostgreSQL's do.
  return new Kysely<Database>({ dialect: new SqliteDialect({ database }), log: watchQueries(availability) });
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

async function postgresDb(url: string, availability: DatabaseAvailability) {
  const { default: pg } = await import('pg');
  const settings = {
    connectionString: url,
    fallback_application_name: APPLICATION_NAME,
    // A database that accepts connections and never answers (a network cut) fails a request in 5 s rather than holding it.
    connectionTimeoutMillis: 5_000,
    // A connection whose peer vanished without a word is found out by TCP keepalive, not by the next query.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
  const pool = new pg.Pool({ ...settings, max: 10 });
  // A connection the server ends (a restart, an outage, pg_terminate_backend) fails its query, if it runs
  // one, and is dropped by the pool, which opens another for the next. The error event it also emits, on
  // the pool for an idle connection and on the connection itself for one in use, would end the process
  // unheard: the engine stays up instead, not ready (GET /v1/ready), until the database is back.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  // Every connection attempt and every query tells whether the database answers (store/outage.ts).
  const watched = {
    connect: () =>
      pool.connect().catch((error: unknown) => {
        availability.failed(error);
        throw error;
      }),
    end: () => pool.end(),
  };
  const db = new Kysely<Database>({ dialect: new OwnSchemaPostgresDialect({ pool: watched }), log: watchQueries(availability) });
  const dedicatedConnection = async () => {
    const client = new pg.Client(settings);
    // Heard here so that no error of this connection ends the process; its owner watches `end`.
    client.on('error', () => {});
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    return client;
  };
  return { db, pool, dedicatedConnection };
}

/**
 * PostgreSQL as Kysely speaks it, but for what the migrator asks of the database: whether a schema and its
 * own tables exist. Kysely's introspector reads every schema of the database and asks of each whether it may
 * be used, which fails with "schema … does not exist" where another schema is dropped meanwhile (another
 * engine's or application's on a shared server): the engine then did not start, 4 times in 20 while another
 * client created and dropped schemas. These read the catalog alone, and only the tables of the connection's
 * own schema, by name (no columns: the migrator reads none, and nothing else introspects).
 */
class OwnSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    const getSchemas = async (): Promise<SchemaMetadata[]> => (await sql<SchemaMetadata>`select nspname as name from pg_catalog.pg_namespace`.execute(db)).rows;
    const getTables = async (): Promise<TableMetadata[]> => {
      const { rows } = await sql<{ schema: string; name: string; kind: string }>`
        select n.nspname as schema, c.relname as name, c.relkind as kind
        from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where n.nspname = current_schema() and c.relkind in ('r', 'p', 'v', 'm')`.execute(db);
      return rows.map(({ schema, name, kind }) => ({ schema, name, isView: kind === 'v' || kind === 'm', columns: [] }));
    };
    return { getSchemas, getTables, getMetadata: async () => ({ tables: await getTables() }) };
  }
}

/** Kysely's log of every query, read for whether the database answers. */
const watchQueries = (availability: DatabaseAvailability) => (event: LogEvent) =>
  event.level === 'error' ? availability.failed(event.error) : availability.answered();

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
