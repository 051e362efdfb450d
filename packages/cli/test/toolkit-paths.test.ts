/**
 * Toolkits from outside the package (`--toolkit-path`, QUIVER_TOOLKIT_PATHS, `toolkitPaths`): loaded from a
 * catalog folder, a module folder or an npm package, listed, searched and called through the one dispatcher,
 * refused with a message naming the path when broken or when their name is taken; and `quiver toolkit init`.
 */
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parseAuthProviders } from '@quiver/engine';
import { catalogDigest } from '@quiver/openapi';
import { cliPath, runCli } from '@quiver/test-support/run-cli';
import { toolkits } from '@quiver/toolkits';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveSettings } from '../src/config.js';
import { loadToolkits, withToolkitProviders, type LoadedToolkit } from '../src/toolkit-paths.js';

const scratch = mkdtempSync(join(tmpdir(), 'quiver-toolkit-paths-'));
/** A one-operation document (a GET with an API key in a header and an example answer), shared with the package test. */
const vetsDocument = fileURLToPath(new URL('../../openapi/test/fixtures/vets-3.0.json', import.meta.url));
const dataDir = join(scratch, 'data');
const builtinCount = toolkits.reduce((n, toolkit) => n + toolkit.tools.length, 0);
/** The package's own entry, where a toolkit folder's `import 'quiver-engine'` lands when nothing is installed beside it. */
const cliPackage = fileURLToPath(new URL('..', import.meta.url));

const write = (path: string, content: string | object) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
};

/** An imported-style catalog: one GET tool with a path parameter, a bearer API key and a tag. */
const petCatalog = (name = 'PetShop') => ({
  name,
  version: '1.0.0',
  description: 'A pet shop API.',
  baseUrl: 'http://127.0.0.1:9',
  tools: [
    {
      name: 'GetPet',
      description: 'Returns one pet by its id.',
      parameters: [{ name: 'pet_id', description: 'The pet.', required: true, schema: { type: 'string' }, in: 'path' }],
      output: { description: 'The pet.' },
      requirements: { secrets: [{ key: 'PET_API_KEY' }] },
      http: { method: 'GET', path: '/pets/{pet_id}', auth: { secret: 'PET_API_KEY' } },
      tags: ['kennel'],
    },
  ],
});
const petFolder = join(scratch, 'pets');
write(join(petFolder, 'catalog.json'), petCatalog());

/** A module folder: tools with handlers, through the authoring API. */
const greeterFolder = join(scratch, 'greeter');
write(
  join(greeterFolder, 'index.js'),
  `import { defineToolkit, defineTool } from 'quiver-engine';
export default defineToolkit({
  name: 'Greeter',
  description: 'Greets people.',
  tools: [
    defineTool({
      name: 'SayHello',
      description: 'Says hello to someone.',
      parameters: { type: 'object', properties: { who: { type: 'string', minLength: 1, description: 'Whom to greet.' } }, required: ['who'] },
      handler: async ({ who }) => ({ value: 'Hello, ' + who + '!' }),
    }),
  ],
});
`,
);

let upstream: Server;
let upstreamUrl = '';
const seen: IncomingMessage[] = [];

