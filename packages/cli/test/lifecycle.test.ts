/** How the command's processes start and end, where they keep data, and what they tell MCP clients. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { cliPath, runCli } from '@quiver/test-support/run-cli';
import { afterAll, describe, expect, it } from 'vitest';

const scratch = mkdtempSync(join(tmpdir(), 'quiver-lifecycle-'));
const dataEnv = () => ({ QUIVER_DATA_DIR: mkdtempSync(join(scratch, 'data-')) });
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

function start(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [cliPath, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exit = new Promise<{ code: number | null; ms: number }>((resolve) => {
    const started = Date.now();
    child.once('exit', (code) => resolve({ code, ms: Date.now() - started }));
  });
  return { child, exit, stderr: () => stderr };
}

/** Resolves with the first line of the stream that matches. */
const lineMatching = (stream: NodeJS.ReadableStream, pattern: RegExp) =>
  new Promise<RegExpExecArray>((resolve) => {
    createInterface({ input: stream }).on('line', (line) => {
      const found = pattern.exec(line);
      if (found) resolve(found);
    });
  });

describe('quiver mcp', () => {
  for (const sandbox of [false, true]) {
    it(`exits 0 when its standard input closes${sandbox ? ' (with the sandbox running)' : ''}`, async () => {
      const mcp = start(['mcp', ...(sandbox ? ['--sandbox'] : [])], dataEnv());
      const initialize = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      };
      mcp.child.stdin!.write(`${JSON.stringify(initialize)}\n`);
      await lineMatching(mcp.child.stdout!, /"id":1/);
      const closedAt = Date.now();
      mcp.child.stdin!.end();
      const { code } = await mcp.exit;
      expect(code).toBe(0);
      expect(Date.now() - closedAt).toBeLessThan(5_000);
    }, 30_000);
  }

  it('prints the configuration each client wants, with the command that runs it', async () => {
    const claude = await runCli(['mcp', '--sandbox', '--discovery', '--print-config', 'claude']);
    expect(claude.code).toBe(0);
    const server = JSON.parse(claude.stdout).mcpServers.quiver;
    expect(server.args.slice(-3)).toEqual(['mcp', '--sandbox', '--discovery']);
    // From a checkout nothing named quiver on the PATH is this script: node runs it by its absolute path.
    expect(server).toEqual({ command: process.execPath, args: [cliPath, 'mcp', '--sandbox', '--discovery'] });
    const missing = await runCli(['mcp', '--print-config', 'vscode', '--config', 'quiver.config.json'], {}, scratch);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`config file not found: ${join(scratch, 'quiver.config.json')}`);
    writeFileSync(join(scratch, 'quiver.config.json'), '{}');
    const withConfig = await runCli(['mcp', '--print-config', 'vscode', '--config', 'quiver.config.json'], {}, scratch);
    expect(JSON.parse(withConfig.stdout)).toEqual({
      servers: { quiver: { type: 'stdio', command: process.execPath, args: [cliPath, 'mcp', '--config', join(scratch, 'quiver.config.json')] } },
    });
    const unknown = await runCli(['mcp', '--print-config', 'emacs']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("argument 'emacs' is invalid");
  });

  it('names a data directory it cannot write, and serves all the same', async () => {
    const blocked = join(scratch, 'a-file');
    writeFileSync(blocked, '');
    const mcp = start(['mcp'], { QUIVER_DATA_DIR: join(blocked, 'quiver') });
    mcp.child.stdin!.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
    );
    await lineMatching(mcp.child.stdout!, /"id":1/);
    mcp.child.stdin!.end();
    expect((await mcp.exit).code).toBe(0);
    expect(mcp.stderr()).toContain(`cannot use the data directory ${join(blocked, 'quiver')}`);
  }, 30_000);
});

