/**
 * The HTTP layer every emulator shares: a loopback server that routes by an operation table,
 * validates each request before a service sees it, checks each answer against the table, and
 * records what it received so tests can assert what was (or was not) sent upstream.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { otherBodyKey, type Operation, type OperationTable } from './operations.js';
import { createRouter } from './router.js';
import { createValidator, type Issue } from './validation.js';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  /** Lower-cased names; the authorization header is left out. */
  headers: Record<string, string>;
  /** Parsed JSON when it parses, else the raw text; undefined when empty. */
  body: unknown;
}

export interface OperationCall {
  label: string;
  operation: Operation;
  /** The request path as sent. */
  path: string;
  /** The query string as sent, without the `?`. */
  search: string;
  /** URL-decoded, by upstream name. */
  params: Record<string, string>;
  /** By upstream name; an array parameter is always an array (see arraysAsDeclared), anything else its one value. */
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body: unknown;
}

export interface EmulatorResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A refusal by the shared layer; the service decides how it looks on the wire. */
export class EmulatorError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly issue?: Issue,
    /** The operation refused, once routing has found it. */
    readonly label?: string,
  ) {
    super(message);
  }
}

/** What a service may read besides the headers to decide who calls: the request as sent, and the operation it routes to. */
export interface AuthenticationRequest {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  /** The operation the request routes to; absent for an unknown path or method. */
  label?: string;
  operation?: Operation;
}

export interface EmulatorService<Principal> {
  operations: OperationTable;
  /** The loopback port to listen on; default: one the system picks. */
  port?: number;
  /**
   * Runs before the request is refused for its path, so every path demands credentials. Throws to refuse.
   * `request` says where the request goes (a service whose operations differ in their credentials reads it).
   */
  authenticate(headers: Record<string, string>, request: AuthenticationRequest): Principal;
  handle(call: OperationCall, principal: Principal): EmulatorResponse | Promise<EmulatorResponse>;
  /**
   * Renders an EmulatorError, or anything `authenticate` or `handle` threw, as the service's error;
   * `label` names the operation once routing has found it (some services shape errors by operation), and
   * `principal` the caller once authenticated.
   */
  renderError(error: unknown, label: string | undefined, principal?: Principal): EmulatorResponse;
}

export interface RunningEmulator {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startEmulator<Principal>(service: EmulatorService<Principal>): Promise<RunningEmulator> {
  const route = createRouter(service.operations.operations);
  const validator = createValidator(service.operations);
  const requests: RecordedRequest[] = [];

  async function respond(message: IncomingMessage): Promise<EmulatorResponse> {
    // The path is taken as sent: a URL parser would resolve "%2E%2E" as a dot segment and so reach
    // another operation, which no upstream server does.
    const target = message.url ?? '/';
    const queryStart = target.indexOf('?');
    const path = queryStart === -1 ? target : target.slice(0, queryStart);
    const search = queryStart === -1 ? '' : target.slice(queryStart + 1);
    const query = queryOf(new URLSearchParams(search));
    const headers = headersOf(message);
    const raw = await readText(message);
    requests.push({ method: message.method ?? 'GET', path, query, headers: withoutAuthorization(headers), body: parseLoosely(raw) });

    let label: string | undefined;
    let principal: Principal | undefined;
    try {
      const found = route(message.method ?? 'GET', path);
      const routed = found.kind === 'operation' ? { label: found.label, operation: found.operation } : {};
      principal = service.authenticate(headers, { method: message.method ?? 'GET', path, query, ...routed });
      if (found.kind === 'unknown-path') throw new EmulatorError(404, `no operation at ${path}`);
      if (found.kind === 'wrong-method') {
        throw new EmulatorError(405, `${message.method} is not allowed on ${path}; allowed: ${found.allowed.join(', ')}`);
      }
      label = found.label;
      /** The request read and checked as `choice` takes it; throws its refusal. */
      const accept = async (choice: { label: string; operation: Operation; params: Record<string, string> }) => {
        const refuse = (issue: Issue | undefined) => {
          if (issue) throw new EmulatorError(400, issue.message, issue, choice.label);
        };
        refuse(validator.path(choice.label, choice.params));
        const arrays = arraysAsDeclared(choice.label, choice.operation, query);
        refuse(validator.query(choice.label, arrays));
        const body = await bodyOf(choice.operation, headers['content-type'], raw).catch((error: unknown) => {
          throw error instanceof EmulatorError ? new EmulatorError(error.status, error.message, error.issue, choice.label) : error;
        });
        if (body !== undefined) refuse(validator.body(choice.label, body, mediaTypeOf(headers['content-type'])));
        return { ...choice, arrays, body };
      };
      let accepted: Awaited<ReturnType<typeof accept>> | undefined;
      try {
        accepted = await accept(found);
      } catch (error) {
        // Another operation on this method and path may take the request; else the first one's refusal stands.
        for (const alternative of found.alternatives ?? []) {
          accepted = await accept(alternative).catch(() => undefined);
          if (accepted) break;
        }
        if (!accepted) throw error;
      }
      const { operation, params, arrays, body } = accepted;
      label = accepted.label;

      const response = await service.handle({ label, operation, path, search, params, query: arrays, headers, body }, principal);
      return checkAnswer(label, operation, response);
    } catch (error) {
      return service.renderError(error, label, principal);
    }
  }

