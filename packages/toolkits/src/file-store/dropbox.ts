/**
 * Calls to Dropbox's two hosts. RPC endpoints (on the api host, the toolkit's base URL) are POSTs with a
 * JSON body. Content endpoints (on the content host) take their argument as JSON in the Dropbox-API-Arg
 * header and answer the content as the body, with the metadata as JSON in the Dropbox-API-Result header.
 */
import {
  buildRequest,
  isBinaryBody,
  unexpectedResponse,
  type HttpBinding,
  type ToolContext,
  type ToolData,
  type ToolError,
  type ToolResult,
  type UpstreamRequest,
} from '@quiver/core';

/** Setting for a content host other than Dropbox's own (a proxy); declared by DownloadFile. */
export const contentUrlSecret = 'FILE_STORE_CONTENT_URL';

const dropboxApi = 'https://api.dropboxapi.com';
const dropboxContent = 'https://content.dropboxapi.com';

/** A Dropbox endpoint as a binding, so that its request is built by core's one builder, as every request is. */
const endpointBinding = (endpoint: string): ToolData & { http: HttpBinding } => ({
  name: endpoint,
  description: `Dropbox ${endpoint}`,
  parameters: [
    { name: 'argument', description: 'The argument of a content endpoint.', required: false, schema: {}, in: 'header', upstream: 'Dropbox-API-Arg' },
  ],
  output: { description: `The answer of ${endpoint}.` },
  requirements: {},
  http: { method: 'POST', path: endpoint },
});

/** The request, with the user's token, or the builder's refusal. */
function request(
  context: ToolContext,
  baseUrl: string,
  endpoint: string,
  input: Record<string, unknown>,
  body?: unknown,
): UpstreamRequest | { error: ToolError } {
  const built = buildRequest(endpointBinding(endpoint), input, baseUrl, body);
  if (!('error' in built) && context.token) built.headers.authorization = `Bearer ${context.token}`;
  return built;
}

export async function rpc(context: ToolContext, endpoint: string, argument: Record<string, unknown>): Promise<ToolResult> {
  const built = request(context, context.baseUrl, endpoint, {}, argument);
  if ('error' in built) return built;
  const outcome = await context.client.send(built, context.toolkit);
  return 'error' in outcome ? outcome : { value: outcome.response.body };
}

export async function download(context: ToolContext, endpoint: string, argument: Record<string, unknown>): Promise<ToolResult> {
  const built = request(context, contentUrl(context), endpoint, { argument: headerJson(argument) });
  if ('error' in built) return built;
  const outcome = await context.client.send(built, context.toolkit);
  if ('error' in outcome) return outcome;
  const metadata = resultHeader(outcome.response.headers['dropbox-api-result']);
  if (metadata === undefined)
    return unexpectedResponse(
      endpointBinding(endpoint),
      'the Dropbox-API-Result header to hold the file metadata as a JSON object',
      outcome.response.headers['dropbox-api-result'],
    );
  const content = outcome.response.body;
  if (isBinaryBody(content)) {
    // Dropbox answers every download as application/octet-stream, text files included: a file whose
    // bytes are text comes back as text, as the model reads it best; anything else as base64, unchanged.
    const text = asText(Buffer.from(content.content_base64, 'base64'));
    return { value: text === undefined ? { metadata, ...content } : { metadata, content: text } };
  }
  // A content host that labels the body (a proxy) has had it decoded as text or JSON already.
  const text = content === undefined ? '' : typeof content === 'string' ? content : JSON.stringify(content);
  return { value: { metadata, content: text } };
}

/** The metadata a content endpoint sends in its Dropbox-API-Result header: a JSON object, or undefined for anything else. */
function resultHeader(header: string | string[] | undefined): Record<string, unknown> | undefined {
  if (typeof header !== 'string') return undefined;
  try {
    const metadata = JSON.parse(header) as unknown;
    return metadata && typeof metadata === 'object' && !Array.isArray(metadata) ? (metadata as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The bytes as text when they are valid UTF-8 without NUL bytes (which text files do not contain and
 * many binary formats do), else undefined. The BOM is kept so that the text is exactly the file.
 */
function asText(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * The content host: the configured one, else Dropbox's when the base URL is Dropbox's api host, else
 * the base URL itself (a local emulator or a proxy serves both hosts' endpoints).
 */
export function contentUrl(context: ToolContext): string {
  const configured = context.secrets[contentUrlSecret];
  if (configured) return configured;
  return context.baseUrl.replace(/\/+$/, '') === dropboxApi ? dropboxContent : context.baseUrl;
}

/** HTTP header values must be ASCII: Dropbox asks for every other character as a \uXXXX escape. */
export function headerJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
