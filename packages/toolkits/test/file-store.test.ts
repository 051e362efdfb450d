/**
 * End-to-end tests of every FileStore tool through the core Runtime against the Dropbox emulator: the
 * api host's RPC calls, the content host's download with its Dropbox-API-Arg header, cursors that
 * continue alone, and the limits of spec part 8. The last test checks that all 3 tools were called.
 */
import { readFileSync } from 'node:fs';
import { UpstreamClient, type ToolError } from '@quiver/core';
import { MAX_TOTAL_MATCHES, seedDropboxDemo, startDropboxEmulator, type DropboxEmulator } from '@quiver/sandbox';
import { fileStore } from '@quiver/toolkits';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { contentUrl, contentUrlSecret } from '../src/file-store/dropbox.js';
import { ToolClient } from './tool-client.helpers.js';

const catalog = JSON.parse(readFileSync(new URL('../src/file-store/catalog.json', import.meta.url), 'utf8')) as {
  tools: Array<{ name: string; requirements: { oauth2: { scopes: string[] }; secrets?: Array<{ key: string; optional?: boolean }> } }>;
};

const TOKEN = 'file-store-token';
const covered = new Set<string>();
const client = new UpstreamClient({ maxRetries: 0 });
let emulator: DropboxEmulator;

beforeAll(async () => {
  emulator = await startDropboxEmulator();
  for (const token of [TOKEN, 'other-account', 'many-files-token']) emulator.issueToken(token);
});

afterAll(async () => {
  await emulator?.close();
  await client.close();
});

beforeEach(() => emulator.reset());

interface Setting {
  token?: string;
  baseUrl?: string;
  secrets?: Record<string, string>;
}

/** A client for one setting (the emulator and the usual account unless it says otherwise). */
const clientFor = ({ token = TOKEN, baseUrl, secrets }: Setting = {}) =>
  new ToolClient(fileStore, { upstream: baseUrl ? { url: baseUrl } : () => emulator, token, secrets, covered, client, verbose: true });

const call = (tool: string, input: Record<string, unknown>, setting?: Setting) => clientFor(setting).call(tool, input);
const fail = (tool: string, input: unknown, setting?: Setting): Promise<ToolError> => clientFor(setting).fail(tool, input);

async function expectNothingSent<T>(work: () => Promise<T>): Promise<T> {
  const before = emulator.requests.length;
  const result = await work();
  expect(emulator.requests.length, 'requests the emulator received').toBe(before);
  return result;
}

/** What the emulator received last: route and JSON body. */
const lastRequest = () => {
  const request = emulator.requests.at(-1)!;
  return { path: request.path, body: request.body, headers: request.headers };
};

const names = (entries: Array<{ name: string }>) => entries.map((entry) => entry.name);

// ------------------------------------------------------------------------------------------------

