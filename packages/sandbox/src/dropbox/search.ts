/**
 * files/search_v2 and its continuation. Every keyword must occur (case-insensitively) in the item's name,
 * or, unless filename_only, in a file's text; name matches rank first. Results can be limited to a folder,
 * to categories and to extensions. At most 10,000 matches are returned in all, across pages.
 */
import type Database from 'better-sqlite3';
import { requireScope } from './accounts.js';
import { DropboxError, type DropboxRequest, type Handler } from './context.js';
import { loadCursor, saveCursor } from './cursors.js';
import { categoryOf, extensionOf, folderPrefix, itemsIn, metadata, type EntryRow } from './files.js';

/** Dropbox's cap on the matches of one search, across all its pages. */
export const MAX_TOTAL_MATCHES = 10_000;
const DEFAULT_MAX_RESULTS = 100;

interface SearchState {
  query: string;
  path: string;
  maxResults: number;
  orderBy: string;
  filenameOnly: boolean;
  categories?: string[];
  extensions?: string[];
  offset: number;
}

type Tagged = string | { '.tag': string };

interface SearchBody {
  query: string;
  options?: {
    path?: string;
    max_results?: number;
    file_status?: Tagged;
    order_by?: Tagged;
    filename_only?: boolean;
    file_categories?: Tagged[];
    file_extensions?: string[];
  };
}
function tag(value: Tagged): string;
function tag(value: Tagged | undefined): string | undefined;
function tag(value: Tagged | undefined): string | undefined {
  return typeof value === 'string' ? value : value?.['.tag'];
}

function matchType(entry: EntryRow, terms: string[], filenameOnly: boolean): string | undefined {
  const name = entry.name.toLowerCase();
  const text = filenameOnly || entry.is_folder ? '' : (entry.content?.toString('utf8') ?? '').toLowerCase();
  const inName = terms.every((term) => name.includes(term));
  const inText = text !== '' && terms.every((term) => text.includes(term));
  if (inName) return inText ? 'filename_and_content' : 'filename';
  // Some words in the name and the rest in the text count as a content match.
  return terms.every((term) => name.includes(term) || text.includes(term)) ? 'file_content' : undefined;
}

function matches(db: Database.Database, account: number, state: SearchState) {
  const terms = state.query.toLowerCase().split(/\s+/).filter(Boolean);
  const found = itemsIn(db, account, folderPrefix(db, account, state.path), true)
    .filter((entry) => !state.categories || state.categories.includes(categoryOf(entry)))
    .filter((entry) => !state.extensions || (!entry.is_folder && state.extensions.includes(extensionOf(entry.name))))
    .flatMap((entry) => {
      const type = terms.length ? matchType(entry, terms, state.filenameOnly) : undefined;
      return type ? [{ entry, type }] : [];
    });
  const byRecency = (a: { entry: EntryRow }, b: { entry: EntryRow }) => (b.entry.server_modified ?? 0) - (a.entry.server_modified ?? 0);
  const byRelevance = (a: { type: string }, b: { type: string }) => Number(a.type === 'file_content') - Number(b.type === 'file_content');
  return found.sort(state.orderBy === 'last_modified_time' ? byRecency : byRelevance).slice(0, MAX_TOTAL_MATCHES);
}

function page(db: Database.Database, account: number, state: SearchState) {
  const all = matches(db, account, state);
  const slice = all.slice(state.offset, state.offset + state.maxResults);
  const offset = state.offset + slice.length;
  const hasMore = offset < all.length;
  return {
    status: 200,
    body: {
      matches: slice.map(({ entry, type }) => ({ metadata: { '.tag': 'metadata', metadata: metadata(entry) }, match_type: { '.tag': type } })),
      has_more: hasMore,
      ...(hasMore && { cursor: saveCursor(db, account, 'search', { ...state, offset }) }),
    },
  };
}

export const searchHandlers: Record<string, Handler> = {
  'files/search_v2': ({ body, accountId }: DropboxRequest<SearchBody>, { db }) => {
    requireScope(db, accountId, 'files.metadata.read');
    const options = body.options ?? {};
    if (tag(options.file_status) === 'deleted') {
      // Deleted items are not kept, so a search for them finds nothing.
      return { status: 200, body: { matches: [], has_more: false } };
    }
    return page(db, accountId, {
      query: body.query,
      path: options.path ?? '',
      maxResults: options.max_results ?? DEFAULT_MAX_RESULTS,
      orderBy: tag(options.order_by) ?? 'relevance',
      filenameOnly: options.filename_only === true,
      categories: options.file_categories?.map((category) => tag(category)),
      extensions: options.file_extensions?.map((extension) => extension.replace(/^\./, '').toLowerCase()),
      offset: 0,
    });
  },

  'files/search/continue_v2': ({ body, accountId }: DropboxRequest<{ cursor: string }>, { db }) => {
    requireScope(db, accountId, 'files.metadata.read');
    const state = loadCursor<SearchState>(db, accountId, 'search', body.cursor);
    if (!state) throw new DropboxError(409, { '.tag': 'invalid_argument' });
    return page(db, accountId, state);
  },
};
