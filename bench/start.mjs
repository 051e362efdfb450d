// Start measurements shared by bench/run.mjs and bench/imported.mjs: a child process timed from its spawn.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const cli = fileURLToPath(new URL('../packages/cli/dist/main.js', import.meta.url));

/** A child process that speaks JSON lines on stdio, timed from its spawn; both start measurements use it. */
export function lineProcess(args) {
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const started = process.hrtime.bigint();
  const lines = createInterface({ input: child.stdout });
  return {
    child,
    elapsedMs: () => Number(process.hrtime.bigint() - started) / 1e6,
    next: () => new Promise((resolve) => lines.once('line', (line) => resolve(JSON.parse(line)))),
    send: (message) => child.stdin.write(`${JSON.stringify(message)}\n`),
  };
}

/** Process start to the answer of `initialize` on stdio, and to that of `tools/list` sent then; RSS once it has been served. `args` follow `quiver mcp`. */
export async function coldStart(args = []) {
  const { child, elapsedMs, next, send } = lineProcess([cli, 'mcp', ...args]);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  });
  const initialized = await next();
  if (initialized.error) throw new Error(`quiver mcp ${args.join(' ')}: ${JSON.stringify(initialized.error)}`);
  const readyMs = elapsedMs();
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
  const listed = await next();
  const listedMs = elapsedMs();
  const rssMb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) / 1024;
  child.kill();
  return { readyMs, listedMs, rssMb, toolCount: listed.result.tools.length, listBytes: JSON.stringify(listed.result).length };
}

/** The baseline: a bare Node process that answers one line, its start measured the same way. */
export async function nodeStart() {
  const { child, elapsedMs, next, send } = lineProcess(['-e', 'process.stdin.once("data", () => process.stdout.write("{}\\n"))']);
  send({});
  await next();
  const ms = elapsedMs();
  child.kill();
  return ms;
}
