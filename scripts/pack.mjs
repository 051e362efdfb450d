/**
 * `npm run pack`: writes the installable package, pack/quiver-engine-<version>.tgz, from the built workspaces.
 *
 * The package is the command (packages/cli) with the other workspaces bundled inside it under their own
 * names (@quiver/core, ...), so that their imports resolve unchanged, and the third-party packages they use
 * at run time as ordinary dependencies: `npm install -g pack/quiver-engine-<version>.tgz` (or
 * `npm install --omit=dev` of it into any folder) gives a working `quiver`; its main module is the authoring API of
 * toolkits (`import { defineToolkit, defineTool } from 'quiver-engine'`), with its declarations. Development packages,
 * sources, other declarations and source maps stay out. Run `tsc -b` and scripts/build-dist.mjs first (`npm run pack` does).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const packageName = 'quiver-engine';
const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
// The console is its built static files (the engine serves them), with no run-time dependency of its own.
const bundled = ['core', 'toolkits', 'sandbox', 'openapi', 'engine', 'console'];
const runtimePins = ['light-my-request'];
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** Builds the staging folder and packs it; returns the path of the tarball. */
export function pack(destination = join(root, 'pack')) {
  const rootManifest = readJson(join(root, 'package.json'));
  const cli = readJson(join(root, 'packages/cli/package.json'));
  const stage = mkdtempSync(join(tmpdir(), 'quiver-pack-'));
  try {
    const dependencies = {};
    for (const name of ['cli', ...bundled]) {
      const manifest = readJson(join(root, 'packages', name, 'package.json'));
      if (!existsSync(join(root, 'packages', name, 'dist'))) throw new Error(`packages/${name} is not built: run npm run build`);
      for (const [dependency, version] of Object.entries(manifest.dependencies ?? {})) {
        if (dependencies[dependency] && dependencies[dependency] !== version) {
          throw new Error(`${dependency}: packages ask for ${dependencies[dependency]} and ${version}; align them`);
        }
        dependencies[dependency] = version;
      }
    }
    copyBuild(join(root, 'packages/cli'), stage, authoringDeclarations.cli);
    cpSync(join(root, 'packages/cli/bin'), join(stage, 'bin'), { recursive: true });
    for (const name of bundled) {
      const source = join(root, 'packages', name);
      const target = join(stage, 'node_modules/@quiver', name);
      const { version, type, main, types, exports, imports: typedImports } = readJson(join(source, 'package.json'));
      // The engine's `imports` name the MCP SDK it bundles into its dist (scripts/build-dist.mjs), made after tsc; they
      // ship without their types, as the engine's declarations do.
      const imports = typedImports && Object.fromEntries(Object.entries(typedImports).map(([specifier, { default: file }]) => [specifier, file]));
      for (const file of Object.values(imports ?? {})) {
        if (!existsSync(join(source, file))) throw new Error(`packages/${name}/${file} is not built: run node scripts/build-dist.mjs`);
      }
      // Their third-party dependencies are the package's own, installed beside it: listed once, at the top.
      mkdirSync(target, { recursive: true });
      const declarations = authoringDeclarations[name];
      const bundledManifest = { name: `@quiver/${name}`, version, license: 'MIT', type, main, ...(declarations && { types }), exports, imports };
      writeFileSync(join(target, 'package.json'), `${JSON.stringify(bundledManifest, null, 2)}\n`);
      copyBuild(source, target, declarations);
    }
    for (const file of ['README.md', 'LICENSE']) cpSync(join(root, file), join(stage, file));
    // The root's overrides that reach the installed tree (light-my-request: later versions need Node 22) become
    // direct dependencies, which npm then shares with the packages that ask for a range.
    for (const [name, version] of Object.entries(rootManifest.overrides ?? {})) if (runtimePins.includes(name)) dependencies[name] = version;
    const manifest = {
      name: packageName,
      version: rootManifest.version,
      description: rootManifest.description,
      license: rootManifest.license,
      type: 'module',
      engines: rootManifest.engines,
      bin: cli.bin,
      // The main module is the authoring API (`import { defineToolkit, defineTool } from 'quiver-engine'`), with its types.
      main: cli.main,
      types: cli.types,
      exports: cli.exports,
      files: ['bin', 'dist'],
      dependencies: Object.fromEntries(Object.entries(dependencies).sort(([a], [b]) => a.localeCompare(b))),
      bundleDependencies: bundled.map((name) => `@quiver/${name}`),
    };
    writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    mkdirSync(destination, { recursive: true });
    const output = execFileSync('npm', ['pack', '--json', '--pack-destination', destination], {
      cwd: stage,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return join(destination, JSON.parse(output)[0].filename);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * The declarations the authoring API's types need, by workspace: the package's own index and authoring module, and
 * core's, which they name. No other declarations ship.
 */
const authoringDeclarations = {
  cli: (path) => /[\\/]dist[\\/](index|authoring)\.d\.ts$/.test(path),
  core: () => true,
};

/**
 * A workspace's compiled JavaScript and data: no source maps or tests, and declarations only where `declarations`
 * says. Of a bundled workspace (scripts/build-dist.mjs), its bundle and vendored files, not the modules tsc wrote,
 * which nothing imports: its data stays where they read it from.
 */
function copyBuild(source, target, declarations = () => false) {
  const dist = join(source, 'dist');
  const bundled = existsSync(join(dist, 'bundle'));
  const tscModule = (path) => bundled && path.endsWith('.js') && !/^(bundle|vendor)[\\/]/.test(relative(dist, path));
  const shipped = (path) => (/\.d\.ts$/.test(path) ? declarations(path) : !/\.(map|tsbuildinfo)$/.test(path)) && !/\.test\.js$/.test(path) && !tscModule(path);
  cpSync(dist, join(target, 'dist'), { recursive: true, filter: shipped });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = pack();
  console.log(file.slice(root.length + 1));
}