describe('DownloadFile', () => {
  it('downloads by path from the content host, with the argument in Dropbox-API-Arg', async () => {
    const file = emulator.putFile(TOKEN, '/Reports/Q3.txt', 'revenue up');
    const value = await call('DownloadFile', { file_path: '/reports/q3.TXT' });
    expect(value.content).toBe('revenue up');
    expect(value.metadata).toMatchObject({ '.tag': 'file', name: 'Q3.txt', id: file.id, path_display: '/Reports/Q3.txt', size: 10, rev: file.rev });
    const sent = lastRequest();
    expect(sent.path).toBe('/2/files/download');
    expect(sent.body).toBeUndefined();
    expect(JSON.parse(sent.headers['dropbox-api-arg']!)).toEqual({ path: '/reports/q3.TXT' });
    expect(sent.headers['content-type']).toBeUndefined();
  });

  it('downloads by id, with or without the id: prefix', async () => {
    const file = emulator.putFile(TOKEN, '/a.txt', 'by id');
    expect((await call('DownloadFile', { file_id: file.id })).content).toBe('by id');
    expect((await call('DownloadFile', { file_id: file.id.slice('id:'.length) })).content).toBe('by id');
    expect(JSON.parse(lastRequest().headers['dropbox-api-arg']!)).toEqual({ path: file.id });
  });

  it('escapes characters outside ASCII in the header, as Dropbox requires', async () => {
    emulator.putFile(TOKEN, '/Café/naïve 😀.txt', 'unicode');
    expect((await call('DownloadFile', { file_path: '/Café/naïve 😀.txt' })).content).toBe('unicode');
    const header = lastRequest().headers['dropbox-api-arg']!;
    expect(header).toMatch(/^[\x20-\x7e]+$/);
    expect(header).toContain('\\u00e9');
    expect((await call('DownloadFile', { file_path: '/café/NAÏVE 😀.txt' })).metadata.name).toBe('naïve 😀.txt');
  });

  it('an empty file downloads as empty content', async () => {
    emulator.putFile(TOKEN, '/empty.txt', '');
    expect(await call('DownloadFile', { file_path: '/empty.txt' })).toMatchObject({ content: '', metadata: { size: 0 } });
  });

  it('downloads the binary demo photo as base64 of exactly its stored bytes', async () => {
    seedDropboxDemo(emulator, TOKEN);
    const stored = (emulator.db.prepare('SELECT content FROM entries WHERE path_lower = ?').get('/photos/team offsite.jpg') as { content: Buffer }).content;
    expect([...stored.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    const value = await call('DownloadFile', { file_path: '/Photos/team offsite.jpg' });
    expect(value).toEqual({
      metadata: expect.objectContaining({ name: 'team offsite.jpg', size: stored.length }),
      content_base64: expect.any(String),
      content_type: 'application/octet-stream',
      size_bytes: stored.length,
    });
    expect(Buffer.from(value.content_base64, 'base64').equals(stored)).toBe(true);
  });

  it('a text file of the demo still comes back as text, non-ASCII and BOM included', async () => {
    seedDropboxDemo(emulator, TOKEN);
    expect(await call('DownloadFile', { file_path: '/Reports/budget.csv' })).toEqual({
      metadata: expect.objectContaining({ name: 'budget.csv' }),
      content: 'item,amount\nads,5000\nevents,3000\n',
    });
    emulator.putFile(TOKEN, '/Notes/grüße.txt', '\ufeffGrüße aus 東京 😀');
    expect((await call('DownloadFile', { file_path: '/Notes/grüße.txt' })).content).toBe('\ufeffGrüße aus 東京 😀');
  });

  it('a file with NUL bytes is binary even when it is valid UTF-8', async () => {
    const bytes = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00]);
    emulator.putFile(TOKEN, '/archive.zip', bytes);
    const value = await call('DownloadFile', { file_path: '/archive.zip' });
    expect(value.content).toBeUndefined();
    expect(Buffer.from(value.content_base64, 'base64').equals(bytes)).toBe(true);
  });

  it('exactly one of file_path and file_id: both or neither is refused before anything is sent', async () => {
    for (const input of [{}, { file_path: '/a.txt', file_id: 'id:abc' }]) {
      const error = await expectNothingSent(() => fail('DownloadFile', input));
      expect(error.kind).toBe('TOOL_RUNTIME_BAD_INPUT_VALUE');
      expect(error.message).toMatch(/give exactly one of 'file_path' and 'file_id'/);
    }
  });

  it('a missing file, a folder, and a malformed path are Dropbox errors', async () => {
    emulator.addFolder(TOKEN, '/Docs');
    const missing = await fail('DownloadFile', { file_path: '/nope.txt' });
    expect(missing).toMatchObject({ kind: 'UPSTREAM_RUNTIME_BAD_REQUEST', status_code: 409 });
    expect(missing.developer_message).toContain('path/not_found/');
    expect((await fail('DownloadFile', { file_path: '/Docs' })).developer_message).toContain('path/not_file/');
    const malformed = await fail('DownloadFile', { file_path: 'Docs/a.txt' });
    expect(malformed.status_code).toBe(400);
    expect(malformed.message).toContain('Error in call to API function "files/download"');
  });

  it('needs the files.content.read scope', async () => {
    emulator.putFile(TOKEN, '/a.txt', 'x');
    emulator.setScopes(TOKEN, ['files.metadata.read']);
    const error = await fail('DownloadFile', { file_path: '/a.txt' });
    expect(error.kind).toBe('UPSTREAM_RUNTIME_AUTH_ERROR');
    expect(error.developer_message).toContain('files.content.read');
  });

  it('uses a configured content host; by default Dropbox’s own beside its api host, else the base URL', async () => {
    emulator.putFile(TOKEN, '/a.txt', 'from the content host');
    // The api host is unreachable here: only the configured content host can answer.
    const setting = { baseUrl: 'http://127.0.0.1:9', secrets: { [contentUrlSecret]: emulator.url } };
    expect((await call('DownloadFile', { file_path: '/a.txt' }, setting)).content).toBe('from the content host');
    const context = (baseUrl: string, secrets: Record<string, string> = {}) => ({ baseUrl, secrets, client });
    expect(contentUrl(context('https://api.dropboxapi.com'))).toBe('https://content.dropboxapi.com');
    expect(contentUrl(context('https://api.dropboxapi.com/'))).toBe('https://content.dropboxapi.com');
    expect(contentUrl(context('http://127.0.0.1:4000'))).toBe('http://127.0.0.1:4000');
    expect(contentUrl(context('https://api.dropboxapi.com', { [contentUrlSecret]: 'https://proxy.example' }))).toBe('https://proxy.example');
    expect(catalog.tools.find((tool) => tool.name === 'DownloadFile')!.requirements.secrets).toEqual([{ key: contentUrlSecret, optional: true }]);
  });
});

