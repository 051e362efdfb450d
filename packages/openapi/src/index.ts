/** @quiver/openapi: an OpenAPI document (3.0, 3.1 or Swagger 2.0) as a toolkit folder. */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { catalogProblems } from './check.js';
import { convertDocument, type Conversion } from './convert.js';
import { loadDocument } from './load.js';
import { renderReport } from './report.js';
import type { Node } from './shapes.js';

export { catalogProblems, subschemas, type CatalogCheckOptions } from './check.js';
export * from './convert.js';
export { credentialSecrets } from './credentials.js';
export { DocumentError, loadDocument, type LoadedDocument } from './load.js';
export { renderReport } from './report.js';
export { SchemaConverter } from './schema.js';
export { isNode, mapSchema, modeParameters, simplify } from './shapes.js';
export { pascalCase, plainText, shorten } from './text.js';

export interface ImportedToolkit extends Conversion {
  /** OpenAPI 3.x, bundled: openapi.json. */
  document: Node;
  sourceVersion: string;
  /** report.md. */
  report: string;
}

/** Reads, bundles and converts a document: the toolkit, its manifest, the document and the report. */
export async function importDocument(source: string, options: { name: string }): Promise<ImportedToolkit> {
  const { document, sourceVersion } = await loadDocument(source);
  const conversion = convertDocument(document, { name: options.name, source });
  return { ...conversion, document, sourceVersion, report: renderReport(conversion, source, sourceVersion) };
}

/**
 * Writes catalog.json, toolkit.json, openapi.json and report.md into `folder` (created when missing). A
 * catalog that passes the strict catalog checks is stamped in toolkit.json with its digest, so that loading
 * it does not check it again; one that does not is loaded (and refused, naming the problems) as any other.
 */
export function writeToolkitFolder(folder: string, imported: ImportedToolkit): string[] {
  mkdirSync(folder, { recursive: true });
  const catalog = json(imported.toolkit);
  const checked = catalogProblems(imported.toolkit, { strict: true }).length ? undefined : catalogDigest(catalog);
  const files: Array<[string, string]> = [
    ['catalog.json', catalog],
    ['toolkit.json', json({ ...imported.manifest, ...(checked && { checked }) })],
    ['openapi.json', json(imported.document)],
    ['report.md', imported.report],
  ];
  for (const [name, content] of files) writeFileSync(join(folder, name), content);
  return files.map(([name]) => join(folder, name));
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** The digest of a catalog.json's exact text, as toolkit.json's `checked` records it. */
export const catalogDigest = (catalogText: string): string => `sha256-${createHash('sha256').update(catalogText).digest('base64url')}`;
