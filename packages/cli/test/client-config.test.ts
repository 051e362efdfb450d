/** `mcp --print-config`: the command an MCP client is told to start, for a global install and a folder install. */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { currentLauncher } from '../src/client-config.js';

const root = mkdtempSync(join(tmpdir(), 'quiver-launcher-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The package's script under `modules`, and the `quiver` link npm makes for it in `bin`, as npm lays them out. */
function install(modules: string, bin: string): { script: string; link: string } {
  const script = join(modules, 'quiver-engine', 'bin', 'quiver.js');
  mkdirSync(dirname(script), { recursive: true });
  writeFileSync(script, '#!/usr/bin/env node\n');
  chmodSync(script, 0o755);
  mkdirSync(bin, { recursive: true });
  const link = join(bin, 'quiver');
  symlinkSync(relative(bin, script), link);
  return { script, link };
}

describe.skipIf(process.platform === 'win32')('currentLauncher', () => {
  it('names `quiver` for a global install, whose bin folder is on the PATH', () => {
    const prefix = join(root, 'global');
    const { link } = install(join(prefix, 'lib', 'node_modules'), join(prefix, 'bin'));
    expect(currentLauncher([join(prefix, 'bin'), '/usr/bin'].join(delimiter), link)).toEqual({ command: 'quiver', args: [] });
  });

  it('names node and the installed script by absolute paths for a folder install, whose node_modules/.bin only npx puts on the PATH', () => {
    const project = join(root, 'project');
    const { script, link } = install(join(project, 'node_modules'), join(project, 'node_modules', '.bin'));
    // `npx quiver mcp --print-config cursor` in the project: npx's PATH holds the project's node_modules/.bin.
    const npxPath = [join(project, 'node_modules', '.bin'), '/usr/bin'].join(delimiter);
    const launcher = currentLauncher(npxPath, link);
    expect(launcher).toEqual({ command: process.execPath, args: [realpathSync(script)] });
    expect(launcher.command).not.toBe('quiver');
  });

  it('names node and the script when the PATH has no quiver, or another installation of it', () => {
    const elsewhere = install(join(root, 'other', 'lib', 'node_modules'), join(root, 'other', 'bin'));
    const { script } = install(join(root, 'checkout', 'node_modules'), join(root, 'checkout', 'bin'));
    expect(currentLauncher(join(root, 'other', 'bin'), script)).toEqual({ command: process.execPath, args: [realpathSync(script)] });
    expect(currentLauncher('', elsewhere.link)).toEqual({ command: process.execPath, args: [realpathSync(elsewhere.script)] });
  });
});
