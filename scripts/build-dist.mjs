/**
 * The build's steps after `tsc -b` (`npm run build` runs both): what makes `quiver mcp` start sooner and smaller.
 * An MCP client starts it on every launch, and waits for it.
 *
 * - The MCP SDK the engine runs on (server, its stdio transport, and client) is bundled with zod into the engine's
 *   dist/vendor, which the engine imports as `#mcp-server` and `#mcp-client` (packages/engine/package.json "imports",
 *   their types those of the SDK's own packages). From node_modules it is over a hundred ES modules (zod's entry
 *   alone loads 96), each resolved, read and compiled on its own, and Node 20 has no compile cache for ES modules:
 *   one file each way takes half the time and less memory. The server and the client share their common chunks (the SDK's
 *   core and zod), so a process that runs both holds one copy of each. The server's JSON Schema validator (Ajv,
 *   200 KB) is a file of its own, loaded the first time it validates a schema: the engine's servers validate only
 *   a form elicitation's answer with it, which most processes never receive.
 * - The built-in catalogs tsc copies into packages/toolkits/dist, indented, are written compact: every start reads
 *   and parses them all, and a third of the size is fewer bytes to decode and a smaller string to hold meanwhile.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
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

export async function bundleMcp() {
  const outdir = join(engine, 'dist/vendor');
  rmSync(outdir, { recursive: true, force: true });
  await build({
    ...common,
    entryPoints: Object.keys(entries).map((name) => ({ in: `${virtual}${name}`, out: name })),
    outdir,
    splitting: true,
    format: 'esm',
    chunkNames: 'mcp-shared-[hash]',
    plugins: [
      {
        name: 'mcp-entries',
        setup(bundler) {
          bundler.onResolve({ filter: /^mcp-entry:/ }, ({ path }) => ({ path: path.slice(virtual.length), namespace: 'mcp-entry' }));
          bundler.onLoad({ filter: /.*/, namespace: 'mcp-entry' }, ({ path }) =>
            virtualModule(entries[path].map((module) => `export * from '${module}';`).join('\n')),
          );
          bundler.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({ path: 'shims', namespace: 'mcp-lazy' }));
          bundler.onLoad({ filter: /.*/, namespace: 'mcp-lazy' }, () => virtualModule(lazyShims));
        },
      },
    ],
  });
  await build({
    ...common,
    stdin: virtualModule("export { DefaultJsonSchemaValidator } from '@modelcontextprotocol/server/_shims';"),
    outfile: join(outdir, validatorFile),
    format: 'cjs',
  });
}

/** Rewrites the toolkits' built JSON compact, leaving alone what already is. */
export function compactCatalogs(dir = join(packages, 'toolkits/dist')) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) compactCatalogs(path);
    else if (entry.name.endsWith('.json')) {
      const text = readFileSync(path, 'utf8');
      const compact = JSON.stringify(JSON.parse(text));
      if (compact !== text) writeFileSync(path, compact);
    }
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await bundleMcp();
  compactCatalogs();
}
