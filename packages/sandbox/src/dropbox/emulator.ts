/**
 * The Dropbox emulator: the shared HTTP layer (routing, validation, recording) over the operation table,
 * Dropbox's auth and error answers, SQLite state, and one handler per route. One origin serves the
 * routes of both of Dropbox's hosts (their paths do not overlap): the api host's RPC routes and the
 * content host's download.
 */
import type Database from 'better-sqlite3';
import { createClock, type Clock } from '../emulator/clock.js';
import { checkHandlers, resetTables, serviceDatabase } from '../emulator/database.js';
import { combineHandlers } from '../emulator/handlers.js';
import { startEmulator, type RecordedRequest } from '../emulator/server.js';
import { accountFor, bearerToken, createAccountTables, setScopes } from './accounts.js';
import type { DropboxContext, Handler } from './context.js';
import { createCursorTables } from './cursors.js';
import { downloadHandlers } from './download.js';
import { renderDropboxError } from './errors.js';
import { addFolder, createFileTables, metadata, putFile } from './files.js';
import { listFolderHandlers } from './list-folder.js';
import { searchHandlers } from './search.js';
import { operationTable } from './table.js';

export interface DropboxEmulatorOptions {
  /** The clock for modification times; tests pass one they control. Default: real time. */
  clock?: Clock;
  /** SQLite file for state that outlives the process. Default: in memory. */
  dbPath?: string;
}

export type Metadata = ReturnType<typeof metadata>;

export interface DropboxEmulator {
  /** Base URL of both hosts, e.g. http://127.0.0.1:43121; route paths (/2/files/...) go after it. */
  url: string;
  /** Every request received, in order, refused ones included. */
  requests: RecordedRequest[];
  clock: Clock;
  /** The state, for tests to inspect directly. */
  db: Database.Database;
  /** Writes a file into the token's account (parents created); text is stored as UTF-8. */
  putFile(token: string, path: string, content: string | Buffer): Metadata;
  /** Creates a folder (and its parents) in the token's account. */
  addFolder(token: string, path: string): Metadata;
  /** Narrows the scopes a token was granted (all by default). */
  setScopes(token: string, scopes: string[]): void;
  /** Empties all state and the request log. */
  reset(): void;
  close(): Promise<void>;
}

export const dropboxHandlers: Record<string, Handler> = combineHandlers('Dropbox', listFolderHandlers, searchHandlers, downloadHandlers);

function createTables(db: Database.Database): void {
  createAccountTables(db);
  createFileTables(db);
  createCursorTables(db);
}

export async function startDropboxEmulator(options: DropboxEmulatorOptions = {}): Promise<DropboxEmulator> {
  checkHandlers('Dropbox', operationTable, dropboxHandlers);
  const clock = options.clock ?? createClock();
  const { db, inTransaction } = serviceDatabase(options.dbPath);
  createTables(db);
  const ctx: DropboxContext = { db, clock };

  const server = await startEmulator<number>({
    operations: operationTable,
    authenticate: (headers) => accountFor(db, bearerToken(headers.authorization)),
    handle: ({ label, headers, body }, accountId) => inTransaction(() => dropboxHandlers[label]!({ headers, body, accountId }, ctx)),
    renderError: renderDropboxError,
  });

  return {
    url: server.url,
    requests: server.requests,
    clock,
    db,
    putFile: (token, path, content) =>
      inTransaction(() => metadata(putFile(db, accountFor(db, token), path, typeof content === 'string' ? Buffer.from(content, 'utf8') : content, clock.now()))),
    addFolder: (token, path) => inTransaction(() => metadata(addFolder(db, accountFor(db, token), path))),
    setScopes: (token, scopes) => inTransaction(() => setScopes(db, token, scopes)),
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
