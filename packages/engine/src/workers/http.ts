/**
 * An `http` worker as a tool source: tools from `GET /worker/tools`, runs through
 * `POST /worker/tools/invoke`, each request with a freshly signed token. Every request goes through the
 * upstream client, under its rules: a bounded answer, the worker's timeout as the deadline of a request
 * (every attempt included), and its retries: a listing may be repeated (up to the worker's `retry`), an
 * invoke, a POST, only when its connection was never made, so that it never runs twice.
 */
import {
  failed,
  injectTraceContext,
  inSpan,
  toolError,
  UpstreamClient,
  type ErrorKind,
  type Invocation,
  type Tool,
  type ToolError,
  type ToolResult,
  type UpstreamResponse,
} from '@quiver/core';
import { isToolDefinition, toolFromDefinition } from './definitions.js';
import { signWorkerToken, type InvokeRequest, type InvokeResponse } from './protocol.js';
import { errorKindOf, WorkerUnavailable, type WorkerCheck, type WorkerSettings, type WorkerSource } from './types.js';

/** A request the worker did not answer with a success. */
interface Failure {
  /** The worker's status, when it answered. */
  status?: number;
  /** Set when the worker could not be reached or did not answer in time. */
  transport?: 'NETWORK_TRANSPORT_RUNTIME_TIMEOUT' | 'NETWORK_TRANSPORT_RUNTIME_UNREACHABLE';
  /** Why, in words that hold no credential. */
  reason: string;
}

export function httpWorkerSource(worker: WorkerSettings): WorkerSource {
  const base = worker.uri.replace(/\/+$/, '');
  const { hostname, port, protocol } = new URL(base);
  /** What an invoke's client span says of its target. */
  const target = { 'server.address': hostname, 'server.port': Number(port) || (protocol === 'https:' ? 443 : 80), 'quiver.worker.id': worker.id };
  const client = clientFor(worker);

  async function send(
    path: string,
    method: 'GET' | 'POST',
    init: { body?: unknown; signed?: boolean; traced?: boolean } = {},
  ): Promise<{ response: UpstreamResponse } | { failure: Failure }> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (init.signed !== false) headers.authorization = `Bearer ${await signWorkerToken(worker.secret ?? '')}`;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    // An invoke's spans on the worker join the caller's trace (W3C traceparent), when spans are recorded.
    if (init.traced) injectTraceContext(headers);
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);
    const sent = await client.send({ method, url: `${base}${path}`, headers, body });
    if ('error' in sent) return { failure: failureOf(sent.error) };
    // A redirect is not followed: the worker's URI is the one registered.
    if (sent.response.status >= 300) return { failure: refusal(sent.response.status) };
    return sent;
  }

  /** The answer to a request that must succeed; throws WorkerUnavailable saying why it did not. */
  async function answer(path: string, init?: { signed?: boolean }): Promise<unknown> {
    const sent = await send(path, 'GET', init);
    if ('failure' in sent) throw unavailable(sent.failure);
    return jsonOf(sent.response.body);
  }

  const unavailable = (failure: Failure) => new WorkerUnavailable(worker.id, failure.reason, failure.transport === 'NETWORK_TRANSPORT_RUNTIME_TIMEOUT');

  async function tools(): Promise<Tool[]> {
    const body = await answer('/worker/tools');
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
    const sent = await send('/worker/tools/invoke', 'POST', { body: request, traced: true });
    if ('failure' in sent) return invokeFailure(sent.failure);
    // The dispatcher keeps the call's credentials out of the result, as for any source.
    return resultOf(jsonOf(sent.response.body) as InvokeResponse | undefined);
  }

  /** A failed invoke as the caller hears it: the worker out of reach, or its refusal. */
  function invokeFailure({ transport, reason }: Failure): ToolResult {
    const developer_message = `worker ${worker.id}: ${reason}`;
    if (transport === 'NETWORK_TRANSPORT_RUNTIME_TIMEOUT')
      return toolError(transport, `Worker ${worker.id}, which runs this tool, did not answer in time.`, { developer_message });
    if (transport) return toolError(transport, `Worker ${worker.id}, which runs this tool, could not be reached.`, { developer_message });
    return toolError('TOOL_RUNTIME_FATAL', `Worker ${worker.id}, which runs this tool, refused the call.`, { developer_message });
  }

  async function check(): Promise<WorkerCheck> {
    try {
      const health = await send('/worker/health', 'GET', { signed: false });
      if ('failure' in health && health.failure.status === undefined) throw unavailable(health.failure);
      const status = 'failure' in health ? health.failure.status : health.response.status;
      const body = 'response' in health ? (jsonOf(health.response.body) as { status?: string; tool_count?: number } | undefined) : undefined;
      if (body?.status !== 'ok') return { healthy: false, message: `the worker's health check answered ${status}` };
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

/**
 * One upstream client per distinct timeout and retry, shared by every worker that has them: a source
 * made for a single check leaves no connection pool of its own behind.
 */
const clients = new Map<string, UpstreamClient>();

function clientFor({ timeout, retry }: WorkerSettings): UpstreamClient {
  const key = `${timeout}/${retry}`;
  let client = clients.get(key);
  if (!client) {
    const timeoutMs = timeout * 1000;
    // An invoke is traced by its own client span (above); the upstream metrics count calls of upstream services, not of workers.
    client = new UpstreamClient({ timeoutMs, deadlineMs: timeoutMs, maxRetries: retry, recordAttempts: false });
    clients.set(key, client);
  }
  return client;
}

/** The upstream client's error in the worker's terms. */
function failureOf(error: ToolError): Failure {
  if (error.status_code !== undefined) return refusal(error.status_code, workerMessage(error));
  const transport = transportKinds.find((kind) => kind === error.kind);
  // What the transport said (the method, the worker's URL, the network's code), or that the answer was too large.
  return { ...(transport && { transport }), reason: error.developer_message ?? error.message };
}

const transportKinds = ['NETWORK_TRANSPORT_RUNTIME_TIMEOUT', 'NETWORK_TRANSPORT_RUNTIME_UNREACHABLE'] as const satisfies ErrorKind[];

/** The worker's refusal in words; a 401 means the secrets differ. */
function refusal(status: number, message?: string): Failure {
  const said = message ? `: ${message}` : '';
  if (status === 401) return { status, reason: `the worker refused the engine's token (is the secret the worker's?)${said}` };
  return { status, reason: `the worker answered ${status}${said}` };
}

/** The worker's own message in a refusal, which the upstream client quotes after the status (`{message}` of the worker's error body). */
function workerMessage(error: ToolError): string | undefined {
  return /^The upstream service answered \d+: (.*)$/s.exec(error.message)?.[1];
}

/** The answer as JSON: the upstream client parses a body said to be JSON; one a worker sends unlabelled is read as JSON too. */
function jsonOf(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
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
