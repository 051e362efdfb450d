/**
 * The Dropbox emulator over HTTP, for what the tools never send: missing or wrong credentials, bodies
 * Dropbox cannot read, and download arguments that break its header rules. Behaviour the tools reach is
 * tested end to end in packages/toolkits/test/file-store.test.ts.
 */
import { clientFor, type Call } from '@quiver/test-support/json-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDropboxEmulator, type DropboxEmulator } from '../../src/dropbox/emulator.js';

let emulator: DropboxEmulator;
let call: Call;

beforeAll(async () => {
  emulator = await startDropboxEmulator();
  call = clientFor(emulator.url, emulator.issueToken('account'));
});
afterAll(() => emulator.close());
beforeEach(() => {
  emulator.reset();
  emulator.putFile('account', '/a.txt', 'alpha');
});

const download = (headers: Record<string, string | null>) => call('POST', '/2/files/download', { headers: { 'content-type': null, ...headers } });

describe('rpc routes', () => {
  it('refuse a missing or non-bearer token with invalid_access_token', async () => {
    for (const authorization of [null, 'account']) {
      const reply = await call('POST', '/2/files/list_folder', { body: { path: '' }, headers: { authorization } });
      expect(reply.status).toBe(401);
      expect(reply.body).toMatchObject({ error_summary: expect.stringMatching(/^invalid_access_token\//), error: { '.tag': 'invalid_access_token' } });
    }
  });

  it('answer 400 in plain text for a body they cannot read', async () => {
    const text = (reply: { status: number; headers: Headers; body: unknown }) => [reply.status, reply.headers.get('content-type'), reply.body];
    expect(text(await call('POST', '/2/files/list_folder', { rawBody: '{"path": ', headers: {} }))).toEqual([
      400,
      'text/plain; charset=utf-8',
      'Error in call to API function "files/list_folder": request body: request body is not valid JSON',
    ]);
    expect((await call('POST', '/2/files/list_folder', { rawBody: '{"path": ""}', headers: { 'content-type': 'text/plain' } })).body).toContain(
      'Bad HTTP "Content-Type" header',
    );
    expect((await call('POST', '/2/files/list_folder', { body: { path: '', page_size: 3 } })).body).toBe(
      'Error in call to API function "files/list_folder": request body: page_size is not a known field',
    );
    expect((await call('POST', '/2/files/list_folder', { body: { path: 'a' } })).body).toContain('request body: path must match pattern');
    expect((await call('POST', '/2/files/list_folder', { body: { path: '/' } })).body).toBe(
      'Error in call to API function "files/list_folder": request body: path: Specify the root folder as an empty string rather than as "/".',
    );
  });

  it('answer missing_scope when the token lacks files.metadata.read', async () => {
    emulator.setScopes('account', ['files.content.read']);
    const reply = await call('POST', '/2/files/search_v2', { body: { query: 'a' } });
    expect(reply).toMatchObject({ status: 401, body: { error: { '.tag': 'missing_scope', required_scope: 'files.metadata.read' } } });
  });

  it('accept categories and order as tags or bare strings', async () => {
    const reply = await call('POST', '/2/files/search_v2', {
      body: { query: 'a', options: { file_categories: [{ '.tag': 'document' }, 'others'], order_by: { '.tag': 'last_modified_time' } } },
    });
    expect(reply.body.matches.map((match: any) => match.metadata.metadata.name)).toEqual(['a.txt']);
  });
});

describe('download', () => {
  it('answers the content with the metadata in Dropbox-API-Result', async () => {
    const reply = await download({ 'dropbox-api-arg': '{"path": "/A.TXT"}' });
    expect([reply.status, reply.headers.get('content-type'), reply.body]).toEqual([200, 'application/octet-stream', 'alpha']);
    expect(JSON.parse(reply.headers.get('dropbox-api-result')!)).toMatchObject({ name: 'a.txt', size: 5 });
  });

  it('answers a binary file with exactly its stored bytes', async () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => 255 - i));
    emulator.putFile('account', '/all bytes.bin', bytes);
    const reply = await fetch(`${emulator.url}/2/files/download`, {
      method: 'POST',
      headers: { authorization: 'Bearer account', 'dropbox-api-arg': '{"path": "/all bytes.bin"}' },
    });
    expect([reply.status, reply.headers.get('content-type')]).toEqual([200, 'application/octet-stream']);
    expect(Buffer.from(await reply.arrayBuffer()).equals(bytes)).toBe(true);
    expect(JSON.parse(reply.headers.get('dropbox-api-result')!)).toMatchObject({ name: 'all bytes.bin', size: 256 });
  });

  it('refuses a missing, non-ASCII, non-JSON or wrong argument, a JSON content type and a body', async () => {
    const refused = async (headers: Record<string, string | null>, message: string, rawBody?: string) => {
      const reply =
        rawBody === undefined
          ? await download(headers)
          : await call('POST', '/2/files/download', { headers: { 'content-type': 'text/plain', ...headers }, rawBody });
      expect(reply.status).toBe(400);
      expect(reply.body).toContain(message);
    };
    await refused({}, 'Must provide HTTP header "Dropbox-API-Arg"');
    await refused({ 'dropbox-api-arg': '{"path": "/caf\u00e9.txt"}' }, 'must be ASCII');
    await refused({ 'dropbox-api-arg': 'path=/a.txt' }, 'could not decode input as JSON');
    await refused({ 'dropbox-api-arg': '{"file": "/a.txt"}' }, "must have required property 'path'");
    await refused({ 'dropbox-api-arg': '{"path": "/a.txt"}', 'content-type': 'application/json' }, 'Bad HTTP "Content-Type" header: "application/json"');
    await refused({ 'dropbox-api-arg': '{"path": "/a.txt"}' }, 'request body must be empty', 'x');
    // The escaped form of the same character is fine (and names a file that does not exist).
    expect((await download({ 'dropbox-api-arg': '{"path": "/caf\\u00e9.txt"}' })).body.error_summary).toMatch(/^path\/not_found\//);
  });
});
