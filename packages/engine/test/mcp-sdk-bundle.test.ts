// The MCP SDK as the engine bundles it (scripts/build-dist.mjs): the server is compiled from the code cache the build
// wrote beside it; its JSON Schema validator is a file of its own, required the first time a schema is validated
// rather than at start, and validates as the SDK's does.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const engineDir = fileURLToPath(new URL('..', import.meta.url));

// In a process of its own, as `quiver mcp` loads it: whether the validator's file is loaded before and after a
// schema is first validated, and what two values validate to.
const script = `
import { createRequire } from 'node:module';
const { fromJsonSchema } = await import('#mcp-server');
const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.endsWith('mcp-validator.cjs'));
const atStart = loaded();
const schema = fromJsonSchema({ type: 'object', properties: { run: { type: 'boolean' } }, required: ['run'] });
const good = await schema['~standard'].validate({ run: true });
const bad = await schema['~standard'].validate({ run: 'yes' });
console.log(JSON.stringify({ atStart, afterUse: loaded(), good, bad }));
`;

describe("the engine's bundle of the MCP SDK", () => {
  it('compiles the server from the code cache the build wrote, where it was built and where it was copied to', async () => {
    const copy = join(mkdtempSync(join(tmpdir(), 'quiver-vendor-')), 'vendor');
    cpSync(join(engineDir, 'dist/vendor'), copy, { recursive: true });
    const server = (specifier: string) => `
const { codeCache, UriTemplate } = await import(${JSON.stringify(specifier)});
let frame;
try {
  new UriTemplate('{unclosed');
} catch (error) {
  frame = error.stack.split('\\n')[1].trim();
}
console.log(JSON.stringify({ codeCache, frame }));`;
    // V8 takes a code cache only under the flags it was made with: none, as the build and an MCP client run Node.
    const { NODE_OPTIONS: _, ...env } = process.env;
    for (const specifier of ['#mcp-server', pathToFileURL(join(copy, 'mcp-server.js')).href]) {
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', server(specifier)], { cwd: engineDir, env });
      const { codeCache, frame } = JSON.parse(stdout);
      expect(codeCache).toBe('used');
      // A stack trace names the bundle as the package does, not the folder the cache was made in.
      expect(frame).toMatch(/^at .+ \(@quiver\/engine\/dist\/vendor\/mcp-server\.cjs:\d+:\d+\)$/);
    }
  });

  it('compiles the server without a damaged code cache, which V8 would stop the process on', async () => {
    const copy = join(mkdtempSync(join(tmpdir(), 'quiver-vendor-')), 'vendor');
    cpSync(join(engineDir, 'dist/vendor'), copy, { recursive: true });
    const cacheFile = join(copy, 'mcp-server.code-cache');
    const intact = readFileSync(cacheFile);
    const probe = `const { codeCache, Server } = await import(${JSON.stringify(pathToFileURL(join(copy, 'mcp-server.js')).href)}); console.log(JSON.stringify({ codeCache, server: typeof Server }));`;
    const { NODE_OPTIONS: _, ...env } = process.env;
    // Bytes changed within the cache, its length kept; and the cache cut short.
    const changed = Buffer.from(intact);
    for (let i = 4_000; i < changed.length; i += 997) changed[i]! ^= 0x5a;
    for (const damaged of [changed, intact.subarray(0, 200_000)]) {
      writeFileSync(cacheFile, damaged);
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', probe], { cwd: engineDir, env });
      expect(JSON.parse(stdout)).toEqual({ codeCache: 'damaged', server: 'function' });
    }
  });

  it('loads the JSON Schema validator when a schema is first validated, and it validates', async () => {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: engineDir });
    const { atStart, afterUse, good, bad } = JSON.parse(stdout);
    expect(atStart).toBe(false);
    expect(afterUse).toBe(true);
    expect(good).toEqual({ value: { run: true } });
    expect(bad.issues).toHaveLength(1);
  });
});

// zod, bundled with the SDK, is set to parse without compiling a parser of its own for each object schema: a
// count of the functions constructed from text while the SDK reads and answers a client's first request.
const compiled = `
let made = 0;
globalThis.Function = new Proxy(Function, { construct: (target, args) => (made++, Reflect.construct(target, args)) });
const { McpServer } = await import('#mcp-server');
const { Client, InMemoryTransport } = await import('#mcp-client');
const server = new McpServer({ name: 'bundle-test', version: '1' });
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await server.connect(serverSide);
const client = new Client({ name: 'bundle-test', version: '1' });
await client.connect(clientSide);
await client.ping();
console.log(JSON.stringify({ made }));
`;

describe("the engine's bundle of zod", () => {
  it('parses messages without compiling parsers from text', async () => {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', compiled], { cwd: engineDir });
    expect(JSON.parse(stdout)).toEqual({ made: 0 });
  });
});
