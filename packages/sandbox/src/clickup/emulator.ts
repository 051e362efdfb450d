/**
 * The ClickUp emulator: the generated operation table, one handler per operation, ClickUp's tokens
 * and error shape, over the shared emulator layer.
 */
import type Database from 'better-sqlite3';
import { defineEmulator, type Emulator, type EmulatorOptions } from '../emulator/define.js';
import { combineHandlers } from '../emulator/handlers.js';
import { checklistHandlers, createChecklistTables } from './checklists.js';
import type { ClickupCaller, ClickupContext, Handler } from './context.js';
import { createCustomFieldTables, customFieldHandlers } from './custom-fields.js';
import { clickupRateLimit, renderClickupError } from './errors.js';
import { createListTables, listHandlers } from './lists.js';
import { operationTable } from './table.js';
import { taskListHandlers } from './task-list.js';
import { createTaskTables, taskHandlers } from './tasks.js';
import { createTimeTables, timeHandlers } from './time-tracking.js';
import { createSpace, createWorkspace, createWorkspaceTables, readToken, unauthorized, userFor, type SpaceOptions } from './workspace.js';

export type ClickupEmulatorOptions = EmulatorOptions;

/** The ClickUp emulator's own methods, besides the shared ones. */
export interface ClickupTools {
  /** The user id a token acts as (assigned on first sight). */
  userFor(token: string): number;
  /** A workspace (ClickUp's team) with these members; returns its id. */
  createWorkspace(name: string, members: number[]): string;
  /** A space in a workspace; returns its id. */
  createSpace(teamId: string, name: string, options?: SpaceOptions): string;
}

export type ClickupEmulator = Emulator & ClickupTools;

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

export const startClickupEmulator = defineEmulator<ClickupCaller, ClickupContext, ClickupTools>({
  name: 'ClickUp',
  operations: operationTable,
  handlers: clickupHandlers,
  createTables,
  context: ({ db, clock }) => ({ db, clock }),
  credentials: {
    read: readToken,
    refuse: unauthorized,
    principal: (token, { db }) => ({ userId: userFor(db, token) }),
    tokenPrefix: 'pk_',
  },
  renderError: renderClickupError,
  rateLimit: clickupRateLimit,
  api: ({ db, inTransaction }) => ({
    userFor: (token) => userFor(db, token),
    createWorkspace: (name, members) => inTransaction(() => createWorkspace(db, name, members)),
    createSpace: (teamId, name, spaceOptions) => inTransaction(() => createSpace(db, teamId, name, spaceOptions)),
  }),
});
