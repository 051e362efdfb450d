/**
 * The one place upstream requests are built, for catalog tools and toolkit code alike: every value put in
 * a path is encoded and must fill exactly one segment, every placeholder must be filled, no header value
 * may hold what a header cannot carry, and no text may hold a lone surrogate. A value that breaks any of
 * these is refused before anything is sent. (Control characters in path and query values are
 * percent-encoded like any other character a URL cannot hold as it is: they cannot break the request.)
 */
import { toolError, type ToolError } from './errors.js';
import { randomUUID } from 'node:crypto';
import type { HttpBinding, HttpMethod, SecretAuth, ToolData } from './tool-data.js';
import { pointerToPath } from './validation.js';

export interface UpstreamRequest {
  method: HttpMethod;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /**
   * The path as the catalog writes it, placeholders unfilled (`/repos/{owner}/{repo}`): what telemetry names
   * the request by, since the filled path and the query may hold anything a caller put there.
   */
  template?: string;
  /** The path parameters by the tool's names and the values the call gave them: what a 404 says was not found. */
  pathArguments?: Record<string, string>;
}

/**
 * Places each given parameter where its binding says. `requestBody`, when given, is the whole body
 * (mode-driven tools); otherwise the body is assembled from the body parameters.
 */
export function buildRequest(
  tool: ToolData & { http: HttpBinding },
  input: Record<string, unknown>,
  baseUrl: string,
  requestBody?: unknown,
): UpstreamRequest | { error: ToolError } {
  let path = tool.http.path;
  const problems: string[] = [];
  const query = new URLSearchParams();
  const headers: Record<string, string> = { ...tool.http.headers };
  const cookies: string[] = [];
  const pathArguments: Record<string, string> = {};
  let body: Record<string, unknown> | undefined;

  for (const parameter of tool.parameters) {
    const value = input[parameter.name];
    if (value === undefined || value === null || parameter.in === undefined) continue;
    const name = parameter.upstream ?? parameter.name;
    switch (parameter.in) {
      case 'path': {
        const segment = scalar(value);
        if (unsafeSegments.has(segment)) problems.push(`parameter '${parameter.name}' ${unsafeSegmentProblem}`);
        // encodeURIComponent throws on a lone surrogate: such a value is refused below, so the path is never sent.
        path = path.replace(`{${name}}`, loneSurrogate.test(segment) ? '' : encodeURIComponent(segment));
        pathArguments[parameter.name] = segment;
        break;
      }
      case 'query': {
        const items = Array.isArray(value) ? value : [value];
        // An empty list is no value at all, in either form.
        if (!items.length) break;
        // An object (an item of an array of objects) goes as its JSON text, one key per item like any other
        // item (`filter={"scope":"enterprise"}`). OpenAPI defines no form for it; APIs that take structured
        // query values mostly ask for JSON text, which keeps nesting and types, where bracket forms
        // (`filter[0][scope]=...`) are spelt differently by each server framework. The emulator reads it back so.
        if (parameter.explode === false) query.append(name, items.map(scalar).join(','));
        else for (const item of items) query.append(name, scalar(item));
        break;
      }
      case 'header': {
        const text = scalar(value);
        const problem = headerValueProblem(text);
        if (problem) problems.push(`parameter '${parameter.name}' ${problem}`);
        headers[name.toLowerCase()] = text;
        break;
      }
      case 'cookie': {
        const text = scalar(value);
        const problem = headerValueProblem(text);
        if (problem) problems.push(`parameter '${parameter.name}' ${problem.replace('an HTTP header', 'a cookie')}`);
        cookies.push(`${name}=${encodeURIComponent(text)}`);
        break;
      }
      case 'body':
        body ??= {};
        // A dotted upstream name places the value in a nested object (`author.email`); a parameter's own
        // name, with no upstream beside it, is the field's name as it stands (a form field `truststore.p12`).
        if (parameter.upstream === undefined) body[name] = value;
        else setDotted(body, name, value);
        break;
    }
    // Headers say what is wrong with their value above; anywhere else, a lone surrogate is named here.
    const broken = parameter.in === 'header' || parameter.in === 'cookie' ? undefined : loneSurrogateAt(value);
    if (broken !== undefined) problems.push(`parameter '${pointerToPath(`/${parameter.name}${broken}`)}' ${loneSurrogateProblem}`);
  }
  const brokenBody = requestBody === undefined ? undefined : loneSurrogateAt(requestBody);
  if (brokenBody !== undefined) problems.push(`parameter '${pointerToPath(`/request_body${brokenBody}`)}' ${loneSurrogateProblem}`);

  // Most paths are filled by now: the search for a placeholder left unfilled is only made where a brace is left.
  if (path.includes('{')) {
    for (const [, placeholder] of path.matchAll(/\{([^}]+)\}/g)) {
      const parameter = tool.parameters.find((p) => p.in === 'path' && (p.upstream ?? p.name) === placeholder);
      problems.push(`parameter '${parameter?.name ?? placeholder}' is required: it fills {${placeholder}} in the URL path`);
    }
  }
  if (problems.length) return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `Invalid input for ${tool.name}: ${problems.join('; ')}.`);

  if (cookies.length) headers.cookie = [headers.cookie, ...cookies].filter(Boolean).join('; ');
  const search = query.size ? `?${query}` : '';
  const request: UpstreamRequest = {
    method: tool.http.method,
    url: joinUrl(baseUrl, path) + search,
    headers,
    template: tool.http.path,
    ...(Object.keys(pathArguments).length && { pathArguments }),
  };
  const content = requestBody ?? body ?? (tool.http.bodyRequired ? {} : undefined);
  if (content !== undefined) {
    const contentType = tool.requestBody?.contentType ?? tool.http.contentType ?? 'application/json';
    if (contentType.startsWith('multipart/form-data')) {
      const boundary = `quiver-${randomUUID()}`;
      headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
      request.body = encodeMultipart(content, boundary, fileFields(tool));
    } else {
      headers['content-type'] = contentType;
      request.body = encodeBody(content, contentType);
    }
  }
  return request;
}

