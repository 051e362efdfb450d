/**
 * The web console (package @quiver/console): its built files, served at / without an API key (the
 * console asks for one and sends it to /v1 itself), read once at start and gzipped when the browser accepts it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Routes } from '../app.js';
import { notFound } from '../../errors.js';

/** Scripts, styles and data from this origin only; no inline code, no frames, no other hosts. */
export const consoleCsp = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
};

interface Asset {
  type: string;
  body: Buffer;
  gzipped: Buffer;
}

/** The console's dist folder, or undefined where the console was not built. */
export function consoleDirectory(): string | undefined {
  try {
    const dir = join(dirname(createRequire(import.meta.url).resolve('@quiver/console/package.json')), 'dist');
    readFileSync(join(dir, 'index.html'));
    return dir;
  } catch {
    return undefined;
  }
}

function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    const body = readFileSync(file);
    assets.set(`/${relative(dir, file).split('\\').join('/')}`, {
      type: types[extname(file)] ?? 'application/octet-stream',
      body,
      gzipped: gzipSync(body, { level: 9 }),
    });
  }
  return assets;
}

export const consoleRoutes: Routes = (app) => {
  const dir = consoleDirectory();
  const assets = dir ? loadAssets(dir) : new Map<string, Asset>();

  const send = (path: string, immutable: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    const asset = assets.get(path);
    if (!asset) throw notFound(dir ? `console file ${path}` : 'the console (it was not built: npm run build)');
    const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
    reply
      .header('content-type', asset.type)
      .header('content-security-policy', consoleCsp)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .header('vary', 'accept-encoding');
    if (gzip) reply.header('content-encoding', 'gzip');
    return reply.send(gzip ? asset.gzipped : asset.body);
  };

  const hidden = { hide: true } as const;
  app.get('/', { config: { public: true }, schema: hidden }, send('/index.html', false));
  app.get('/favicon.svg', { config: { public: true }, schema: hidden }, send('/favicon.svg', false));
  // Built file names carry a content hash, so they may be cached for good.
  app.get<{ Params: { '*': string } }>('/assets/*', { config: { public: true }, schema: hidden }, (request, reply) =>
    send(`/assets/${request.params['*']}`, true)(request, reply),
  );
};
