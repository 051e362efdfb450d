/**
 * The build's steps after `tsc -b` (`npm run build` runs both): what makes `quiver mcp` start sooner and smaller.
 * An MCP client starts it on every launch, and waits for it.
 *
 * - Each workspace's entry points (its package.json exports, and the command for the CLI) are bundled from tsc's
 *   output into its dist/bundle: one file an entry, and chunks the entries share, so a module runs once however many
 *   entries import it. The other workspaces and third-party packages stay imports, so every workspace, and a
 *   toolkit written against the package, loads one copy of @quiver/core. The exports name the bundle, with tsc's
 *   declarations as their types. Node 20 resolves, reads and compiles every ES module on its own (it has no compile
 *   cache for them): `quiver mcp` loaded about a hundred of ours. In a bundled module `import.meta.url` is that of
 *   the file tsc wrote, so what a module reads beside it (a catalog, its data) is found where it always was.
 * - The MCP SDK the engine runs on (server, its stdio transport, and client) is bundled with zod into the engine's
 *   dist/vendor, which the engine imports as `#mcp-server` and `#mcp-client` (packages/engine/package.json "imports",
 *   their types those of the SDK's own packages). From node_modules it is over a hundred ES modules (zod's entry
 *   alone loads 96), each resolved, read and compiled on its own: one file each way takes half the time and less
 *   memory. The server, which every `quiver mcp` loads, is CommonJS compiled from a V8 code cache the build writes
 *   beside it, checked by its digest (see `cachedModule`): Node 20 has no compile cache of its own, and with the
 *   cache `initialize` is answered in 0.86 to 0.89 times the time. The client, which only a process with an MCP
 *   worker loads, stays an ES module with its own copy of the SDK's core and zod (one file of both would cost every
 *   start the client's compilation). The server's JSON Schema validator (Ajv, 200 KB) is a file of its own, loaded the first time it
 *   validates a schema: the engine's servers validate only a form elicitation's answer with it, which most
 *   processes never receive.
 * - The built-in catalogs tsc copies into packages/toolkits/dist, indented, are written compact: every start reads
 *   and parses them all, and a third of the size is fewer bytes to decode and a smaller string to hold meanwhile.
 *   Each tool's parameters, output and request body are written as JSON text, parsed when a call first reads them
 *   (see `builtCatalogText`).
 * - Beside each built-in catalog, its tools' definitions as `quiver mcp` lists them, as JSON text (see
 *   `writeDefinitions`): a listing then sends that text, where it built and wrote out 1,007 definitions (1.4 MB of
 *   JSON) at every start.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { build } from 'esbuild';

const packages = resolve(fileURLToPath(new URL('../packages', import.meta.url)));
const engine = join(packages, 'engine');

/** The bundle's entry points: the SDK's modules that each re-exports, by the name of the file it becomes. */
const entries = {
  'mcp-server': ['@modelcontextprotocol/server', '@modelcontextprotocol/server/stdio'],
  'mcp-client': ['@modelcontextprotocol/client'],
};

const virtual = 'mcp-entry:';

/** The file the server's validator is loaded from, beside the bundle. */
const validatorFile = 'mcp-validator.cjs';

/**
 * The server's platform module for Node (`_shims`: `process`, and the default JSON Schema validator), with a
 * validator that requires the SDK's own when it is first asked for one. Synchronously, as the SDK asks: the file
 * is CommonJS.
 */
const lazyShims = `import { createRequire } from 'node:module';
import process from 'node:process';
const require = createRequire(import.meta.url);
export class DefaultJsonSchemaValidator {
  #ajv;
  #validator;
  constructor(ajv) {
    this.#ajv = ajv;
  }
  getValidator(schema) {
    this.#validator ??= new (require('./${validatorFile}').DefaultJsonSchemaValidator)(this.#ajv);
    return this.#validator.getValidator(schema);
  }
}
export { process };
`;

/**
 * Zod compiles a parser of its own (`new Function`) for every object schema the first time it parses with it, which
 * costs more than the few messages a process parses with each; set before any schema is made, since each reads
 * it then. Imported first by each entry, so it runs before the SDK's modules.
 */
const zodJitless = `import { config } from 'zod/v4/core';
config({ jitless: true });
`;

