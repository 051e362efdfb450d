/**
 * An `http` worker as a tool source: tools from `GET /worker/tools`, runs through
 * `POST /worker/tools/invoke`, each request with a freshly signed token. A listing is retried on a
 * transport failure other than a timeout; an invoke only when the connection was never made, so it
 * never runs twice.
 */
import { failed, injectTraceContext, inSpan, toolError, type ErrorKind, type Invocation, type Tool, type ToolError, type ToolResult } from '@quiver/core';
import { isToolDefinition, toolFromDefinition } from './definitions.js';
import { signWorkerToken, type InvokeRequest, type InvokeResponse } from './protocol.js';
import { errorKindOf, pause, transportProblem, WorkerUnavailable, type WorkerCheck, type WorkerSettings, type WorkerSource } from './types.js';

export function httpWorkerSource(worker: WorkerSettings): WorkerSource {
  const base = worker.uri.replace(/\/+$/, '');
  const { hostname, port, protocol } = new URL(base);
  /** What an invoke's client span says of its target. */
  const target = { 'server.address': hostname, 'server.port': Number(port) || (protocol === 'https:' ? 443 : 80), 'quiver.worker.id': worker.id };

  async function send(
    path: string,
    init: { method: 'GET' | 'POST'; body?: unknown; signed?: boolean; traced?: boolean },
    retryAll: boolean,
  ): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      try {
        const headers: Record<string, string> = { accept: 'application/json' };
        if (init.signed !== false) headers.authorization = `Bearer ${await signWorkerToken(worker.secret ?? '')}`;
        if (init.body !== undefined) headers['content-type'] = 'application/json';
        // An invoke's spans on the worker join the caller's trace (W3C traceparent), when spans are recorded.
        if (init.traced) injectTraceContext(headers);
        return await fetch(`${base}${path}`, {
          method: init.method,
          headers,
          body: init.body === undefined ? undefined : JSON.stringify(init.body),
          signal: AbortSignal.timeout(worker.timeout * 1000),
        });
      } catch (error) {
        const problem = transportProblem(error);
        if (attempt >= worker.retry || !(problem.refused || (retryAll && !problem.timedOut)))
          throw new WorkerUnavailable(worker.id, problem.text, problem.timedOut);
        await pause(attempt);
      }
    }
  }

  async function tools(): Promise<Tool[]> {
    const response = await send('/worker/tools', { method: 'GET' }, true);
    const body = await readJson(response);
    if (!response.ok) throw new WorkerUnavailable(worker.id, refusal(response.status, body));
    const list: unknown[] = Array.isArray(body) ? body : Array.isArray((body as { items?: unknown })?.items) ? (body as { items: unknown[] }).items : [];
    return list.filter(isToolDefinition).map(toolFromDefinition);
  }

  /** One invoke as a client span of its own, whose context the worker receives. */
  async function invoke(tool: Tool, input: unknown, invocation: Invocation): Promise<ToolResult> {
    const attributes = {
      ...target,
      'http.request.method': 'POST',
      'url.template': '/worker/tools/invoke',
      'gen_ai.tool.name': `${tool.toolkit.name}.${tool.name}`,
    };
    return inSpan('POST /worker/tools/invoke', { kind: 'CLIENT', attributes }, async (span) => {
      const result = await invokeOnce(tool, input, invocation);
      if (span && 'error' in result) failed(span, result.error.kind);
      return result;
    });
  }

  async function invokeOnce(tool: Tool, input: unknown, invocation: Invocation): Promise<ToolResult> {
    const request: InvokeRequest = {
      execution_id: invocation.executionId,
      tool: { name: tool.name, toolkit: tool.toolkit.name, version: tool.toolkit.version },
      inputs: (input ?? {}) as Record<string, unknown>,
      context: {
        ...(invocation.token && { authorization: { token: invocation.token, user_info: {} } }),
        ...(Object.keys(invocation.secrets).length && { secrets: Object.entries(invocation.secrets).map(([key, value]) => ({ key, value })) }),
        ...(invocation.userId && { user_id: invocation.userId }),
      },
    };
    let response: Response;
    try {
      response = await send('/worker/tools/invoke', { method: 'POST', body: request, traced: true }, false);
    } catch (error) {
      if (!(error instanceof WorkerUnavailable)) throw error;
      const kind: ErrorKind = error.timedOut ? 'NETWORK_TRANSPORT_RUNTIME_TIMEOUT' : 'NETWORK_TRANSPORT_RUNTIME_UNREACHABLE';
      return toolError(
        kind,
        error.timedOut
          ? `Worker ${worker.id}, which runs this tool, did not answer in time.`
          : `Worker ${worker.id}, which runs this tool, could not be reached.`,
        {
          developer_message: error.message,
        },
      );
    }
    const body = await readJson(response);
    if (!response.ok) {
      return toolError('TOOL_RUNTIME_FATAL', `Worker ${worker.id}, which runs this tool, refused the call.`, {
        developer_message: `worker ${worker.id}: ${refusal(response.status, body)}`,
      });
    }
    // The dispatcher keeps the call's credentials out of the result, as for any source.
    return resultOf(body as InvokeResponse);
  }

  async function check(): Promise<WorkerCheck> {
    try {
      const health = await send('/worker/health', { method: 'GET', signed: false }, true);
      const body = (await readJson(health)) as { status?: string; tool_count?: number } | undefined;
      if (!health.ok || body?.status !== 'ok') return { healthy: false, message: `the worker's health check answered ${health.status}` };
      if (worker.secret === undefined) return { healthy: true, message: `ok: ${body.tool_count ?? 0} tools` };
      // The health route needs no token; listing the tools proves the engine's secret is the worker's.
      return { healthy: true, message: `ok: ${(await tools()).length} tools` };
    } catch (error) {
      return { healthy: false, message: (error as Error).message };
    }
  }

  return {
    id: worker.id,
    label: `worker ${worker.id}`,
    tools,
    invoke,
    check,
    authorization: async () => ({ status: 'not_required', message: 'http workers authenticate the engine with the shared secret' }),
  };
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text;
  }
}

