/**
 * Toolkits from outside the package: the folders and npm packages that `toolkitPaths`, QUIVER_TOOLKIT_PATHS
 * and `--toolkit-path` name, loaded once when a command starts and then listed beside the built-in ones, so
 * that the one dispatcher serves them with the same checks, policy, search and credentials.
 *
 * A folder (see the README's "Adding a toolkit"):
 *   package.json with "exports" or "main"  that module is the entry: its default export is a Toolkit;
 *   index.js                               otherwise, the same;
 *   catalog.json                           otherwise, tools as data (ToolkitData), read as the built-in catalogs are;
 *   toolkit.json                           optional: { "source", "authProviders": [{ id, authorizeUrl, tokenUrl, scopes }],
 *                                          "checked", "summary" } (an import's stamp: the catalog is then read on first use);
 *   openapi.json                           optional: the document the sandbox builds the toolkit's emulator from.
 * Everything loaded passes the catalog checks (`toolkitProblems`) and may not take a name already loaded.
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { defineToolkit, iconProblems, type Tool, type Toolkit, type ToolkitData, type ToolkitNeeds } from '@quiver/core';
import { catalogDigest, catalogProblems } from '@quiver/openapi';
import { UsageError } from './usage-error.js';

/** A toolkit to load: a folder or an npm package name, the directory a relative folder is taken from, and where it was given. */
export interface ToolkitPath {
  entry: string;
  base: string;
  /** `--toolkit-path`, `QUIVER_TOOLKIT_PATHS` or `config file <path>`, for messages. */
  from: string;
}

/** An OAuth 2 provider a toolkit's tools name (`requirements.oauth2.provider`), from its toolkit.json. */
export interface ToolkitAuthProvider {
  id: string;
  authorizeUrl?: string;
  tokenUrl?: string;
  scopes?: string[];
}

export interface LoadedToolkit {
  toolkit: Toolkit;
  /** The folder it came from. */
  folder: string;
  /** As given, with where: `./billing (--toolkit-path)`. */
  given: string;
  /** The folder's openapi.json, when it has one: `--sandbox` starts an emulator built from it. */
  openapi?: string;
  authProviders: ToolkitAuthProvider[];
}

/** Loads every toolkit path, in order; a problem with any stops the command with a message naming the path. */
export async function loadToolkits(paths: readonly ToolkitPath[], builtin: readonly Toolkit[], cwd: string): Promise<LoadedToolkit[]> {
  const loaded: LoadedToolkit[] = [];
  const seen = new Set<string>();
  for (const path of paths) {
    const given = `'${path.entry}' (${path.from})`;
    const folder = locate(path, cwd, given);
    // The same folder named twice (in the config file and on the command line) is loaded once.
    const real = realpathSync(folder);
    if (seen.has(real)) continue;
    seen.add(real);
    const lazy = lazyToolkitIn(folder, given);
    const eager = lazy ? undefined : await toolkitIn(folder, given);
    const toolkit = lazy ?? eager!.toolkit;
    const name = toolkit.name.toLowerCase();
    const taken = builtin.find((other) => other.name.toLowerCase() === name);
    if (taken) throw new UsageError(`toolkit path ${given}: the toolkit name ${toolkit.name} is taken by the built-in toolkit ${taken.name}; rename it`);
    const twin = loaded.find((other) => other.toolkit.name.toLowerCase() === name);
    if (twin)
      throw new UsageError(`toolkit path ${given}: the toolkit name ${toolkit.name} is taken by the toolkit loaded from ${twin.given}; rename one of them`);
    if (eager) checkToolkit(toolkit, folder, given, eager.checkedAtImport);
    const openapi = join(folder, 'openapi.json');
    loaded.push({
      toolkit,
      folder,
      given,
      ...(existsSync(openapi) && { openapi }),
      authProviders: manifestOf(folder, given),
    });
  }
  return loaded;
}

function checkToolkit(toolkit: Toolkit, folder: string, given: string, checkedAtImport: boolean): void {
  const problems = toolkitProblems(toolkit, { checkedAtImport });
  if (problems.length) throw new UsageError(`toolkit path ${given}: ${folder} fails the catalog checks:\n  ${problems.join('\n  ')}`);
}

