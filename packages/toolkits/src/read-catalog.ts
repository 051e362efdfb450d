import { isAscii } from 'node:buffer';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { ServingPolicy, type ToolData, type Toolkit, type ToolkitData } from '@quiver/core';

/**
 * Reads a toolkit's generated catalog that sits beside the module that asks for it. The search phrases
 * written for its tools (`phrases.json` beside it: tool name → requests in everyday words) are read only
 * when a search index first asks for them, and the served definitions the build wrote beside it
 * (`definitions.tsv`, see writeDefinitions) each time a listing does (and not kept), so that start-up pays for neither.
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
  const definitions = () => readDefinitions(new URL(`./${definitionsFile}`, url), catalogBytes);
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

/** Where the build writes a catalog's served definitions, beside it. */
const definitionsFile = 'definitions.tsv';
const definitionsHeader = (catalogBytes: number): string => `# served definitions of a catalog of ${catalogBytes} bytes`;

/**
 * Writes the served definitions of a toolkit read from the catalog at `url` beside it, for `readCatalog`: a first
 * line naming the size of the catalog, then a line a tool, its name and its definition's JSON text apart by a tab
 * (JSON text holds neither a raw tab nor a line break). Written out now, never read back from an earlier file.
 */
export function writeDefinitions(url: URL, toolkit: Toolkit): void {
  const policy = new ServingPolicy();
  const lines = toolkit.tools.map((tool) => `${tool.name}\t${JSON.stringify(policy.toMcpTool(tool))}`);
  writeFileSync(new URL(`./${definitionsFile}`, url), [definitionsHeader(readFileSync(url).length), ...lines].join('\n'));
}

/**
 * The definitions `writeDefinitions` wrote beside a catalog of `catalogBytes`, each the bytes of its JSON text (a
 * view of the file read, not a copy); undefined where there are none, or they are of another catalog.
 */
function readDefinitions(url: URL, catalogBytes: number): ReadonlyMap<string, Uint8Array> | undefined {
  if (!existsSync(url)) return undefined;
  const bytes = readFileSync(url);
  let end = bytes.indexOf(newline);
  if (bytes.toString('latin1', 0, end) !== definitionsHeader(catalogBytes)) return undefined;
  const definitions = new Map<string, Uint8Array>();
  // A tab or a line break is one byte in UTF-8 and never part of another character, so the file is cut as bytes.
  for (let start = end + 1; start < bytes.length; start = end + 1) {
    end = bytes.indexOf(newline, start);
    if (end < 0) end = bytes.length;
    const tab = bytes.indexOf(tabByte, start);
    definitions.set(bytes.toString('utf8', start, tab), bytes.subarray(tab + 1, end));
  }
  return definitions;
}

const newline = 0x0a;
const tabByte = 0x09;

/** `read` once, when first asked. */
function lazily<T>(read: () => T): () => T {
  let value: { read: T } | undefined;
  return () => {
    value ??= { read: read() };
    return value.read;
  };
}
