/** Client ID metadata documents: which client ids are fetched, and which documents describe a client. */
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientDocuments } from '../src/authorization-server/client-documents.js';
import { listen } from './oidc.js';

describe('client ID metadata documents', () => {
  const documents: Record<string, unknown> = {};
  const server = createServer((req, res) => {
    const body = documents[req.url!];
    res.statusCode = body === undefined ? 404 : 200;
    res.setHeader('content-type', 'application/json');
    res.end(body === undefined ? '{}' : JSON.stringify(body));
  });
  let base = '';
  beforeAll(async () => {
    base = await listen(server);
  });
  afterAll(() => void server.close());

  it('fetches only https URLs with a path, outside the engine’s own network', () => {
    const strict = new ClientDocuments(false);
    expect(strict.accepts('https://client.example/oauth/metadata.json')).toBe(true);
    for (const id of [
      'not-a-url',
      'http://client.example/metadata.json',
      'https://client.example/',
      'https://client.example/m.json#frag',
      'https://user:pw@client.example/m.json',
      'https://127.0.0.1/m.json',
      'https://10.1.2.3/m.json',
      'https://192.168.0.4/m.json',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/m.json',
      'https://localhost/m.json',
    ]) {
      expect(strict.accepts(id), id).toBe(false);
    }
    expect(new ClientDocuments(true).accepts('http://127.0.0.1:8080/m.json')).toBe(true);
  });

  it('accepts a public client that names itself, and nothing else', async () => {
    const id = (path: string) => `${base}${path}`;
    const valid = (path: string) => ({
      client_id: id(path),
      client_name: 'Desk',
      redirect_uris: ['http://127.0.0.1:5000/cb'],
      logo_uri: 'https://x/logo.png',
      jwks_uri: 'https://x/jwks',
    });
    documents['/good.json'] = valid('/good.json');
    documents['/other.json'] = valid('/elsewhere.json');
    documents['/secret.json'] = { ...valid('/secret.json'), client_secret: 's' };
    documents['/basic.json'] = { ...valid('/basic.json'), token_endpoint_auth_method: 'client_secret_basic' };
    documents['/no-redirects.json'] = { ...valid('/no-redirects.json'), redirect_uris: [] };
    const clients = new ClientDocuments(true);
    expect(await clients.find(id('/good.json'))).toEqual({
      client_id: id('/good.json'),
      client_name: 'Desk',
      redirect_uris: ['http://127.0.0.1:5000/cb'],
      logo_uri: 'https://x/logo.png',
      token_endpoint_auth_method: 'none',
    });
    for (const path of ['/other.json', '/secret.json', '/basic.json', '/no-redirects.json', '/missing.json']) {
      expect(await clients.find(id(path)), path).toBeUndefined();
    }
  });
});
