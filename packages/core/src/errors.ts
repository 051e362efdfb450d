/** Errors are values with a kind (the engine's error kinds), never thrown across the tool boundary. */

export type ErrorKind =
  | 'TOOL_RUNTIME_BAD_INPUT_VALUE'
  | 'TOOL_RUNTIME_RETRY'
  | 'TOOL_RUNTIME_CONTEXT_REQUIRED'
  | 'TOOL_RUNTIME_FATAL'
  | 'TOOL_REQUIREMENTS_NOT_MET'
  | 'UPSTREAM_RUNTIME_BAD_REQUEST'
  | 'UPSTREAM_RUNTIME_AUTH_ERROR'
  | 'UPSTREAM_RUNTIME_NOT_FOUND'
  | 'UPSTREAM_RUNTIME_VALIDATION_ERROR'
  | 'UPSTREAM_RUNTIME_RATE_LIMIT'
  | 'UPSTREAM_RUNTIME_SERVER_ERROR'
  | 'NETWORK_TRANSPORT_RUNTIME_TIMEOUT'
  | 'NETWORK_TRANSPORT_RUNTIME_UNREACHABLE';

export interface ToolError {
  kind: ErrorKind;
  /** Safe for the model: no tokens, no secret values. */
  message: string;
  can_retry: boolean;
  developer_message?: string;
  /** Extra text for the model on how to correct the call (mode-driven tools). */
  additional_prompt_content?: string;
  retry_after_ms?: number;
  status_code?: number;
  /** Where an unexpected failure happened; shown only to a caller who asks for it (never over MCP). */
  stacktrace?: string;
}

/** A value may come with a note for the model from the server (the value was cut, and how to get the rest). */
export type ToolResult = { value: unknown; note?: string; next_page?: NextPage } | { error: ToolError };

/** The arguments that differ for the next page of a result (`{ page: 2 }`), when the upstream reports one outside the body. */
export type NextPage = Record<string, unknown>;

const retryableKinds = new Set<ErrorKind>([
  'TOOL_RUNTIME_RETRY',
  'UPSTREAM_RUNTIME_RATE_LIMIT',
  'UPSTREAM_RUNTIME_SERVER_ERROR',
  'NETWORK_TRANSPORT_RUNTIME_TIMEOUT',
  'NETWORK_TRANSPORT_RUNTIME_UNREACHABLE',
]);

export function toolError(kind: ErrorKind, message: string, extra: Partial<Omit<ToolError, 'kind' | 'message'>> = {}): { error: ToolError } {
  return { error: { kind, message, can_retry: retryableKinds.has(kind), ...extra } };
}

/**
 * A bug (a thrown exception) as a value: its one-line description for the developer, the stack kept
 * apart so that no result carries file paths and frames unless its caller asked for them.
 */
export function unexpectedFailure(message: string, cause: unknown): { error: ToolError } {
  const error = cause as Error | undefined;
  const summary = error instanceof Error ? `${error.name}: ${error.message}` : String(cause);
  return toolError('TOOL_RUNTIME_FATAL', message, { developer_message: summary.split('\n')[0], ...(error?.stack && { stacktrace: error.stack }) });
}

export const isError = (result: ToolResult): result is { error: ToolError } => 'error' in result;

/** Kind of an upstream HTTP failure; a 403 that carries exhausted rate-limit headers is a rate limit. */
export function kindOfStatus(status: number, headers: Record<string, string | string[] | undefined>): ErrorKind {
  if (status === 429) return 'UPSTREAM_RUNTIME_RATE_LIMIT';
  if (status === 403 && headers['x-ratelimit-remaining'] === '0') return 'UPSTREAM_RUNTIME_RATE_LIMIT';
  if (status === 401 || status === 403) return 'UPSTREAM_RUNTIME_AUTH_ERROR';
  if (status === 404) return 'UPSTREAM_RUNTIME_NOT_FOUND';
  if (status === 422) return 'UPSTREAM_RUNTIME_VALIDATION_ERROR';
  if (status >= 500) return 'UPSTREAM_RUNTIME_SERVER_ERROR';
  return 'UPSTREAM_RUNTIME_BAD_REQUEST';
}

/**
 * Replaces every occurrence of a secret value (token, API key, Basic pair) in a text. Values shorter than
 * four characters are left alone: they would scrub ordinary words and carry no secret worth the name.
 */
export function redactor(secrets: readonly string[]): ((text: string) => string) | undefined {
  const values = [...new Set(secrets.filter((value) => value.length >= 4))].sort((a, b) => b.length - a.length);
  if (!values.length) return undefined;
  return (text) => (values.some((value) => text.includes(value)) ? values.reduce((out, value) => out.split(value).join('[redacted]'), text) : text);
}

/** Replaces every occurrence of a secret value in the error's texts. */
export function redactError(error: ToolError, secrets: readonly string[]): ToolError {
  const scrub = redactor(secrets);
  if (!scrub) return error;
  const scrubbed = (text: string | undefined) => (text === undefined ? undefined : scrub(text));
  return {
    ...error,
    message: scrub(error.message),
    developer_message: scrubbed(error.developer_message),
    additional_prompt_content: scrubbed(error.additional_prompt_content),
  };
}

/**
 * The value with every secret replaced in its strings and keys: an upstream that echoes the request
 * (a debugging endpoint, a misconfigured proxy) must not hand the model the credential it was called with.
 */
export function redactValue(value: unknown, secrets: readonly string[]): unknown {
  const scrub = redactor(secrets);
  return scrub ? walk(value, scrub) : value;
}

function walk(value: unknown, scrub: (text: string) => string): unknown {
  if (typeof value === 'string') return scrub(value);
  if (Array.isArray(value)) return value.map((item) => walk(item, scrub));
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [scrub(key), walk(item, scrub)]));
}
