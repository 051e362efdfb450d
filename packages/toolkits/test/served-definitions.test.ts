/**
 * The definitions the build writes beside each built-in catalog (see writeDefinitions): what `quiver mcp` lists is
 * read from them, so they must be, byte for byte, what the serving policy builds, and never used for another catalog.
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { annotationsOf, defineToolkit, in2026, ServingPolicy, type ListingRevision, type Tool } from '@quiver/core';
import { readCatalog, toolkits, writeDefinitions } from '@quiver/toolkits';
import { describe, expect, it } from 'vitest';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');
const built = (policy: ServingPolicy, tools: Tool[], revision?: ListingRevision) => policy.definitionsJson(tools, revision).map(text);
const builtNow = (policy: ServingPolicy, tools: Tool[], revision?: ListingRevision) =>
  tools.map((tool) => JSON.stringify(revision ? in2026(policy.toMcpTool(tool)) : policy.toMcpTool(tool)));

describe('served definitions written by the build', () => {
  const tools = toolkits.flatMap((toolkit) => toolkit.tools);

  it('are there for every built-in tool, for the clients of either revision, and are what the policy builds', () => {
    for (const revision of [undefined, '2026-07-28'] as const) {
      const written = new Map(toolkits.map((toolkit) => [toolkit.name, toolkit.definitions?.(revision)]));
      const missing = tools.filter((tool) => !written.get(tool.toolkit.name)?.get(tool.name)).map((tool) => `${tool.toolkit.name}.${tool.name}`);
      expect(missing).toEqual([]);
      const policy = new ServingPolicy();
      expect(built(policy, tools, revision)).toEqual(builtNow(policy, tools, revision));
    }
    // A 2026-07-28 client's input schemas declare their dialect first; a 2025 client's do not.
    const [tool] = tools;
    expect(Object.keys(JSON.parse(built(new ServingPolicy(), [tool!], '2026-07-28')[0]!).inputSchema)[0]).toBe('$schema');
    expect(JSON.parse(built(new ServingPolicy(), [tool!])[0]!).inputSchema.$schema).toBeUndefined();
  });

  it('list every tool of a toolkit as one part, and the tools of a toolkit listed in part one by one, the same text', () => {
    const joined = (parts: readonly Uint8Array[]) => parts.map(text).join(',');
    for (const revision of [undefined, '2026-07-28'] as const) {
      const policy = new ServingPolicy();
      const all = policy.listingJson(tools, revision);
      expect(all).toHaveLength(toolkits.length);
      expect(joined(all)).toBe(builtNow(policy, tools, revision).join(','));
      // Read-only: some of each toolkit's tools, so each is listed a tool at a time.
      const readOnly = new ServingPolicy({ readOnly: true });
      const offered = tools.filter((tool) => readOnly.offers(tool));
      const some = readOnly.listingJson(offered, revision);
      expect(some.length).toBeGreaterThan(toolkits.length);
      expect(joined(some)).toBe(builtNow(readOnly, offered, revision).join(','));
    }
  });

  it('are not used where a policy adds confirm or serves icons by URL', () => {
    const destructive = tools.filter((tool) => annotationsOf(tool).destructiveHint).slice(0, 20);
    for (const policy of [new ServingPolicy({ confirmDestructive: true }), new ServingPolicy({ iconBaseUrl: 'https://quiver.example/v1/toolkits' })]) {
      expect(built(policy, destructive)).toEqual(builtNow(policy, destructive));
    }
    expect(built(new ServingPolicy({ confirmDestructive: true }), destructive)[0]).toContain('"confirm"');
  });
});

describe('readCatalog with served definitions beside the catalog', () => {
  /** A copy of the Design toolkit's catalog in a folder of its own, read as a toolkit. */
  function copiedDesign() {
    const dir = mkdtempSync(join(tmpdir(), 'quiver-definitions-'));
    const url = pathToFileURL(join(dir, 'catalog.json'));
    copyFileSync(new URL('../src/design/catalog.json', import.meta.url), url);
    return { dir, url, read: () => defineToolkit(readCatalog(url)) };
  }

  it('reads the definitions written for the catalog, and none where there are none', () => {
    const { url, read } = copiedDesign();
    expect(read().definitions?.()).toBeUndefined();
    writeDefinitions(url, read());
    const toolkit = read();
    for (const revision of [undefined, '2026-07-28'] as const) {
      expect(toolkit.definitions!(revision)!.names).toEqual(toolkit.tools.map((tool) => tool.name));
      expect(built(new ServingPolicy(), toolkit.tools, revision)).toEqual(builtNow(new ServingPolicy(), toolkit.tools, revision));
    }
  });

  it('does not use definitions cut short: the listing is built instead', () => {
    const { dir, url, read } = copiedDesign();
    writeDefinitions(url, read());
    const file = join(dir, 'definitions.txt');
    writeFileSync(file, readFileSync(file).subarray(0, -10));
    const toolkit = read();
    expect(toolkit.definitions!()).toBeUndefined();
    expect(toolkit.definitions!('2026-07-28')).toBeDefined();
    expect(built(new ServingPolicy(), toolkit.tools)).toEqual(builtNow(new ServingPolicy(), toolkit.tools));
  });

  it('does not use definitions written for another catalog: the listing is built instead', () => {
    const { url, read } = copiedDesign();
    writeDefinitions(url, read());
    // The catalog changes after its definitions were written: a description says more.
    const changed = readCatalog(url);
    changed.tools[0]!.description += ' It says more now.';
    writeFileSync(url, JSON.stringify({ ...changed, definitions: undefined }));
    const toolkit = read();
    expect(toolkit.definitions!()).toBeUndefined();
    expect(toolkit.definitions!('2026-07-28')).toBeUndefined();
    for (const revision of [undefined, '2026-07-28'] as const) {
      const [first] = built(new ServingPolicy(), toolkit.tools, revision);
      expect(first).toContain('It says more now.');
    }
  });
});
