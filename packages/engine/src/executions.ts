/** Running one tool for one user: credentials first, then the tool's source, then the engine's response shape. */
import { randomUUID } from 'node:crypto';
import { qualifiedName, toolError, type ServingPolicy, type ToolError, type ToolResult } from '@quiver/core';
import type { AuthorizationResponse, Credentials } from './auth/credentials.js';
import type { SecretStore } from './secrets.js';
import type { CatalogEntry } from './tools/catalog.js';

export interface RunOutcome {
  result: ToolResult;
  authorization?: AuthorizationResponse;
  durationMs: number;
}

export interface RunDependencies {
  credentials: Credentials;
  secrets: SecretStore;
  /** What the engine offers and how calls are guarded and shaped (`quiver serve --read-only`, ...). */
  policy?: ServingPolicy;
}

export async function runTool(deps: RunDependencies, entry: CatalogEntry, input: unknown, userId: string | undefined, executionId: string): Promise<RunOutcome> {
  const started = performance.now();
  let authorization: AuthorizationResponse | undefined;
  const run = async (args: unknown) => {
    const ran = await runWithCredentials(deps, entry, args, userId, executionId);
    authorization = ran.authorization;
    return ran.result;
  };
  // The policy refuses before any credential is looked up: a refused tool starts no OAuth flow.
  const result = deps.policy ? await deps.policy.run(entry.tool, input, run) : await run(input);
  return { result, authorization, durationMs: performance.now() - started };
}

/** The user's token and the declared secrets, then the tool's source. */
async function runWithCredentials(
  deps: RunDependencies,
  entry: CatalogEntry,
  input: unknown,
  userId: string | undefined,
  executionId: string,
): Promise<{ result: ToolResult; authorization?: AuthorizationResponse }> {
  const { tool, source } = entry;
  const oauth = tool.requirements.oauth2;
  let token: string | undefined;
  if (oauth) {
    if (!userId) return { result: toolError('TOOL_RUNTIME_CONTEXT_REQUIRED', `${qualifiedName(tool)} acts for a user: pass user_id.`) };
    const granted = await deps.credentials.token(userId, oauth.provider, oauth.scopes);
    if ('authorization' in granted) {
      const { url } = granted.authorization;
      return {
        result: toolError('TOOL_REQUIREMENTS_NOT_MET', `${qualifiedName(tool)} needs the user's authorization with ${oauth.provider}${url ? `: ${url}` : '.'}`),
        authorization: granted.authorization,
      };
    }
    token = granted.token;
  }
  const secrets = await deps.secrets.reveal((tool.requirements.secrets ?? []).map((secret) => secret.key));
  try {
    return { result: await source.invoke(tool, input, { executionId, userId, token, secrets }) };
  } catch (cause) {
    return { result: toolError('TOOL_RUNTIME_FATAL', `${tool.name} failed unexpectedly.`, { developer_message: String((cause as Error)?.stack ?? cause) }) };
  }
}

/** One log line per run: the tool and the outcome, never the input, token or secrets. */
export function logFields(entry: CatalogEntry, outcome: RunOutcome, userId: string | undefined) {
  const error = 'error' in outcome.result ? outcome.result.error : undefined;
  return { tool: qualifiedName(entry.tool), user_id: userId, success: !error, ...(error && { kind: error.kind }), duration_ms: Math.round(outcome.durationMs * 10) / 10 };
}

/** The engine's ExecuteToolResponse for an immediate run. */
export function executeResponse(outcome: RunOutcome, executionId = randomUUID(), includeStacktrace = false) {
  const { result, authorization } = outcome;
  const error = 'error' in result ? publicError(result.error, includeStacktrace) : undefined;
  return {
    id: executionId,
    execution_id: executionId,
    execution_type: 'immediate' as const,
    status: error ? ('failed' as const) : ('success' as const),
    success: !error,
    duration: Math.round(outcome.durationMs * 100) / 100,
    finished_at: new Date().toISOString(),
    output: {
      ...('value' in result && { value: result.value }),
      ...(error && { error }),
      ...(authorization && { authorization }),
      // The engine API's log lines carry the server's note (a result cut to the response budget).
      ...('note' in result && result.note && { logs: [{ level: 'warning', message: result.note, subtype: 'truncated' }] }),
    },
  };
}

export type ExecuteToolResponse = ReturnType<typeof executeResponse>;

/** A stack trace only on request; a developer message always (it is scrubbed of credentials already). */
function publicError(error: ToolError, includeStacktrace: boolean): ToolError & { stacktrace?: string } {
  const { developer_message, ...rest } = error;
  const stack = includeStacktrace && error.kind === 'TOOL_RUNTIME_FATAL' ? developer_message : undefined;
  return { ...rest, ...(developer_message && { developer_message: stack ? developer_message.split('\n')[0] : developer_message }), ...(stack && { stacktrace: stack }) };
}
