/**
 * files/list_folder and its continuation. Pages are cut from the folder's current contents in path
 * order, so an item added or removed between pages shifts the rest: an item may then appear on two
 * pages, as Dropbox warns. The last page's cursor still continues (with nothing new).
 */
import { requireScope } from './accounts.js';
import { DropboxBadInput, DropboxError, type DropboxRequest, type Handler } from './context.js';
import { loadCursor, saveCursor } from './cursors.js';
import { folderPrefix, itemsIn, metadata } from './files.js';

interface ListState {
  path: string;
  recursive: boolean;
  limit: number;
  offset: number;
}

/** Dropbox sends up to 2000 entries per page when no limit is asked for. */
const DEFAULT_LIMIT = 2000;

function page(db: Parameters<Handler>[1]['db'], account: number, state: ListState) {
  const items = itemsIn(db, account, folderPrefix(db, account, state.path), state.recursive);
  const entries = items.slice(state.offset, state.offset + state.limit);
  const next = { ...state, offset: Math.min(items.length, state.offset + state.limit) };
  return { status: 200, body: { entries: entries.map(metadata), cursor: saveCursor(db, account, 'list', next), has_more: next.offset < items.length } };
}

export const listFolderHandlers: Record<string, Handler> = {
  'files/list_folder': ({ body, accountId }: DropboxRequest<{ path: string; recursive?: boolean; limit?: number }>, { db }) => {
    requireScope(db, accountId, 'files.metadata.read');
    if (body.path === '/') throw new DropboxBadInput('files/list_folder', 'request body: path: Specify the root folder as an empty string rather than as "/".');
    return page(db, accountId, { path: body.path, recursive: body.recursive === true, limit: body.limit ?? DEFAULT_LIMIT, offset: 0 });
  },

  'files/list_folder/continue': ({ body, accountId }: DropboxRequest<{ cursor: string }>, { db }) => {
    requireScope(db, accountId, 'files.metadata.read');
    const state = loadCursor<ListState>(db, accountId, 'list', body.cursor);
    // An unknown or foreign cursor: start over with list_folder.
    if (!state) throw new DropboxError(409, { '.tag': 'reset' });
    return page(db, accountId, state);
  },
};