/**
 * What toolkit.json says of the catalog.json that `quiver toolkit import` wrote and checked (`summary`, beside
 * `checked`): enough to start a command without reading the catalog, which can be tens of megabytes.
 */
interface CatalogSummary {
  name: string;
  version: string;
  description: string;
  baseUrl: string;
  /** catalog.json's size: a catalog of another size was edited since, and is loaded and checked at start. */
  bytes: number;
  tools: number;
  needs: ToolkitNeeds;
}

/**
 * An imported catalog whose tools are read when first asked for (by a listing, a search or a call), not at
 * start. Its digest is compared then: a catalog edited since its import (in place, at the same size) is
 * checked in full at that point, and one that no longer matches its summary is refused with the reason.
 */
function lazyToolkitIn(folder: string, given: string): Toolkit | undefined {
  const catalogFile = join(folder, 'catalog.json');
  if (entryModule(folder, given) || !existsSync(catalogFile)) return undefined;
  const { checked, summary } = stampOf(folder);
  if (!checked || !summary || statSync(catalogFile).size !== summary.bytes) return undefined;
  const { name, version, description, baseUrl, needs } = summary;
  let tools: Tool[] | undefined;
  return {
    name,
    version,
    description,
    baseUrl,
    needs,
    get tools() {
      if (tools) return tools;
      const text = readFileSync(catalogFile, 'utf8');
      const toolkit = catalogToolkit(parseCatalog(text, catalogFile, given), catalogFile, given);
      const stale = (['name', 'version', 'description', 'baseUrl'] as const).find((field) => toolkit[field] !== summary[field]);
      if (stale || toolkit.tools.length !== summary.tools) {
        throw new UsageError(
          `toolkit path ${given}: ${catalogFile} no longer matches the summary in toolkit.json (its ${stale ?? 'number of tools'} differs): import the document again, or remove toolkit.json's summary`,
        );
      }
      checkToolkit(toolkit, folder, given, catalogDigest(text) === checked);
      tools = toolkit.tools;
      return tools;
    },
  };
}

/** toolkit.json's stamp, when it has one of the right shape. */
function stampOf(folder: string): { checked?: string; summary?: CatalogSummary } {
  const file = join(folder, 'toolkit.json');
  if (!existsSync(file)) return {};
  try {
    const { checked, summary } = JSON.parse(readFileSync(file, 'utf8')) as { checked?: unknown; summary?: Partial<CatalogSummary> };
    const strings = (list: unknown) => Array.isArray(list) && list.every((item) => typeof item === 'string');
    const whole =
      summary &&
      typeof summary === 'object' &&
      (['name', 'version', 'description', 'baseUrl'] as const).every((field) => typeof summary[field] === 'string') &&
      Number.isInteger(summary.bytes) &&
      Number.isInteger(summary.tools) &&
      strings(summary.needs?.providers) &&
      strings(summary.needs?.secrets);
    return { ...(typeof checked === 'string' && { checked }), ...(whole && { summary: summary as CatalogSummary }) };
  } catch {
    return {};
  }
}

/** A folder (relative to where it was given), else an npm package installed where the command runs. */
function locate(path: ToolkitPath, cwd: string, given: string): string {
  const folder = resolve(path.base, path.entry);
  if (isDirectory(folder)) return folder;
  if (existsSync(folder)) throw new UsageError(`toolkit path ${given}: ${folder} is not a folder`);
  if (packageName.test(path.entry)) {
    // Node's own lookup (node_modules of the working directory and its parents), without the package's exports map.
    const lookup = createRequire(join(cwd, 'noop.js')).resolve.paths(path.entry) ?? [];
    const found = lookup.map((dir) => join(dir, path.entry)).find((dir) => existsSync(join(dir, 'package.json')));
    if (found) return found;
    throw new UsageError(`toolkit path ${given}: no folder ${folder}, and no npm package ${path.entry} installed in ${cwd} or above`);
  }
  throw new UsageError(`toolkit path ${given}: no folder ${folder}`);
}

const packageName = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i;

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The folder's toolkit: its module's default export, or its catalog; and whether that catalog is, byte for
 * byte, the one `quiver toolkit import` wrote after it passed the strict catalog checks (toolkit.json's
 * `checked`): its shape is still checked at load, its schemas are not compiled again. A folder with code of
 * its own (package.json or index.js) is always checked.
 */
