// No module of a package imports, through others, back into itself: the layers of each package read one
// way. Static imports, re-exports and dynamic imports count, type-only ones included, since a loop of types
// is a loop a reader has to untangle all the same.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packages = fileURLToPath(new URL('../packages/', import.meta.url));

function sourcesOf(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourcesOf(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The relative imports of a file, as the files they name. */
function importsOf(file: string, known: ReadonlySet<string>): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...[...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+['"](\.[^'"]+)['"]/gms)].map((m) => m[1]!),
    ...[...text.matchAll(/import\(\s*['"](\.[^'"]+)['"]\s*\)/g)].map((m) => m[1]!),
  ];
  return specifiers
    .map((specifier) => resolve(dirname(file), specifier).replace(/\.js$/, ''))
    .flatMap((base) => [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].filter((candidate) => known.has(candidate)).slice(0, 1));
}

/** The strongly connected components of more than one file (Tarjan), or of one file importing itself. */
function loopsOf(graph: ReadonlyMap<string, string[]>): string[][] {
  let next = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const loops: string[][] = [];
  const visit = (file: string) => {
    order.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file)!) {
      if (!order.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, order.get(target)!));
    }
    if (low.get(file) !== order.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)!.includes(file)) loops.push(component);
  };
  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return loops;
}

describe('imports within each package', () => {
  for (const name of readdirSync(packages)) {
    it(`${name} has no loop of imports`, () => {
      const root = join(packages, name, 'src');
      const files = sourcesOf(root);
      const known = new Set(files);
      const graph = new Map(files.map((file) => [file, importsOf(file, known)]));
      const loops = loopsOf(graph).map((loop) => loop.map((file) => relative(root, file)).join(' → '));
      expect(loops).toEqual([]);
    });
  }
});