/** Esbuild's options for a module made of `contents`, resolved from the engine. */
const virtualModule = (contents) => ({ contents, resolveDir: engine, loader: 'js' });

const common = {
  absWorkingDir: engine,
  bundle: true,
  platform: 'node',
  target: 'node20',
  // Whitespace and syntax only: names stay as the SDK wrote them, for stack traces and error names.
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: true,
  logLevel: 'warning',
};

/**
 * Writes a folder anew beside it and then puts it in place, so that a process started meanwhile (a test, the
 * engine) finds the old files or the new ones, never a folder half written.
 */
async function replaceFolder(folder, write) {
  const next = `${folder}.next`;
  rmSync(next, { recursive: true, force: true });
  await write(next);
  rmSync(folder, { recursive: true, force: true });
  renameSync(next, folder);
}

/** The server's bundle, and the V8 code cache it is compiled from (see `cachedModule`). */
const serverFile = 'mcp-server.cjs';
const codeCacheFile = 'mcp-server.code-cache';
/**
 * The name the server's bundle is compiled under, in stack traces: a code cache keeps the name it was made with,
 * whatever the name it is used under, so it is one that holds wherever the package is installed.
 */
const serverName = `@quiver/engine/dist/vendor/${serverFile}`;

/** CommonJS's own wrapper of a module's text: the code cache is of the function it makes. */
const wrapper = ['(function (exports, require, module, __filename, __dirname) {', '\n})'];

/**
 * `#mcp-server`: the server's CommonJS bundle compiled with the code cache beside it, its exports as an ES module's
 * (`names`). V8 takes the cache only for the same text and the same V8 and flags, and compiles the text as usual
 * otherwise; but it trusts the cache's contents, and a damaged one (a changed byte) stops the process with a fatal
 * error. So the cache is used only where its SHA-256 is the one the build wrote (`digest`, about 1 ms at start).
 * `codeCache` says what happened: 'used', 'rejected' (by V8), 'damaged' or 'absent'.
 */
const cachedModule = (names, digest) => `import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
const file = fileURLToPath(new URL('./${serverFile}', import.meta.url));
/** The module's function, and what became of the cache; the cache itself is not kept. */
function compile() {
  let cachedData;
  try {
    cachedData = readFileSync(new URL('./${codeCacheFile}', import.meta.url));
  } catch {}
  const damaged = cachedData !== undefined && createHash('sha256').update(cachedData).digest('hex') !== '${digest}';
  if (damaged) cachedData = undefined;
  const [head, tail] = ${JSON.stringify(wrapper)};
  const script = new Script(head + readFileSync(file, 'utf8') + tail, { filename: '${serverName}', cachedData });
  const codeCache = damaged ? 'damaged' : cachedData === undefined ? 'absent' : script.cachedDataRejected ? 'rejected' : 'used';
  return { run: script.runInThisContext(), codeCache };
}
const { run, codeCache } = compile();
const module = { exports: {} };
run(module.exports, createRequire(file), module, file, dirname(file));
export { codeCache };
export const { ${names.join(', ')} } = module.exports;
`;

/** The server's bundle compiled and run in this process as `cachedModule` does, without a cache. */
function runBundle(file) {
  const script = new Script(wrapper[0] + readFileSync(file, 'utf8') + wrapper[1], { filename: serverName });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  return { script, sdk: module.exports };
}

const meta2026 = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'build', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** What a client of each era sends first (a connection keeps the era of its first message). */
const firstMessages = [
  [
    { id: 1, method: 'server/discover', params: { _meta: meta2026 } },
    { id: 2, method: 'tools/list', params: { _meta: meta2026 } },
    { id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' }, _meta: meta2026 } },
  ],
  [
    { id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'build', version: '1' } } },
    { method: 'notifications/initialized' },
    { id: 2, method: 'tools/list', params: {} },
    { id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
    { id: 4, method: 'ping' },
  ],
];

/**
 * What a `quiver mcp` session runs first, run with the bundled SDK so that the code cache written after it holds
 * the functions compiled then, not only the module's top level: a connection of each era over the stdio
 * transport, served as the command serves it.
 */
