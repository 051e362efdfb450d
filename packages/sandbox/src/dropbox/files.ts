/**
 * Files and folders of each account. Paths are case-insensitive (`path_lower` is the key) and keep the
 * case they were created with for display; the root is "" and exists implicitly. Every item has an
 * `id:` id; files keep their content, a revision and their modification times.
 */
import { createHash, randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { lookupError } from './context.js';

export function createFileTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS entries (
      seq INTEGER PRIMARY KEY, account INTEGER NOT NULL, id TEXT NOT NULL UNIQUE, path_lower TEXT NOT NULL, path_display TEXT NOT NULL,
      name TEXT NOT NULL, is_folder INTEGER NOT NULL, content BLOB, rev TEXT, client_modified INTEGER, server_modified INTEGER,
      UNIQUE (account, path_lower)
    );
  `);
}

export interface EntryRow {
  seq: number;
  account: number;
  id: string;
  path_lower: string;
  path_display: string;
  name: string;
  is_folder: number;
  content: Buffer | null;
  rev: string | null;
  client_modified: number | null;
  server_modified: number | null;
}

const newId = () => `id:${randomBytes(16).toString('base64url')}`;
const newRev = () => `0${randomBytes(7).toString('hex')}`;

const parentOf = (path: string) => path.slice(0, path.lastIndexOf('/'));

/** Creates the folder and any missing parents; an existing folder is left as it is. */
export function addFolder(db: Database.Database, account: number, path: string): EntryRow {
  const existing = entryAt(db, account, path);
  if (existing) {
    if (!existing.is_folder) throw new Error(`${path} is a file`);
    return existing;
  }
  const parent = parentOf(path);
  if (parent) addFolder(db, account, parent);
  db.prepare('INSERT INTO entries (account, id, path_lower, path_display, name, is_folder) VALUES (?, ?, ?, ?, ?, 1)').run(
    account,
    newId(),
    path.toLowerCase(),
    path,
    path.slice(path.lastIndexOf('/') + 1),
  );
  return entryAt(db, account, path)!;
}

/** Writes a file (a new revision when it exists), creating its parent folders. */
export function putFile(db: Database.Database, account: number, path: string, content: Buffer, modified: number): EntryRow {
  const parent = parentOf(path);
  if (parent) addFolder(db, account, parent);
  const existing = entryAt(db, account, path);
  if (existing?.is_folder) throw new Error(`${path} is a folder`);
  if (existing) {
    db.prepare('UPDATE entries SET content = ?, rev = ?, client_modified = ?, server_modified = ? WHERE seq = ?').run(
      content,
      newRev(),
      modified,
      modified,
      existing.seq,
    );
  } else {
    db.prepare(
      'INSERT INTO entries (account, id, path_lower, path_display, name, is_folder, content, rev, client_modified, server_modified) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?)',
    ).run(account, newId(), path.toLowerCase(), path, path.slice(path.lastIndexOf('/') + 1), content, newRev(), modified, modified);
  }
  return entryAt(db, account, path)!;
}

export function entryAt(db: Database.Database, account: number, path: string): EntryRow | undefined {
  return db.prepare('SELECT * FROM entries WHERE account = ? AND path_lower = ?').get(account, path.toLowerCase()) as EntryRow | undefined;
}

/**
 * The item a path argument names: a path, or `id:...` (optionally followed by a path below it).
 * Undefined stands for the root.
 */
export function resolve(db: Database.Database, account: number, path: string): EntryRow | undefined {
  if (path === '') return undefined;
  if (path.startsWith('ns:') || path.startsWith('rev:')) throw lookupError('not_found');
  if (path.startsWith('id:')) {
    const [id, ...rest] = path.split('/');
    const base = db.prepare('SELECT * FROM entries WHERE account = ? AND id = ?').get(account, id) as EntryRow | undefined;
    if (!base) throw lookupError('not_found');
    return rest.length ? resolve(db, account, `${base.path_display}/${rest.join('/')}`) : base;
  }
  if (path.endsWith('/')) throw lookupError('malformed_path');
  const entry = entryAt(db, account, path);
  if (!entry) throw lookupError('not_found');
  return entry;
}

/** The folder a path names, as a path_lower prefix ("" for the root). */
export function folderPrefix(db: Database.Database, account: number, path: string): string {
  const folder = resolve(db, account, path);
  if (folder && !folder.is_folder) throw lookupError('not_folder');
  return folder?.path_lower ?? '';
}

/** Dropbox's content hash: SHA-256 over the SHA-256 of each 4 MiB block. */
function contentHash(content: Buffer): string {
  const block = 4 * 1024 * 1024;
  const digests: Buffer[] = [];
  for (let at = 0; at < content.length; at += block)
    digests.push(
      createHash('sha256')
        .update(content.subarray(at, at + block))
        .digest(),
    );
  return createHash('sha256').update(Buffer.concat(digests)).digest('hex');
}

const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

export function metadata(entry: EntryRow) {
  if (entry.is_folder) return { '.tag': 'folder', name: entry.name, id: entry.id, path_lower: entry.path_lower, path_display: entry.path_display };
  const content = entry.content ?? Buffer.alloc(0);
  return {
    '.tag': 'file',
    name: entry.name,
    id: entry.id,
    client_modified: iso(entry.client_modified!),
    server_modified: iso(entry.server_modified!),
    rev: entry.rev!,
    size: content.length,
    path_lower: entry.path_lower,
    path_display: entry.path_display,
    is_downloadable: true,
    content_hash: contentHash(content),
  };
}

/** Items inside a folder (by path_lower prefix): its children, or every descendant. */
export function itemsIn(db: Database.Database, account: number, prefix: string, recursive: boolean): EntryRow[] {
  const below = db
    .prepare('SELECT * FROM entries WHERE account = ? AND substr(path_lower, 1, ?) = ? ORDER BY path_lower')
    .all(account, prefix.length + 1, `${prefix}/`) as EntryRow[];
  return recursive ? below : below.filter((entry) => !entry.path_lower.slice(prefix.length + 1).includes('/'));
}

const categoryByExtension: Record<string, string> = Object.fromEntries(
  Object.entries({
    image: ['jpg', 'jpeg', 'png', 'gif', 'bmp', 'tif', 'tiff', 'svg', 'webp', 'heic'],
    document: ['doc', 'docx', 'txt', 'rtf', 'odt', 'md', 'pages'],
    pdf: ['pdf'],
    spreadsheet: ['xls', 'xlsx', 'csv', 'ods', 'numbers'],
    presentation: ['ppt', 'pptx', 'key', 'odp'],
    audio: ['mp3', 'wav', 'm4a', 'aac', 'flac', 'ogg'],
    video: ['mp4', 'mov', 'avi', 'mkv', 'webm', 'wmv'],
    paper: ['paper'],
  }).flatMap(([category, extensions]) => extensions.map((extension) => [extension, category])),
);

export const extensionOf = (name: string): string => (name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '');

export function categoryOf(entry: EntryRow): string {
  if (entry.is_folder) return 'folder';
  return categoryByExtension[extensionOf(entry.name)] ?? 'others';
}
