/**
 * The SQLite side every stateful emulator shares: opening its database, running work as one
 * transaction, emptying it on reset, and checking its handlers against its operation table.
 */
import Database from 'better-sqlite3';
import type { OperationTable } from './operations.js';

export interface ServiceDatabase {
  db: Database.Database;
  /** Runs `work` as one transaction, so that a handler that throws halfway leaves no trace. */
  inTransaction<T>(work: () => T): T;
}

/** Opens a service's database: the file at `dbPath`, or one in memory. */
export function serviceDatabase(dbPath?: string): ServiceDatabase {
  const db = new Database(dbPath ?? ':memory:');
  return { db, inTransaction: (work) => db.transaction(work)() };
}

/**
 * Deletes every row of every table, restarts AUTOINCREMENT counters, then runs `createTables` again
 * so that tables (and any rows it seeds) come back as on a fresh start. Tables go newest first: the
 * ones that reference others are created after them, so no delete breaks an enforced reference.
 */
export function resetTables(db: Database.Database, createTables: (db: Database.Database) => void, keep: string[] = []): void {
  db.transaction(() => {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid DESC").all() as Array<{
      name: string;
    }>;
    for (const { name } of tables) if (!keep.includes(name)) db.prepare(`DELETE FROM "${name}"`).run();
    if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").get()) db.prepare('DELETE FROM sqlite_sequence').run();
    createTables(db);
  })();
}

/**
 * Fails loudly at startup rather than answering some operation with a 500 later, or leaving a handler
 * unreachable (a misspelt label). `everyOperation: false` when a fallback answers the rest.
 */
export function checkHandlers(service: string, operations: OperationTable, handlers: Record<string, unknown>, everyOperation = true): void {
  const problems = [
    ...(everyOperation ? Object.keys(operations.operations).filter((label) => !handlers[label]) : []).map((label) => `no handler for ${label}`),
    ...Object.keys(handlers)
      .filter((label) => !operations.operations[label])
      .map((label) => `a handler for unknown operation ${label}`),
  ];
  if (problems.length) throw new Error(`${service} emulator: ${problems.join('; ')}`);
}