async function firstSessions(sdk) {
  const tool = { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } };
  const serverOf = () => {
    const server = new sdk.Server({ name: 'build', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', async () => ({ tools: [tool] }));
    server.setRequestHandler('tools/call', async ({ params }) => ({ content: [{ type: 'text', text: String(params.arguments?.text) }] }));
    return server;
  };
  for (const messages of firstMessages) {
    const [input, output] = [new PassThrough(), new PassThrough()];
    const connection = sdk.serveStdio(serverOf, { transport: new sdk.StdioServerTransport(input, output) });
    const answers = createInterface({ input: output });
    for (const message of messages) {
      const answered = message.id !== undefined && new Promise((resolve) => answers.once('line', (line) => resolve(JSON.parse(line))));
      input.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
      const answer = await answered;
      if (answer?.error) throw new Error(`the bundled server answered ${message.method} with ${JSON.stringify(answer.error)}`);
    }
    await connection.close();
  }
}

/** The SDK's modules an entry re-exports, after zod is set to parse without compiling. */
const mcpEntries = {
  name: 'mcp-entries',
  setup(bundler) {
    bundler.onResolve({ filter: /^mcp-entry:/ }, ({ path }) => ({ path: path.slice(virtual.length), namespace: 'mcp-entry' }));
    bundler.onLoad({ filter: /.*/, namespace: 'mcp-entry' }, ({ path }) =>
      virtualModule(
        path === 'zod-jitless' ? zodJitless : [`import 'mcp-entry:zod-jitless';`, ...entries[path].map((module) => `export * from '${module}';`)].join('\n'),
      ),
    );
    bundler.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({ path: 'shims', namespace: 'mcp-lazy' }));
    bundler.onLoad({ filter: /.*/, namespace: 'mcp-lazy' }, () => virtualModule(lazyShims));
  },
};

export async function bundleMcp() {
  await replaceFolder(join(engine, 'dist/vendor'), async (outdir) => {
    await build({
      ...common,
      entryPoints: [`${virtual}mcp-server`],
      outfile: join(outdir, serverFile),
      format: 'cjs',
      // The lazy validator's require is made from the bundle's own URL.
      define: { 'import.meta.url': 'bundleUrl' },
      banner: { js: "const bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
      plugins: [mcpEntries],
    });
    const { script, sdk } = runBundle(join(outdir, serverFile));
    await firstSessions(sdk);
    const cache = script.createCachedData();
    writeFileSync(join(outdir, codeCacheFile), cache);
    writeFileSync(join(outdir, 'mcp-server.js'), cachedModule(Object.keys(sdk), createHash('sha256').update(cache).digest('hex')));
    await build({ ...common, entryPoints: [`${virtual}mcp-client`], outfile: join(outdir, 'mcp-client.js'), format: 'esm', plugins: [mcpEntries] });
    await build({
      ...common,
      stdin: virtualModule("export { DefaultJsonSchemaValidator } from '@modelcontextprotocol/server/_shims';"),
      outfile: join(outdir, validatorFile),
      format: 'cjs',
    });
  });
}

/**
 * Rewrites the toolkits' built JSON compact, each catalog as `builtCatalogText` writes it, leaving alone what
 * already is.
 */
export async function compactCatalogs(dir = join(packages, 'toolkits/dist')) {
  const { builtCatalogText } = await import('@quiver/toolkits');
  const compact = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) compact(path);
      else if (entry.name.endsWith('.json')) {
        const text = readFileSync(path, 'utf8');
        const written = entry.name === 'catalog.json' ? builtCatalogText(JSON.parse(text)) : JSON.stringify(JSON.parse(text));
        if (written !== text) writeFileSync(path, written);
      }
    }
  };
  compact(dir);
}

/** Writes the served definitions beside every built-in catalog, with the toolkits just built. */
export async function writeBuiltinDefinitions(dir = join(packages, 'toolkits/dist')) {
  const { toolkits, writeDefinitions } = await import('@quiver/toolkits');
  for (const folder of readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
    const catalog = join(dir, folder.name, 'catalog.json');
    if (!existsSync(catalog)) continue;
    const { name } = JSON.parse(readFileSync(catalog, 'utf8'));
    const toolkit = toolkits.find((candidate) => candidate.name === name);
    if (!toolkit) throw new Error(`${relative(packages, catalog)}: no built-in toolkit is named ${name}`);
    writeDefinitions(pathToFileURL(catalog), toolkit);
  }
}

