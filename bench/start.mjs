// Start measurements shared by bench/run.mjs, bench/imported.mjs and bench/peer.mjs: a child process timed from its spawn.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { median, round } from './stats.mjs';

export const cli = fileURLToPath(new URL('../packages/cli/bin/quiver.js', import.meta.url));

/**
 * An MCP server on stdio that `coldStart` can start: Node's arguments (its script first), extra environment
 * variables, where its stderr goes, and the revision a client speaks to it (2025 by default).
 * @typedef {{ args: string[], env?: Record<string, string>, stderr?: 'inherit' | 'ignore', revision?: '2026-07-28' }} Server
 */

/** `quiver mcp`, with `args` after `mcp`. @returns {Server} */
export const quiverMcp = (args = []) => ({ args: [cli, 'mcp', ...args] });

/** A 2026-07-28 client's request `_meta`: it sends no `initialize`, each request says who it is. */
const meta2026 = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A Node process that speaks JSON lines on stdio, timed from its spawn; both start measurements use it. @param {Server} server */
export function lineProcess({ args, env, stderr = 'inherit' }) {
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', stderr], env: { ...process.env, ...env } });
  const started = process.hrtime.bigint();
  const lines = createInterface({ input: child.stdout });
  return {
    child,
    elapsedMs: () => Number(process.hrtime.bigint() - started) / 1e6,
    next: () => new Promise((resolve) => lines.once('line', (line) => resolve(JSON.parse(line)))),
    send: (message) => child.stdin.write(`${JSON.stringify(message)}\n`),
  };
}

/**
 * Process start to the answer of `initialize` on stdio (a 2026-07-28 client's first request, `server/discover`),
 * and to that of `tools/list` sent then; RSS once it has been served.
 */
export async function coldStart(server = quiverMcp()) {
  const { child, elapsedMs, next, send } = lineProcess(server);
  const modern = server.revision === '2026-07-28';
  send(
    modern
      ? { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta2026 } }
      : {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
        },
  );
  const initialized = await next();
  if (initialized.error) throw new Error(`${server.args.join(' ')}: ${JSON.stringify(initialized.error)}`);
  const readyMs = elapsedMs();
  if (!modern) send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: modern ? { _meta: meta2026 } : {} });
  const listed = await next();
  const listedMs = elapsedMs();
  const rssMb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) / 1024;
  child.kill();
  const { tools } = listed.result;
  return { readyMs, listedMs, rssMb, tools, toolCount: tools.length, listBytes: JSON.stringify(listed.result).length };
}

/** The baseline: a bare Node process that answers one line, its start measured the same way. */
export async function nodeStart() {
  const { child, elapsedMs, next, send } = lineProcess({ args: ['-e', 'process.stdin.once("data", () => process.stdout.write("{}\\n"))'] });
  send({});
  await next();
  const ms = elapsedMs();
  child.kill();
  return ms;
}

/**
 * `runs` cold starts of each server and of a bare Node process, taken in turn so that the drifting load of a
 * shared machine falls on all alike: each round starts the bare process, then the servers, beginning one
 * server further on than the round before.
 */
export async function alternatingStarts(servers, runs) {
  const node = [];
  const starts = servers.map(() => []);
  for (let round = 0; round < runs; round++) {
    node.push(await nodeStart());
    for (let k = 0; k < servers.length; k++) {
      const i = (round + k) % servers.length;
      starts[i].push(await coldStart(servers[i]));
    }
  }
  return { nodeStartMs: node, starts };
}

/** One server's starts summed up as results.json holds them: medians, and every run of the cold start. */
export function startFigures(starts) {
  return {
    tools: starts[0].toolCount,
    coldStartMs: { median: round(median(starts.map((s) => s.readyMs)), 1), runs: starts.map((s) => round(s.readyMs, 1)) },
    toolsListedMs: round(median(starts.map((s) => s.listedMs)), 1),
    rssMb: round(median(starts.map((s) => s.rssMb)), 1),
  };
}
