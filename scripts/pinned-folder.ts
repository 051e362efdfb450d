/**
 * A folder of pinned packages outside the workspace, with a package.json and lockfile of its own, installed on
 * first use by what needs it (the conformance suite, the third-party MCP clients): what it pins, what it has,
 * and the install itself.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The versions the folder pins, by the name each is installed under (an alias's own version for `npm:pkg@v`). */
export function pinnedVersions(dir: string): Record<string, string> {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const wanted: Record<string, string> = { ...manifest.dependencies, ...manifest.optionalDependencies };
  return Object.fromEntries(Object.entries(wanted).map(([name, spec]) => [name, spec.replace(/^npm:.+@/, '')]));
}

/** The version of `name` installed in the folder, if any. */
export function installedVersion(dir: string, name: string): string | undefined {
  const file = join(dir, 'node_modules', name, 'package.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version : undefined;
}

/** Installs the folder from its lockfile (`npm ci`, 10 minutes at most): undefined once done, else why it failed. */
export function installPinned(dir: string, { quiet = false } = {}): string | undefined {
  try {
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts', '--fetch-retries=1', '--loglevel=error'], {
      cwd: dir,
      stdio: quiet ? 'ignore' : ['ignore', 'inherit', 'inherit'],
      timeout: 600_000,
    });
    return undefined;
  } catch (error) {
    return `npm ci in ${dir} failed (${(error as Error).message.split('\n')[0]})`;
  }
}
