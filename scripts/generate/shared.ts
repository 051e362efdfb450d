/** Pieces every toolkit generator uses: reading the reference catalog and authoring request schemas. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { iconProblems } from '../../packages/core/src/icons.js';
import type { HttpMethod, JsonSchema, Parameter, ParameterLocation, ToolData, ToolkitData } from '../../packages/core/src/tool.js';
import { isNode, mapSchema, modeParameters, simplify } from '../../packages/openapi/src/shapes.js';
import type { GeneratedFile } from '../generate.js';

// Shared with the OpenAPI importer (@quiver/openapi), which builds mode-driven tools exactly like these.
export { mapSchema, modeParameters, simplify } from '../../packages/openapi/src/shapes.js';

export interface CatalogParam {
  name: string;
  type: string;
  required: boolean;
  enum?: string[];
  in?: ParameterLocation;
  upstream?: string;
}

export interface CatalogTool {
  name: string;
  operation: string;
  method: HttpMethod;
  path: string;
  mode_driven: boolean;
  params: CatalogParam[];
  scopes: string[];
}

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));

/**
 * A toolkit's committed catalog: `<dir>/catalog.json`, 2-space JSON with a final newline. It carries the icon
 * drawn beside it (`<dir>/icon.svg`, which the build does not copy: the catalog is what ships), and every tool's
 * title, checked here for every toolkit alike.
 */
export function catalogFile(dir: string, toolkit: ToolkitData): GeneratedFile {
  const iconFile = resolve(repoRoot, dir, 'icon.svg');
  if (!existsSync(iconFile)) throw new Error(`${toolkit.name}: no icon at ${dir}/icon.svg`);
  const icon = readFileSync(iconFile, 'utf8').trim();
  const problems = iconProblems(icon);
  if (problems.length) throw new Error(`${toolkit.name}: ${dir}/icon.svg ${problems.join('; ')}`);
  const titles = titleProblems(toolkit.tools);
  if (titles.length) throw new Error(`${toolkit.name}: ${titles.join('; ')}`);
  const { tools, ...head } = toolkit;
  return { path: `${dir}/catalog.json`, content: `${JSON.stringify({ ...head, icon, tools }, null, 2)}\n` };
}

/**
 * What a person reads in a client's list of tools: a short sentence-case label ("Create an issue") that is not the
 * name spelled out, without a closing full stop, and different from every other title of the toolkit.
 */
function titleProblems(tools: readonly ToolData[]): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const { name, title } of tools) {
    if (!title?.trim()) {
      problems.push(`${name} has no title`);
      continue;
    }
    if (title.length > 80) problems.push(`${name}: title longer than 80 characters`);
    if (!/^[A-Z0-9]/.test(title) || /[.\s]$/.test(title))
      problems.push(`${name}: title "${title}" does not start with a capital or ends with a full stop or space`);
    if (title.replace(/\W/g, '').toLowerCase() === name.toLowerCase()) problems.push(`${name}: title "${title}" only spells the name`);
    const other = seen.get(title.toLowerCase());
    if (other) problems.push(`${name}: title "${title}" is also ${other}'s`);
    seen.set(title.toLowerCase(), name);
  }
  return problems;
}

/** Our texts for a toolkit (`<dir>/descriptions.json`): the toolkit's description, and per tool its title, its description, its output's, its parameters' and its body fields'. */
export interface Descriptions {
  toolkit: string;
  tools: Record<string, { title: string; description: string; output: string; params: Record<string, string>; body?: Record<string, string> }>;
}

export const readDescriptions = (dir: string): Descriptions => readJson(resolve(repoRoot, dir, 'descriptions.json')) as Descriptions;

/** A toolkit's committed catalog, named and based as the reference catalog says and described as we say. */
export function toolkitFile(
  dir: string,
  catalog: { toolkit: string; default_base_url: string },
  descriptions: Descriptions,
  tools: ToolData[],
  version = '1.0.0',
): GeneratedFile {
  return catalogFile(dir, { name: catalog.toolkit, version, description: descriptions.toolkit, baseUrl: catalog.default_base_url, tools });
}

/**
 * Where a parameter goes upstream, which the reference catalogs leave to us; empty for one the tool's
 * handler reads itself.
 */
export interface Placement {
  in?: ParameterLocation;
  upstream?: string;
  explode?: boolean;
}