async function toolkitIn(folder: string, given: string): Promise<{ toolkit: Toolkit; checkedAtImport: boolean }> {
  const entry = entryModule(folder, given);
  if (entry) return { toolkit: await moduleToolkit(entry, given), checkedAtImport: false };
  const catalog = join(folder, 'catalog.json');
  if (!existsSync(catalog)) throw new UsageError(`toolkit path ${given}: ${folder} has no catalog.json, index.js or package.json entry`);
  const text = readFileSync(catalog, 'utf8');
  const { checked } = existsSync(join(folder, 'package.json')) ? {} : stampOf(folder);
  return {
    toolkit: catalogToolkit(parseCatalog(text, catalog, given), catalog, given),
    checkedAtImport: checked !== undefined && checked === catalogDigest(text),
  };
}

function parseCatalog(text: string, catalog: string, given: string): ToolkitData {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`toolkit path ${given}: ${catalog} is not valid JSON: ${(error as Error).message}`);
  }
}

function catalogToolkit(data: ToolkitData, catalog: string, given: string): Toolkit {
  const shape = catalogShapeProblem(data);
  if (shape) throw new UsageError(`toolkit path ${given}: ${catalog}: ${shape}`);
  try {
    return defineToolkit(data);
  } catch (error) {
    throw new UsageError(`toolkit path ${given}: ${catalog}: ${(error as Error).message}`);
  }
}

/** package.json's "exports" (its "." entry, import or default condition) or "main", else index.js; none: a catalog only. */
export function entryModule(folder: string, given: string): string | undefined {
  const manifestFile = join(folder, 'package.json');
  if (existsSync(manifestFile)) {
    let manifest: { exports?: unknown; main?: unknown };
    try {
      manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
    } catch (error) {
      throw new UsageError(`toolkit path ${given}: ${manifestFile} is not valid JSON: ${(error as Error).message}`);
    }
    const target = exportTarget(manifest.exports) ?? (typeof manifest.main === 'string' ? manifest.main : undefined);
    if (target) {
      const file = resolve(folder, target);
      if (!existsSync(file)) throw new UsageError(`toolkit path ${given}: ${manifestFile} names ${target}, which does not exist`);
      return file;
    }
  }
  const index = join(folder, 'index.js');
  return existsSync(index) ? index : undefined;
}

function exportTarget(exports: unknown): string | undefined {
  if (typeof exports === 'string') return exports;
  if (!exports || typeof exports !== 'object' || Array.isArray(exports)) return undefined;
  const map = exports as Record<string, unknown>;
  if ('.' in map) return exportTarget(map['.']);
  for (const condition of ['import', 'node', 'default']) if (condition in map) return exportTarget(map[condition]);
  return undefined;
}

async function moduleToolkit(file: string, given: string): Promise<Toolkit> {
  offerAuthoringApi();
  let module: { default?: unknown };
  try {
    module = await import(pathToFileURL(file).href);
  } catch (error) {
    throw new UsageError(`toolkit path ${given}: cannot load ${file}: ${(error as Error).message}`);
  }
  const value = module.default;
  if (!isToolkit(value)) {
    const got = value === undefined ? 'no default export' : `a default export that is not a Toolkit (${describe(value)})`;
    throw new UsageError(`toolkit path ${given}: ${file} has ${got}; export default defineToolkit(...) from 'quiver-engine'`);
  }
  return value;
}

const describe = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);

function isToolkit(value: unknown): value is Toolkit {
  if (!value || typeof value !== 'object') return false;
  const toolkit = value as Partial<Toolkit>;
  return (
    typeof toolkit.name === 'string' &&
    typeof toolkit.baseUrl === 'string' &&
    Array.isArray(toolkit.tools) &&
    toolkit.tools.every((tool) => tool && typeof tool === 'object' && typeof tool.name === 'string' && tool.toolkit && typeof tool.toolkit === 'object')
  );
}

/**
 * A toolkit module imports the authoring API from 'quiver-engine'. Where that package is not installed beside
 * the toolkit (a folder next to a global install, or this checkout), the running installation's is used.
 */
