import { isAscii } from 'node:buffer';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { ServingPolicy, type BuiltDefinitions, type ListingRevision, type ToolData, type Toolkit, type ToolkitData } from '@quiver/core';

/**
 * Reads a toolkit's generated catalog that sits beside the module that asks for it. The search phrases
 * written for its tools (`phrases.json` beside it: tool name → requests in everyday words) are read only
 * when a search index first asks for them, and the served definitions the build wrote beside it
 * (`definitions.txt`, see writeDefinitions) each time a listing does (and not kept), so that start-up pays for neither.
 * In a catalog as the build writes it (builtCatalogText), the fields it names `deferred` (of those the build
 * defers) are each tool's JSON text, parsed when first read.
 */
export function readCatalog(url: URL): ToolkitData {
  const bytes = readFileSync(url);
  const { deferred, ...data } = parseJson(bytes) as ToolkitData & { deferred?: readonly string[] };
  // Only the fields the build defers: a catalog of a toolkit path that names others is read as it is.
  if (deferred) for (const tool of data.tools) for (const field of DEFERRED) if (deferred.includes(field)) parsedWhenRead(tool, field);
  // The size alone: the bytes are not kept.
  const catalogBytes = bytes.length;
  const definitions = (revision?: ListingRevision) => readDefinitions(new URL(`./${definitionsFile(revision)}`, url), catalogBytes);
  const phrasesUrl = new URL('./phrases.json', url);
  if (!existsSync(phrasesUrl)) return { ...data, definitions };
  const phrases = lazily(() => {
    const read = parseJson(readFileSync(phrasesUrl)) as Record<string, string[]>;
    const unknown = Object.keys(read).filter((name) => !data.tools.some((tool) => tool.name === name));
    if (unknown.length) throw new Error(`${data.name}: search phrases for unknown tools: ${unknown.join(', ')}`);
    return read;
  });
  return { ...data, definitions, phrases };
}

/**
 * A catalog in ASCII throughout (every built-in one is, which a test holds) is decoded as Latin-1, the same text: V8 makes that string
 * several times faster than it decodes UTF-8, and the catalogs are read at every start.
 */
