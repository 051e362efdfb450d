/**
 * An OpenAPI 3.x document (bundled: internal references only) as a toolkit: one tool per operation, or a
 * named reason why not. Rules: names from operationId or method and path; short plain descriptions;
 * path, query, header and cookie parameters with their JSON Schema; a flat JSON (or form, or multipart)
 * object body as parameters, any other body as a mode-driven tool; credentials from securitySchemes; the
 * first server as the base URL; paging parameters and Link headers marked for the paging notes.
 */
import type { HttpBinding, HttpMethod, Parameter, ParameterLocation, Requirements, SecretAuth, ToolData, ToolkitData } from '@quiver/core';
import { BrokenReference, SchemaConverter, isSimple } from './schema.js';
import { isNode, modeParameters, type Node } from './shapes.js';
import { operationWords, pascalCase, plainText, screamingSnake, shorten, wordCount } from './text.js';

export interface AuthProviderManifest {
  id: string;
  authorizeUrl?: string;
  tokenUrl?: string;
  /** OpenID Connect: where the provider's settings are discovered. */
  openIdConnectUrl?: string;
  scopes: string[];
}

/** toolkit.json: what the catalog does not hold. */
export interface ToolkitManifest {
  source: string;
  authProviders?: AuthProviderManifest[];
  /**
   * The digest (`catalogDigest`) of the catalog.json that passed the strict catalog checks when it was
   * written: a loader need not check those bytes again (compiling 10,000 tools' schemas takes seconds).
   */
  checked?: string;
}

export interface MadeTool {
  tool: string;
  method: string;
  path: string;
  operationId?: string;
  kind: 'parameters' | 'mode-driven';
  auth: string;
}

export interface SkippedOperation {
  method: string;
  path: string;
  operationId?: string;
  reason: string;
}

export interface Conversion {
  toolkit: ToolkitData;
  manifest: ToolkitManifest;
  made: MadeTool[];
  skipped: SkippedOperation[];
  /** What the reader should know: renamed tools, server variables, cut schemas, ... */
  notes: string[];
}

export interface ConvertOptions {
  /** The toolkit's name (PascalCase). */
  name: string;
  /** The document's path or URL as given (toolkit.json's source; relative servers resolve against a URL). */
  source: string;
}

/** Tool descriptions stay within this many characters, parameters' within PARAMETER_TEXT, titles within TITLE_TEXT. */
export const TOOL_TEXT = 400;
export const TITLE_TEXT = 80;
export const PARAMETER_TEXT = 200;
/** A JSON object body with more fields than this is a mode-driven tool (a long parameter list costs tokens). */
export const FLAT_BODY_FIELDS = 15;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;
/**
 * Header parameters a tool never takes: those OpenAPI says to ignore (the binding and the credentials set
 * them), and those HTTP itself sets from the request (a model's value could only contradict it).
 */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization', 'content-length', 'host', 'transfer-encoding', 'connection']);
/** Query parameters that page results, by upstream name (compared without case, `_` or `-`). */
const PAGING =
  /^\$?(page|pagenumber|pageno|pagetoken|pagesize|perpage|pagecursor|cursor|nextcursor|nexttoken|continuationtoken|continuation|offset|limit|after|before|startingafter|endingbefore|startcursor|marker|skip|top|since)$/;

type Preference = { test: (type: string) => boolean; kind: 'json' | 'form' | 'multipart' | 'text' };
const BODY_TYPES: Preference[] = [
  { test: (type) => /^application\/(.+\+)?json\b/.test(type) || type === '*/*', kind: 'json' },
  { test: (type) => type.startsWith('application/x-www-form-urlencoded'), kind: 'form' },
  { test: (type) => type.startsWith('multipart/form-data'), kind: 'multipart' },
  { test: (type) => type.startsWith('text/plain') || type === 'application/octet-stream' || type.startsWith('text/'), kind: 'text' },
];

class Skip extends Error {}

export function convertDocument(document: Node, options: ConvertOptions): Conversion {
  return new Converter(document, options).run();
}

