/** @quiver/openapi: an OpenAPI document (3.0, 3.1 or Swagger 2.0) as a toolkit folder. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

/** Writes catalog.json, toolkit.json, openapi.json and report.md into `folder` (created when missing). */
export function writeToolkitFolder(folder: string, imported: ImportedToolkit): string[] {
  mkdirSync(folder, { recursive: true });
  const files: Array<[string, string]> = [
    ['catalog.json', json(imported.toolkit)],
    ['toolkit.json', json(imported.manifest)],
    ['openapi.json', json(imported.document)],
    ['report.md', imported.report],
  ];
  for (const [name, content] of files) writeFileSync(join(folder, name), content);
  return files.map(([name]) => join(folder, name));
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