describe('ListItemsInFolder', () => {
  it('lists the root (left out, empty or "/") with the default page size of 100', async () => {
    emulator.putFile(TOKEN, '/b.txt', 'b');
    emulator.addFolder(TOKEN, '/A folder');
    emulator.putFile(TOKEN, '/A folder/inner.txt', 'i');
    for (const input of [{}, { folder_path: '' }, { folder_path: '/' }]) {
      const value = await call('ListItemsInFolder', input);
      expect(value.entries.map((entry: any) => [entry['.tag'], entry.name])).toEqual([
        ['folder', 'A folder'],
        ['file', 'b.txt'],
      ]);
      expect(value.has_more).toBe(false);
      expect(lastRequest()).toMatchObject({ path: '/2/files/list_folder', body: { path: '', limit: 100 } });
    }
  });

  it('lists a folder by its path in any case', async () => {
    emulator.putFile(TOKEN, '/Projects/Alpha/plan.md', 'p');
    emulator.putFile(TOKEN, '/Projects/notes.txt', 'n');
    expect(names((await call('ListItemsInFolder', { folder_path: '/projects' })).entries)).toEqual(['Alpha', 'notes.txt']);
  });

  it('pages by limit; the cursor alone continues, and an item added meanwhile can repeat one', async () => {
    for (const name of ['b', 'd', 'f', 'h', 'j']) emulator.putFile(TOKEN, `/Pages/${name}.txt`, name);
    const first = await call('ListItemsInFolder', { folder_path: '/Pages', limit: 2 });
    expect([names(first.entries), first.has_more]).toEqual([['b.txt', 'd.txt'], true]);
    emulator.putFile(TOKEN, '/Pages/a.txt', 'a');
    const second = await call('ListItemsInFolder', { folder_path: '/Ignored', limit: 1500, cursor: first.cursor });
    expect(lastRequest()).toMatchObject({ path: '/2/files/list_folder/continue', body: { cursor: first.cursor } });
    expect(Object.keys(lastRequest().body as object)).toEqual(['cursor']);
    // The page keeps the first call's limit; d.txt shifted into it.
    expect([names(second.entries), second.has_more]).toEqual([['d.txt', 'f.txt'], true]);
    const third = await call('ListItemsInFolder', { cursor: second.cursor });
    expect([names(third.entries), third.has_more]).toEqual([['h.txt', 'j.txt'], false]);
  });

  it('pages 100 entries at a time by default and up to 2000 when asked', async () => {
    for (let i = 0; i < 150; i += 1) emulator.putFile(TOKEN, `/Many/file-${String(i).padStart(3, '0')}.txt`, String(i));
    const first = await call('ListItemsInFolder', { folder_path: '/Many' });
    const rest = await call('ListItemsInFolder', { cursor: first.cursor });
    expect([first.entries.length, first.has_more, rest.entries.length, rest.has_more]).toEqual([100, true, 50, false]);
    expect((await call('ListItemsInFolder', { folder_path: '/Many', limit: 2000 })).entries).toHaveLength(150);
  });

  it('refuses a limit outside 1 to 2000 before anything is sent', async () => {
    for (const limit of [0, 2001]) {
      const error = await expectNothingSent(() => fail('ListItemsInFolder', { folder_path: '', limit }));
      expect(error.message).toMatch(/parameter 'limit' must be (>= 1|<= 2000)/);
    }
  });

  it('a missing folder, a file, and an unknown cursor are Dropbox errors', async () => {
    emulator.putFile(TOKEN, '/file.txt', 'f');
    expect((await fail('ListItemsInFolder', { folder_path: '/missing' })).developer_message).toContain('path/not_found/');
    expect((await fail('ListItemsInFolder', { folder_path: '/file.txt' })).developer_message).toContain('path/not_folder/');
    expect((await fail('ListItemsInFolder', { cursor: 'AAnot-a-cursor' })).developer_message).toContain('reset/');
  });

  it('another account sees none of these files, and cannot use their cursors', async () => {
    emulator.putFile(TOKEN, '/mine.txt', 'm');
    const mine = await call('ListItemsInFolder', { limit: 1 });
    expect((await call('ListItemsInFolder', {}, { token: 'other-account' })).entries).toEqual([]);
    expect((await fail('ListItemsInFolder', { cursor: mine.cursor }, { token: 'other-account' })).developer_message).toContain('reset/');
  });
});

