/** Errors are values with a kind (the engine's error kinds), never thrown across the tool boundary. */

/** Every kind of error, once: the type below and the checks of errors that arrive from elsewhere (workers) read it. */
export const errorKinds = [
  'TOOL_RUNTIME_BAD_INPUT_VALUE',
  'TOOL_RUNTIME_RETRY',
  'TOOL_RUNTIME_CONTEXT_REQUIRED',
  'TOOL_RUNTIME_FATAL',
  /** The engine's own limits refused the call (requests per minute, calls in flight); `retry_after_ms` says when to come back. */
  'TOOL_RUNTIME_RATE_LIMIT',
  'TOOL_REQUIREMENTS_NOT_MET',
  'UPSTREAM_RUNTIME_BAD_REQUEST',
  'UPSTREAM_RUNTIME_AUTH_ERROR',
  'UPSTREAM_RUNTIME_NOT_FOUND',
  'UPSTREAM_RUNTIME_VALIDATION_ERROR',
  'UPSTREAM_RUNTIME_RATE_LIMIT',
  'UPSTREAM_RUNTIME_SERVER_ERROR',
  /** A success whose content is not what the operation answers (a missing field, a wrong type, an unreadable header). */
  'UPSTREAM_RUNTIME_UNEXPECTED_RESPONSE',
  'NETWORK_TRANSPORT_RUNTIME_TIMEOUT',
  'NETWORK_TRANSPORT_RUNTIME_UNREACHABLE',
] as const;

export type ErrorKind = (typeof errorKinds)[number];

const knownKinds = new Set<string>(errorKinds);

/** Whether a value from elsewhere (a worker's answer) names one of the kinds above. */
export const isErrorKind = (value: unknown): value is ErrorKind => typeof value === 'string' && knownKinds.has(value);

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
  'TOOL_RUNTIME_RATE_LIMIT',
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

/**
 * Kind of an upstream HTTP failure; a 403 that carries exhausted rate-limit headers, or a Retry-After
 * (GitHub's secondary limits), is a rate limit.
 */
export function kindOfStatus(status: number, headers: Record<string, string | string[] | undefined>): ErrorKind {
  if (status === 429) return 'UPSTREAM_RUNTIME_RATE_LIMIT';
  if (status === 403 && (headers['x-ratelimit-remaining'] === '0' || headers['retry-after'] !== undefined)) return 'UPSTREAM_RUNTIME_RATE_LIMIT';
  if (status === 401 || status === 403) return 'UPSTREAM_RUNTIME_AUTH_ERROR';
  if (status === 404) return 'UPSTREAM_RUNTIME_NOT_FOUND';
  if (status === 422) return 'UPSTREAM_RUNTIME_VALIDATION_ERROR';
  if (status >= 500) return 'UPSTREAM_RUNTIME_SERVER_ERROR';
  return 'UPSTREAM_RUNTIME_BAD_REQUEST';
}