describe('quiver serve', () => {
  it('exits at once with one line when its port is taken', async () => {
    const busy: Server = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    try {
      for (const args of [
        ['serve', '--sandbox'],
        ['worker', '--toolkits', 'FileStore', '--secret', 's'],
      ]) {
        const server = start([...args, '--port', String(port)], dataEnv());
        const { code } = await server.exit;
        expect(code).toBe(1);
        const lines = server.stderr().trim().split('\n');
        expect(lines.at(-1)).toBe(`quiver: port ${port} on 127.0.0.1 is already in use (another quiver? choose another with --port)`);
      }
    } finally {
      busy.close();
    }
  }, 30_000);

  it('exits at once with one line naming --host when there is no such address', async () => {
    const server = start(['serve', '--host', '0.0.0.0.0', '--port', '0'], dataEnv());
    expect((await server.exit).code).toBe(1);
    expect(server.stderr().trim().split('\n').at(-1)).toBe('quiver: cannot listen on 0.0.0.0.0: no such host name or address (see --host)');
  }, 30_000);

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`closes the engine and the sandbox on ${signal} and exits 0 within 5 s`, async () => {
      const server = start(['serve', '--sandbox', '--port', '0'], dataEnv());
      await lineMatching(server.child.stderr!, /data in /);
      const sentAt = Date.now();
      server.child.kill(signal);
      const { code } = await server.exit;
      expect(code).toBe(0);
      expect(Date.now() - sentAt).toBeLessThan(5_000);
    }, 30_000);
  }

  it('drains on SIGTERM: not ready at once, serving for QUIVER_DRAIN_SECONDS, then exits 0', async () => {
    const server = start(['serve', '--port', '0'], { ...dataEnv(), QUIVER_DRAIN_SECONDS: '2' });
    const [, url] = await lineMatching(server.child.stderr!, /API (http:\/\/\S+)\/v1,/);
    expect((await fetch(`${url}/v1/ready`)).status).toBe(200);
    const sentAt = Date.now();
    server.child.kill('SIGTERM');
    // The signal arrives in its own time: ask until the answer changes.
    let ready = await fetch(`${url}/v1/ready`);
    while (ready.status === 200 && Date.now() - sentAt < 1000) ready = await fetch(`${url}/v1/ready`);
    expect([ready.status, await ready.json()]).toEqual([503, { ready: false, reason: 'the engine is shutting down (draining)' }]);
    expect((await fetch(`${url}/v1/health`)).status).toBe(200);
    const { code } = await server.exit;
    expect(code).toBe(0);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(2000);
    expect(Date.now() - sentAt).toBeLessThan(7000);
  }, 30_000);

  it('stops at start-up, naming the data directory, when it cannot write there', async () => {
    const blocked = join(scratch, 'another-file');
    writeFileSync(blocked, '');
    for (const args of [
      ['serve', '--port', '0'],
      ['keys', 'list'],
    ]) {
      const run = await runCli(args, { QUIVER_DATA_DIR: join(blocked, 'data') });
      expect(run.code).toBe(1);
      expect(run.stderr.trim()).toBe(
        `quiver: cannot use the data directory ${join(blocked, 'data')} (ENOTDIR); set QUIVER_DATA_DIR or --data-dir to a directory this user may write`,
      );
    }
  });
});

describe('quiver sandbox', () => {
  it('keeps state from one `quiver call --sandbox` to the next while it runs, and not after', async () => {
    const env = dataEnv();
    const sandbox = start(['sandbox'], env);
    await lineMatching(sandbox.child.stderr!, /announced in/);
    const create = await runCli(
      [
        'call',
        'CrmMarketingApi.CreateMarketingCampaign',
        '--sandbox',
        '--input',
        JSON.stringify({ mode: 'execute', request_body: JSON.stringify({ properties: { hs_name: 'Kept between calls' } }) }),
      ],
      env,
    );
    expect(create.code).toBe(0);
    expect(create.stderr).toMatch(/using the running sandbox \(quiver sandbox, process \d+\)/);
    const list = await runCli(['call', 'CrmMarketingApi.GetMarketingCampaigns', '--sandbox'], env);
    expect(list.stdout).toContain('Kept between calls');
    sandbox.child.kill('SIGTERM');
    expect((await sandbox.exit).code).toBe(0);
    const fresh = await runCli(['call', 'CrmMarketingApi.GetMarketingCampaigns', '--sandbox'], env);
    expect(fresh.code).toBe(0);
    expect(fresh.stderr).not.toContain('using the running sandbox');
    expect(fresh.stdout).toContain('Spring launch');
    expect(fresh.stdout).not.toContain('Kept between calls');
    // An id from the sandbox that has ended: a sandbox started for one call does not know it, and says why.
    const id = JSON.parse(create.stdout).value.id as string;
    const gone = await runCli(['call', 'CrmMarketingApi.GetCampaignDetails', '--sandbox', '--input', JSON.stringify({ campaign_guid: id })], env);
    expect(gone.code).toBe(1);
    expect(JSON.parse(gone.stdout).error.kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');
    expect(gone.stderr).toContain('this call started the sandbox afresh, with its demo data only: run `quiver sandbox` to keep state between calls');
  }, 60_000);
});
