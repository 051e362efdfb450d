/**
 * `--sandbox-ports <first>`: the sandbox's emulators on consecutive ports from the one given (the built-in ones,
 * then each imported toolkit's), a port in use named in a one-line error, and a first port with no room refused.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, startSandboxCommand } from '@quiver/test-support/run-cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The built-in emulators' ports: eight emulators, Customer.io on two (its US and EU hosts). */
const BUILT_IN = 9;

const scratch = mkdtempSync(join(tmpdir(), 'quiver-sandbox-ports-'));
const children: ChildProcess[] = [];
const held: Server[] = [];
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(held.map((server) => new Promise((resolve) => server.close(resolve))));
  rmSync(scratch, { recursive: true, force: true });
});

const document = {
  openapi: '3.0.3',
  info: { title: 'Things', version: '1.0.0', description: 'A small store of things.' },
  servers: [{ url: 'https://things.example.com/v1' }],
  paths: {
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        summary: 'Read one thing by its id',
        parameters: [{ name: 'id', in: 'path', required: true, description: 'The id of the thing.', schema: { type: 'string' } }],
        responses: { '200': { description: 'The thing.', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
  },
};
const folder = join(scratch, 'Things');
const dataEnv = () => ({ QUIVER_DATA_DIR: mkdtempSync(join(scratch, 'data-')), QUIVER_SANDBOX_PORTS: '' });

const listen = (port: number) =>
  new Promise<Server>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject).listen({ host: '127.0.0.1', port, exclusive: true }, () => resolve(server));
  });

/** A first port with `count` free loopback ports from it (checked, then let go). */
async function freeRange(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = 20_000 + Math.floor(Math.random() * 30_000);
    const servers: Server[] = [];
    try {
      for (let port = first; port < first + count; port++) servers.push(await listen(port));
      return first;
    } catch {
      // taken: another range
    } finally {
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    }
  }
  throw new Error('no free range of ports');
}

beforeAll(async () => {
  writeFileSync(join(scratch, 'things.json'), JSON.stringify(document));
  const imported = await runCli(['toolkit', 'import', 'things.json', '--name', 'Things'], {}, scratch);
  expect(imported.code, imported.stderr).toBe(0);
}, 30_000);

describe('--sandbox-ports', () => {
  it('puts the built-in emulators on consecutive ports from the first, and an imported toolkit after them', async () => {
    const first = await freeRange(BUILT_IN + 1);
    const { child, exit, stdout: printed } = await startSandboxCommand(['--sandbox-ports', String(first), '--toolkit-path', folder], dataEnv(), children);
    const stdout = printed();
    const ports = Object.fromEntries([...stdout.matchAll(/^(\w+)\s+http:\/\/127\.0\.0\.1:(\d+)$/gm)].map((match) => [match[1], Number(match[2])]));
    expect(ports).toEqual({
      CrmMarketingApi: first,
      RepoHostApi: first + 1,
      TrackingApi: first + 2,
      TaskboardApi: first + 4,
      FileStore: first + 5,
      SupportDesk: first + 6,
      Design: first + 7,
      MailClient: first + 8,
      Things: first + BUILT_IN,
    });
    // Customer.io's EU host is the port between: it answers (refusing a request without credentials).
    expect((await fetch(`http://127.0.0.1:${first + 3}/`)).status).toBe(401);
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  }, 60_000);

  it('names a port in use, and exits 1', async () => {
    const first = await freeRange(BUILT_IN);
    held.push(await listen(first + 4));
    const run = await runCli(['call', 'CrmMarketingApi.GetMarketingCampaigns', '--sandbox', '--sandbox-ports', String(first)], dataEnv());
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(`the sandbox cannot listen on port ${first + 4} (127.0.0.1): it is in use; --sandbox-ports ${first}`);
    expect(run.stdout).toBe('');
  }, 30_000);

  it.each([
    [['--sandbox-ports', '80'], {}, "--sandbox-ports must be the first of the sandbox's ports, a whole number from 1024 to 65535, not '80'"],
    [[], { QUIVER_SANDBOX_PORTS: 'next' }, "QUIVER_SANDBOX_PORTS must be the first of the sandbox's ports, a whole number from 1024 to 65535, not 'next'"],
    [
      ['--sandbox-ports', '65530'],
      {},
      `--sandbox-ports must leave room for the sandbox's ${BUILT_IN} emulator ports below 65536: give a port from 1024 to ${65536 - BUILT_IN}, not 65530`,
    ],
    [
      ['--sandbox-ports', String(65536 - BUILT_IN), '--toolkit-path', folder],
      {},
      `--sandbox-ports must leave room for the sandbox's ${BUILT_IN + 1} emulator ports below 65536: give a port from 1024 to ${65535 - BUILT_IN}, not ${65536 - BUILT_IN}`,
    ],
  ])(
    'refuses %j %j as a usage error naming where it came from',
    async (args, env, message) => {
      const run = await runCli(['call', 'CrmMarketingApi.GetMarketingCampaigns', '--sandbox', ...args], { ...dataEnv(), ...env });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(message);
    },
    30_000,
  );
});
