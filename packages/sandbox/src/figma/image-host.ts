/**
 * The image host: serves the files behind export URLs, without credentials (as a CDN does), until they
 * expire. An expired or unknown URL answers as the storage behind Figma's URLs does: 403 or 404 with an
 * XML error.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FigmaContext } from './context.js';
import { contentTypes, render, type ImageFormat, type Rgb } from './render.js';
import { fileOf } from './files.js';
import { findNode } from './tree.js';

interface ExportRow {
  file_key: string;
  node_id: string;
  format: ImageFormat;
  width: number;
  height: number;
  color: string;
  expires_at: number;
}

export interface ImageHost {
  url: string;
  close(): Promise<void>;
}

const xmlError = (code: string, message: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>\n`;

export async function startImageHost(context: () => FigmaContext): Promise<ImageHost> {
  const server = createServer((request, reply) => {
    const token = /^\/images\/([0-9a-f-]{36})$/.exec(request.url ?? '')?.[1];
    const { db, clock } = context();
    const row = token && (db.prepare('SELECT * FROM exports WHERE token = ?').get(token) as ExportRow | undefined);
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      reply
        .writeHead(405, { 'content-type': 'application/xml' })
        .end(xmlError('MethodNotAllowed', 'The specified method is not allowed against this resource.'));
    } else if (!row) {
      reply.writeHead(404, { 'content-type': 'application/xml' }).end(xmlError('NoSuchKey', 'The specified key does not exist.'));
    } else if (clock.now() >= row.expires_at) {
      reply.writeHead(403, { 'content-type': 'application/xml' }).end(xmlError('AccessDenied', 'Request has expired'));
    } else {
      const title = findNode(fileOf(db, row.file_key).document, row.node_id)?.name ?? row.node_id;
      const image = render(row.format, row.width, row.height, JSON.parse(row.color) as Rgb, title);
      reply.writeHead(200, { 'content-type': contentTypes[row.format], 'content-length': image.length });
      reply.end(request.method === 'HEAD' ? undefined : image);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
