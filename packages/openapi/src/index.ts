/** @quiver/openapi: an OpenAPI document (3.0, 3.1 or Swagger 2.0) as a toolkit folder. */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { catalogProblems, catalogProblemsByTool } from './check.js';
import { convertDocument, type Conversion } from './convert.js';
import { loadDocument } from './load.js';
import { renderReport } from './report.js';
import type { Node } from './shapes.js';
import { toolkitNeeds, type ToolkitData } from '@quiver/core';

export { catalogProblems, catalogProblemsByTool, subschemas, type CatalogCheckOptions, type CatalogProblemsByTool } from './check.js';
export * from './convert.js';
export { credentialSecrets } from './credentials.js';
export { DocumentError, loadDocument, type LoadedDocument } from './load.js';
export { renderReport } from './report.js';
export { BrokenReference, SchemaConverter } from './schema.js';
export { isNode, mapSchema, modeParameters, simplify } from './shapes.js';
export { pascalCase, plainText, shorten } from './text.js';

export interface ImportedToolkit extends Conversion {
  /** OpenAPI 3.x, bundled: openapi.json. */
  document: Node;
  sourceVersion: string;
  /** report.md. */
  report: string;
  /**
   * What the strict catalog checks find in the toolkit as a whole (its name, its base URL) once the tools that
   * fail them are left out: empty when the catalog passes them, and is stamped.
   */
  problems: string[];
}

/**
 * Reads, bundles and converts a document: the toolkit, its manifest, the document and the report. Every tool
 * passes the strict catalog checks: one that does not is left out, among the skipped operations, with the
 * checks' messages as its reason.
 */
export async function importDocument(source: string, options: { name: string }): Promise<ImportedToolkit> {
  const { document, sourceVersion } = await loadDocument(source);
  const { problems, ...conversion } = checkedConversion(convertDocument(document, { name: options.name, source }));
  return { ...conversion, document, sourceVersion, problems, report: renderReport(conversion, source, sourceVersion, problems) };
}

/**
 * The conversion without the tools that fail the strict catalog checks (each becomes a skipped operation
 * whose reason is what the checks say of it), and what the checks say of the toolkit as a whole.
 */
export function checkedConversion(conversion: Conversion): Conversion & { problems: string[] } {
  const { toolkit, made, skipped } = conversion;
  const found = catalogProblemsByTool(toolkit, { strict: true });
  const failing = new Map(toolkit.tools.flatMap((tool, index) => (found.tools[index]!.length ? [[tool.name, found.tools[index]!] as const] : [])));
  const checked: Conversion = failing.size
    ? {
        ...conversion,
        toolkit: { ...toolkit, tools: toolkit.tools.filter((_tool, index) => !found.tools[index]!.length) },
        made: made.filter((item) => !failing.has(item.tool)),
        skipped: [
          ...skipped,
          ...made
            .filter((item) => failing.has(item.tool))
            .map(({ method, path, operationId, tool }) => ({
              method,
              path,
              ...(operationId !== undefined && { operationId }),
              reason: `fails the catalog checks: ${failing.get(tool)!.join('; ')}`,
            })),
        ],
      }
    : conversion;
  // The catalog, as checked: writing exactly it needs no second check (thousands of schemas take seconds).
  checkedCatalogs.set(checked.toolkit, { digest: catalogDigest(catalogText(checked.toolkit)), passes: !found.toolkit.length });
  return { ...checked, problems: found.toolkit };
}

/** Toolkits `checkedConversion` made, with the digest of their catalog.json then and whether it passed the strict checks. */
const checkedCatalogs = new WeakMap<ToolkitData, { digest: string; passes: boolean }>();

/**
 * Writes catalog.json, toolkit.json, openapi.json and report.md into `folder` (created when missing). A
 * catalog that passes the strict catalog checks is stamped in toolkit.json with its digest, so that loading
 * it does not check it again; one that does not is loaded (and refused, naming the problems) as any other.
 */
export function writeToolkitFolder(folder: string, imported: ImportedToolkit): string[] {
  mkdirSync(folder, { recursive: true });
  const catalog = catalogText(imported.toolkit);
  const digest = catalogDigest(catalog);
  const known = checkedCatalogs.get(imported.toolkit);
  const passes = known?.digest === digest ? known.passes : !catalogProblems(imported.toolkit, { strict: true }).length;
  const files: Array<[string, string]> = [
    ['catalog.json', catalog],
    ['toolkit.json', json({ ...imported.manifest, ...(passes && { checked: digest, summary: catalogSummary(imported.toolkit, catalog) }) })],
    ['openapi.json', json(imported.document)],
    ['report.md', imported.report],
  ];
  for (const [name, content] of files) writeFileSync(join(folder, name), content);
  return files.map(([name]) => join(folder, name));
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/**
 * catalog.json as the importer writes it: one tool per line. Indented, a catalog of nested request bodies
 * is more than twice the size, and every start of a command that loads it reads it.
 */
export function catalogText({ tools, ...toolkit }: ToolkitData): string {
  const head = JSON.stringify({ ...toolkit, tools: [] }).slice(0, -'[]}'.length);
  return `${head}[\n${tools.map((tool) => JSON.stringify(tool)).join(',\n')}\n]}\n`;
}

/**
 * What a command needs of a checked catalog to start without reading it (toolkit.json's `summary`): its
 * names, its base URL, the credentials its tools need, and its size, which tells an edited catalog.
 */
function catalogSummary(toolkit: ToolkitData, text: string) {
  const { name, version, description, baseUrl, tools } = toolkit;
  return { name, version, description, baseUrl, bytes: Buffer.byteLength(text), tools: tools.length, needs: toolkitNeeds(toolkit) };
}

/** The digest of a catalog.json's exact text, as toolkit.json's `checked` records it. */
export const catalogDigest = (catalogText: string): string => `sha256-${createHash('sha256').update(catalogText).digest('base64url')}`;