/** The placements of one tool, checked to cover exactly its catalog parameters (but a mode-driven tool's mode parameters, which go nowhere). */
export function placementsOf(
  tool: { params: CatalogParam[]; mode_driven?: boolean },
  placed: Record<string, Placement> | undefined,
  where: (text: string) => string,
): Record<string, Placement> {
  if (!placed) throw new Error(where('no placements'));
  const names = new Set(tool.params.map((param) => param.name));
  const unknown = Object.keys(placed).filter((name) => !names.has(name));
  if (unknown.length) throw new Error(where(`placements for unknown parameters ${unknown.join(', ')}`));
  const missing = tool.params.filter((param) => !placed[param.name] && !isModeParameter(tool, param)).map((param) => param.name);
  if (missing.length) throw new Error(where(`no placement for ${missing.join(', ')}`));
  return placed;
}

/**
 * A tool's parameters. A mode-driven tool's `mode` and `request_body` are the same for every tool; the others
 * are described as `text` says, typed as the catalog says (an enum on an array constrains its items) and
 * narrowed by `refine`, and placed as `placed` says, by default where the catalog places them.
 */
export function parametersOf(
  tool: { params: CatalogParam[]; mode_driven?: boolean },
  text: Descriptions['tools'][string],
  where: (text: string) => string,
  { placed, refine }: { placed?: Record<string, Placement>; refine?: (param: CatalogParam) => JsonSchema | undefined } = {},
): Parameter[] {
  return tool.params.map((param): Parameter => {
    if (isModeParameter(tool, param)) return { ...modeParameters[param.name as keyof typeof modeParameters], required: param.required };
    const description = text.params[param.name];
    if (!description) throw new Error(where(`parameter ${param.name} has no description`));
    const refined = refine?.(param) ?? {};
    const schema: JsonSchema =
      param.type === 'array'
        ? { type: param.type, ...refined, ...(param.enum && { items: { ...(refined.items as JsonSchema), enum: param.enum } }) }
        : { type: param.type, ...(param.enum && { enum: param.enum }), ...refined };
    const placement = placed ? placed[param.name] : { in: param.in, upstream: param.upstream };
    const told = neededToExecute(tool, param.required, placement?.in, description) ? `${description} Required for execute.` : description;
    return { name: param.name, description: told, required: param.required, schema, ...placement };
  });
}

/**
 * A mode-driven tool's path parameters are optional so that mode "get_request_schema" runs without them, and
 * execute needs them: their descriptions say so, unless they do already.
 */
export const neededToExecute = (tool: { mode_driven?: boolean }, required: boolean, location: ParameterLocation | undefined, description: string): boolean =>
  Boolean(tool.mode_driven) && !required && location === 'path' && !/\b(Required for execute|Needed)\b/.test(description);

const isModeParameter = (tool: { mode_driven?: boolean }, param: CatalogParam): boolean =>
  Boolean(tool.mode_driven) && Object.hasOwn(modeParameters, param.name);

export const path = (upstream: string): Placement => ({ in: 'path', upstream });
export const query = (upstream: string, extra: Pick<Placement, 'explode'> = {}): Placement => ({ in: 'query', upstream, ...extra });
export const header = (upstream: string): Placement => ({ in: 'header', upstream });
export const body = (upstream: string): Placement => ({ in: 'body', upstream });

/**
 * Our request schema from structural facts: nesting that says nothing (single-branch oneOf, allOf of
 * plain objects, empty property lists) is folded away; objects that declare their properties are
 * closed (the upstream rejects unknown fields, so we catch them before sending); top-level fields get
 * our descriptions.
 */
export function authoredSchema(structural: JsonSchema, fieldDescriptions: Record<string, string>, description: string): JsonSchema {
  const schema = close(simplify(structural)) as JsonSchema & { properties?: Record<string, JsonSchema> };
  for (const [field, text] of Object.entries(fieldDescriptions)) {
    const property = schema.properties?.[field];
    if (!property) throw new Error(`description for unknown body field ${field}`);
    schema.properties![field] = { description: text, ...property };
  }
  return { description, ...schema };
}

/** Objects that list their properties accept no others, unless they say otherwise. */
const close = (schema: unknown): unknown =>
  mapSchema(schema, (node) => {
    const declares = isNode(node.properties) && Object.keys(node.properties).length > 0;
    const composed = node.oneOf || node.anyOf || node.allOf;
    return declares && !composed && node.additionalProperties === undefined ? { ...node, additionalProperties: false } : node;
  });
