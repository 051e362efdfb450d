/**
 * Reads an OpenAPI document from a file or URL (JSON or YAML) with @apidevtools/swagger-parser, bundles it
 * (every external reference inlined; references inside the document stay), and converts Swagger 2.0 to
 * OpenAPI 3.0 with swagger2openapi. The result is a plain JSON value: what openapi.json holds.
 */
import { createRequire } from 'node:module';
import { isLoopback } from '@quiver/core';
import { isNode, type Node } from './shapes.js';

const require = createRequire(import.meta.url);

export class DocumentError extends Error {}

export interface LoadedDocument {
  /** OpenAPI 3.0 or 3.1, bundled. */
  document: Node;
  /** The version the source was written in: '2.0', '3.0.3', '3.1.0', ... */
  sourceVersion: string;
}

export async function loadDocument(source: string): Promise<LoadedDocument> {
  const SwaggerParser = require('@apidevtools/swagger-parser') as typeof import('@apidevtools/swagger-parser');
  let bundled: unknown;
  // The parser reads no loopback or private address over http, so that a document's references cannot reach into
  // the network it is read from; a document the user serves on this machine may, and so may its references.
  const remote = /^https?:/i.test(source);
  const onLoopback = remote && isLoopback(URL.parse(source)?.hostname ?? '');
  const options = { resolve: { http: { safeUrlResolver: !onLoopback } } };
  try {
    // A document whose references all point inside it stays as written; bundling would re-point some of them.
    const parsed = await SwaggerParser.parse(source, options);
    bundled = hasExternalReferences(parsed) ? await SwaggerParser.bundle(source, options) : parsed;
  } catch (error) {
    const refused = remote && !onLoopback && /Unable to resolve \$ref pointer/.test(firstLine(error));
    const why = refused ? ': a document is read over http only from a public address or from this machine (localhost, 127.0.0.1, ::1)' : '';
    throw new DocumentError(`cannot read the OpenAPI document ${source}: ${firstLine(error)}${why}`);
  }
  // A JSON value of its own: the parser's objects may share nodes, and openapi.json is written from it.
  const document = JSON.parse(JSON.stringify(bundled)) as unknown;
  if (!isNode(document)) throw new DocumentError(`${source} is not an OpenAPI document (it is not an object)`);
  if (typeof document.swagger === 'string') {
    if (!document.swagger.startsWith('2.')) throw new DocumentError(`${source}: Swagger ${document.swagger} is not supported (2.0 is)`);
    const converter = require('swagger2openapi') as typeof import('swagger2openapi');
    try {
      const { openapi } = await converter.convertObj(document as never, { patch: true, warnOnly: true, resolve: false } as never);
      return { document: JSON.parse(JSON.stringify(openapi)) as Node, sourceVersion: document.swagger };
    } catch (error) {
      throw new DocumentError(`${source}: cannot convert Swagger 2.0 to OpenAPI 3: ${firstLine(error)}`);
    }
  }
  if (typeof document.openapi !== 'string' || !/^3\.[01]\./.test(document.openapi)) {
    throw new DocumentError(`${source} is not an OpenAPI 3.0, 3.1 or Swagger 2.0 document (no "openapi": "3.x" or "swagger": "2.0")`);
  }
  if (!isNode(document.paths) && !isNode(document.webhooks)) throw new DocumentError(`${source} has no paths`);
  return { document, sourceVersion: document.openapi };
}

function hasExternalReferences(node: unknown): boolean {
  const pending = [node];
  while (pending.length) {
    const current = pending.pop();
    if (!current || typeof current !== 'object') continue;
    if (typeof (current as Node).$ref === 'string' && !((current as Node).$ref as string).startsWith('#')) return true;
    pending.push(...Object.values(current));
  }
  return false;
}

const firstLine = (error: unknown): string => String((error as Error)?.message ?? error).split('\n')[0]!;
