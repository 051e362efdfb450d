// The MCP SDK as the engine bundles it (scripts/build-dist.mjs): the server's JSON Schema validator is a file of
// its own, required the first time a schema is validated rather than at start, and validates as the SDK's does.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
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