beforeAll(async () => {
  upstream = createServer((request, response) => {
    seen.push(request);
    if (request.headers.authorization !== 'Bearer pet-key' && request.headers['x-api-key'] !== 'vets-key') {
      response.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"no key"}');
      return;
    }
    const id = /^\/pets\/([^/]+)$/.exec(request.url ?? '')?.[1];
    response.writeHead(id ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(id ? { id, name: 'Rex' } : { message: 'not found' }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => upstream.close(resolve));
  rmSync(scratch, { recursive: true, force: true });
});

const quiver = (args: string[], env: NodeJS.ProcessEnv = {}, cwd = scratch) => runCli(args, { QUIVER_DATA_DIR: dataDir, QUIVER_CONFIG: '', ...env }, cwd);

describe('toolkit paths in the settings', () => {
  const settingsOf = (file: object | undefined, env: NodeJS.ProcessEnv, flags: string[]) => {
    const dir = mkdtempSync(join(scratch, 'settings-'));
    if (file) write(join(dir, 'conf', 'quiver.json'), file);
    return resolveSettings({
      flags: { toolkitPath: flags, ...(file && { config: 'conf/quiver.json' }) },
      env,
      cwd: dir,
      platform: 'linux',
      home: dir,
      toolkits: [],
    });
  };

  it('adds the config file’s (relative to it), QUIVER_TOOLKIT_PATHS’s (comma-separated) and the flags’, in that order', () => {
    const settings = settingsOf({ toolkitPaths: ['./a', '@acme/b'] }, { QUIVER_TOOLKIT_PATHS: ' ./c , d,' }, ['./e']);
    expect(settings.toolkitPaths.map(({ entry, from }) => [entry, from.replace(/ .*/, '')])).toEqual([
      ['./a', 'config'],
      ['@acme/b', 'config'],
      ['./c', 'QUIVER_TOOLKIT_PATHS'],
      ['d', 'QUIVER_TOOLKIT_PATHS'],
      ['./e', '--toolkit-path'],
    ]);
    expect(settings.toolkitPaths[0]!.base).toMatch(/conf$/);
    expect(settings.toolkitPaths[4]!.base).not.toMatch(/conf$/);
    expect(settings.loadedToolkits).toEqual([]);
  });

  it('refuses toolkitPaths that is not a list of strings', () => {
    expect(() => settingsOf({ toolkitPaths: './a' }, {}, [])).toThrow(/toolkitPaths must be an array of folders or npm package names/);
    expect(() => settingsOf({ toolkitPaths: [3] }, {}, [])).toThrow(/toolkitPaths must be an array/);
  });
});

describe('a loaded toolkit', () => {
  it('is listed beside the built-in tools, and found in search by its tag and its words', async () => {
    const listed = await quiver(['tools', 'list', '--toolkit-path', petFolder, '--toolkit-path', greeterFolder]);
    expect(listed.code).toBe(0);
    expect(listed.stderr.trim()).toBe(`${builtinCount + 2} tools`);
    expect(listed.stdout).toMatch(/PetShop\.GetPet +Returns one pet by its id\./);
    expect(listed.stdout).toContain('Greeter.SayHello');
    const byTag = await quiver(['tools', 'search', 'kennel', '--toolkit-path', petFolder]);
    expect(byTag.stdout.split('\n')[0]).toMatch(/^PetShop\.GetPet /);
    const byName = await quiver(['tools', 'search', 'get a pet', '--limit', '1'], { QUIVER_TOOLKIT_PATHS: petFolder });
    expect(byName.stdout).toMatch(/^PetShop\.GetPet /);
    const shown = await quiver(['tools', 'show', 'PetShop_GetPet', '--format', 'mcp', '--toolkit-path', petFolder]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ name: 'PetShop_GetPet', inputSchema: { required: ['pet_id'] } });
  });

  it('is called with `quiver call` through the dispatcher: base URL and secret from the environment, input checked first', async () => {
    const env = { QUIVER_BASE_URL_PET_SHOP: upstreamUrl, PET_API_KEY: 'pet-key' };
    const called = await quiver(['call', 'PetShop.GetPet', '--input', '{"pet_id": "7"}', '--toolkit-path', petFolder], env);
    expect(called.stderr).toBe('');
    expect(JSON.parse(called.stdout)).toEqual({ value: { id: '7', name: 'Rex' } });
    expect(called.code).toBe(0);
    const before = seen.length;
    const refused = await quiver(['call', 'PetShop.GetPet', '--input', '{"pet_id": 7}', '--toolkit-path', petFolder], env);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).error).toMatchObject({ kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE' });
    expect(seen.length).toBe(before);
    // The secret is the tool's own declared one, and never shows in what comes back.
    const noKey = await quiver(['call', 'PetShop.GetPet', '--input', '{"pet_id": "7"}', '--toolkit-path', petFolder], {
      QUIVER_BASE_URL_PET_SHOP: upstreamUrl,
    });
    expect(noKey.code).toBe(1);
    expect(noKey.stdout).not.toContain('pet-key');
  });

  it("from a config file's toolkitPaths, relative to the file, with --base-url and --secret flags", async () => {
    const dir = join(scratch, 'configured');
    write(join(dir, 'quiver.config.json'), { toolkitPaths: ['../pets'] });
    const called = await quiver(
      ['call', 'PetShop.GetPet', '--input', '{"pet_id": "8"}', '--base-url', upstreamUrl, '--secret', 'PET_API_KEY=pet-key'],
      {},
      dir,
    );
    expect(JSON.parse(called.stdout)).toEqual({ value: { id: '8', name: 'Rex' } });
  });

  it("takes a loaded toolkit's base URL from the config file's toolkits, and refuses an entry that names no toolkit loaded", async () => {
    const dir = join(scratch, 'configured-url');
    const args = ['call', 'PetShop.GetPet', '--input', '{"pet_id": "9"}', '--secret', 'PET_API_KEY=pet-key'];
    write(join(dir, 'quiver.config.json'), { toolkitPaths: ['../pets'], toolkits: { PetShop: { baseUrl: upstreamUrl } } });
    expect(JSON.parse((await quiver(args, {}, dir)).stdout)).toEqual({ value: { id: '9', name: 'Rex' } });
    write(join(dir, 'quiver.config.json'), { toolkitPaths: ['../pets'], toolkits: { Petshop: { baseUrl: upstreamUrl } } });
    const refused = await quiver(args, {}, dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("toolkits names no toolkit 'Petshop' (did you mean 'PetShop'?)");
  });

  it("runs a module folder's handler, importing the authoring API from 'quiver-engine'", async () => {
    const called = await quiver(['call', 'Greeter.SayHello', '--input', '{"who": "Ada"}', '--toolkit-path', greeterFolder]);
    expect(JSON.parse(called.stdout)).toEqual({ value: 'Hello, Ada!' });
    const refused = await quiver(['call', 'Greeter.SayHello', '--input', '{"who": ""}', '--toolkit-path', greeterFolder]);
    expect(JSON.parse(refused.stdout).error.message).toContain("parameter 'who' must NOT have fewer than 1 characters");
  });

  it('loads an npm package installed where the command runs, through its package.json main', async () => {
    const project = join(scratch, 'project');
    const installed = join(project, 'node_modules', '@acme', 'pets-toolkit');
    write(join(installed, 'package.json'), { name: '@acme/pets-toolkit', version: '1.0.0', type: 'module', main: 'lib/main.js' });
    write(
      join(installed, 'lib', 'main.js'),
      `import { defineToolkit, readCatalog } from 'quiver-engine';
export default defineToolkit({ ...readCatalog(new URL('../catalog.json', import.meta.url)), name: 'AcmePets' }, {
  GetPet: async ({ pet_id }) => ({ value: { id: pet_id, from: 'handler' } }),
});
`,
    );
    write(join(installed, 'catalog.json'), petCatalog());
    mkdirSync(join(project, 'node_modules'), { recursive: true });
    symlinkSync(cliPackage, join(project, 'node_modules', 'quiver-engine'));
    const called = await quiver(
      ['call', 'AcmePets.GetPet', '--input', '{"pet_id": "1"}', '--toolkit-path', '@acme/pets-toolkit'],
      { PET_API_KEY: 'k' },
      project,
    );
    expect(JSON.parse(called.stdout)).toEqual({ value: { id: '1', from: 'handler' } });
  });

  it('is served over MCP with the built-in tools, and the same folder named twice is loaded once', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, 'mcp', '--toolkit-path', greeterFolder, '--toolkit-path', `${greeterFolder}/`],
      env: { ...(process.env as Record<string, string>), QUIVER_DATA_DIR: dataDir, QUIVER_TOOLKIT_PATHS: greeterFolder },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'toolkit-paths-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(builtinCount + 1);
      const result = await client.callTool({ name: 'Greeter_SayHello', arguments: { who: 'MCP' } });
      expect((result.content as Array<{ text: string }>)[0]!.text).toContain('Hello, MCP!');
    } finally {
      await client.close();
    }
  }, 30_000);

  it('is served by the engine (`quiver serve`): listed, executed over the HTTP API, its OAuth provider without a client named', async () => {
    const oauthFolder = join(scratch, 'oauth-pets');
    write(join(oauthFolder, 'catalog.json'), {
      ...petCatalog('OauthPets'),
      tools: petCatalog().tools.map((tool) => ({
        ...tool,
        requirements: { oauth2: { provider: 'oauthpets', scopes: ['read'] } },
        http: { ...tool.http, auth: undefined },
      })),
    });
    write(join(oauthFolder, 'toolkit.json'), {
      authProviders: [{ id: 'oauthpets', authorizeUrl: 'https://pets.example/authorize', tokenUrl: 'https://pets.example/token', scopes: ['read'] }],
    });
    const { stdout: key } = await quiver(['keys', 'create', '--name', 'toolkit-paths']);
    const server = spawn(process.execPath, [cliPath, 'serve', '--port', '0', '--toolkit-path', greeterFolder, '--toolkit-path', oauthFolder], {
      env: { ...process.env, QUIVER_DATA_DIR: dataDir, QUIVER_CONFIG: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      const lines: string[] = [];
      const url = await new Promise<string>((resolve, reject) => {
        server.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${lines.join('\n')}`)));
        createInterface({ input: server.stderr! }).on('line', (line) => {
          lines.push(line);
          const found = /API (http:\/\/\S+)\/v1,/.exec(line);
          if (found) resolve(found[1]!);
        });
      });
      expect(lines.join('\n')).toContain(`quiver: ${builtinCount + 2} tools`);
      expect(lines.join('\n')).toContain('OAuth provider oauthpets of a loaded toolkit has no client');
      const response = await fetch(`${url}/v1/tools/execute`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.trim()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ tool_name: 'Greeter.SayHello', user_id: 'me', input: { who: 'engine' } }),
      });
      const body = (await response.json()) as { success: boolean; output: { value: unknown } };
      expect(body).toMatchObject({ success: true, output: { value: 'Hello, engine!' } });
    } finally {
      server.kill('SIGKILL');
    }
  }, 30_000);

  it("is named by its absolute folder in an MCP client's configuration (`mcp --print-config`)", async () => {
    const printed = await quiver(['mcp', '--toolkit-path', 'greeter', '--print-config', 'cursor']);
    expect(JSON.parse(printed.stdout).mcpServers.quiver.args.slice(-3)).toEqual(['mcp', '--toolkit-path', greeterFolder]);
  });

  it('is served by `quiver worker`', async () => {
    const worker = spawn(process.execPath, [cliPath, 'worker', '--toolkits', 'Greeter', '--port', '0', '--toolkit-path', greeterFolder], {
      env: { ...process.env, QUIVER_DATA_DIR: dataDir, QUIVER_WORKER_SECRET: 'a-worker-secret-of-some-length' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        worker.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
        createInterface({ input: worker.stderr! }).on('line', (text) => {
          if (text.includes('worker serving')) resolve(text);
        });
      });
      expect(line).toMatch(/worker serving 1 tools of Greeter at http/);
    } finally {
      worker.kill('SIGKILL');
    }
  });
});

describe('quiver toolkit import, then the folder loaded', () => {
  it('imports an OpenAPI document and calls its tool through --toolkit-path against the upstream, its API key in the named header', async () => {
    copyFileSync(vetsDocument, join(scratch, 'vets.json'));
    const imported = await quiver(['toolkit', 'import', 'vets.json', '--name', 'VetsApi']);
    expect(imported.code).toBe(0);
    const seenBefore = seen.length;
    const env = { QUIVER_BASE_URL_VETS_API: upstreamUrl, VETS_API_KEY: 'vets-key' };
    const called = await quiver(['call', 'VetsApi.GetPet', '--input', '{"petId": "3"}', '--toolkit-path', 'VetsApi'], env);
    expect(JSON.parse(called.stdout)).toEqual({ value: { id: '3', name: 'Rex' } });
    expect(seen.length).toBe(seenBefore + 1);
    expect(seen.at(-1)!.headers['x-api-key']).toBe('vets-key');
    expect(seen.at(-1)!.url).toBe('/pets/3');
    const found = await quiver(['tools', 'search', 'veterinary', '--toolkit-path', 'VetsApi']);
    expect(found.stdout).toMatch(/^VetsApi\.GetPet /);
  });

  it('answers through an emulator built from its document with --sandbox, the credential granted, no upstream reached', async () => {
    const seenBefore = seen.length;
    const called = await quiver(['call', 'VetsApi.GetPet', '--input', '{"petId": "4"}', '--sandbox', '--toolkit-path', 'VetsApi'], {
      QUIVER_BASE_URL_VETS_API: upstreamUrl,
    });
    expect(called.code).toBe(0);
    expect(JSON.parse(called.stdout)).toEqual({ value: { id: '4', name: 'Rex' } });
    expect(seen.length).toBe(seenBefore);
    // A wrong type is refused by the input checks before anything is sent, as for every tool.
    const refused = await quiver(['call', 'VetsApi.GetPet', '--input', '{"petId": 4}', '--sandbox', '--toolkit-path', 'VetsApi']);
    expect(JSON.parse(refused.stdout).error.kind).toBe('TOOL_RUNTIME_BAD_INPUT_VALUE');
  }, 30_000);
});

describe("a catalog checked when it was imported (toolkit.json's `checked`)", () => {
  // An empty enum passes the shape checks and fails the catalog checks, which compile the schemas.
  const flawed = () => {
    const catalog = petCatalog('Stamped');
    catalog.tools[0]!.parameters[0]!.schema = { type: 'string', enum: [] } as never;
    return `${JSON.stringify(catalog, null, 2)}\n`;
  };

  it('is not checked again while its bytes are the ones stamped, and is checked once they change', async () => {
    const folder = join(scratch, 'stamped');
    const text = flawed();
    write(join(folder, 'catalog.json'), text);
    write(join(folder, 'toolkit.json'), { source: 'test', checked: catalogDigest(text) });
    const listed = await quiver(['tools', 'list', '--toolkit-path', folder]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('Stamped.GetPet');
    // One byte more and the stamp no longer holds: the catalog checks run, and refuse it.
    write(join(folder, 'catalog.json'), `${text}\n`);
    const refused = await quiver(['tools', 'list', '--toolkit-path', folder]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/fails the catalog checks:\n {2}Stamped\.GetPet\.pet_id: an empty enum/);
  });
});

describe("an imported catalog with a summary (toolkit.json's `summary`): read on first use", () => {
  /** A folder as `quiver toolkit import` writes it: catalog.json, and toolkit.json stamping it and summing it up. */
  const imported = (name: string, catalog = petCatalog(name)) => {
    const folder = join(scratch, `summed-${name}`);
    const text = `${JSON.stringify(catalog)}\n`;
    write(join(folder, 'catalog.json'), text);
    const { tools, ...rest } = catalog;
    const summary = { ...rest, bytes: Buffer.byteLength(text), tools: tools.length, needs: { providers: [], secrets: ['PET_API_KEY'] } };
    write(join(folder, 'toolkit.json'), { source: 'test', checked: catalogDigest(text), summary });
    return { folder, text };
  };
  /** The same number of bytes, none of them a catalog. */
  const spoil = (folder: string, text: string) => writeFileSync(join(folder, 'catalog.json'), 'x'.repeat(Buffer.byteLength(text)));
  const load = (folder: string) => loadToolkits([{ entry: folder, base: scratch, from: '--toolkit-path' }], toolkits, scratch);

  it('starts from the summary: name, base URL and the secrets looked up, without reading catalog.json', async () => {
    const { folder, text } = imported('SummedShop');
    spoil(folder, text);
    const [loaded] = await load(folder);
    expect(loaded!.toolkit).toMatchObject({ name: 'SummedShop', baseUrl: 'http://127.0.0.1:9' });
    const settings = resolveSettings({
      flags: {},
      env: { PET_API_KEY: 'from-env' },
      cwd: scratch,
      platform: 'linux',
      home: scratch,
      toolkits: [loaded!.toolkit],
    });
    expect(settings.upstream.secrets).toEqual({ PET_API_KEY: 'from-env' });
    // The first use reads it, and says what is wrong with it.
    expect(() => loaded!.toolkit.tools).toThrow(/summed-SummedShop.catalog\.json is not valid JSON/);
  });

  it('is checked in full at first use once edited in place, and refused once it no longer matches its summary', async () => {
    const catalog = petCatalog('EditedShop');
    const { folder } = imported('EditedShop', catalog);
    // Same size, other bytes: the catalog checks run then, and pass.
    const renamed = JSON.stringify(catalog).replace('"GetPet"', '"GetCat"');
    writeFileSync(join(folder, 'catalog.json'), `${renamed}\n`);
    expect((await load(folder))[0]!.toolkit.tools.map((tool) => tool.name)).toEqual(['GetCat']);
    // Same size, a schema that does not compile: refused at first use with what the checks say.
    writeFileSync(join(folder, 'catalog.json'), `${renamed.replace('{"type":"string"}', '{"type":"strung"}')}\n`);
    await expect(load(folder).then(([loaded]) => loaded!.toolkit.tools)).rejects.toThrow(/fails the catalog checks:\n {2}EditedShop\.GetCat/);
    // Same size, another name: it is not the catalog the summary describes.
    writeFileSync(join(folder, 'catalog.json'), `${renamed.replace('"EditedShop"', '"EditedShoq"')}\n`);
    await expect(load(folder).then(([loaded]) => loaded!.toolkit.tools)).rejects.toThrow(/no longer matches the summary in toolkit\.json \(its name differs\)/);
  });

  it('is loaded and checked at start once its size changes', async () => {
    const { folder, text } = imported('GrownShop');
    writeFileSync(join(folder, 'catalog.json'), `${text}\n`);
    const [loaded] = await load(folder);
    expect(Object.getOwnPropertyDescriptor(loaded!.toolkit, 'tools')?.get).toBeUndefined();
    expect(loaded!.toolkit.tools.map((tool) => tool.name)).toEqual(['GetPet']);
  });

  it('answers MCP initialize before reading it; tools/list then reads it', async () => {
    const { folder, text } = imported('LazyShop');
    spoil(folder, text);
    const child = spawn(process.execPath, [cliPath, 'mcp', '--toolkit-path', folder], { env: { ...process.env, QUIVER_DATA_DIR: dataDir, QUIVER_CONFIG: '' } });
    const lines = createInterface({ input: child.stdout });
    const next = () => new Promise<Record<string, any>>((resolve) => lines.once('line', (line) => resolve(JSON.parse(line))));
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    try {
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      expect((await next()).result.serverInfo.name).toBe('quiver');
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
      expect((await next()).error.message).toMatch(/summed-LazyShop.catalog\.json is not valid JSON/);
    } finally {
      child.kill();
    }
  }, 30_000);
});

describe('a toolkit path that cannot be loaded', () => {
  const refusal = async (folder: string, files: Record<string, string | object>, message: RegExp | string, entry = folder) => {
    for (const [file, content] of Object.entries(files)) write(join(folder, file), content);
    const run = await quiver(['tools', 'list', '--toolkit-path', entry]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`toolkit path '${entry}' (--toolkit-path)`);
    expect(run.stderr).toMatch(message);
  };

  it('is refused at start, naming the path and what is wrong', async () => {
    await refusal(join(scratch, 'empty'), { 'README.md': 'nothing' }, /has no catalog\.json, index\.js or package\.json entry/);
    await refusal(join(scratch, 'broken-json'), { 'catalog.json': '{"name": "Broken",' }, /broken-json\/catalog\.json is not valid JSON/);
    await refusal(join(scratch, 'nowhere'), {}, /no folder .*nowhere, and no npm package nowhere installed/, 'nowhere');
    const bad = petCatalog('BadTools');
    bad.tools.push({ ...bad.tools[0]!, name: 'list_pets' });
    await refusal(join(scratch, 'bad-tools'), { 'catalog.json': bad }, /fails the catalog checks:\n {2}BadTools\.list_pets: name is not PascalCase/);
    await refusal(
      join(scratch, 'bad-placeholder'),
      { 'catalog.json': { ...bad, tools: [{ ...bad.tools[0]!, name: 'ListPets', http: { ...bad.tools[0]!.http, path: '/pets/{owner}/{pet_id}' } }] } },
      /ListPets: http.path's \{owner\} has no path parameter/,
    );
    await refusal(join(scratch, 'not-a-toolkit'), { 'index.js': 'export default { name: "Nope" };\n' }, /index\.js has a default export that is not a Toolkit/);
    await refusal(join(scratch, 'throws'), { 'index.js': 'throw new Error("boom");\n' }, /cannot load .*throws\/index\.js: boom/);
    await refusal(
      join(scratch, 'bad-manifest'),
      { 'catalog.json': petCatalog('Manifested'), 'toolkit.json': { authProviders: [{ id: 'x', tokenUrl: 7 }] } },
      /toolkit\.json: authProviders\[0\] must be/,
    );
  });

  it('is refused when its name is taken by a built-in toolkit or by another path, in any case', async () => {
    await refusal(
      join(scratch, 'clash-builtin'),
      { 'catalog.json': petCatalog('RepoHostApi') },
      /the toolkit name RepoHostApi is taken by the built-in toolkit RepoHostApi/,
    );
    write(join(scratch, 'clash-a', 'catalog.json'), petCatalog('Twin'));
    write(join(scratch, 'clash-b', 'catalog.json'), petCatalog('TWIN'));
    const run = await quiver(['serve', '--port', '0', '--toolkit-path', join(scratch, 'clash-a')], { QUIVER_TOOLKIT_PATHS: join(scratch, 'clash-b') });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /toolkit path '.*clash-a' \(--toolkit-path\): the toolkit name Twin is taken by the toolkit loaded from '.*clash-b' \(QUIVER_TOOLKIT_PATHS\)/,
    );
  });
});

describe("a loaded toolkit's OAuth providers (toolkit.json)", () => {
  const loaded = [
    {
      authProviders: [{ id: 'petstore', authorizeUrl: 'https://pets.example/oauth/authorize', tokenUrl: 'https://pets.example/oauth/token', scopes: ['read'] }],
    } as unknown as LoadedToolkit,
  ];

  it('fill in the endpoints of the configured provider that names them; the configuration brings the client', () => {
    const { providers, unconfigured } = withToolkitProviders(
      [
        { id: 'petstore', client_id: 'id', client_secret: 'secret' },
        { id: 'github', client_id: 'gh' },
      ],
      loaded,
    );
    expect(unconfigured).toEqual([]);
    const [petstore, github] = parseAuthProviders(providers, 'config file');
    expect(petstore).toMatchObject({
      id: 'petstore',
      oauth2: {
        client_id: 'id',
        client_secret: 'secret',
        authorize_request: { endpoint: 'https://pets.example/oauth/authorize' },
        token_request: { endpoint: 'https://pets.example/oauth/token' },
      },
    });
    expect(github).toEqual({ id: 'github', oauth2: { client_id: 'gh' } });
  });

  it('say which have no client yet', () => {
    expect(withToolkitProviders([], loaded).unconfigured).toEqual(['petstore']);
    // Without the toolkit's endpoints, such a provider is refused (no preset): the toolkit is what makes it usable.
    expect(() => parseAuthProviders([{ id: 'petstore', client_id: 'id' }], 'config file')).toThrow(/endpoint is required for petstore/);
  });
});

describe('quiver toolkit init', () => {
  it('writes a folder whose tool `quiver call` runs and whose own test passes', async () => {
    const made = await quiver(['toolkit', 'init', 'HelloKit']);
    expect(made.code).toBe(0);
    expect(made.stderr).toContain('wrote package.json, index.js, index.test.js, README.md');
    const folder = join(scratch, 'HelloKit');
    const called = await quiver(['call', 'HelloKit.SayHello', '--input', '{"name": "Ada", "language": "fr"}', '--toolkit-path', 'HelloKit']);
    expect(JSON.parse(called.stdout)).toEqual({ value: 'Bonjour, Ada!' });
    // Its test imports 'quiver-engine' as an installed toolkit's would (here: this checkout's package).
    mkdirSync(join(folder, 'node_modules'));
    symlinkSync(cliPackage, join(folder, 'node_modules', 'quiver-engine'));
    const { stdout } = await promisify(execFile)(process.execPath, ['--test'], { cwd: folder });
    expect(stdout).toMatch(/# pass 2\n# fail 0/);
  });

  it('writes into --out, and refuses a name that is not PascalCase or a folder that is not empty', async () => {
    expect((await quiver(['toolkit', 'init', 'Other', '--out', 'elsewhere/other'])).code).toBe(0);
    const listed = await quiver(['tools', 'list', '--toolkit', 'Other', '--toolkit-path', 'elsewhere/other']);
    expect(listed.stdout).toMatch(/^Other\.SayHello/);
    const badName = await quiver(['toolkit', 'init', 'my-kit']);
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain('must be PascalCase');
    const builtIn = await quiver(['toolkit', 'init', 'Design']);
    expect(builtIn.code).toBe(2);
    expect(builtIn.stderr).toContain('the toolkit name Design is taken by the built-in toolkit Design: choose another');
    const taken = await quiver(['toolkit', 'init', 'Other', '--out', 'elsewhere/other']);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toContain('exists and is not empty');
  });
});
