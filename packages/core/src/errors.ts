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

/** Replaces every occurrence of a secret value (token, API key) in the error's texts. */
export function redactError(error: ToolError, secrets: readonly string[]): ToolError {
  const values = secrets.filter((value) => value.length >= 4);
  if (!values.length) return error;
  const scrub = (text: string | undefined) =>
    text === undefined ? undefined : values.reduce((out, value) => out.split(value).join('[redacted]'), text);
  return {
    ...error,
    message: scrub(error.message)!,
    developer_message: scrub(error.developer_message),
    additional_prompt_content: scrub(error.additional_prompt_content),
  };
}