  /** What the service answered, as the client will read it; a success that breaks the table is a bug here. */
  function checkAnswer(label: string, operation: Operation, response: EmulatorResponse): EmulatorResponse {
    // Bytes (a file's content) go out as they are; anything else as the client will read it, through JSON.
    const bytes = response.body instanceof Uint8Array;
    const body = response.body === undefined || bytes ? response.body : JSON.parse(JSON.stringify(response.body));
    // 207 (a batch that partly failed) is no operation's documented success, so there is no schema to hold it to.
    if (response.status >= 300 || response.status === 207) return { ...response, body };
    const documented = response.status === operation.successStatus ? operation : operation.otherSuccesses?.[response.status];
    if (!documented) {
      const statuses = [operation.successStatus, ...Object.keys(operation.otherSuccesses ?? {})].join(', ');
      throw new Error(`emulator bug: ${label} answered ${response.status}; its success statuses are ${statuses}`);
    }
    if (!documented.responseBody && body !== undefined) throw new Error(`emulator bug: ${label} must answer ${response.status} without a body`);
    if (bytes && (documented.responseContentType === undefined || isJson(documented.responseContentType))) {
      throw new Error(`emulator bug: ${label} answered bytes where its table documents JSON`);
    }
    // Bytes stand for a binary string body (OpenAPI's format: binary); latin1 keeps one character per byte.
    const checked = bytes ? Buffer.from(body as Uint8Array).toString('latin1') : body;
    const problem = documented.responseBody && validator.response(label, checked, response.status);
    if (problem) throw new Error(`emulator bug: ${label} answered a body that breaks its schema: ${problem.message}`);
    const contentType = documented.responseContentType;
    return contentType && body !== undefined ? { ...response, body, headers: { 'content-type': contentType, ...response.headers } } : { ...response, body };
  }

