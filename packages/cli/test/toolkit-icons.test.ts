// A toolkit folder's titles and icon: served as the built-in ones are, and an icon that could run anything refused at load.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { iconDataUri, ServingPolicy } from '@quiver/core';
import { toolkits } from '@quiver/toolkits';
import { describe, expect, it } from 'vitest';
import { loadToolkits } from '../src/toolkit-paths.js';

const scratch = mkdtempSync(join(tmpdir(), 'quiver-toolkit-icons-'));
const icon = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><circle cx="12" cy="12" r="10" fill="#c026d3"/></svg>';

function folder(name: string, toolkitIcon: string): string {
  const dir = join(scratch, name);
  mkdirSync(dir);
  const catalog = {
    name,
    version: '1.0.0',
    description: 'Gadgets of the shop.',
    baseUrl: 'https://gadgets.example.com',
    icon: toolkitIcon,
    tools: [
      {
        name: 'ListGadgets',
        title: 'List the gadgets',
        description: 'Lists the gadgets the shop sells, newest first.',
        parameters: [],
        output: { description: 'The gadgets.' },
        requirements: {},
        http: { method: 'GET', path: '/gadgets' },
      },
    ],
  };
  writeFileSync(join(dir, 'catalog.json'), JSON.stringify(catalog));
  return dir;
}

const load = (dir: string) => loadToolkits([{ entry: dir, base: scratch, from: '--toolkit-path' }], toolkits, scratch);

describe("a toolkit folder's title and icon", () => {
  it('are served on its tools as the built-in ones are', async () => {
    const [loaded] = await load(folder('Gadgets', icon));
    const served = new ServingPolicy().toMcpTool(loaded!.toolkit.tools[0]!);
    expect(served).toMatchObject({ name: 'Gadgets_ListGadgets', title: 'List the gadgets', icons: [{ src: iconDataUri(icon), mimeType: 'image/svg+xml' }] });
  });

  it('refuse an icon that could run script or fetch, naming the problem', async () => {
    const scripted = icon.replace('</svg>', '<script>fetch("https://example.com")</script></svg>');
    await expect(load(folder('Scripted', scripted))).rejects.toThrow(/fails the catalog checks:\n {2}icon holds <script>, which is not a plain shape/);
    const linked = icon.replace('<circle ', '<circle onclick="alert(1)" ');
    await expect(load(folder('Linked', linked))).rejects.toThrow(/icon <circle> has the attribute onclick/);
  });
});