let offered = false;
function offerAuthoringApi(): void {
  if (offered) return;
  offered = true;
  // This package's own main module, by its own name: '@quiver/cli' in a checkout, the published name installed.
  const self = createRequire(import.meta.url)('../package.json') as { name: string };
  const api = import.meta.resolve(self.name);
  const hooks = `export async function resolve(specifier, context, next) {
  try { return await next(specifier, context); }
  catch (error) { if (specifier === 'quiver-engine') return { url: ${JSON.stringify(api)}, shortCircuit: true }; throw error; }
}`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`);
}

function catalogShapeProblem(data: unknown): string | undefined {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return 'must hold a JSON object (name, version, description, baseUrl, tools)';
  const catalog = data as Partial<ToolkitData>;
  if (typeof catalog.name !== 'string') return 'name must be a string';
  if (!Array.isArray(catalog.tools)) return 'tools must be an array';
  const bad = catalog.tools.findIndex((tool) => !tool || typeof tool !== 'object' || Array.isArray(tool));
  if (bad >= 0) return `tools[${bad}] must be an object`;
  return undefined;
}

const methods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);
const locations = new Set(['path', 'query', 'header', 'cookie', 'body']);

/**
 * The checks every loaded toolkit passes: first its shape (what a hand-written catalog or module may get
 * wrong: types, a way to run, every `{placeholder}` of a path filled), then the catalog checks every
 * catalog passes, built-in or imported (`catalogProblems`: names a model can call, unique, text a model can
 * choose by, schemas that compile in every provider's dialect).
 */
export function toolkitProblems(toolkit: Toolkit, { checkedAtImport = false } = {}): string[] {
  const problems: string[] = [];
  if (typeof toolkit.version !== 'string' || !toolkit.version) problems.push('version must be a non-empty string');
  if (typeof toolkit.description !== 'string') problems.push('description must be a string');
  // The icon is served to anyone (a data URI over stdio, a public URL on the engine): plain shapes only.
  if (toolkit.icon !== undefined) {
    if (typeof toolkit.icon !== 'string') problems.push('icon must be SVG markup (a string)');
    else for (const problem of iconProblems(toolkit.icon)) problems.push(`icon ${problem}`);
  }
  if (!toolkit.tools.length) problems.push('there are no tools');
  for (const [index, tool] of toolkit.tools.entries()) {
    const at = typeof tool.name === 'string' && tool.name ? tool.name : `tools[${index}]`;
    for (const problem of toolProblems(tool, toolkit)) problems.push(`${at}: ${problem}`);
    if (toolkit.name.length + 1 + String(tool.name).length > 64) problems.push(`${at}: ${toolkit.name}_${tool.name} is longer than 64 characters`);
  }
  return problems.length || checkedAtImport ? problems : catalogProblems(toolkit, { prose: false });
}

function toolProblems(tool: Tool, toolkit: Toolkit): string[] {
  const problems: string[] = [];
  if (typeof tool.name !== 'string') problems.push('name must be a string');
  if (tool.title !== undefined && (typeof tool.title !== 'string' || !tool.title.trim())) problems.push('title must be a non-empty string when given');
  if (typeof tool.description !== 'string' || !tool.description.trim()) problems.push('description must be a non-empty string');
  if (!tool.output || typeof tool.output.description !== 'string') problems.push('output.description must be a string');
  if (!tool.requirements || typeof tool.requirements !== 'object') problems.push('requirements must be an object ({} when none)');
  else {
    const { oauth2, secrets } = tool.requirements;
    if (oauth2 && (typeof oauth2.provider !== 'string' || !Array.isArray(oauth2.scopes))) problems.push('requirements.oauth2 must be {provider, scopes}');
    if (secrets && (!Array.isArray(secrets) || secrets.some((secret) => typeof secret?.key !== 'string')))
      problems.push('requirements.secrets must be [{key}]');
  }
  if (tool.tags !== undefined && (!Array.isArray(tool.tags) || tool.tags.some((tag) => typeof tag !== 'string'))) problems.push('tags must be strings');
  if (!Array.isArray(tool.parameters)) return [...problems, 'parameters must be an array'];
  for (const parameter of tool.parameters) {
    const name = String(parameter?.name);
    if (typeof parameter.description !== 'string') problems.push(`parameter '${name}': description must be a string`);
    if (typeof parameter.required !== 'boolean') problems.push(`parameter '${name}': required must be true or false`);
    if (!parameter.schema || typeof parameter.schema !== 'object') problems.push(`parameter '${name}': schema must be a JSON Schema object`);
    if (parameter.in !== undefined && !locations.has(parameter.in)) problems.push(`parameter '${name}': in must be path, query, header, cookie or body`);
  }
  if (tool.http) {
    if (!methods.has(tool.http.method)) problems.push(`http.method must be one of ${[...methods].join(', ')}`);
    if (typeof tool.http.path !== 'string' || !tool.http.path.startsWith('/')) problems.push('http.path must start with /');
    else {
      const filled = new Set(tool.parameters.filter((p) => p.in === 'path').map((p) => p.upstream ?? p.name));
      for (const [, placeholder] of tool.http.path.matchAll(/\{([^}]+)\}/g)) {
        if (!filled.has(placeholder!)) problems.push(`http.path's {${placeholder}} has no path parameter`);
      }
    }
  } else if (!tool.handler) problems.push('it has neither an http binding nor a handler');
  if (tool.http && !toolkit.baseUrl && !tool.http.baseUrlSecret && !tool.handler) problems.push('it calls an upstream, and the toolkit has no baseUrl');
  return problems;
}