interface Security {
  requirements: Requirements;
  auth?: SecretAuth | SecretAuth[];
  label: string;
}

class Converter {
  private readonly schemas: SchemaConverter;
  private readonly made: MadeTool[] = [];
  private readonly skipped: SkippedOperation[] = [];
  private readonly notes: string[] = [];
  private readonly names = new Set<string>();
  private readonly providers = new Map<string, AuthProviderManifest>();
  private readonly secretPrefix: string;
  private readonly baseUrl: string;

  constructor(
    private readonly document: Node,
    private readonly options: ConvertOptions,
  ) {
    this.schemas = new SchemaConverter(document);
    this.secretPrefix = screamingSnake(options.name);
    this.baseUrl = this.serverUrl(document.servers, 'the document');
  }

  run(): Conversion {
    const tools: ToolData[] = [];
    const paths = isNode(this.document.paths) ? this.document.paths : {};
    for (const [path, rawItem] of Object.entries(paths)) {
      let item: Node;
      try {
        item = this.schemas.resolve(rawItem).node;
      } catch (error) {
        this.skipped.push({ method: '*', path, reason: (error as Error).message });
        continue;
      }
      for (const method of METHODS) {
        const operation = item[method];
        if (!isNode(operation)) continue;
        const where = { method: method.toUpperCase(), path, ...(typeof operation.operationId === 'string' && { operationId: operation.operationId }) };
        try {
          tools.push(this.tool(method, path, item, operation));
        } catch (error) {
          // One operation's broken reference costs that operation, as anything else it cannot be made with.
          if (!(error instanceof Skip || error instanceof BrokenReference)) throw error;
          this.skipped.push({ ...where, reason: error.message });
        }
      }
    }
    const webhooks = isNode(this.document.webhooks) ? Object.keys(this.document.webhooks).length : 0;
    if (webhooks) this.notes.push(`${webhooks} webhook(s) are requests the API sends, not operations: no tools for them.`);
    if (this.schemas.cycles.size) {
      this.notes.push(`Schemas that contain themselves were cut at the repetition to an open value: ${[...this.schemas.cycles].join(', ')}.`);
    }
    const info = isNode(this.document.info) ? this.document.info : {};
    const title = plainText(info.title) || this.options.name;
    const about = shorten(plainText(info.description), 300);
    const description = shorten(`${title}${about ? `: ${about}` : ''}`, TOOL_TEXT);
    const version = typeof info.version === 'string' && info.version.trim() ? info.version.trim() : '1.0.0';
    const toolkit: ToolkitData = { name: this.options.name, version, description, baseUrl: this.baseUrl, tools };
    const manifest: ToolkitManifest = { source: this.options.source };
    if (this.providers.size) manifest.authProviders = [...new Set(this.providers.values())];
    return { toolkit, manifest, made: this.made, skipped: this.skipped, notes: this.notes };
  }