  const server = createServer((message, reply) => {
    respond(message).then(
      (response) => send(reply, response),
      (error: unknown) => send(reply, { status: 500, body: { message: String(error) } }),
    );
  });
  // Node closes a connection idle for 5 s, and a client that sends on it as it closes reads ECONNRESET (a call that
  // is not retried, since it may have acted): a test that holds the process busy for seconds between two calls met
  // that. Real services keep idle connections far longer; so does an emulator.
  server.keepAliveTimeout = idleConnectionMs;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(service.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/**
 * The body an operation accepts, read by its content type: JSON (and `+json`), form fields
 * (urlencoded or multipart, as an object of strings), or the text itself (text/*, octet-stream).
 * Nothing when the operation takes no body, or takes an optional one and none was sent.
 */
async function bodyOf(operation: Operation, contentType: string | undefined, raw: string): Promise<unknown> {
  if (!operation.requestBody) {
    if (raw.length > 0)
      throw new EmulatorError(400, 'this operation takes no request body', { message: 'request body must be empty', in: 'body', code: 'UNEXPECTED_BODY' });
    return undefined;
  }
  if (raw.length === 0) {
    if (operation.requestBodyOptional) return undefined;
    throw new EmulatorError(400, 'request body is required', { message: 'request body is required', in: 'body', code: 'REQUIRED' });
  }
  const accepted = [operation.requestContentType ?? 'application/json', ...(operation.alternativeContentTypes ?? [])];
  const mediaType = mediaTypeOf(contentType);
  if (!mediaType || (!accepted.includes(mediaType) && otherBodyKey(operation, mediaType) === undefined)) {
    accepted.push(...Object.keys(operation.otherRequestBodies ?? {}));
    const expected = accepted.join(' or ');
    throw new EmulatorError(415, `content type must be ${expected}, got ${mediaType ?? 'none'}`, {
      message: `content-type must be ${expected}`,
      in: 'body',
      code: 'UNSUPPORTED_MEDIA_TYPE',
      field: 'content-type',
    });
  }
  if (isJson(mediaType)) {
    try {
      return JSON.parse(raw);
    } catch {
      throw new EmulatorError(400, 'request body is not valid JSON', { message: 'request body is not valid JSON', in: 'body', code: 'INVALID_JSON' });
    }
  }
  if (mediaType === 'application/x-www-form-urlencoded') return queryOf(new URLSearchParams(raw));
  if (mediaType === 'multipart/form-data') {
    const form = await new Response(raw, { headers: { 'content-type': contentType! } }).formData().catch(() => {
      throw new EmulatorError(400, 'request body is not valid multipart/form-data', {
        message: 'request body is not valid multipart/form-data',
        in: 'body',
        code: 'INVALID_VALUE',
      });
    });
    const fields: Record<string, string> = {};
    for (const [name, value] of form) fields[name] = typeof value === 'string' ? value : await value.text();
    return fields;
  }
  return raw;
}

const mediaTypeOf = (contentType: string | undefined) => contentType?.split(';')[0]?.trim().toLowerCase();

const isJson = (mediaType: string) => mediaType === 'application/json' || mediaType.endsWith('+json');

/** JSON unless the answer names another media type and carries text or bytes, which then go out as they are. */
function send(reply: ServerResponse, response: EmulatorResponse): void {
  const headers: Record<string, string> = { ...response.headers };
  const hasBody = response.body !== undefined && response.status !== 204;
  const bytes = hasBody && response.body instanceof Uint8Array;
  if (hasBody) headers['content-type'] ??= bytes ? 'application/octet-stream' : 'application/json;charset=utf-8';
  const asText = hasBody && typeof response.body === 'string' && !isJson(headers['content-type']!.split(';')[0]!.trim());
  reply.writeHead(response.status, headers);
  reply.end(hasBody ? (bytes ? (response.body as Uint8Array) : asText ? (response.body as string) : JSON.stringify(response.body)) : undefined);
}

function headersOf(message: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function withoutAuthorization(headers: Record<string, string>): Record<string, string> {
  const { authorization: _, ...rest } = headers;
  return rest;
}

/**
 * Array parameters read as their upstream sends them: each repeated key one item (`ids=a&ids=b`, where
 * `ids=a,b` is the one item "a,b"), or, where the table says `explode: false`, one value whose items are
 * comma-separated (`$select=id,subject`); such a parameter sent twice is refused, as OData services do.
 * Items the table says are JSON are read as the objects they write (handlers then see objects there).
 * Other parameters keep the value sent.
 */
function arraysAsDeclared(label: string, operation: Operation, query: Record<string, string | string[]>): typeof query {
  const read = { ...query };
  for (const [name, parameter] of Object.entries(operation.queryParameters)) {
    const value = query[name];
    if (value === undefined || parameter.schema.type !== 'array') continue;
    if (parameter.json) {
      read[name] = [value].flat().map(parsedOrText) as string[];
    } else if (parameter.explode !== false) {
      read[name] = [value].flat();
    } else if (Array.isArray(value)) {
      const message = `query parameter '${name}' must be sent once, its items separated by commas`;
      throw new EmulatorError(400, message, { message, in: 'query', code: 'INVALID_VALUE', field: name }, label);
    } else {
      read[name] = value.split(',');
    }
  }
  return read;
}

/** Repeated keys become arrays: `ids=a&ids=b` → { ids: ['a', 'b'] }. */
function queryOf(search: URLSearchParams): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(search.keys())) {
    const values = search.getAll(name);
    query[name] = values.length === 1 ? values[0]! : values;
  }
  return query;
}

/** JSON text as what it holds; other text as it is. */
function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function parseLoosely(raw: string): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

async function readText(message: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of message) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
/** How long an emulator keeps an idle connection open: below Node's 60 s wait for a request's headers. */
const idleConnectionMs = 30_000;
