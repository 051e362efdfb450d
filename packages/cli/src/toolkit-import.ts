/**
 * `quiver toolkit import <document> --name <Name> [--out <dir>] [--force]`: an OpenAPI document (3.0, 3.1 or
 * Swagger 2.0; a file or URL; JSON or YAML) as a toolkit folder for `--toolkit-path`: catalog.json (the
 * tools), toolkit.json (source and OAuth providers), openapi.json (the document, bundled, OpenAPI 3) and
 * report.md (what was made, what was skipped and why), which is also printed. Every tool written passes the
 * strict catalog checks (an operation whose tool fails them is skipped, with their message as its reason),
 * so the loader accepts the folder; a document none of whose operations becomes a tool writes nothing.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { checkNewToolkitName } from './toolkit-name.js';
import { entryModule } from './toolkit-paths.js';
import { UsageError } from './usage-error.js';

export interface ImportOptions {
  /** The document's path or URL. */
  document: string;
  /** The toolkit name, PascalCase. */
  name: string;
  /** The folder to write; default `./<name>`. */
  out?: string;
  /** Write into a folder that is not empty (its files of the same names are replaced). */
  force?: boolean;
  /** Where relative paths start; default the working directory. */
  cwd?: string;
  /** Told the report, then where the folder is. Default: standard error. */
  log?: (text: string) => void;
}

export interface ImportResult {
  folder: string;
  files: string[];
  tools: number;
  skipped: number;
}

export async function importToolkit({
  document,
  name,
  out,
  force = false,
  cwd = process.cwd(),
  log = (text) => console.error(text),
}: ImportOptions): Promise<ImportResult> {
  checkNewToolkitName(name, 'PetStore');
  const remote = /^https?:\/\//i.test(document);
  const source = remote ? document : resolve(cwd, document);
  if (!remote && (!existsSync(source) || !statSync(source).isFile())) throw new UsageError(`cannot read the OpenAPI document ${document}: no such file`);
  const folder = resolve(cwd, out ?? name);
  if (existsSync(folder)) {
    if (!statSync(folder).isDirectory()) throw new UsageError(`${folder} exists and is not a folder`);
    if (readdirSync(folder).length && !force) throw new UsageError(`${folder} exists and is not empty (pass --force to write into it)`);
    // The loader takes a folder's code before its catalog: an import written beside code would never be served.
    const code = entryModule(folder, relative(cwd, folder) || '.');
    if (code) {
      throw new UsageError(
        `${folder} holds a toolkit with code of its own (${relative(folder, code)}), which is loaded instead of a catalog: import into another folder`,
      );
    }
  }
  const { importDocument, writeToolkitFolder, DocumentError } = await import('@quiver/openapi');
  let imported: Awaited<ReturnType<typeof importDocument>>;
  try {
    imported = await importDocument(source, { name });
  } catch (error) {
    if (error instanceof DocumentError) throw new UsageError(error.message);
    throw error;
  }
  // toolkit.json keeps the source as given, so that a re-import reads the same place.
  imported.manifest.source = document;
  log(imported.report.trimEnd());
  // A toolkit without tools does not load: nothing is written.
  if (!imported.made.length) {
    throw new UsageError(`no operation of ${document} became a tool (${imported.skipped.length} skipped, each with its reason above); nothing written`);
  }
  const files = writeToolkitFolder(folder, imported);
  const shown = relative(cwd, folder) || '.';
  log(
    `quiver: wrote ${files.map((file) => relative(folder, file)).join(', ')} in ${shown}: ${imported.made.length} tool(s), ${imported.skipped.length} skipped`,
  );
  for (const problem of imported.problems) log(`quiver: warning: ${problem}: the catalog is not marked as checked, so loading it checks it again`);
  log(`quiver: load it with --toolkit-path ${shown}`);
  return { folder, files, tools: imported.made.length, skipped: imported.skipped.length };
}
