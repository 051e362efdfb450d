/** Builds the upstream HTTP request from a tool's binding and its (valid) input. */
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
export function buildRequest(tool: ToolData & { http: HttpBinding }, input: Record<string, unknown>, baseUrl: string, requestBody?: unknown): UpstreamRequest {
  let path = tool.http.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = { ...tool.http.headers };
  let body: Record<string, unknown> | undefined;

  for (const parameter of tool.parameters) {
    const value = input[parameter.name];
    if (value === undefined || value === null || parameter.in === undefined) continue;
    const name = parameter.upstream ?? parameter.name;
    switch (parameter.in) {
      case 'path':
        path = path.replace(`{${name}}`, encodeURIComponent(scalar(value)));
        break;
      case 'query': {
        const items = Array.isArray(value) ? value : [value];
        // An empty list is no value at all, in either form.
        if (!items.length) break;
        if (parameter.explode === false) query.append(name, items.map(scalar).join(','));
        else for (const item of items) query.append(name, scalar(item));
        break;
      }
      case 'header':
        headers[name.toLowerCase()] = scalar(value);
        break;
      case 'body':
        setDotted((body ??= {}), name, value);
        break;
    }
  }

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
    node = (next && typeof next === 'object' ? next : (node[key] = {})) as Record<string, unknown>;
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