function parseJson(bytes: Buffer): unknown {
  return JSON.parse(bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8'));
}

/**
 * The fields of a tool that a built catalog holds as JSON text. Every start reads every catalog, but a listing is
 * read from the served definitions and a call needs its own tool's fields alone. Parsed at start, they took
 * about 3 MB more of `quiver mcp`'s memory (see the README's Benchmarks).
 */
const DEFERRED: readonly (keyof ToolData)[] = ['parameters', 'output', 'requestBody'];

/** A catalog's JSON as the build writes it: compact, with each tool's deferred fields as JSON text. */
export function builtCatalogText(catalog: ToolkitData & { deferred?: readonly string[] }): string {
  if (catalog.deferred) return JSON.stringify(catalog);
  const tools = catalog.tools.map((tool) => {
    const written: Record<string, unknown> = { ...tool };
    for (const field of DEFERRED) if (written[field] !== undefined) written[field] = JSON.stringify(written[field]);
    return written;
  });
  return JSON.stringify({ ...catalog, deferred: DEFERRED, tools });
}

/**
 * Makes `field` of a tool read from a built catalog a property parsed from its text when first read. Copies of
 * the tool made with its property descriptors (defineToolkit) share the parse; one assigned a value keeps it.
 */
function parsedWhenRead(tool: ToolData, field: string): void {
  const text = (tool as unknown as Record<string, unknown>)[field];
  if (typeof text !== 'string') return;
  let parsed: { value: unknown } | undefined;
  Object.defineProperty(tool, field, {
    get() {
      parsed ??= { value: JSON.parse(text) };
      return parsed.value;
    },
    set(this: ToolData, value: unknown) {
      Object.defineProperty(this, field, { value, writable: true, enumerable: true, configurable: true });
    },
    enumerable: true,
    configurable: true,
  });
}

/** Where the build writes a catalog's served definitions, beside it, for the clients of each revision. */
const definitionsFile = (revision?: ListingRevision) => (revision ? `definitions-${revision}.txt` : 'definitions.txt');
/** The revisions whose clients are listed their own definitions (ServingPolicy.listingJson). */
const listingRevisions: readonly (ListingRevision | undefined)[] = [undefined, '2026-07-28'];
const definitionsHeader = (catalogBytes: number): string => `# served definitions of a catalog of ${catalogBytes} bytes`;

/**
 * Writes the served definitions of a toolkit read from the catalog at `url` beside it, for `readCatalog`, a file for
 * the clients of each revision (a 2026-07-28 client's declare their schemas' dialect). Three lines: one naming the
 * size of the catalog, the tools' names apart by tabs, and the byte length of each one's definition; then every
 * definition's JSON text in that order, apart by commas, as the items of a listing's array are. Written out now,
 * never read back from an earlier file.
 */
export function writeDefinitions(url: URL, toolkit: Toolkit): void {
  const policy = new ServingPolicy();
  const header = definitionsHeader(readFileSync(url).length);
  const names = toolkit.tools.map((tool) => tool.name).join('\t');
  for (const revision of listingRevisions) {
    const texts = toolkit.tools.map((tool) => Buffer.from(JSON.stringify(policy.toListedTool(tool, revision))));
    const lengths = texts.map((text) => text.length).join('\t');
    writeFileSync(new URL(`./${definitionsFile(revision)}`, url), Buffer.concat([Buffer.from(`${header}\n${names}\n${lengths}\n`), ...joined(texts)]));
  }
}

const comma = Buffer.from(',');
const joined = (texts: readonly Buffer[]) => texts.flatMap((text, i) => (i === 0 ? [text] : [comma, text]));

/**
 * The definitions `writeDefinitions` wrote beside a catalog of `catalogBytes`: every one as a single view of the
 * file read (not a copy), and each one's own view made when one is first asked for; undefined where there are
 * none, or they are of another catalog.
 */
function readDefinitions(url: URL, catalogBytes: number): BuiltDefinitions | undefined {
  if (!existsSync(url)) return undefined;
  const bytes = readFileSync(url);
  const headerEnd = bytes.indexOf(newline);
  const namesEnd = bytes.indexOf(newline, headerEnd + 1);
  const lengthsEnd = bytes.indexOf(newline, namesEnd + 1);
  if (headerEnd < 0 || namesEnd < 0 || lengthsEnd < 0) return undefined;
  if (bytes.toString('latin1', 0, headerEnd) !== definitionsHeader(catalogBytes)) return undefined;
  const names = bytes.toString('utf8', headerEnd + 1, namesEnd).split('\t');
  const lengths = bytes
    .toString('latin1', namesEnd + 1, lengthsEnd)
    .split('\t')
    .map(Number);
  const start = lengthsEnd + 1;
  // A file cut short or written otherwise is not read: the listing is built instead.
  if (lengths.length !== names.length || lengths.reduce((sum, length) => sum + length + 1, -1) !== bytes.length - start) return undefined;
  const view = (from: number, to: number) => new Uint8Array(bytes.buffer, bytes.byteOffset + from, to - from);
  const byName = lazily(() => {
    const definitions = new Map<string, Uint8Array>();
    let at = start;
    names.forEach((name, i) => {
      definitions.set(name, view(at, at + lengths[i]!));
      at += lengths[i]! + 1;
    });
    return definitions;
  });
  return { names, all: view(start, bytes.length), get: (name) => byName().get(name) };
}

const newline = 0x0a;

/** `read` once, when first asked. */
function lazily<T>(read: () => T): () => T {
  let value: { read: T } | undefined;
  return () => {
    value ??= { read: read() };
    return value.read;
  };
}