/**
 * Puts the credentials of a secret-based binding on a built request: `Authorization` (an API key with its
 * scheme, or a Basic pair) unless the request has one already (a token, or a header parameter), and keys
 * placed in a named header, query parameter or cookie. A credential whose secrets are unset is left out.
 */
export function placeCredentials(request: UpstreamRequest, auth: SecretAuth | SecretAuth[], secrets: Record<string, string>): void {
  for (const item of Array.isArray(auth) ? auth : [auth]) {
    if ('in' in item) {
      const key = secrets[item.secret];
      if (!key) continue;
      if (item.in === 'header') request.headers[item.name.toLowerCase()] ??= key;
      else if (item.in === 'cookie') {
        request.headers.cookie = [request.headers.cookie, `${item.name}=${encodeURIComponent(key)}`].filter(Boolean).join('; ');
      } else {
        const url = new URL(request.url);
        url.searchParams.set(item.name, key);
        request.url = url.toString();
      }
      continue;
    }
    const credential = authorizationOf(item, secrets);
    // An Authorization header parameter (a credential passed with the call, such as a user's JWT) takes precedence.
    if (credential && request.headers.authorization === undefined) request.headers.authorization = credential;
  }
}

/** The Authorization value of a key or Basic binding, or undefined while a secret it needs is unset. */
function authorizationOf(auth: Exclude<SecretAuth, { in: string }>, secrets: Record<string, string>): string | undefined {
  if ('secrets' in auth) {
    const [user, password] = auth.secrets.map((key) => secrets[key]);
    return user && password ? `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` : undefined;
  }
  const key = secrets[auth.secret];
  return key ? `${auth.scheme ?? 'Bearer'} ${key}` : undefined;
}

/** Body fields that are files (`format: binary`): sent as file parts, with a file name. */
function fileFields(tool: ToolData): Set<string> {
  const names = new Set<string>();
  for (const parameter of tool.parameters) {
    if (parameter.in === 'body' && parameter.schema.format === 'binary') names.add(parameter.upstream ?? parameter.name);
  }
  const properties = (tool.requestBody?.schema.properties ?? {}) as Record<string, { format?: unknown }>;
  for (const [name, schema] of Object.entries(properties)) if (schema?.format === 'binary') names.add(name);
  return names;
}

