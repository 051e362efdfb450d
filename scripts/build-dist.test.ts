// What the build's step after tsc leaves: every workspace's exports name its bundle, which exists, with tsc's
// declarations as their types; and a workspace whose exports name no bundle is refused by name.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain script, without declarations
import { bundleEntries } from './build-dist.mjs';

const packages = fileURLToPath(new URL('../packages', import.meta.url));
const bundled = ['core', 'toolkits', 'sandbox', 'openapi', 'engine', 'cli'];

describe('the bundled workspaces', () => {
  it.each(bundled)('%s: each export runs a file of its bundle, typed by the declaration of the module it was bundled from', (name) => {
    const dir = join(packages, name);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const entries = bundleEntries(manifest) as Record<string, string>;
    expect(Object.keys(entries).length).toBeGreaterThan(0);
    for (const [out, module] of Object.entries(entries)) {
      expect(existsSync(join(dir, 'dist/bundle', `${out}.js`)), `${name}: dist/bundle/${out}.js`).toBe(true);
      expect(existsSync(join(dir, 'dist', module.replace(/\.js$/, '.d.ts'))), `${name}: dist/${module}`).toBe(true);
    }
    expect(manifest.main).toBe('./dist/bundle/index.js');
  });

  it('refuses an export that names no bundle, saying which', () => {
    const manifest = { name: '@quiver/example', exports: { './x': { types: './dist/x.d.ts', default: './dist/x.js' } } };
    expect(() => bundleEntries(manifest)).toThrow(/@quiver\/example exports \.\/x/);
  });
});
