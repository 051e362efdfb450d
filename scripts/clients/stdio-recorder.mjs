#!/usr/bin/env node
/**
 * Stands between an MCP client and a stdio server and writes down what passes, to see which revision the
 * client negotiates: `node stdio-recorder.mjs <log file> <command> [args...]` starts the command, relays
 * standard input and output line by line unchanged, and appends each line to the log as
 * {"from":"client"|"server","line":…}. It ends as the server does, and ends the server when its input ends
 * or it is signalled.
 */
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const [log, command, ...args] = process.argv.slice(2);
if (!log || !command) {
  console.error('usage: stdio-recorder.mjs <log file> <command> [args...]');
  process.exit(2);
}
const server = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
const record = (from, line) => appendFileSync(log, `${JSON.stringify({ from, line })}\n`);
createInterface({ input: process.stdin }).on('line', (line) => {
  record('client', line);
  server.stdin.write(`${line}\n`);
});
process.stdin.on('end', () => server.stdin.end());
createInterface({ input: server.stdout }).on('line', (line) => {
  record('server', line);
  process.stdout.write(`${line}\n`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('close', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
