/**
 * Client ID metadata documents: which client ids are fetched, which documents describe a client, and the
 * bounds on a fetch anyone can cause (size, time, the address connected to, the cache).
 */
import type { lookup as dnsLookup } from 'node:dns';
import { createServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { listen } from '@quiver/test-support/oidc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientDocuments, DOCUMENT_LIMITS, isPublicAddress } from '../src/authorization-server/client-documents.js';

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
      // Every spelling of the engine's own host that the attack run tried.
      'https://[::]:8443/client.json',
      'https://[::ffff:127.0.0.1]/m.json',
      'https://127.1/m.json',
      'https://0177.0.0.1/m.json',
      'https://2130706433/m.json',
      'https://0.0.0.0/m.json',
      'https://100.64.0.9/m.json',
      'https://[fd00::1]/m.json',
      'https://[fe80::1]/m.json',
      'https://app.localhost/m.json',
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

  it('tells public addresses from the engine’s own network', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111']) expect(isPublicAddress(address), address).toBe(true);
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
      '::',
      '::1',
      '::ffff:8.8.8.8',
      'fd12::1',
      'fe80::1',
      '192.0.2.2',
      '198.51.100.1',
      '203.0.113.9',
      '2001:db8::1',
      '2001:0:4136::1',
      '64:ff9b:1::a',
      'not-an-ip',
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });

  it('refuses a name that resolves inside the network before connecting to it', async () => {
    let connections = 0;
    const listener = createTcpServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const { port } = listener.address() as AddressInfo;
    // A DNS name its owner points at the engine's own host.
    let resolved = 0;
    const rebinding = ((_name: string, _options: unknown, callback: (error: null, addresses: { address: string; family: number }[]) => void) => {
      resolved++;
      callback(null, [{ address: '127.0.0.1', family: 4 }]);
    }) as unknown as typeof dnsLookup;
    const id = `https://rebound.example:${port}/client.json`;
    try {
      const strict = new ClientDocuments(false, rebinding);
      expect(strict.accepts(id)).toBe(true);
      expect(await strict.find(id)).toBeUndefined();
      // The name was resolved, and the address it resolved to refused: nothing connected.
      expect(resolved).toBe(1);
      expect(connections).toBe(0);
      // The same name with the address check off does connect: the check, not the name, stopped it above.
      expect(await new ClientDocuments(true, rebinding).find(id.replace('rebound.example', '127.0.0.1'))).toBeUndefined();
      expect(connections).toBe(1);
    } finally {
      listener.close();
    }
  });

  it('abandons a document past 16 KB as it streams in, without reading the rest', async () => {
    const total = 64 * 1024 * 1024;
    let written = 0;
    const huge = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const more = () => {
        while (written < total) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      res.on('close', () => (written = Math.min(written, total)));
      more();
    });
    const at = await listen(huge);
    try {
      expect(await new ClientDocuments(true).find(`${at}/huge.json`)).toBeUndefined();
      expect(written).toBeLessThan(total / 4);
    } finally {
      huge.closeAllConnections();
      huge.close();
    }
  });

  it('abandons a document that is not all there within 5 s', async () => {
    const slow = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.write('{"client_id":');
      const drip = setInterval(() => res.write(' '), 200);
      res.on('close', () => clearInterval(drip));
    });
    const at = await listen(slow);
    try {
      const started = Date.now();
      expect(await new ClientDocuments(true).find(`${at}/slow.json`)).toBeUndefined();
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(DOCUMENT_LIMITS.ms - 50);
      expect(took).toBeLessThan(DOCUMENT_LIMITS.ms + 3_000);
    } finally {
      slow.closeAllConnections();
      slow.close();
    }
  });

  it('keeps the cache within its bounds in entries and bytes', async () => {
    const clients = new ClientDocuments(true);
    const many = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ client_id: `${manyAt}${req.url}`, client_name: 'n'.repeat(150), redirect_uris: ['http://127.0.0.1:5000/cb'] }));
    });
    const manyAt = await listen(many);
    try {
      for (let i = 0; i < DOCUMENT_LIMITS.cacheEntries + 100; i++) expect(await clients.find(`${manyAt}/c/${i}.json`)).toBeDefined();
      expect(clients.cached.entries).toBeLessThanOrEqual(DOCUMENT_LIMITS.cacheEntries);
      expect(clients.cached.bytes).toBeLessThanOrEqual(DOCUMENT_LIMITS.cacheBytes);
      // The most recent are the ones kept.
      const before = clients.cached.entries;
      await clients.find(`${manyAt}/c/${DOCUMENT_LIMITS.cacheEntries + 99}.json`);
      expect(clients.cached.entries).toBe(before);
    } finally {
      many.close();
    }
  });
});