/** toolkit.json's authProviders, checked. */
function manifestOf(folder: string, given: string): ToolkitAuthProvider[] {
  const file = join(folder, 'toolkit.json');
  if (!existsSync(file)) return [];
  let manifest: { authProviders?: unknown };
  try {
    manifest = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`toolkit path ${given}: ${file} is not valid JSON: ${(error as Error).message}`);
  }
  const providers = manifest?.authProviders ?? [];
  if (!Array.isArray(providers)) throw new UsageError(`toolkit path ${given}: ${file}: authProviders must be an array`);
  return providers.map((provider: Partial<ToolkitAuthProvider>, index) => {
    const fine =
      provider &&
      typeof provider.id === 'string' &&
      // A document's implicit flow has no token URL, an OpenID Connect one names neither: the config file gives what is missing.
      (provider.authorizeUrl === undefined || typeof provider.authorizeUrl === 'string') &&
      (provider.tokenUrl === undefined || typeof provider.tokenUrl === 'string') &&
      (provider.scopes === undefined || (Array.isArray(provider.scopes) && provider.scopes.every((scope) => typeof scope === 'string')));
    if (!fine) throw new UsageError(`toolkit path ${given}: ${file}: authProviders[${index}] must be {id, authorizeUrl?, tokenUrl?, scopes?}`);
    return provider as ToolkitAuthProvider;
  });
}

/**
 * The config file's `authProviders`, with the endpoints of the loaded toolkits' providers filled in where an
 * entry names one (by `provider_id`, else `id`) and gives none of its own: the configuration brings the client
 * id and secret, the toolkit the rest, as a built-in preset does for a built-in provider.
 */
export function withToolkitProviders(configured: readonly unknown[], loaded: readonly LoadedToolkit[]): { providers: unknown[]; unconfigured: string[] } {
  const known = new Map(loaded.flatMap(({ authProviders }) => authProviders.map((provider) => [provider.id, provider] as const)));
  const used = new Set<string>();
  const providers = configured.map((entry) => {
    if (!entry || typeof entry !== 'object') return entry;
    const given = entry as Record<string, unknown> & { oauth2?: Record<string, unknown> };
    const key = typeof given.provider_id === 'string' ? given.provider_id : given.id;
    const provider = typeof key === 'string' ? known.get(key) : undefined;
    if (!provider) return entry;
    used.add(provider.id);
    const oauth2 = given.oauth2 ?? {};
    const endpoint = (name: string, url: string | undefined) =>
      url === undefined ? {} : { [name]: { ...(oauth2[name] as object), endpoint: (oauth2[name] as { endpoint?: string })?.endpoint ?? url } };
    return {
      ...given,
      oauth2: { ...oauth2, ...endpoint('authorize_request', provider.authorizeUrl), ...endpoint('token_request', provider.tokenUrl) },
    };
  });
  return { providers, unconfigured: [...known.keys()].filter((id) => !used.has(id)) };
}