/**
 * The bundled workspaces: the entries each package.json does not name (the CLI's command), and the third-party
 * packages bundled with them rather than installed beside them: the CLI's argument parser, eight CommonJS modules
 * that Node would otherwise read and scan one by one at every start.
 */
const bundledWorkspaces = {
  core: {},
  toolkits: {},
  sandbox: {},
  openapi: {},
  engine: {},
  cli: { entries: { main: 'main.js' }, inline: ['commander'] },
};

/**
 * A workspace's entries, by the name of the bundle's file: each export's is `./dist/bundle/<name>.js` and its
 * module the one its `types` declare. The bundle is flat, so that every module in it lies equally deep.
 */
export function bundleEntries(manifest, extra = {}) {
  const entries = { ...extra };
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (typeof target === 'string') continue;
    const name = /^\.\/dist\/bundle\/([\w-]+)\.js$/.exec(target.default)?.[1];
    const module = /^\.\/dist\/(.+)\.d\.ts$/.exec(target.types ?? '')?.[1];
    if (!name || !module)
      throw new Error(
        `${manifest.name} exports ${subpath} as ${JSON.stringify(target)}: want { types: ./dist/<module>.d.ts, default: ./dist/bundle/<name>.js }`,
      );
    entries[name] = `${module}.js`;
  }
  return entries;
}

/** The URL of a file of dist relative to the bundle's folder, dist/bundle. */
const fromBundle = (dist, path) => `../${relative(dist, path).split(sep).join('/')}`;

/**
 * Within a bundle, `import.meta.url` of a module is the URL of the file tsc wrote for it, one folder up; and a JSON
 * module stays the file beside it (JSON.parse reads it faster than a JavaScript object literal compiles).
 */
const ownUrl = (dist) => ({
  name: 'own-url',
  setup(bundler) {
    bundler.onLoad({ filter: /\.json$/ }, ({ path }) => ({
      contents: `import { readFileSync } from 'node:fs';
export default JSON.parse(readFileSync(new URL(${JSON.stringify(fromBundle(dist, path))}, import.meta.url), 'utf8'));`,
      loader: 'js',
    }));
    bundler.onLoad({ filter: /\.js$/ }, ({ path }) => {
      const contents = readFileSync(path, 'utf8');
      if (!contents.includes('import.meta.url')) return undefined;
      const url = `new URL(${JSON.stringify(fromBundle(dist, path))}, import.meta.url).href`;
      return { contents: contents.replaceAll('import.meta.url', url), loader: 'js' };
    });
  },
});

/** Other workspaces, third-party packages but those named, and the engine's vendored SDK are imported, not copied. */
const importedPackages = (inline) => ({
  name: 'imported-packages',
  setup(bundler) {
    bundler.onResolve({ filter: /^[^./]/ }, ({ path }) => {
      const name = path.startsWith('@') ? path.split('/', 2).join('/') : path.split('/', 1)[0];
      return inline.includes(name) ? undefined : { path, external: true };
    });
  },
});

export async function bundleWorkspace(name) {
  const { entries = {}, inline = [] } = bundledWorkspaces[name];
  const dir = join(packages, name);
  const dist = join(dir, 'dist');
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  await replaceFolder(join(dist, 'bundle'), (outdir) =>
    build({
      ...common,
      absWorkingDir: dir,
      entryPoints: Object.entries(bundleEntries(manifest, entries)).map(([out, module]) => ({ in: join(dist, module), out })),
      outdir,
      splitting: true,
      format: 'esm',
      chunkNames: 'shared-[hash]',
      // A CommonJS package bundled into an ES module requires Node's own modules through a `require` of its own.
      ...(inline.length && {
        banner: { js: "import { createRequire as requireOfBundle } from 'node:module'; const require = requireOfBundle(import.meta.url);" },
      }),
      plugins: [importedPackages(inline), ownUrl(dist)],
    }),
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await bundleMcp();
  await Promise.all(Object.keys(bundledWorkspaces).map(bundleWorkspace));
  await compactCatalogs();
  await writeBuiltinDefinitions();
}