  private tool(method: (typeof METHODS)[number], path: string, item: Node, operation: Node): ToolData {
    if (method === 'options' || method === 'trace')
      throw new Skip(`${method.toUpperCase()} is not a method tools call (the runtime sends GET, HEAD, POST, PUT, PATCH, DELETE)`);
    const httpMethod = method.toUpperCase() as HttpMethod;
    const name = this.name(operation.operationId, httpMethod, path);
    // A fragment (`/files/{id}#add_shared_link`) tells operations of one path apart in the document; it is never sent.
    const http: HttpBinding = { method: httpMethod, path: this.pathOn(item, operation, path).replace(/#.*$/, '') };
    const security = this.security(operation);

    const used = new Set<string>();
    const parameters: Parameter[] = [];
    const pagingNames: string[] = [];
    for (const parameter of this.parametersOf(item, operation)) {
      const placed = this.parameter(parameter, used, path);
      for (const one of placed) {
        parameters.push(one);
        if (one.paging) pagingNames.push(one.name);
      }
    }
    // A placeholder of the path the document declares no parameter for: a required string, as OpenAPI has every path parameter.
    for (const [, placeholder] of path.replace(/#.*$/, '').matchAll(/\{([\w.-]+)\}/g)) {
      if (path.includes('?') || parameters.some((parameter) => parameter.in === 'path' && parameter.upstream === placeholder)) continue;
      parameters.push(this.placed(placeholder!, 'path', { type: 'string' }, true, '', used));
      this.notes.push(`${httpMethod} ${path}: the path parameter ${placeholder} is not declared; it is taken as a string.`);
    }

    let requestBody: ToolData['requestBody'];
    let kind: MadeTool['kind'] = 'parameters';
    if (operation.requestBody !== undefined) {
      const body = this.body(operation.requestBody, name, used);
      // An optional body that can hold nothing (a closed object without fields, as Stripe's reads declare) is no body.
      if (body && !(body.empty && !body.required)) {
        if ((httpMethod === 'GET' || httpMethod === 'HEAD') && body) throw new Skip(`a ${httpMethod} request with a body, which HTTP clients do not send`);
        http.contentType = body.contentType;
        if (body.mode) {
          kind = 'mode-driven';
          requestBody = { contentType: body.contentType, schema: body.schema! };
          // Mode-driven tools check their placed parameters when they execute, as the built-in ones do.
          for (const parameter of parameters) parameter.required = false;
          parameters.unshift(modeParameters.mode);
          parameters.push(modeParameters.request_body);
        } else {
          parameters.push(...body.parameters);
          if (body.required && !body.parameters.some((parameter) => parameter.required)) http.bodyRequired = true;
        }
      }
    }
    if (security.auth) http.auth = security.auth;

    const links = this.linkPaging(operation);
    const description = this.description(operation, httpMethod, path, pagingNames, links);
    const tool: ToolData & { tags?: string[] } = {
      name,
      title: this.title(operation, httpMethod, path),
      description,
      parameters,
      output: { description: this.outputDescription(operation) },
      requirements: security.requirements,
      http,
      ...(requestBody && { requestBody }),
    };
    if (Array.isArray(operation.tags) && operation.tags.length) tool.tags = operation.tags.filter((tag): tag is string => typeof tag === 'string');
    if (operation.deprecated === true) {
      tool.description = shorten(`Deprecated. ${tool.description}`, TOOL_TEXT);
      tool.title = `${tool.title} (deprecated)`;
    }
    this.made.push({
      tool: name,
      method: httpMethod,
      path,
      ...(typeof operation.operationId === 'string' && { operationId: operation.operationId }),
      kind,
      auth: security.label,
    });
    return tool;
  }

  /**
   * PascalCase from the operationId, else from method and path; unique (without regard to case); short
   * enough that the name a model calls, `Toolkit_Tool`, stays within 64 characters.
   */
  private name(operationId: unknown, method: HttpMethod, path: string): string {
    const max = 63 - this.options.name.length;
    let base = typeof operationId === 'string' ? pascalCase(operationId) : '';
    if (!base) {
      const segments = path
        .split('/')
        .filter(Boolean)
        .map((segment) => {
          const variable = /^\{(.+)\}$/.exec(segment);
          return variable ? `By${pascalCase(variable[1]!)}` : pascalCase(segment);
        });
      base = `${pascalCase(method.toLowerCase())}${segments.join('') || 'Root'}`;
    }
    if (!/^[A-Za-z]/.test(base)) base = `Op${base}`;
    const whole = base;
    base = base.slice(0, max);
    let name = base;
    for (let n = 2; this.names.has(name.toLowerCase()); n++) name = `${base.slice(0, max - String(n).length)}${n}`;
    if (name !== base || whole.length > max) {
      this.notes.push(
        `${method} ${path} is named ${name}${name !== base ? ` (${base} was taken)` : ` (cut to ${max} characters, so that ${this.options.name}_${name} is within 64)`}.`,
      );
    }
    this.names.add(name.toLowerCase());
    return name;
  }

  /** Path and operation parameters, the operation's replacing the path's of the same name and place. */
  private parametersOf(item: Node, operation: Node): Node[] {
    const byKey = new Map<string, Node>();
    for (const raw of [...asList(item.parameters), ...asList(operation.parameters)]) {
      const parameter = this.schemas.resolve(raw).node;
      // A parameter without a name cannot be sent: it is no parameter.
      if (typeof parameter.name !== 'string' || !parameter.name.trim() || typeof parameter.in !== 'string') continue;
      byKey.set(`${parameter.in}:${parameter.name}`, parameter);
    }
    return [...byKey.values()];
  }

  private parameter(source: Node, used: Set<string>, path: string): Parameter[] {
    const location = source.in as string;
    const upstream = source.name as string;
    if (!['path', 'query', 'header', 'cookie'].includes(location)) throw new Skip(`parameter ${upstream} is in '${location}', which is no place in OpenAPI 3`);
    if (location === 'header' && IGNORED_HEADERS.has(upstream.toLowerCase())) return [];
    const content = isNode(source.content) ? Object.values(source.content).find(isNode) : undefined;
    const schema = this.schemas.convert(source.schema ?? content?.schema ?? { type: 'string' }, { request: true });
    const required = location === 'path' || source.required === true;
    const style = typeof source.style === 'string' ? source.style : location === 'query' || location === 'cookie' ? 'form' : 'simple';
    const explode = source.explode === undefined ? style === 'form' : source.explode === true;

    // An object in the query (deepObject, or form exploded) is one parameter per field.
    const properties = isNode(schema.properties) ? (schema.properties as Record<string, Node>) : undefined;
    if (location === 'query' && properties && (style === 'deepObject' || (style === 'form' && explode)) && Object.values(properties).every(isSimple)) {
      const requiredFields = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
      return Object.entries(properties).map(([field, fieldSchema]) => {
        const fieldUpstream = style === 'deepObject' ? `${upstream}[${field}]` : field;
        return this.placed(fieldUpstream, 'query', fieldSchema, required && requiredFields.has(field), plainText(fieldSchema.description), used);
      });
    }
    if (location === 'path' && !path.includes(`{${upstream}}`)) return [];
    const text = plainText(source.description ?? schema.description);
    const { description: _, ...valueSchema } = schema;
    const parameter = this.placed(upstream, location as ParameterLocation, valueSchema, required, text, used);
    if (location === 'query' && (valueSchema.type === 'array' || (Array.isArray(valueSchema.type) && valueSchema.type.includes('array')))) {
      if (!explode) parameter.explode = false;
      if (style === 'spaceDelimited' || style === 'pipeDelimited') {
        this.notes.push(`${upstream}: ${style} arrays are sent comma-separated.`);
        parameter.explode = false;
      }
    }
    if (location === 'query' && PAGING.test(upstream.toLowerCase().replace(/[_-]/g, ''))) parameter.paging = true;
    if (source.deprecated === true) parameter.description = shorten(`Deprecated. ${parameter.description}`, PARAMETER_TEXT);
    return [parameter];
  }

  /** A parameter with a name a model can use (letters, digits, `_`, `.`, `-`), unique within the tool. */
  private placed(upstream: string, location: ParameterLocation, schema: Node, required: boolean, text: string, used: Set<string>): Parameter {
    const name = uniqueName(upstream, location, used);
    const { description: _, default: __, ...clean } = schema;
    const listed = listedValues(text, clean);
    if (listed) {
      clean.enum = listed.values;
      text = listed.text;
    }
    let description = shorten(text, PARAMETER_TEXT);
    if (wordCount(description) < 4) {
      const where = location === 'body' ? 'request body field' : `${location} parameter`;
      description = shorten(description ? `${description.replace(/[.\s]+$/, '')}: the ${upstream} ${where}.` : `The ${upstream} ${where}.`, PARAMETER_TEXT);
    }
    const parameter: Parameter = { name, description, required, schema: clean, in: location };
    if (name !== upstream || location !== 'body') parameter.upstream = upstream;
    return parameter;
  }

  private body(
    raw: unknown,
    toolName: string,
    used: Set<string>,
  ): { contentType: string; required: boolean; mode: boolean; empty?: boolean; schema?: Node; parameters: Parameter[] } | undefined {
    const body = this.schemas.resolve(raw).node;
    const content = isNode(body.content) ? body.content : {};
    const types = Object.keys(content);
    if (!types.length) return undefined;
    let chosen: [string, Preference['kind']] | undefined;
    for (const preference of BODY_TYPES) {
      const type = types.find((candidate) => preference.test(candidate.toLowerCase()));
      if (type) {
        chosen = [type, preference.kind];
        break;
      }
    }
    if (!chosen) throw new Skip(`the request body is only ${types.join(', ')}, which the runtime cannot encode`);
    const [mediaType, kind] = chosen;
    const contentType = mediaType === '*/*' ? 'application/json' : mediaType;
    const media = isNode(content[mediaType]) ? (content[mediaType] as Node) : {};
    const required = body.required === true;
    const schema = this.schemas.convert(media.schema ?? (kind === 'text' ? { type: 'string' } : {}), { request: true, close: true });
    const bodyText = plainText(body.description);

    if (kind === 'text') {
      const parameter = this.placed(
        'body',
        'body',
        { type: 'string', ...(schema.format === 'binary' && { format: 'binary' }) },
        required,
        bodyText || 'The request body, sent as it is.',
        used,
      );
      return { contentType, required, mode: false, parameters: [parameter] };
    }
    const properties = isNode(schema.properties) ? (schema.properties as Record<string, Node>) : undefined;
    const objectType = schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object'));
    const flat =
      objectType &&
      properties &&
      Object.keys(properties).length > 0 &&
      Object.keys(properties).length <= FLAT_BODY_FIELDS &&
      !schema.anyOf &&
      !schema.oneOf &&
      !schema.allOf &&
      !isNode(schema.additionalProperties) &&
      schema.additionalProperties !== true &&
      Object.values(properties).every(isSimple);
    // A closed object without fields: the only body it allows is {}.
    const empty =
      objectType && !Object.keys(properties ?? {}).length && schema.additionalProperties === false && !schema.anyOf && !schema.oneOf && !schema.allOf;
    if (flat) {
      const requiredFields = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
      const parameters = Object.entries(properties!).map(([field, fieldSchema]) =>
        this.placed(field, 'body', fieldSchema, required && requiredFields.has(field), plainText(fieldSchema.description), used),
      );
      return { contentType, required, mode: false, parameters };
    }
    const description = shorten(bodyText || schema.description?.toString() || `The request body of ${toolName}.`, PARAMETER_TEXT);
    const { description: _, ...rest } = schema;
    return { contentType, required, mode: true, ...(empty && { empty }), schema: { description, ...rest }, parameters: [] };
  }

  private description(operation: Node, method: HttpMethod, path: string, paging: string[], links: boolean): string {
    const summary = plainText(operation.summary).replace(/\.$/, '');
    const detail = plainText(operation.description);
    let text = summary ? `${summary}.` : '';
    if (detail && !detail.toLowerCase().startsWith(summary.toLowerCase() || '\u0000')) text = `${text} ${detail}`.trim();
    else if (detail && detail.length > summary.length + 1) text = detail;
    text = shorten(text, TOOL_TEXT - 120);
    if (wordCount(text) < 6) text = `${text ? `${text.replace(/\.$/, '')}: ` : 'Calls '}${method} ${path} of the ${this.options.name} API.`;
    if (links) text += ' Pages through results: each result tells the arguments of the next page.';
    else if (paging.length) text += ` Paged with ${paging.join(', ')}.`;
    return shorten(text, TOOL_TEXT);
  }

  /**
   * What a person sees for the tool in a client (MCP `title`): the operation's summary (its first sentence), the
   * document's own label for it; without one, its operationId in words (`listPets`: "List pets"), or else its method and path.
   */
  private title(operation: Node, method: HttpMethod, path: string): string {
    const text = plainText(operation.summary);
    const summary = shorten(text.match(/^.+?[.!?](?=\s+[A-Z])/)?.[0] ?? text, TITLE_TEXT).replace(/[.:;,\s]+$/, '');
    if (summary) return summary[0]!.toUpperCase() + summary.slice(1);
    const words = typeof operation.operationId === 'string' ? operationWords(operation.operationId) : '';
    return words || `${method} ${path.replace(/#.*$/, '')}`;
  }

  private outputDescription(operation: Node): string {
    const responses = isNode(operation.responses) ? operation.responses : {};
    const success = Object.keys(responses).find((status) => /^2/.test(status)) ?? (responses.default ? 'default' : undefined);
    const response = success ? this.schemas.resolve(responses[success]).node : {};
    const text = shorten(plainText(response.description), PARAMETER_TEXT);
    if (success === '204' || (response && !response.content && /^2/.test(success ?? ''))) return text || 'Nothing: the status code reports success.';
    return text || 'The response of the operation.';
  }

  /** A success response that sends a Link header pages with it (the runtime reads rel="next"). */
  private linkPaging(operation: Node): boolean {
    const responses = isNode(operation.responses) ? operation.responses : {};
    return Object.entries(responses).some(([status, raw]) => {
      if (!/^2/.test(status)) return false;
      const headers = this.schemas.resolve(raw).node.headers;
      return isNode(headers) && Object.keys(headers).some((header) => header.toLowerCase() === 'link');
    });
  }

  /** The operation's path; an operation or path served from a server below the toolkit's base URL gets its prefix. */
  private pathOn(item: Node, operation: Node, path: string): string {
    const servers = asList(operation.servers).length ? operation.servers : asList(item.servers).length ? item.servers : undefined;
    if (!servers) return path;
    const url = this.serverUrl(servers, path);
    if (url === this.baseUrl) return path;
    if (url.startsWith(this.baseUrl)) return `${url.slice(this.baseUrl.replace(/\/+$/, '').length).replace(/\/+$/, '')}${path}`;
    throw new Skip(`it is served from ${url}, not from the toolkit's base URL ${this.baseUrl}`);
  }

  /** The first server's URL with its variables' defaults; relative ones against the document's URL. */
  private serverUrl(servers: unknown, what: string): string {
    const server = asList(servers).find(isNode);
    let url = typeof server?.url === 'string' ? server.url : '/';
    const variables = isNode(server?.variables) ? server.variables : {};
    url = url.replace(/\{([^}]+)\}/g, (whole, variable: string) => {
      const spec = variables[variable];
      const value = isNode(spec) && spec.default !== undefined ? String(spec.default) : undefined;
      if (value === undefined) {
        this.notes.push(`Server variable ${variable} of ${what} has no default: set the base URL in the configuration.`);
        return whole;
      }
      if (what === 'the document')
        this.notes.push(`Server variable ${variable} is ${JSON.stringify(value)} (its default): the configuration may set another base URL.`);
      return value;
    });
    // A protocol-relative URL (`//host`, as a Swagger 2.0 host without schemes converts) is https, unless the document was read over http.
    if (url.startsWith('//')) url = `${/^http:/i.test(this.options.source) ? 'http' : 'https'}:${url}`;
    if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
      if (/^https?:\/\//i.test(this.options.source)) return new URL(url, this.options.source).toString().replace(/\/+$/, '');
      if (what === 'the document') this.notes.push(`The server URL ${url} is relative: set the toolkit's base URL in the configuration.`);
    }
    return url.replace(/\/+$/, '') || '/';
  }

  /** The first security alternative the runtime can send: OAuth 2 (and OpenID Connect) tokens, API keys, bearer and basic. */
  private security(operation: Node): Security {
    const alternatives = asList(operation.security ?? this.document.security);
    if (!alternatives.length) return { requirements: {}, label: 'none' };
    const problems: string[] = [];
    for (const alternative of alternatives) {
      if (!isNode(alternative)) continue;
      if (!Object.keys(alternative).length) return { requirements: {}, label: 'none (optional)' };
      try {
        return this.alternative(alternative);
      } catch (error) {
        if (!(error instanceof Skip)) throw error;
        problems.push(error.message);
      }
    }
    throw new Skip(`no credential the runtime can send: ${problems.join('; ')}`);
  }

  private alternative(alternative: Node): Security {
    const schemes = this.securitySchemes();
    const requirements: Requirements = {};
    const auth: SecretAuth[] = [];
    const labels: string[] = [];
    const secrets: NonNullable<Requirements['secrets']> = [];
    for (const [schemeName, scopes] of Object.entries(alternative)) {
      const scheme = schemes[schemeName];
      if (!scheme) throw new Skip(`security scheme ${schemeName} is not declared`);
      const type = String(scheme.type);
      const key = this.secretKey(schemeName);
      if (type === 'oauth2' || type === 'openIdConnect') {
        const scopeList = Array.isArray(scopes) ? scopes.map(String) : [];
        if (requirements.oauth2) {
          // Two flows of one authorization server (Google's implicit and code schemes, both required): one token does.
          if (this.knownProvider(schemeName, scheme) !== requirements.oauth2.provider) throw new Skip(`two OAuth schemes at once (${schemeName})`);
          this.provider(schemeName, scheme);
          requirements.oauth2.scopes = [...new Set([...requirements.oauth2.scopes, ...scopeList])];
          continue;
        }
        const provider = this.provider(schemeName, scheme);
        requirements.oauth2 = { provider, scopes: scopeList };
        labels.push(`OAuth 2 (${provider})`);
      } else if (type === 'apiKey') {
        const where = String(scheme.in);
        if (where !== 'header' && where !== 'query' && where !== 'cookie') throw new Skip(`API key ${schemeName} is in '${where}'`);
        auth.push({ secret: key, in: where, name: String(scheme.name) });
        secrets.push({ key });
        labels.push(`API key in ${where} ${String(scheme.name)} (${key})`);
      } else if (type === 'http' && /^bearer$/i.test(String(scheme.scheme))) {
        auth.push({ secret: key, scheme: 'Bearer' });
        secrets.push({ key });
        labels.push(`bearer token (${key})`);
      } else if (type === 'http' && /^basic$/i.test(String(scheme.scheme))) {
        const user = `${key}_USERNAME`;
        const password = `${key}_PASSWORD`;
        auth.push({ scheme: 'Basic', secrets: [user, password] });
        secrets.push({ key: user }, { key: password });
        labels.push(`basic (${user}, ${password})`);
      } else {
        throw new Skip(`security scheme ${schemeName} (${type}${scheme.scheme ? ` ${String(scheme.scheme)}` : ''}) is not one Quiver sends`);
      }
    }
    if (secrets.length) requirements.secrets = secrets;
    return { requirements, ...(auth.length && { auth: auth.length === 1 ? auth[0]! : auth }), label: labels.join(' and ') };
  }

  private securitySchemes(): Record<string, Node> {
    const components = isNode(this.document.components) ? this.document.components : {};
    const schemes = isNode(components.securitySchemes) ? components.securitySchemes : {};
    return Object.fromEntries(Object.entries(schemes).map(([name, scheme]) => [name, this.schemas.resolve(scheme).node]));
  }

  /** `PetStore` + `api_key` → `PET_STORE_API_KEY`; a scheme already named after the toolkit is not prefixed twice. */
  private secretKey(schemeName: string): string {
    const scheme = screamingSnake(schemeName) || 'KEY';
    return scheme.startsWith(this.secretPrefix) ? scheme : `${this.secretPrefix}_${scheme}`;
  }

  /**
   * The auth provider of an OAuth 2 scheme: the toolkit's lower-case name (then `-<scheme>` for further ones).
   * Schemes of one authorization server (the same authorize, token or discovery URL) are one provider.
   */
  private provider(schemeName: string, scheme: Node): string {
    const known = this.providers.get(schemeName);
    if (known) return known.id;
    const entry = providerEntry(scheme);
    const same = this.sameServer(entry);
    if (same) {
      for (const url of SERVER_URLS) if (entry[url] !== undefined) same[url] ??= entry[url];
      same.scopes = [...new Set([...same.scopes, ...entry.scopes])];
      this.providers.set(schemeName, same);
      return same.id;
    }
    const base = this.options.name.toLowerCase();
    entry.id = this.providers.size ? `${base}-${schemeName.toLowerCase().replace(/[^a-z0-9]+/g, '-')}` : base;
    this.providers.set(schemeName, entry);
    return entry.id;
  }

  /** The provider an OAuth 2 scheme is already, by name or by its server: none when it would be a new one. */
  private knownProvider(schemeName: string, scheme: Node): string | undefined {
    return (this.providers.get(schemeName) ?? this.sameServer(providerEntry(scheme)))?.id;
  }

  private sameServer(entry: AuthProviderManifest): AuthProviderManifest | undefined {
    return [...this.providers.values()].find((other) => SERVER_URLS.some((url) => entry[url] !== undefined && other[url] === entry[url]));
  }
}

const SERVER_URLS = ['authorizeUrl', 'tokenUrl', 'openIdConnectUrl'] as const;

/** A provider's endpoints and scopes from its scheme (its id is given when it is registered). */
function providerEntry(scheme: Node): AuthProviderManifest {
  const entry: AuthProviderManifest = { id: '', scopes: [] };
  if (scheme.type === 'openIdConnect' && typeof scheme.openIdConnectUrl === 'string') entry.openIdConnectUrl = scheme.openIdConnectUrl;
  const flows = isNode(scheme.flows) ? scheme.flows : {};
  // The authorization code flow is the one a user signs in with; the others give what it lacks.
  for (const flowName of ['authorizationCode', 'implicit', 'clientCredentials', 'password']) {
    const flow = flows[flowName];
    if (!isNode(flow)) continue;
    if (typeof flow.authorizationUrl === 'string') entry.authorizeUrl ??= flow.authorizationUrl;
    if (typeof flow.tokenUrl === 'string') entry.tokenUrl ??= flow.tokenUrl;
    if (isNode(flow.scopes)) entry.scopes = [...new Set([...entry.scopes, ...Object.keys(flow.scopes)])];
  }
  return entry;
}

/**
 * The values a string's description lists as its only ones (`One of: READER, WRITER or ANY.`), where the
 * schema has no enum: the enum a model fills it from, and the description without the list. None when the
 * list is not plain single-word values.
 */
function listedValues(text: string, schema: Node): { values: string[]; text: string } | undefined {
  if (schema.type !== 'string' || schema.enum !== undefined || schema.const !== undefined) return undefined;
  const match = /\bOne of:\s*(.+?)(?:\.(?=\s|$)|$)/.exec(text);
  if (!match) return undefined;
  const values = match[1]!.split(/\s*,\s*(?:or\s+)?|\s+or\s+/).filter(Boolean);
  if (values.length < 2 || !values.every((value) => /^[\w.:/-]+$/.test(value))) return undefined;
  const rest = `${text.slice(0, match.index)} ${text.slice(match.index + match[0].length)}`.replace(/\s+/g, ' ').trim();
  return { values: [...new Set(values)], text: rest };
}

function uniqueName(upstream: string, location: ParameterLocation, used: Set<string>): string {
  const clean = upstream.replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^_+|_+$/g, '') || location;
  let name = clean.slice(0, 64);
  if (used.has(name) || name === 'mode' || name === 'request_body') name = `${location}_${clean}`.slice(0, 64);
  for (let n = 2; used.has(name); n++) name = `${`${location}_${clean}`.slice(0, 60)}_${n}`;
  used.add(name);
  return name;
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