/** The worker's refusal in words; a 401 means the secrets differ. */
function refusal(status: number, body: unknown): string {
  const message = typeof (body as { message?: unknown })?.message === 'string' ? (body as { message: string }).message : undefined;
  if (status === 401) return `the worker refused the engine's token (is the secret the worker's?)${message ? `: ${message}` : ''}`;
  return `the worker answered ${status}${message ? `: ${message}` : ''}`;
}

/** The worker's answer as a ToolResult, whatever a worker sends in its error. */
function resultOf(response: InvokeResponse | undefined): ToolResult {
  const output = response?.output;
  if (output?.error) return { error: errorFrom(output.error) };
  if (output?.requires_authorization) return toolError('TOOL_REQUIREMENTS_NOT_MET', 'The worker says this tool needs the user to authorize it first.');
  if (!response || response.success === false) return toolError('TOOL_RUNTIME_FATAL', 'The worker reported a failure without an error.');
  return { value: output?.value ?? null };
}

function errorFrom(remote: Partial<ToolError>): ToolError {
  const kind = errorKindOf(remote.kind);
  const { error } = toolError(kind, typeof remote.message === 'string' && remote.message ? remote.message : 'The tool failed.');
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const number = (value: unknown) => (typeof value === 'number' ? value : undefined);
  return {
    ...error,
    can_retry: typeof remote.can_retry === 'boolean' ? remote.can_retry : error.can_retry,
    ...(text(remote.developer_message) && { developer_message: text(remote.developer_message) }),
    ...(text(remote.additional_prompt_content) && { additional_prompt_content: text(remote.additional_prompt_content) }),
    ...(number(remote.retry_after_ms) !== undefined && { retry_after_ms: number(remote.retry_after_ms) }),
    ...(number(remote.status_code) !== undefined && { status_code: number(remote.status_code) }),
  };
}