describe('SearchFilesAndFolders', () => {
  beforeEach(() => {
    emulator.putFile(TOKEN, '/Reports/Q3 report.pdf', 'numbers');
    emulator.putFile(TOKEN, '/Reports/summary.txt', 'the quarterly report in brief');
    emulator.putFile(TOKEN, '/Archive/old report.txt', 'report of 2019');
    emulator.addFolder(TOKEN, '/Report templates');
  });

  const found = (value: any) => value.matches.map((match: any) => [match.metadata.metadata.path_display, match.match_type['.tag']]);

  it('finds names and text, names first, and sends search_v2 with its options', async () => {
    const value = await call('SearchFilesAndFolders', { keywords: 'report' });
    expect(found(value)).toEqual([
      ['/Archive/old report.txt', 'filename_and_content'],
      ['/Report templates', 'filename'],
      ['/Reports', 'filename'],
      ['/Reports/Q3 report.pdf', 'filename'],
      ['/Reports/summary.txt', 'file_content'],
    ]);
    expect(value.has_more).toBe(false);
    expect(lastRequest()).toMatchObject({ path: '/2/files/search_v2', body: { query: 'report', options: { max_results: 100 } } });
    expect(found(await call('SearchFilesAndFolders', { keywords: 'quarterly REPORT' }))).toEqual([['/Reports/summary.txt', 'file_content']]);
  });

  it('searches inside one folder', async () => {
    expect(found(await call('SearchFilesAndFolders', { keywords: 'report', search_in_folder_path: '/reports' }))).toEqual([
      ['/Reports/Q3 report.pdf', 'filename'],
      ['/Reports/summary.txt', 'file_content'],
    ]);
    expect(lastRequest().body).toMatchObject({ options: { path: '/reports' } });
    expect((await fail('SearchFilesAndFolders', { keywords: 'report', search_in_folder_path: '/none' })).developer_message).toContain('path/not_found/');
  });

  it('filters by each of the nine categories', async () => {
    const samples: Record<string, string> = {
      image: '/cat/report.png',
      document: '/cat/report.docx',
      pdf: '/cat/report.pdf',
      spreadsheet: '/cat/report.xlsx',
      presentation: '/cat/report.pptx',
      audio: '/cat/report.mp3',
      video: '/cat/report.mp4',
      paper: '/cat/report.paper',
    };
    for (const path of Object.values(samples)) emulator.putFile(TOKEN, path, '');
    emulator.addFolder(TOKEN, '/cat/report folder');
    for (const [category, path] of Object.entries({ ...samples, folder: '/cat/report folder' })) {
      const value = await call('SearchFilesAndFolders', { keywords: 'report', search_in_folder_path: '/cat', filter_by_category: [category] });
      expect(
        found(value).map(([at]: string[]) => at),
        category,
      ).toEqual([path]);
    }
    const two = await call('SearchFilesAndFolders', { keywords: 'report', search_in_folder_path: '/cat', filter_by_category: ['image', 'pdf'] });
    expect(found(two).map(([at]: string[]) => at)).toEqual(['/cat/report.pdf', '/cat/report.png']);
    expect(lastRequest().body).toMatchObject({ options: { file_categories: ['image', 'pdf'] } });
  });

  it('pages by limit; the cursor alone continues', async () => {
    const first = await call('SearchFilesAndFolders', { keywords: 'report', limit: 3 });
    expect([first.matches.length, first.has_more]).toEqual([3, true]);
    const rest = await call('SearchFilesAndFolders', { keywords: 'ignored', limit: 1, filter_by_category: ['video'], cursor: first.cursor });
    expect(lastRequest()).toEqual(expect.objectContaining({ path: '/2/files/search/continue_v2', body: { cursor: first.cursor } }));
    expect([found(rest), rest.has_more, rest.cursor]).toEqual([
      [
        ['/Reports/Q3 report.pdf', 'filename'],
        ['/Reports/summary.txt', 'file_content'],
      ],
      false,
      undefined,
    ]);
    expect((await fail('SearchFilesAndFolders', { keywords: 'x', cursor: 'AAbogus' })).developer_message).toContain('invalid_argument/');
  });

  it('refuses keywords over 1000 characters, a limit outside 1 to 1000 and unknown categories before sending', async () => {
    const refused: Array<[Record<string, unknown>, RegExp]> = [
      [{ keywords: 'k'.repeat(1001) }, /parameter 'keywords' must NOT have more than 1000 characters/],
      [{ keywords: '' }, /parameter 'keywords' must NOT have fewer than 1 characters/],
      [{ keywords: 'k', limit: 1001 }, /parameter 'limit' must be <= 1000/],
      [{ keywords: 'k', limit: 0 }, /parameter 'limit' must be >= 1/],
      [{ keywords: 'k', filter_by_category: ['others'] }, /parameter 'filter_by_category\[0\]' must be one of: 'image'/],
      [{ keywords: 'k', filter_by_category: 'image' }, /parameter 'filter_by_category' must be an array/],
      [{ search_in_folder_path: '/' }, /parameter 'keywords' is required/],
    ];
    for (const [input, message] of refused) {
      const error = await expectNothingSent(() => fail('SearchFilesAndFolders', input));
      expect(error.kind).toBe('TOOL_RUNTIME_BAD_INPUT_VALUE');
      expect(error.message).toMatch(message);
    }
    // 1000 characters are fine.
    expect((await call('SearchFilesAndFolders', { keywords: 'k'.repeat(1000) })).matches).toEqual([]);
  });

  it(`returns at most ${MAX_TOTAL_MATCHES} matches in all, across pages`, async () => {
    const many = 'many-files-token';
    for (let i = 0; i < MAX_TOTAL_MATCHES + 50; i += 1) emulator.putFile(many, `/bulk/match-${i}.txt`, '');
    let page = await call('SearchFilesAndFolders', { keywords: 'match', limit: 1000 }, { token: many });
    let total = page.matches.length;
    let pages = 1;
    while (page.has_more) {
      page = await call('SearchFilesAndFolders', { keywords: 'match', cursor: page.cursor }, { token: many });
      total += page.matches.length;
      pages += 1;
    }
    expect([total, pages]).toEqual([MAX_TOTAL_MATCHES, 10]);
  });
});

describe('credentials', () => {
  it('without a Dropbox token nothing is sent; each tool asks for its own scope', async () => {
    const error = await expectNothingSent(() => fail('ListItemsInFolder', {}, { token: '' }));
    expect(error.kind).toBe('TOOL_REQUIREMENTS_NOT_MET');
    expect(Object.fromEntries(catalog.tools.map((tool) => [tool.name, tool.requirements.oauth2.scopes]))).toEqual({
      DownloadFile: ['files.content.read'],
      ListItemsInFolder: ['files.metadata.read'],
      SearchFilesAndFolders: ['files.metadata.read'],
    });
  });

  it('an unknown parameter is refused before anything is sent', async () => {
    const error = await expectNothingSent(() => fail('ListItemsInFolder', { path: '/x' }));
    expect(error.message).toMatch(/parameter 'path' is not a known field/);
  });
});

describe('coverage', () => {
  it('every one of the 3 catalog tools was called successfully through the runtime', () => {
    expect(catalog.tools).toHaveLength(3);
    expect(catalog.tools.map((tool) => tool.name).filter((name) => !covered.has(name))).toEqual([]);
  });
});
