import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

/** The real entry point, as a user runs it: the command of @quiver/cli (its bin). */
export const cliPath = join(dirname(createRequire(import.meta.url).resolve('@quiver/cli/package.json')), 'bin/quiver.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `quiver <args>` with the environment added to (or, for keys given, replacing) this process's. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, cwd?: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], { env: { ...process.env, ...env }, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `quiver sandbox <args>`, once it has announced itself: its process, what it printed, and its exit. */
export async function startSandboxCommand(args: string[], env: NodeJS.ProcessEnv, children: ChildProcess[]) {
  const child = spawn(process.execPath, [cliPath, 'sandbox', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`quiver sandbox exited with ${code}`)));
    createInterface({ input: child.stderr }).on('line', (line) => {
      if (/announced in/.test(line)) resolve();
    });
  });
  return { child, exit, stdout: () => stdout };
}
