/**
 * The ClickUp emulator: the shared HTTP layer (routing, validation, recording) over the generated
 * operation table, ClickUp's auth and error shape, SQLite state, and one handler per operation.
 */
import type Database from 'better-sqlite3';
import { createClock, type Clock } from '../emulator/clock.js';
import { checkHandlers, resetTables, serviceDatabase } from '../emulator/database.js';
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
  checkHandlers('ClickUp', operationTable, clickupHandlers);
  const clock = options.clock ?? createClock();
  const { db, inTransaction } = serviceDatabase(options.dbPath);
  createTables(db);
  const ctx: ClickupContext = { db, clock };

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
      resetTables(db, createTables);
      server.requests.length = 0;
    },
    async close() {
      await server.close();
      db.close();
    },
  };
}
