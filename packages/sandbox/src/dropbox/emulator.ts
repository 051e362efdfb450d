/**
 * The Dropbox emulator: the operation table, one handler per route, Dropbox's tokens and error answers,
 * over the shared emulator layer. One origin serves the
 * routes of both of Dropbox's hosts (their paths do not overlap): the api host's RPC routes and the
 * content host's download.
 */
import type Database from 'better-sqlite3';
import { bearerToken, defineEmulator, type Emulator, type EmulatorOptions } from '../emulator/define.js';
import { combineHandlers } from '../emulator/handlers.js';
import { accountFor, createAccountTables, setScopes, unauthorized } from './accounts.js';
import type { DropboxCaller, DropboxContext, Handler } from './context.js';
import { createCursorTables } from './cursors.js';
import { downloadHandlers } from './download.js';
import { dropboxRateLimit, renderDropboxError } from './errors.js';
import { addFolder, createFileTables, metadata, putFile } from './files.js';
import { listFolderHandlers } from './list-folder.js';
import { searchHandlers } from './search.js';
import { operationTable } from './table.js';

export type DropboxEmulatorOptions = EmulatorOptions;

export type Metadata = ReturnType<typeof metadata>;

/** The Dropbox emulator's own methods, besides the shared ones. */
export interface DropboxTools {
  /** Writes a file into the token's account (parents created); text is stored as UTF-8. */
  putFile(token: string, path: string, content: string | Buffer): Metadata;
  /** Creates a folder (and its parents) in the token's account. */
  addFolder(token: string, path: string): Metadata;
  /** Narrows the scopes a token was granted (all by default). */
  setScopes(token: string, scopes: string[]): void;
}

export type DropboxEmulator = Emulator & DropboxTools;

export const dropboxHandlers: Record<string, Handler> = combineHandlers('Dropbox', listFolderHandlers, searchHandlers, downloadHandlers);

function createTables(db: Database.Database): void {
  createAccountTables(db);
  createFileTables(db);
  createCursorTables(db);
}

export const startDropboxEmulator = defineEmulator<DropboxCaller, DropboxContext, DropboxTools>({
  name: 'Dropbox',
  operations: operationTable,
  handlers: dropboxHandlers,
  createTables,
  context: ({ db, clock }) => ({ db, clock }),
  credentials: {
    read: bearerToken,
    refuse: unauthorized,
    principal: (token, { db }) => ({ accountId: accountFor(db, token) }),
    tokenPrefix: 'sl.',
  },
  renderError: renderDropboxError,
  rateLimit: dropboxRateLimit,
  api: ({ db, clock, inTransaction }) => ({
    putFile: (token, path, content) =>
      inTransaction(() =>
        metadata(putFile(db, accountFor(db, token), path, typeof content === 'string' ? Buffer.from(content, 'utf8') : content, clock.now())),
      ),
    addFolder: (token, path) => inTransaction(() => metadata(addFolder(db, accountFor(db, token), path))),
    setScopes: (token, scopes) => inTransaction(() => setScopes(db, token, scopes)),
  }),
});
