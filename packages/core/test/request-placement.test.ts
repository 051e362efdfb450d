/**
 * The request builder's places for what imported toolkits need: cookie parameters, form bodies with lists,
 * multipart bodies, and credentials placed in a named header, query parameter or cookie (or several at once).
 */
import { buildRequest, credentialForms, placeCredentials, redactResult, type ToolData, type UpstreamRequest } from '@quiver/core';
import { describe, expect, it } from 'vitest';

const tool = (extra: Partial<ToolData> & { http: NonNullable<ToolData['http']> }): ToolData & { http: NonNullable<ToolData['http']> } => ({
  name: 'T',
  description: 'A tool for the request builder tests.',
  parameters: [],
  output: { description: 'Anything.' },
  requirements: {},
  ...extra,
});
const built = (...args: Parameters<typeof buildRequest>): UpstreamRequest => {
  const request = buildRequest(...args);
  if ('error' in request) throw new Error(request.error.message);
  return request;
};

describe('request placement', () => {
  it('sends cookie parameters in one Cookie header, encoded, and refuses a line break in one', () => {
    const t = tool({
      http: { method: 'GET', path: '/x' },
      parameters: [
        { name: 'session', description: 'The session cookie value.', required: false, schema: { type: 'string' }, in: 'cookie' },
        { name: 'theme', description: 'The theme cookie value.', required: false, schema: { type: 'string' }, in: 'cookie', upstream: 'ui-theme' },
      ],
    });
    expect(built(t, { session: 'a b;c', theme: 'dark' }, 'https://h.example').headers.cookie).toBe('session=a%20b%3Bc; ui-theme=dark');
    expect(built(t, {}, 'https://h.example').headers.cookie).toBeUndefined();
    const refused = buildRequest(t, { session: 'a\r\nb' }, 'https://h.example');
    expect('error' in refused && refused.error.message).toMatch(/parameter 'session' must be printable ASCII \(it is sent as a cookie\)/);
  });

  it('sends a body field under its own name when it holds a dot, and nests only where a dotted upstream says so', () => {
    const t = tool({
      http: { method: 'POST', path: '/x', contentType: 'multipart/form-data' },
      parameters: [
        { name: 'truststore.p12', description: 'The truststore file to upload.', required: true, schema: { type: 'string', format: 'binary' }, in: 'body' },
        { name: 'author_email', description: 'The email of the author.', required: false, schema: { type: 'string' }, in: 'body', upstream: 'author.email' },
      ],
    });
    const request = built(t, { 'truststore.p12': 'bytes', author_email: 'a@example.com' }, 'https://h.example');
    expect(request.body).toContain('content-disposition: form-data; name="truststore.p12"; filename="truststore.p12"');
    expect(request.body).toContain('content-disposition: form-data; name="author"\r\ncontent-type: application/json\r\n\r\n{"email":"a@example.com"}');
  });

  it('sends each object of an array in the query as its JSON text, one key per item', () => {
    const t = tool({
      http: { method: 'GET', path: '/search' },
      parameters: [
        {
          name: 'filters',
          description: 'The metadata filters to apply.',
          required: false,
          schema: { type: 'array', items: { type: 'object' } },
          in: 'query',
        },
      ],
    });
    const url = new URL(built(t, { filters: [{ scope: 'enterprise' }, { scope: 'global' }] }, 'https://h.example').url);
    expect(url.searchParams.getAll('filters')).toEqual(['{"scope":"enterprise"}', '{"scope":"global"}']);
  });

  it('sends a list in a form body as one field per item', () => {
    const t = tool({
      http: { method: 'POST', path: '/x', contentType: 'application/x-www-form-urlencoded' },
      parameters: [
        { name: 'tags', description: 'The tags of the thing.', required: false, schema: { type: 'array', items: { type: 'string' } }, in: 'body' },
        { name: 'name', description: 'The name of the thing.', required: false, schema: { type: 'string' }, in: 'body' },
      ],
    });
    const request = built(t, { tags: ['a', 'b c'], name: 'n' }, 'https://h.example');
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request.body).toBe('tags=a&tags=b+c&name=n');
  });

  it('encodes a multipart body with a boundary, file fields as files, lists as repeated parts, objects as JSON', () => {
    const t = tool({
      http: { method: 'POST', path: '/upload', contentType: 'multipart/form-data' },
      parameters: [
        { name: 'file', description: 'The file to upload here.', required: true, schema: { type: 'string', format: 'binary' }, in: 'body' },
        { name: 'tags', description: 'The tags of the upload.', required: false, schema: { type: 'array', items: { type: 'string' } }, in: 'body' },
        { name: 'meta', description: 'The metadata of the upload.', required: false, schema: { type: 'object' }, in: 'body' },
      ],
    });
    const request = built(t, { file: 'hello', tags: ['x', 'y'], meta: { a: 1 } }, 'https://h.example');
    const boundary = /^multipart\/form-data; boundary=(quiver-[0-9a-f-]+)$/.exec(request.headers['content-type']!)?.[1];
    expect(boundary).toBeDefined();
    const part = (name: string, type: string, value: string, file = false) =>
      `--${boundary}\r\ncontent-disposition: form-data; name="${name}"${file ? `; filename="${name}"` : ''}\r\ncontent-type: ${type}\r\n\r\n${value}\r\n`;
    expect(request.body).toBe(
      part('file', 'application/octet-stream', 'hello', true) +
        part('tags', 'text/plain; charset=utf-8', 'x') +
        part('tags', 'text/plain; charset=utf-8', 'y') +
        part('meta', 'application/json', '{"a":1}') +
        `--${boundary}--\r\n`,
    );
  });

  it('places API keys in a header, a query parameter or a cookie, and several at once', () => {
    const request = (): UpstreamRequest => ({ method: 'GET', url: 'https://h.example/x?q=1', headers: { cookie: 'a=b' } });
    const header = request();
    placeCredentials(header, { secret: 'K', in: 'header', name: 'X-API-Key' }, { K: 'secret-1' });
    expect(header.headers['x-api-key']).toBe('secret-1');
    const query = request();
    placeCredentials(query, { secret: 'K', in: 'query', name: 'api_key' }, { K: 's&1' });
    expect(query.url).toBe('https://h.example/x?q=1&api_key=s%261');
    const cookie = request();
    placeCredentials(cookie, { secret: 'K', in: 'cookie', name: 'token' }, { K: 's;1' });
    expect(cookie.headers.cookie).toBe('a=b; token=s%3B1');
    const both = request();
    placeCredentials(
      both,
      [
        { secret: 'K', in: 'header', name: 'X-App' },
        { secret: 'T', scheme: 'Token' },
      ],
      { K: 'k', T: 't' },
    );
    expect(both.headers).toMatchObject({ 'x-app': 'k', authorization: 'Token t' });
    // An unset secret leaves its place empty; an Authorization already there (a token) is kept.
    const unset = request();
    placeCredentials(unset, { secret: 'K', in: 'query', name: 'api_key' }, {});
    expect(unset.url).toBe('https://h.example/x?q=1');
    const kept: UpstreamRequest = { method: 'GET', url: 'https://h.example/', headers: { authorization: 'Bearer oauth' } };
    placeCredentials(kept, { scheme: 'Basic', secrets: ['U', 'P'] }, { U: 'u', P: 'p' });
    expect(kept.headers.authorization).toBe('Bearer oauth');
  });

  it('keeps a Basic pair of a list of credentials out of results', () => {
    const t = tool({
      http: {
        method: 'GET',
        path: '/',
        auth: [
          { secret: 'K', in: 'query', name: 'k' },
          { scheme: 'Basic', secrets: ['U', 'P'] },
        ],
      },
    });
    const pair = Buffer.from('user:pass').toString('base64');
    const forms = credentialForms(t, { secrets: { U: 'user', P: 'pass', K: 'key-1' } });
    expect(forms).toEqual(expect.arrayContaining(['user:pass', pair, 'key-1']));
    const result = redactResult({ value: { seen: `user:pass ${pair} key-1` } }, forms);
    expect(JSON.stringify(result)).not.toMatch(/user:pass|key-1/);
  });
});
