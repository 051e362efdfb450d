/**
 * `quiver mcp --print-config CLIENT`: how a client starts this installation, and the flags to repeat. The entry
 * itself is built in @quiver/core (stdioClientConfig), which the engine's console shows as well.
 */
import { accessSync, constants, existsSync, realpathSync } from 'node:fs';
import { basename, delimiter, dirname, join, resolve } from 'node:path';
import type { Launcher } from '@quiver/core';

/**
 * How a client starts this command: `quiver` when that name on the PATH is this installation, else node with
 * the absolute path of this script (a checkout, or an install the client's PATH may not reach).
 *
 * A folder install (`npm install quiver-engine` in a project, run as `npx quiver`) has `quiver` only in the
 * project's `node_modules/.bin`, which npx and npm scripts put on the PATH of the commands they run and no shell
 * or client has: such a PATH entry does not count, and the entry names node and the installed script by their
 * absolute paths. That starts this very installation, at its version, from any working directory and without
 * a network, and does not depend on the client's PATH reaching node either (GUI clients often start with a
 * short one). `npx -y quiver-engine` would fetch and run whatever version the registry has, or fail offline.
 */
export function currentLauncher(path: string, script = process.argv[1]!): Launcher {
  const self = realpathSync(script);
  for (const dir of path.split(delimiter).filter(Boolean)) {
    if (basename(dir) === '.bin' && basename(dirname(dir)) === 'node_modules') continue;
    const candidate = join(dir, process.platform === 'win32' ? 'quiver.cmd' : 'quiver');
    try {
      accessSync(candidate, constants.X_OK);
      if (realpathSync(candidate) === self) return { command: 'quiver', args: [] };
    } catch {
      // not here
    }
  }
  return { command: process.execPath, args: [self] };
}

/**
 * The mcp command's own arguments minus --print-config, to be repeated in the client's configuration; paths
 * are made absolute, since clients start servers in a working directory of their own.
 */
export function forwardedArgs(argv: string[], cwd: string): string[] {
  const args = argv.slice(argv.indexOf('mcp') + 1);
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i]!.split(/=(.*)/s) as [string, string | undefined];
    if (flag === '--print-config') {
      if (inline === undefined) i++;
    } else if (flag === '--config' || flag === '--data-dir') {
      const value = inline ?? args[++i];
      if (value !== undefined) out.push(flag, resolve(cwd, value));
    } else if (flag === '--toolkit-path') {
      // A folder here, made absolute for a client that starts the server elsewhere; a package name as given.
      const value = inline ?? args[++i];
      if (value !== undefined) out.push(flag, existsSync(resolve(cwd, value)) ? resolve(cwd, value) : value);
    } else {
      out.push(args[i]!);
    }
  }
  return out;
}
