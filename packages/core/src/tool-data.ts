/**
 * A tool's data as a catalog holds it: its parameters, its upstream binding, what it requires. Plain types
 * that import nothing, so that the request builder and the upstream client can read them without depending
 * on the tool model (tool.ts), which depends on them through the tool context.
 */
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
