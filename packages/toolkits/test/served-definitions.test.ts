/**
 * The definitions the build writes beside each built-in catalog (see writeDefinitions): what `quiver mcp` lists is
 * read from them, so they must be, byte for byte, what the serving policy builds, and never used for another catalog.
 */
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { annotationsOf, defineToolkit, ServingPolicy, type Tool } from '@quiver/core';
import { readCatalog, toolkits, writeDefinitions } from '@quiver/toolkits';
import { describe, expect, it } from 'vitest';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');
const built = (policy: ServingPolicy, tools: Tool[]) => policy.definitionsJson(tools).map(text);
const builtNow = (policy: ServingPolicy, tools: Tool[]) => tools.map((tool) => JSON.stringify(policy.toMcpTool(tool)));

describe('served definitions written by the build', () => {
  const tools = toolkits.flatMap((toolkit) => toolkit.tools);

  it('are there for every built-in tool, and are what the policy builds', () => {
    const written = new Map(toolkits.map((toolkit) => [toolkit.name, toolkit.definitions?.()]));
    const missing = tools.filter((tool) => !written.get(tool.toolkit.name)?.has(tool.name)).map((tool) => `${tool.toolkit.name}.${tool.name}`);
    expect(missing).toEqual([]);
    const policy = new ServingPolicy();
    expect(built(policy, tools)).toEqual(builtNow(policy, tools));
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
    expect([...toolkit.definitions!()!.keys()]).toEqual(toolkit.tools.map((tool) => tool.name));
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
    const [first] = built(new ServingPolicy(), toolkit.tools);
    expect(first).toContain('It says more now.');
  });
});