/** multipart/form-data (RFC 7578): one part per field, an array as one part per item, objects as JSON parts. */
function encodeMultipart(content: unknown, boundary: string, files: Set<string>): string {
  const fields = content && typeof content === 'object' && !Array.isArray(content) ? Object.entries(content) : [['body', content] as const];
  const parts: string[] = [];
  const quoted = (text: string) => text.replace(/["\r\n]/g, (character) => encodeURIComponent(character));
  for (const [name, value] of fields) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === undefined || item === null) continue;
      const disposition = `form-data; name="${quoted(name)}"${files.has(name) ? `; filename="${quoted(name)}"` : ''}`;
      const type = files.has(name) ? 'application/octet-stream' : typeof item === 'object' ? 'application/json' : 'text/plain; charset=utf-8';
      parts.push(`--${boundary}\r\ncontent-disposition: ${disposition}\r\ncontent-type: ${type}\r\n\r\n${scalar(item)}\r\n`);
    }
  }
  return `${parts.join('')}--${boundary}--\r\n`;
}

/** A path value fills one URL segment; these would drop or climb a segment and so call another operation. */
export const unsafeSegments = new Set(['', '.', '..']);
export const unsafeSegmentProblem = "must not be empty, '.' or '..' (it is a segment of the URL path)";

/** In Unicode mode a pair is one code point, so only a surrogate without its other half matches. */
const loneSurrogate = /\p{Cs}/u;

/**
 * What a header value may not hold, or undefined: anything but printable ASCII and tab. CR or LF would end
 * the header and start another (header injection), NUL cuts it short, the HTTP client refuses other
 * control characters, and a character beyond ASCII arrives as bytes whose encoding the upstream has to guess.
 */
export function headerValueProblem(text: string): string | undefined {
  const [character] = /[^\t\x20-\x7e]/u.exec(text) ?? [];
  if (character === undefined) return undefined;
  const code = `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  const what =
    character === '\r' || character === '\n'
      ? 'a line break (CR, LF)'
      : character === '\0'
        ? 'a NUL character'
        : /\p{Cc}/u.test(character)
          ? `a control character (${code})`
          : loneSurrogate.test(character)
            ? `a lone surrogate (${code})`
            : `'${character}' (${code}), which is not ASCII`;
  return `must be printable ASCII (it is sent as an HTTP header), not ${what}`;
}

/**
 * Half of a UTF-16 surrogate pair without the other half is not text: it has no UTF-8 form, so it can be
 * neither percent-encoded nor sent in a body as the caller meant it.
 */
export const loneSurrogateProblem = 'contains a lone surrogate (an unpaired UTF-16 code unit), which is not text: send well-formed Unicode';

/**
 * Where a string or key holding a lone surrogate sits in `value`: a JSON pointer below it ('' for the
 * value itself, or the object whose key it is), or undefined when there is none. Walks without recursion.
 */
export function loneSurrogateAt(value: unknown): string | undefined {
  const pending: Array<[unknown, string]> = [[value, '']];
  while (pending.length) {
    const [node, pointer] = pending.pop()!;
    if (typeof node === 'string') {
      if (loneSurrogate.test(node)) return pointer;
    } else if (node && typeof node === 'object') {
      const entries = Object.entries(node);
      if (entries.some(([key]) => loneSurrogate.test(key))) return pointer;
      // Reversed onto the stack, so that the first offending item in order is the one named.
      for (const [key, item] of entries.reverse()) pending.push([item, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`]);
    }
  }
  return undefined;
}

function scalar(value: unknown): string {
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** `author.email` places the value at body.author.email. */
function setDotted(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const keys = dotted.split('.');
  const last = keys.pop()!;
  let node = target;
  for (const key of keys) {
    const next = node[key];
    if (!next || typeof next !== 'object') node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[last] = value;
}

function encodeBody(content: unknown, contentType: string): string {
  if (contentType.startsWith('application/json') || contentType.endsWith('+json')) return JSON.stringify(content);
  if (contentType.startsWith('application/x-www-form-urlencoded')) {
    const form = new URLSearchParams();
    // An array is one field per item (`tag=a&tag=b`), as OpenAPI's default form style sends it.
    for (const [key, value] of Object.entries(content as Record<string, unknown>)) {
      for (const item of Array.isArray(value) ? value : [value]) form.append(key, scalar(item));
    }
    return form.toString();
  }
  // Raw bodies (text/plain, octet-stream): a single body field carries the whole payload.
  if (typeof content === 'string') return content;
  const values = Object.values(content as Record<string, unknown>);
  return values.length === 1 ? scalar(values[0]) : JSON.stringify(content);
}

/** Joins without doubling or dropping the slash between base and path; keeps the base's own path. */
export function joinUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`);
}
