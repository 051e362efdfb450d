import { defineToolkit, toolError } from '@quiver/core';
import { readCatalog } from '../read-catalog.js';
import { download, rpc } from './dropbox.js';

/** The page size the tools' `limit` documents as its default: Dropbox's own defaults are larger, so the tools always send one. */
const defaultLimit = 100;

/** The root is the empty path to Dropbox; "/" is the way people write it. */
const folder = (path: unknown): string => (path === undefined || path === '/' ? '' : String(path));

/** Dropbox (API v2): download, list a folder, search. Each tool chooses its endpoint, so each has a handler. */
export const fileStore = defineToolkit(readCatalog(new URL('./catalog.json', import.meta.url)), {
  DownloadFile: async ({ file_path, file_id }, context) => {
    if ((file_path === undefined) === (file_id === undefined)) {
      const which = file_path === undefined ? 'neither was given' : 'both were given';
      return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `Invalid input for DownloadFile: give exactly one of 'file_path' and 'file_id' (${which}).`);
    }
    const id = String(file_id ?? '');
    return download(context, '/2/files/download', { path: file_path ?? (id.startsWith('id:') ? id : `id:${id}`) });
  },

  // A cursor carries the folder and the page size, so continuing sends the cursor alone.
  ListItemsInFolder: async ({ folder_path, limit, cursor }, context) =>
    cursor !== undefined
      ? rpc(context, '/2/files/list_folder/continue', { cursor })
      : rpc(context, '/2/files/list_folder', { path: folder(folder_path), limit: limit ?? defaultLimit }),

  SearchFilesAndFolders: async ({ keywords, search_in_folder_path, filter_by_category, limit, cursor }, context) => {
    if (cursor !== undefined) return rpc(context, '/2/files/search/continue_v2', { cursor });
    const options = {
      max_results: limit ?? defaultLimit,
      ...(search_in_folder_path !== undefined && { path: folder(search_in_folder_path) }),
      ...(filter_by_category !== undefined && { file_categories: filter_by_category }),
    };
    return rpc(context, '/2/files/search_v2', { query: keywords, options });
  },
});
