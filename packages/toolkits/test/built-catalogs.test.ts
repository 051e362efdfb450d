/**
 * The catalogs as the build writes them (builtCatalogText): each tool's parameters, output and request body as
 * JSON text, parsed when a call first reads them, so that a start parses only what it uses.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { defineToolkit } from '@quiver/core';
import { builtCatalogText, readCatalog } from '@quiver/toolkits';
import { afterEach, describe, expect, it, vi } from 'vitest';

const source = new URL('../src/design/catalog.json', import.meta.url);

/** The Design catalog as the build writes it, in a folder of its own. */
function builtDesign(): URL {
  const url = pathToFileURL(join(mkdtempSync(join(tmpdir(), 'quiver-built-catalog-')), 'catalog.json'));
  writeFileSync(url, builtCatalogText(JSON.parse(readFileSync(source, 'utf8'))));
  return url;
}

describe('a catalog as the build writes it', () => {
  afterEach(() => vi.restoreAllMocks());

  it('reads as the catalog it was written from, and as a toolkit too', () => {
    const built = builtDesign();
    expect(readCatalog(built).tools).toEqual(readCatalog(source).tools);
    const tools = (url: URL) => defineToolkit(readCatalog(url)).tools.map(({ toolkit: _, ...tool }) => tool);
    expect(tools(built)).toEqual(tools(source));
  });

  it('parses a tool’s deferred field only when it is read, once for every copy of the tool', () => {
    const built = builtDesign();
    const parse = vi.spyOn(JSON, 'parse');
    const data = readCatalog(built);
    const toolkit = defineToolkit(data);
    // The catalog itself, and nothing of any tool yet.
    expect(parse).toHaveBeenCalledTimes(1);
    const [tool] = toolkit.tools;
    expect(tool!.parameters.length).toBeGreaterThan(0);
    expect(tool!.output.description).toBeTruthy();
    expect(parse).toHaveBeenCalledTimes(3);
    // The catalog's own tool and the toolkit's share the parse.
    expect(data.tools[0]!.parameters).toBe(tool!.parameters);
    expect(parse).toHaveBeenCalledTimes(3);
  });

  it('takes a value assigned to a deferred field', () => {
    const [tool] = readCatalog(builtDesign()).tools;
    tool!.parameters = [];
    expect(tool!.parameters).toEqual([]);
  });

  it('defers only the fields the build defers, whatever else a catalog names', () => {
    const url = builtDesign();
    const catalog = JSON.parse(readFileSync(url, 'utf8'));
    writeFileSync(url, JSON.stringify({ ...catalog, deferred: [...catalog.deferred, 'description', 'name'] }));
    const [tool] = readCatalog(url).tools;
    expect(Object.getOwnPropertyDescriptor(tool, 'description')?.value).toBe(catalog.tools[0].description);
    expect(tool!.name).toBe(catalog.tools[0].name);
    expect(Object.getOwnPropertyDescriptor(tool, 'parameters')?.get).toBeDefined();
  });

  it('is written once: a catalog built already is written as it is', () => {
    const text = readFileSync(builtDesign(), 'utf8');
    expect(builtCatalogText(JSON.parse(text))).toBe(text);
  });

  it('is how every built-in catalog is built', () => {
    const dist = new URL('../dist/', import.meta.url);
    const catalogs = readdirSync(dist, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && readdirSync(new URL(`${entry.name}/`, dist)).includes('catalog.json'))
      .map((entry) => JSON.parse(readFileSync(new URL(`${entry.name}/catalog.json`, dist), 'utf8')));
    expect(catalogs).toHaveLength(10);
    for (const catalog of catalogs) {
      expect(catalog.deferred, catalog.name).toEqual(['parameters', 'output', 'requestBody']);
      expect(typeof catalog.tools[0].parameters, catalog.name).toBe('string');
    }
  });
});
