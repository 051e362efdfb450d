/**
 * The ClickUp emulator: the shared HTTP layer (routing, validation, recording) over the generated
 * operation table, ClickUp's auth and error shape, SQLite state, and one handler per operation.
 */
import Database from 'better-sqlite3';
import { createClock, type Clock } from '../emulator/clock.js';
import { combineHandlers } from '../emulator/handlers.js';
import { startEmulator, type RecordedRequest } from '../emulator/server.js';
import { checklistHandlers, createChecklistTables } from './checklists.js';
import type { ClickupContext, Handler } from './context.js';
import { createCustomFieldTables, customFieldHandlers } from './custom-fields.js';
import { renderClickupError } from './errors.js';
import { createListTables, listHandlers } from './lists.js';
import { operationTable } from './table.js';
import { taskListHandlers } from './task-list.js';
import { createTaskTables, taskHandlers } from './tasks.js';
import { createTimeTables, timeHandlers } from './time-tracking.js';
import { createSpace, createWorkspace, createWorkspaceTables, tokenOf, userFor, type SpaceOptions } from './workspace.js';

export interface ClickupEmulatorOptions {
  /** The clock handlers read; tests pass one they control. Default: real time. */
  clock?: Clock;
  /** SQLite file for state that outlives the process. Default: in memory. */
  dbPath?: string;
}

export interface ClickupEmulator {
  /** Base URL, e.g. http://127.0.0.1:43121; operation paths (/v2/...) go after it. */
  url: string;
  /** Every request received, in order, refused ones included. */
  requests: RecordedRequest[];
  clock: Clock;
  /** The state, for tests to inspect directly. */
  db: Database.Database;
  /** The user id a token acts as (assigned on first sight). */
  userFor(token: string): number;
  /** A workspace (ClickUp's team) with these members; returns its id. */
  createWorkspace(name: string, members: number[]): string;
  /** A space in a workspace; returns its id. */
  createSpace(teamId: string, name: string, options?: SpaceOptions): string;
  /** Empties all state and the request log. */
  reset(): void;
  close(): Promise<void>;
}

export const clickupHandlers: Record<string, Handler> = combineHandlers(
  'ClickUp',
  listHandlers,
  taskHandlers,
  taskListHandlers,
  customFieldHandlers,
  checklistHandlers,
  timeHandlers,
);

function createTables(db: Database.Database): void {
  createWorkspaceTables(db);
  createListTables(db);
  createTaskTables(db);
  createCustomFieldTables(db);
  createChecklistTables(db);
  createTimeTables(db);
}

export async function startClickupEmulator(options: ClickupEmulatorOptions = {}): Promise<ClickupEmulator> {
  checkEveryOperationIsHandled();
  const clock = options.clock ?? createClock();
  const db = new Database(options.dbPath ?? ':memory:');
  createTables(db);
  const ctx: ClickupContext = { db, clock };
  // Each call is one transaction: a handler that refuses halfway leaves no trace.
  const inTransaction = <T>(work: () => T): T => db.transaction(work)();

  const server = await startEmulator<number>({
    operations: operationTable,
    authenticate: (headers) => userFor(db, tokenOf(headers.authorization)),
    handle: ({ label, params, query, body }, userId) => inTransaction(() => clickupHandlers[label]!({ params, query, body, userId }, ctx)),
    renderError: renderClickupError,
  });

  return {
    url: server.url,
    requests: server.requests,
    clock,
    db,
    userFor: (token) => userFor(db, token),
    createWorkspace: (name, members) => inTransaction(() => createWorkspace(db, name, members)),
    createSpace: (teamId, name, spaceOptions) => inTransaction(() => createSpace(db, teamId, name, spaceOptions)),
    reset() {
      inTransaction(() => {
        const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as Array<{ name: string }>;
        for (const { name } of tables) db.prepare(`DELETE FROM "${name}"`).run();
      });
      server.requests.length = 0;
    },
    async close() {
      await server.close();
      db.close();
    },
  };
}

/** Fails loudly at startup rather than answering some operation with a 500 later. */
function checkEveryOperationIsHandled(): void {
  const problems = [
    ...Object.keys(operationTable.operations).filter((label) => !clickupHandlers[label]).map((label) => `no handler for ${label}`),
    ...Object.keys(clickupHandlers).filter((label) => !operationTable.operations[label]).map((label) => `a handler for unknown operation ${label}`),
  ];
  if (problems.length) throw new Error(`ClickUp emulator: ${problems.join('; ')}`);
}
