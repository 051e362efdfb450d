/**
 * Regenerates the committed catalogs from the upstream descriptions.
 *
 *   npm run generate            write every generated file
 *   npm run generate -- --check  exit 1 if any committed file differs from what would be generated
 *
 * Development only: the reference material sits in ../shared beside the checkout (or QUIVER_SHARED_DIR).
 * Nothing at build, run or test time reads it; the generated files are what ships.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generators } from './generate/index.js';
import { associationsPath } from './generate/search-associations.js';
import { repoRoot } from './generate/shared.js';

export const sharedDir = resolve(process.env.QUIVER_SHARED_DIR ?? resolve(repoRoot, '..', 'shared'));

export interface GeneratedFile {
  /** Path relative to the repository root. */
  path: string;
  content: string;
}

export function generateAll(): GeneratedFile[] {
  return generators.flatMap((generate) => generate(sharedDir));
}

/** Files whose committed content differs from a fresh generation. */
export function staleFiles(): string[] {
  return generateAll()
    .filter((file) => {
      const target = resolve(repoRoot, file.path);
      return !existsSync(target) || readFileSync(target, 'utf8') !== file.content;
    })
    .map((file) => file.path);
}

function main(): void {
  if (!existsSync(sharedDir)) {
    console.error(`generate: the reference material is not at ${relative(process.cwd(), sharedDir)}; set QUIVER_SHARED_DIR`);
    process.exit(2);
  }
  if (process.argv.includes('--check')) {
    const stale = staleFiles();
    for (const path of stale) console.error(`stale: ${path}`);
    process.exit(stale.length ? 1 : 0);
  }
  const changed: string[] = [];
  for (const file of generateAll()) {
    const target = resolve(repoRoot, file.path);
    if (!existsSync(target) || readFileSync(target, 'utf8') !== file.content) changed.push(file.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.content);
    console.log(`wrote ${file.path} (${(file.content.length / 1024).toFixed(1)} KiB)`);
  }
  // The search associations are learned from the catalogs this process loaded when it started, so a run that
  // changed a catalog runs once more, in a new process that reads the catalogs just written.
  if (changed.some((path) => path !== associationsPath) && !process.argv.includes('--settled')) {
    console.log('generate: catalogs changed; learning the search associations again from the new ones');
    const again = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!, ...process.argv.slice(2), '--settled'], { stdio: 'inherit' });
    process.exit(again.status ?? 1);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
