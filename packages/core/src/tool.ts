/** The tool model: toolkits of tools, each a typed interface over one upstream operation. */
import type { ToolContext } from './context.js';
import type { ToolResult } from './errors.js';
import type { Annotations, HttpMethod, ToolData } from './tool-data.js';

/** The revision of MCP whose clients are listed each input schema with its dialect (see `in2026`, serving.ts). */
export type ListingRevision = '2026-07-28';

/** A toolkit's served definitions as the build wrote them (ToolkitInfo.definitions). */
export interface BuiltDefinitions {
  /** Its tools' names, in the order of their definitions. */
  readonly names: readonly string[];
  /** Every definition in that order, apart by commas: the items of a listing's JSON array. */
  readonly all: Uint8Array;
  /** One tool's definition. */
  get(name: string): Uint8Array | undefined;
}

export type * from './tool-data.js';

/** Behaviour of its own for a tool that is more than a binding (search, several calls, local data). */
export type ToolHandler = (input: Record<string, unknown>, context: ToolContext) => Promise<ToolResult>;

export interface Tool extends ToolData {
  toolkit: ToolkitInfo;
  handler?: ToolHandler;
}

export interface ToolkitInfo {
  name: string;
  version: string;
  description: string;
  /**
   * Requests for each tool as people word them ("who starred my project"), by tool name, written so
   * that search meets everyday words. Indexed, never served; read when a search index is first built.
   */
  phrases?: () => Readonly<Record<string, readonly string[]>>;
  /**
   * Each tool's MCP definition as the bytes of its JSON text, as a server lists it that adds no parameter of its
   * own beyond `fields` and gives icons inline (`quiver mcp` by default), to a client of `revision` (see
   * `in2026`): written by the build for the built-in toolkits, so that a listing is sent without building and
   * writing out a thousand definitions at every start. Read from disk at each call; undefined where there are none
   * (see ServingPolicy.listingJson).
   */
  definitions?: (revision?: ListingRevision) => BuiltDefinitions | undefined;
  /**
   * The service's icon, SVG markup (a small glyph drawn for the toolkit, see icons.ts), served on each of its
   * tools as MCP `icons`: a display field, never read by the model.
   */
  icon?: string;
}

export interface ToolkitData extends ToolkitInfo {
  /** Default upstream base URL; configuration may replace it. */
  baseUrl: string;
  tools: ToolData[];
}

export interface Toolkit extends ToolkitInfo {
  baseUrl: string;
  /** May be read from disk on first use (a large imported catalog): a command that never asks does not pay for it. */
  tools: Tool[];
  /** What its tools need, when known without reading them (see `toolkitNeeds`). */
  needs?: ToolkitNeeds;
}

/** The OAuth 2 providers and the secrets a toolkit's tools need: the variables a configuration gives it. */
export interface ToolkitNeeds {
  providers: string[];
  secrets: string[];
}

export function toolkitNeeds(toolkit: { needs?: ToolkitNeeds; tools: readonly ToolData[] }): ToolkitNeeds {
  if (toolkit.needs) return toolkit.needs;
  const providers = new Set<string>();
  const secrets = new Set<string>();
  for (const { requirements } of toolkit.tools) {
    if (requirements.oauth2) providers.add(requirements.oauth2.provider);
    for (const { key } of requirements.secrets ?? []) secrets.add(key);
  }
  return { providers: [...providers], secrets: [...secrets] };
}

/** Joins catalog data with the handlers of the tools that have behaviour of their own. */
export function defineToolkit(data: ToolkitData, handlers: Record<string, ToolHandler> = {}): Toolkit {
  const info: ToolkitInfo = {
    name: data.name,
    version: data.version,
    description: data.description,
    phrases: data.phrases,
    ...(data.definitions && { definitions: data.definitions }),
    ...(data.icon !== undefined && { icon: data.icon }),
  };
  const tools = data.tools.map((tool) => toolOf(tool, info, handlers[tool.name]));
  for (const name of Object.keys(handlers)) {
    if (!tools.some((tool) => tool.name === name)) throw new Error(`${data.name}: handler for unknown tool ${name}`);
  }
  return { ...info, baseUrl: data.baseUrl, tools };
}

/**
 * The tool of a toolkit: a copy of its data (a spread, but that a property read through an accessor, a built
 * catalog's deferred field, see readCatalog, stays one and is parsed only once a call reads it).
 */
function toolOf(data: ToolData, toolkit: ToolkitInfo, handler: ToolHandler | undefined): Tool {
  const tool: Record<string, unknown> = {};
  for (const key of Object.keys(data)) {
    const property = Object.getOwnPropertyDescriptor(data, key)!;
    if (property.get) Object.defineProperty(tool, key, property);
    else tool[key] = property.value;
  }
  tool.toolkit = toolkit;
  tool.handler = handler;
  return tool as unknown as Tool;
}

export const qualifiedName = (tool: Tool): string => `${tool.toolkit.name}.${tool.name}`;

export const isModeDriven = (tool: ToolData): boolean => tool.requestBody !== undefined;

const readMethods = new Set<HttpMethod>(['GET', 'HEAD']);
const idempotentMethods = new Set<HttpMethod>(['GET', 'HEAD', 'PUT', 'DELETE']);

export function annotationsOf(tool: ToolData): Annotations {
  const method = tool.http?.method ?? 'POST';
  return {
    readOnlyHint: readMethods.has(method),
    destructiveHint: method === 'DELETE',
    idempotentHint: idempotentMethods.has(method),
    openWorldHint: true,
    ...tool.annotations,
  };
}
