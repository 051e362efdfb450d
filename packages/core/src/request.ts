/**
 * The one place upstream requests are built, for catalog tools and toolkit code alike: every value put in
 * a path is encoded and must fill exactly one segment, every placeholder must be filled, and no header
 * value may end the header early. A value that breaks any of these is refused before anything is sent.
 */
import { toolError, type ToolError } from './errors.js';
import type { HttpBinding, HttpMethod, ToolData } from './tool.js';

export interface UpstreamRequest {
  method: HttpMethod;
  url: string;
  headers: Record<string, string>;
  body?: string;
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
  let body: Record<string, unknown> | undefined;

  for (const parameter of tool.parameters) {
    const value = input[parameter.name];
    if (value === undefined || value === null || parameter.in === undefined) continue;
    const name = parameter.upstream ?? parameter.name;
    switch (parameter.in) {
      case 'path': {
        const segment = scalar(value);
        if (unsafeSegments.has(segment)) problems.push(`parameter '${parameter.name}' ${unsafeSegmentProblem}`);
        path = path.replace(`{${name}}`, encodeURIComponent(segment));
        break;
      }
      case 'query': {
        const items = Array.isArray(value) ? value : [value];
        // An empty list is no value at all, in either form.
        if (!items.length) break;
        if (parameter.explode === false) query.append(name, items.map(scalar).join(','));
        else for (const item of items) query.append(name, scalar(item));
        break;
      }
      case 'header': {
        const text = scalar(value);
        if (unsafeHeaderValue.test(text)) problems.push(`parameter '${parameter.name}' ${unsafeHeaderProblem}`);
        headers[name.toLowerCase()] = text;
        break;
      }
      case 'body':
        body ??= {};
        setDotted(body, name, value);
        break;
    }
  }

  for (const [, placeholder] of path.matchAll(/\{([^}]+)\}/g)) {
    const parameter = tool.parameters.find((p) => p.in === 'path' && (p.upstream ?? p.name) === placeholder);
    problems.push(`parameter '${parameter?.name ?? placeholder}' is required: it fills {${placeholder}} in the URL path`);
  }
  if (problems.length) return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `Invalid input for ${tool.name}: ${problems.join('; ')}.`);

  const search = query.size ? `?${query}` : '';
  const request: UpstreamRequest = { method: tool.http.method, url: joinUrl(baseUrl, path) + search, headers };
  const content = requestBody ?? body ?? (tool.http.bodyRequired ? {} : undefined);
  if (content !== undefined) {
    const contentType = tool.requestBody?.contentType ?? tool.http.contentType ?? 'application/json';
    headers['content-type'] = contentType;
    request.body = encodeBody(content, contentType);
  }
  return request;
}

/** A path value fills one URL segment; these would drop or climb a segment and so call another operation. */
export const unsafeSegments = new Set(['', '.', '..']);
export const unsafeSegmentProblem = "must not be empty, '.' or '..' (it is a segment of the URL path)";

/** CR or LF would end the header and start another (header injection); NUL cuts it short. */
export const unsafeHeaderValue = /[\r\n\0]/;
export const unsafeHeaderProblem = 'must not contain a line break (CR, LF) or a NUL character (it is sent as an HTTP header)';

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
    for (const [key, value] of Object.entries(content as Record<string, unknown>)) form.append(key, scalar(value));
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
