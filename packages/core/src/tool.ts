/** The tool model: toolkits of tools, each a typed interface over one upstream operation. */
import type { ToolContext } from './context.js';
import type { ToolResult } from './errors.js';

export type JsonSchema = { [keyword: string]: unknown };

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Where a parameter goes in the upstream request. */
export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie' | 'body';

export interface Parameter {
  name: string;
  description: string;
  required: boolean;
  /** JSON Schema of the value (type, enum, items, properties, format, ...). */
  schema: JsonSchema;
  /** Absent for the mode-driven `mode` and `request_body` parameters. */
  in?: ParameterLocation;
  /** Upstream name; a dotted name places a body parameter in a nested object (`author.email`). */
  upstream?: string;
  /**
   * For an array in the query: false sends one comma-separated value (`ids=a,b`) instead of the
   * default repeated keys (`ids=a&ids=b`), as OpenAPI's `explode` says.
   */
  explode?: boolean;
  /** A query parameter that pages the results (a cursor, page or offset): the paging notes name it. */
  paging?: boolean;
}

export interface HttpBinding {
  method: HttpMethod;
  /** URL template relative to the base URL; `{name}` placeholders use upstream names. */
  path: string;
  /** Content type of a request body built from body parameters. Default: application/json. */
  contentType?: string;
  /** The upstream wants a body even when no body parameter is given: send an empty one (`{}`). */
  bodyRequired?: boolean;
  /** Fixed request headers the upstream expects. */
  headers?: Record<string, string>;
  /** A declared secret whose value, when set, replaces the toolkit's base URL (a self-hosted server). */
  baseUrlSecret?: string;
  /**
   * Declared secrets sent as the credential: in the Authorization header (an API key, or a Basic pair), or an
   * API key in a named header, query parameter or cookie. A list when the upstream wants several at once.
   */
  auth?: SecretAuth | SecretAuth[];
}

/**
 * `{ secret, scheme }` sends `Authorization: <scheme> <value>` (scheme default Bearer);
 * `{ scheme: 'Basic', secrets: [user, password] }` sends `Authorization: Basic base64(user:password)`.
 */
export type SecretAuth = KeyAuth | BasicAuth | PlacedKeyAuth;

export interface KeyAuth {
  /** Key of a secret the tool declares. */
  secret: string;
  /** Default: Bearer. */
  scheme?: string;
}

/** `{ secret, in, name }` sends the secret as it is in the header, query parameter or cookie `name`. */
export interface PlacedKeyAuth {
  secret: string;
  in: 'header' | 'query' | 'cookie';
  name: string;
}

export interface BasicAuth {
  scheme: 'Basic';
  /** Keys of the two declared secrets that are the user name and the password, in that order. */
  secrets: [user: string, password: string];
}

export interface SecretRequirement {
  key: string;
  /** A setting with a default: the tool works without it. */
  optional?: boolean;
}

export interface Requirements {
  oauth2?: { provider: string; scopes: string[] };
  /** Secrets the tool reads; only these are given to it. */
  secrets?: SecretRequirement[];
}

/** MCP tool annotations; derived from the HTTP method unless a tool sets them. */
export interface Annotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolData {
  name: string;
  /**
   * A short sentence-case label for people ("Create an issue"), served as MCP `title` for clients to show:
   * a display field, not text for the model (the provider formats leave it out).
   */
  title?: string;
  description: string;
  parameters: Parameter[];
  output: { description: string; schema?: JsonSchema };
  requirements: Requirements;
  /** How the tool reaches its upstream; absent for tools that are all handler (or served by a remote worker). */
  http?: HttpBinding;
  /** Present on mode-driven tools: the request body the model writes itself. */
  requestBody?: { contentType: string; schema: JsonSchema };
  annotations?: Partial<Annotations>;
  /** Words the tool is grouped by (an OpenAPI operation's tags): indexed for search, never served. */
  tags?: string[];
}

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
    ...(data.icon !== undefined && { icon: data.icon }),
  };
  const tools = data.tools.map((tool): Tool => ({ ...tool, toolkit: info, handler: handlers[tool.name] }));
  for (const name of Object.keys(handlers)) {
    if (!tools.some((tool) => tool.name === name)) throw new Error(`${data.name}: handler for unknown tool ${name}`);
  }
  return { ...info, baseUrl: data.baseUrl, tools };
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
