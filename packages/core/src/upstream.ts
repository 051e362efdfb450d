/**
 * The upstream HTTP client: pooled keep-alive connections (undici), connect and per-attempt timeouts,
 * one deadline for the whole call, a bounded response size, retries only where a repeat cannot do harm,
 * and the upstreams' rate-limit budgets (budgets.ts): a call whose credential's budget is spent is not sent.
 */
import { BoundedMemo } from './bounded-memo.js';
import { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import type { Agent } from 'undici';
import { readBudget, retryAfterHeader, resetTime, UpstreamBudgets, waitOf, type RequestBudget } from './budgets.js';
import { kindOfStatus, toolError, type ErrorKind, type ToolError } from './errors.js';
import { headerValueProblem, type UpstreamRequest } from './request.js';
import { afterAnswer, durationHistogram, failed, httpMethod, instrumentSet, spanClock, statusClass, telemetry } from './telemetry.js';
import type { HttpMethod } from './tool-data.js';

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /**
   * Parsed JSON when the upstream says JSON, text when the content type is textual (or absent and the
   * bytes are valid UTF-8), a BinaryBody otherwise, undefined when empty.
   */
  body: unknown;
}

/**
 * A response body that is not text (an image, a PDF, an archive). Decoding such bytes as UTF-8 would
 * replace every invalid sequence and lose the file, so they travel as base64: the value stays plain JSON
 * for MCP and HTTP callers, and decoding `content_base64` gives back exactly the bytes received.
 */
export interface BinaryBody {
  /** The body's bytes, standard base64 (RFC 4648, with padding). */
  content_base64: string;
  /** The upstream's Content-Type as sent, or application/octet-stream when it sent none. */
  content_type: string;
  /** Length of the decoded body in bytes. */
  size_bytes: number;
}

export function isBinaryBody(value: unknown): value is BinaryBody {
  if (!value || typeof value !== 'object') return false;
  const record = value as Record<string, unknown>;
  return typeof record.content_base64 === 'string' && typeof record.content_type === 'string' && typeof record.size_bytes === 'number';
}

export interface UpstreamClientOptions {
  /** Time to establish a connection. */
  connectTimeoutMs?: number;
  /** Time for one attempt, from sending to the last byte of the response. */
  timeoutMs?: number;
  /** Time for the whole call, every attempt and every wait between attempts included. */
  deadlineMs?: number;
  /** Largest response body read; a longer one is cut off and the call fails saying so. */
  maxResponseBytes?: number;
  /** Further attempts after the first, for retryable failures of safe methods and of requests never sent. */
  maxRetries?: number;
  /** First backoff step; doubles each retry, with jitter. */
  retryBaseDelayMs?: number;
  /** A longer Retry-After is not waited for: the rate-limit error goes back to the caller. */
  maxRetryAfterMs?: number;
  /**
   * The longest a call not yet sent waits for its credential's spent upstream budget (within its deadline)
   * rather than failing at once with nothing sent. Default 0: it fails at once.
   */
  budgetWaitMs?: number;
  /** The upstreams' rate-limit budgets. Default: kept in this process's memory. */
  budgets?: UpstreamBudgets;
  /** Connections per upstream origin. */
  connections?: number;
  /**
   * Each attempt a span and counted in the upstream metrics (default). Off for a client whose caller
   * records its requests in its own terms (the engine's client of its workers).
   */
  recordAttempts?: boolean;
}

/**
 * The limits a deployment may set, from the environment:
 *   QUIVER_UPSTREAM_DEADLINE_MS        one call's deadline, every retry included (default 60000)
 *   QUIVER_UPSTREAM_MAX_RESPONSE_BYTES the largest upstream answer read (default 10485760, 10 MB)
 *   QUIVER_UPSTREAM_WAIT_MS            the longest a call waits for a spent upstream budget (default 0: it fails at once)
 */
export function upstreamSettings(env: Record<string, string | undefined>): UpstreamClientOptions {
  const wholeNumber = (name: string, least: number): number | undefined => {
    const text = env[name];
    if (text === undefined || text === '') return undefined;
    const value = Number(text);
    if (!Number.isInteger(value) || value < least) {
      throw new Error(`${name} must be a ${least > 0 ? 'positive ' : ''}whole number${least > 0 ? '' : ' (0 or more)'}, not ${JSON.stringify(text)}.`);
    }
    return value;
  };
  const deadlineMs = wholeNumber('QUIVER_UPSTREAM_DEADLINE_MS', 1);
  const maxResponseBytes = wholeNumber('QUIVER_UPSTREAM_MAX_RESPONSE_BYTES', 1);
  const budgetWaitMs = wholeNumber('QUIVER_UPSTREAM_WAIT_MS', 0);
  return { ...(deadlineMs && { deadlineMs }), ...(maxResponseBytes && { maxResponseBytes }), ...(budgetWaitMs !== undefined && { budgetWaitMs }) };
}

/** Methods whose repetition cannot create a second effect. POST and PATCH are never repeated. */
const SAFE_TO_RETRY = new Set<HttpMethod>(['GET', 'HEAD', 'PUT', 'DELETE']);

/** Failures that happen before a single byte of the request can have reached the upstream. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

export const DEFAULT_DEADLINE_MS = 60_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** undici is loaded with the first request, keeping it off the start-up path. */
const importUndici = () => import('undici');
type Undici = Awaited<ReturnType<typeof importUndici>>;
let undici: Undici | undefined;
const loadUndici = async (): Promise<Undici> => (undici ??= await importUndici());

/** Characters a request target may hold that WHATWG URL parsing leaves as they are, in a path and in a query. */
const PLAIN_TARGET = /^\/[A-Za-z0-9\-._~!$&()*+,;=:@/%?]*$/;
/** What URL parsing would rewrite even among those: dot segments, and percent-encoded dots it reads as dots. */
const DOT_SEGMENT = /\/\.|%2e/i;
/** Where URL parsing ends an http(s) URL's authority, besides a slash. */
const AUTHORITY_END = /[?#\\]/;

/**
 * Request URLs as undici would send them, without parsing each: its `request(url)` parses every URL (the
 * better part of a request's own cost) to take its origin and its path. A URL whose path and query are
 * already as parsing would leave them is split by hand, its origin parsed once; any other is left to undici.
 */
export class RequestTargets {
  /** Origins as URL parsing writes them (lowercased host, no default port, no credentials); null where it cannot. */
  private readonly origins = new BoundedMemo<string, string | null>(1_000);

  /** The origin and path undici would send `url` to; undefined where only parsing the URL can tell. */
  of(url: string): { origin: string; path: string } | undefined {
    const after = url.startsWith('https://') ? 8 : url.startsWith('http://') ? 7 : -1;
    if (after === -1) return undefined;
    const slash = url.indexOf('/', after);
    if (slash === -1) return undefined;
    const path = url.slice(slash);
    const raw = url.slice(0, slash);
    // The authority ends at the first of these for URL parsing: where one comes before the first slash, parsing decides.
    if (AUTHORITY_END.test(raw) || !PLAIN_TARGET.test(path) || DOT_SEGMENT.test(path)) return undefined;
    const origin = this.origins.get(raw, originOf);
    return origin === null ? undefined : { origin, path };
  }
}

/** The origin of an http(s) authority, or null where it has none (parsing fails, or an opaque origin). */
function originOf(raw: string): string | null {
  try {
    const { origin } = new URL(raw);
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

export class UpstreamClient {
  // Made with the first request, once undici is loaded, and held as it is: later requests wait for nothing.
  private agent: Agent | undefined;
  private readonly targets = new RequestTargets();
  private readonly options: Required<Omit<UpstreamClientOptions, 'budgets'>>;
  readonly budgets: UpstreamBudgets;

  constructor({ budgets, ...options }: UpstreamClientOptions = {}) {
    this.budgets = budgets ?? new UpstreamBudgets();
    this.options = {
      connectTimeoutMs: 5_000,
      timeoutMs: 30_000,
      deadlineMs: DEFAULT_DEADLINE_MS,
      maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
      maxRetries: 2,
      retryBaseDelayMs: 250,
      maxRetryAfterMs: 10_000,
      budgetWaitMs: 0,
      connections: 64,
      recordAttempts: true,
      ...options,
    };
  }

  private pool(loaded: Undici): Agent {
    this.agent ??= new loaded.Agent({
      connect: { timeout: this.options.connectTimeoutMs },
      connections: this.options.connections,
      keepAliveTimeout: 10_000,
      headersTimeout: this.options.timeoutMs,
      bodyTimeout: this.options.timeoutMs,
    });
    return this.agent;
  }

  /**
   * Sends the request; any status ≥ 400 or transport failure comes back as a ToolError. `toolkit` labels
   * the upstream metrics.
   */
  /**
   * `cancelled` is the caller's signal that it no longer wants the answer (a read whose client cancelled
   * it): the attempt under way is aborted, and no retry follows.
   */
  async send(request: UpstreamRequest, toolkit?: string, cancelled?: AbortSignal): Promise<{ response: UpstreamResponse } | { error: ToolError }> {
    // The last guard before the wire, for requests built by hand: a line break would forge a header, and a
    // value the HTTP client refuses would come back as an unreachable upstream, worth retrying, which it is not.
    for (const [name, value] of Object.entries(request.headers)) {
      const problem = headerValueProblem(value);
      if (problem) return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `The value of the ${name} header ${problem}.`);
    }
    // A base URL that is a path (an imported document without servers) names no host: not an outage to retry.
    if (!ABSOLUTE_HTTP.test(request.url)) {
      return toolError(
        'TOOL_REQUIREMENTS_NOT_MET',
        `The request URL ${withoutQuery(request.url)} is not an absolute http(s) URL: set the base URL of ${toolkit ?? "the tool's toolkit"} in the configuration.`,
      );
    }
    const canRetry = SAFE_TO_RETRY.has(request.method);
    const deadline = Date.now() + this.options.deadlineMs;
    const observed = this.options.recordAttempts && (telemetry.tracer !== undefined || telemetry.meter !== undefined);
    const budget = this.budgets.budgetOf(request);
    /** Why the attempt under way is a retry: the kind of the failure before it. */
    let retryReason: string | undefined;
    for (let attempt = 0; ; attempt++) {
      if (budget) {
        // Synchronous, and 0, while nothing is known of this upstream's budgets: the common case costs no await.
        const wait = this.budgets.wait(budget);
        if (wait !== 0) {
          const refused = await this.admit(request, budget, await wait, attempt, deadline, toolkit);
          if (refused) return { error: refused };
        }
      }
      if (cancelled?.aborted) return { error: cancelledCall(request) };
      const timeoutMs = Math.min(this.options.timeoutMs, deadline - Date.now());
      const startedAt = observed ? spanClock() : 0;
      const outcome = await this.attempt(request, timeoutMs, cancelled);
      if (cancelled?.aborted && 'error' in outcome) return { error: cancelledCall(request) };
      if (observed) observeAttempt(request, outcome, { toolkit, attempt, retryReason, startedAt });
      if ('response' in outcome && outcome.response.status < 400) {
        const reading = readBudget(outcome.response.headers, false, budget?.resource ?? 'core', this.budgets.now());
        const recorded = reading && budget && this.budgets.record(budget, reading);
        if (recorded) await recorded;
        return outcome;
      }
      let error: ToolError;
      if ('response' in outcome) {
        const kind = kindOfStatus(outcome.response.status, outcome.response.headers);
        const resource = budget?.resource ?? 'core';
        // One reading of the clock: the wait reported is the one the answer asked for, to the millisecond.
        const readAt = this.budgets.now();
        const reading = readBudget(outcome.response.headers, kind === 'UPSTREAM_RUNTIME_RATE_LIMIT', resource, readAt);
        if (reading && budget) await this.budgets.record(budget, reading);
        // A rate limit's wait, whatever the dialect said it in; the retry below waits that long, and the budget agrees.
        error = httpError(request, outcome.response, kind, reading && waitOf(reading, resource, readAt));
      } else error = outcome.error;
      retryReason = error.kind;
      // A request whose connection was never made cannot have acted (`transportError` says so by leaving it
      // retryable), so it is repeated whatever its method.
      const neverSent = !('response' in outcome) && error.can_retry;
      const delay = (canRetry || neverSent) && attempt < this.options.maxRetries ? this.retryDelay(error, attempt) : undefined;
      const cutShort = timeoutMs < this.options.timeoutMs && error.kind === 'NETWORK_TRANSPORT_RUNTIME_TIMEOUT';
      if (delay === undefined) return { error: cutShort ? pastDeadline(error, this.options.deadlineMs, attempt + 1) : error };
      // A retry that could not finish before the deadline is not started: the caller hears why now.
      if (Date.now() + delay >= deadline) return { error: pastDeadline(error, this.options.deadlineMs, attempt + 1) };
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  /**
   * The one gate before every attempt, once the budget says `wait` (ms): while the credential's budget is
   * spent, the call waits for it when it may (a call not yet sent up to `budgetWaitMs`; a retry, whose
   * caller already waits for it, up to `maxRetryAfterMs`, as for a Retry-After) and can within its
   * deadline; otherwise it fails with nothing sent.
   */
  private async admit(
    request: UpstreamRequest,
    budget: RequestBudget,
    wait: number,
    attempt: number,
    deadline: number,
    toolkit?: string,
  ): Promise<ToolError | undefined> {
    const mayWait = attempt === 0 ? this.options.budgetWaitMs : this.options.maxRetryAfterMs;
    let waited = 0;
    while (wait > 0) {
      if (waited + wait > mayWait || Date.now() + wait >= deadline) {
        throttled(toolkit, 'failed', wait);
        return budgetSpent(request, budget, wait, this.budgets.now(), attempt);
      }
      waited += wait;
      await new Promise((resolve) => setTimeout(resolve, wait));
      // Another process may have spent it again meanwhile.
      wait = await this.budgets.wait(budget);
    }
    if (waited > 0) throttled(toolkit, 'waited', waited);
    return undefined;
  }

  async close(): Promise<void> {
    await this.agent?.close();
  }

  private async attempt(request: UpstreamRequest, timeoutMs: number, cancelled?: AbortSignal): Promise<{ response: UpstreamResponse } | { error: ToolError }> {
    const loaded = undici ?? (await loadUndici());
    const deadline = attemptDeadline(Math.max(1, timeoutMs), cancelled);
    try {
      const answer = await this.exchange(loaded, request, deadline.signal);
      if (!answer) return { error: tooLarge(request, this.options.maxResponseBytes) };
      // Bytes, not text: only the content type can tell whether decoding them as UTF-8 is safe.
      return { response: { status: answer.status, headers: answer.headers, body: parseBody(answer.bytes, answer.headers['content-type']) } };
    } catch (cause) {
      return { error: transportError(request, cause) };
    } finally {
      deadline.clear();
    }
  }

  /**
   * Sends the request and reads its answer, up to maxResponseBytes (undefined past them). A URL already in the
   * form URL parsing gives goes to the pool as its origin and path, unparsed, and its answer is read as it
   * arrives (AnswerReader); any other takes undici's request API, which parses it, and its response stream.
   */
  private async exchange(loaded: Undici, request: UpstreamRequest, signal: AttemptSignal): Promise<Answer | undefined> {
    const target = this.targets.of(request.url);
    const max = this.options.maxResponseBytes;
    if (target) {
      return new Promise((resolve, reject) => {
        const reader = new AnswerReader(max, loaded.util.parseHeaders, resolve, reject);
        signal.once('abort', () => reader.abort(signal.reason!));
        this.pool(loaded).dispatch({ origin: target.origin, path: target.path, method: request.method, headers: request.headers, body: request.body }, reader);
      });
    }
    const response = await loaded.request(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      dispatcher: this.pool(loaded),
      signal,
    });
    const bytes = await readBounded(response.body, max);
    return bytes && { status: response.statusCode, headers: response.headers, bytes };
  }

  /** Milliseconds to wait before the next attempt, or undefined when this failure is not retried. */
  private retryDelay(error: ToolError, attempt: number): number | undefined {
    if (error.kind === 'UPSTREAM_RUNTIME_RATE_LIMIT') {
      if (error.retry_after_ms === undefined) return this.backoff(attempt);
      return error.retry_after_ms <= this.options.maxRetryAfterMs ? error.retry_after_ms : undefined;
    }
    const transient = ['UPSTREAM_RUNTIME_SERVER_ERROR', 'NETWORK_TRANSPORT_RUNTIME_TIMEOUT', 'NETWORK_TRANSPORT_RUNTIME_UNREACHABLE'];
    return transient.includes(error.kind) ? this.backoff(attempt) : undefined;
  }

  private backoff(attempt: number): number {
    return backoffMs(attempt, this.options.retryBaseDelayMs);
  }
}

/**
 * The wait before retry `attempt + 1`: exponential backoff with jitter, so that many clients do not retry
 * in step. Exported for the clients that cannot go through this one (an MCP SDK transport).
 */
export function backoffMs(attempt: number, baseDelayMs: number): number {
  const step = baseDelayMs * 2 ** attempt;
  return Math.round(step / 2 + Math.random() * (step / 2));
}

/** An attempt's series: toolkit, method, and the status class or, when no answer came, the error. */
const attemptDurations = durationHistogram(
  'http.client.request.duration',
  'Upstream requests, each attempt apart, by toolkit, method and status class (error.type when no answer came).',
  ([toolkit, method, status, errorType]) => ({
    'quiver.toolkit': toolkit!,
    'http.request.method': method!,
    ...(status ? { 'http.response.status_class': status } : { 'error.type': errorType! }),
  }),
);

const attemptInstruments = instrumentSet((meter) => ({
  retries: meter.createCounter('quiver.upstream.retries', {
    description: 'Upstream attempts that repeated a failed one, by toolkit and the failure repeated.',
  }),
  throttled: meter.createCounter('quiver.upstream.throttled', {
    description: "Upstream calls held by their credential's spent rate-limit budget, by toolkit and outcome: failed with nothing sent, or waited, then sent.",
  }),
}));

/** A call held by a spent budget, on the tool call's span and in the metrics: no credential, no hash, no host. */
function throttled(toolkit: string | undefined, outcome: 'failed' | 'waited', ms: number): void {
  if (telemetry.tracer) {
    telemetry.api!.trace.getActiveSpan()?.setAttributes({ 'quiver.upstream.throttled': outcome, 'quiver.upstream.throttle.wait_ms': Math.ceil(ms) });
  }
  const instruments = attemptInstruments();
  if (instruments) afterAnswer(() => instruments.throttled.add(1, { 'quiver.toolkit': toolkit ?? '_OTHER', 'quiver.throttle.outcome': outcome }));
}

/** The answer to a call not sent because its credential's budget is spent: when it comes back, and that nothing was sent. */
function budgetSpent(request: UpstreamRequest, budget: RequestBudget, waitMs: number, now: number, attempt: number): ToolError {
  const host = budget.origin.slice(budget.origin.indexOf('//') + 2);
  const at = new Date(now + waitMs).toISOString();
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  // A retry held here follows a rate-limit refusal, which the upstream did not act on either.
  const sent = attempt === 0 ? 'this call was not sent' : 'this call was not sent again after the rate-limit refusal';
  return toolError(
    'UPSTREAM_RUNTIME_RATE_LIMIT',
    `The rate limit of ${host} for this account is used up until ${at} (${seconds} s from now), so ${sent}. Try it again after that; calls to other services are not affected.`,
    {
      retry_after_ms: Math.ceil(waitMs),
      developer_message: `${request.method} ${withoutQuery(request.url)}: not sent: the upstream's rate-limit budget for this credential is spent until ${at}, as the upstream's own rate-limit headers said; nothing reached the upstream. QUIVER_UPSTREAM_WAIT_MS lets a call wait for the budget within its deadline instead.`,
    },
  ).error;
}

interface AttemptRecord {
  toolkit?: string;
  attempt: number;
  retryReason?: string;
  startedAt: number;
  endedAt: number;
  status?: number;
  errorType?: string;
  parent?: import('@opentelemetry/api').Context;
}

/**
 * One attempt in the upstream metrics, and as a span of its own (OpenTelemetry's HTTP client span, made once
 * the answer has left, with the times the attempt started and ended). The request is named by method and path template,
 * never by its URL: a filled path or a query holds the caller's values.
 */
function observeAttempt(
  request: UpstreamRequest,
  outcome: { response: UpstreamResponse } | { error: ToolError },
  { toolkit, attempt, retryReason, startedAt }: { toolkit?: string; attempt: number; retryReason?: string; startedAt: number },
): void {
  const endedAt = spanClock();
  const status = 'response' in outcome ? outcome.response.status : undefined;
  const errorType = status === undefined ? (outcome as { error: ToolError }).error.kind : status >= 400 ? String(status) : undefined;
  const method = httpMethod(request.method);
  const answer = status === undefined ? '' : statusClass(status);
  attemptDurations()?.record((endedAt - startedAt) / 1000, [toolkit ?? '_OTHER', method, answer, answer ? '' : errorType!]);
  if (attempt > 0) {
    attemptInstruments()?.retries.add(1, { 'quiver.toolkit': toolkit ?? '_OTHER', 'quiver.retry.reason': retryReason });
  }
  // The span's parent, now: by the time the span is made, the call's context is gone.
  const parent = telemetry.tracer && telemetry.api!.context.active();
  if (parent) afterAnswer(() => attemptSpan(request, { toolkit, attempt, retryReason, startedAt, endedAt, status, errorType, parent }));
}

function attemptSpan(request: UpstreamRequest, { toolkit, attempt, retryReason, startedAt, endedAt, status, errorType, parent }: AttemptRecord): void {
  const method = httpMethod(request.method);
  const { tracer } = telemetry;
  if (tracer) {
    const { hostname, port, protocol } = new URL(request.url);
    const span = tracer.startSpan(
      request.template ? `${method} ${request.template}` : method,
      {
        kind: telemetry.api!.SpanKind.CLIENT,
        startTime: startedAt,
        attributes: {
          'http.request.method': method,
          'server.address': hostname,
          'server.port': Number(port) || (protocol === 'https:' ? 443 : 80),
          ...(request.template && { 'url.template': request.template }),
          ...(toolkit && { 'quiver.toolkit': toolkit }),
          ...(status !== undefined && { 'http.response.status_code': status }),
          ...(attempt > 0 && { 'http.request.resend_count': attempt, 'quiver.retry.reason': retryReason }),
        },
      },
      parent,
    );
    if (errorType) failed(span, errorType);
    span.end(endedAt);
  }
}

/** An answer read whole: its status, its headers as undici parses them, and the body's bytes. */
interface Answer {
  status: number;
  headers: UpstreamResponse['headers'];
  bytes: Buffer;
}

type AttemptSignal = EventEmitter & { reason?: Error };

/**
 * One attempt's answer as undici's dispatcher hands it over (its handler interface, as its own request API
 * implements it): the status and headers, then the body's chunks, kept until the last or until they pass
 * `max` bytes (then the request is aborted and the answer is undefined). It stands in for the request API's
 * response stream and the reading of it, which cost a request more than the rest of its reading. An abort
 * (the attempt's deadline, the caller's cancellation) before the connection is made ends the request as
 * soon as it is, as undici's request API does.
 */
class AnswerReader {
  private stop: ((reason: Error) => void) | undefined;
  private reason: Error | undefined;
  private settled = false;
  private status = 0;
  private headers: UpstreamResponse['headers'] = {};
  private readonly chunks: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly max: number,
    private readonly parseHeaders: (raw: Buffer[]) => UpstreamResponse['headers'],
    private readonly resolve: (answer: Answer | undefined) => void,
    private readonly reject: (error: Error) => void,
  ) {}

  abort(reason: Error): void {
    if (this.settled) return;
    this.reason = reason;
    this.stop?.(reason);
  }

  onConnect(abort: (reason: Error) => void): void {
    if (this.reason) abort(this.reason);
    else this.stop = abort;
  }

  onHeaders(status: number, raw: Buffer[]): boolean {
    // An informational answer (1xx) is not the answer.
    if (status < 200) return true;
    this.status = status;
    this.headers = this.parseHeaders(raw);
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.size += chunk.length;
    if (this.size > this.max) {
      // The rest is not read: the connection is dropped, and the answer is too large.
      this.settle();
      this.resolve(undefined);
      this.stop?.(new Error('The answer is larger than the response size limit.'));
      return false;
    }
    this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    if (this.settle()) this.resolve({ status: this.status, headers: this.headers, bytes: Buffer.concat(this.chunks, this.size) });
  }

  onError(error: Error): void {
    if (this.settle()) this.reject(error);
  }

  /** Whether this is the first end of the exchange (an abort that follows a cut answer ends nothing more). */
  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    return true;
  }
}

/**
 * Aborts one attempt, from sending to the last byte of the answer, once `ms` have passed. undici takes an
 * EventEmitter as its signal as well as an AbortSignal; measured on a loopback request, an AbortSignal's
 * bookkeeping added 4 to 15 % to its time, the EventEmitter under 4 %.
 */
function attemptDeadline(ms: number, cancelled?: AbortSignal): { signal: AttemptSignal; clear(): void } {
  const signal: AttemptSignal = new EventEmitter();
  const abort = (reason: Error) => {
    // undici rejects with the signal's reason: the same TimeoutError an AbortSignal.timeout gives.
    signal.reason = reason;
    signal.emit('abort');
  };
  const timer = setTimeout(() => abort(new DOMException(`The attempt took longer than ${ms} ms.`, 'TimeoutError')), ms);
  const cancel = () => abort(new DOMException('The call was cancelled.', 'AbortError'));
  cancelled?.addEventListener('abort', cancel, { once: true });
  return {
    signal,
    clear: () => {
      clearTimeout(timer);
      cancelled?.removeEventListener('abort', cancel);
    },
  };
}

/** A call its caller cancelled before the upstream answered: nothing came back, and it was a read (see Invocation.cancelled). */
function cancelledCall(request: UpstreamRequest): ToolError {
  return toolError('NETWORK_TRANSPORT_RUNTIME_TIMEOUT', 'The call was cancelled before the upstream service answered.', {
    developer_message: `${request.method} ${withoutQuery(request.url)}: cancelled by the caller`,
  }).error;
}

/**
 * The body as it streams in, or undefined once it passes `max` bytes: the rest is not read (the
 * connection is dropped), so an answer of any size costs at most `max` bytes of memory.
 */
function readBounded(body: Readable, max: number): Promise<Buffer | undefined> {
  // Events rather than `for await`: the async iterator costs a promise and a microtask per chunk.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        body.destroy();
        resolve(undefined);
      } else chunks.push(chunk);
    });
    body.once('end', () => resolve(Buffer.concat(chunks, size)));
    body.once('error', reject);
  });
}

const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

function tooLarge(request: UpstreamRequest, max: number): ToolError {
  return toolError(
    'UPSTREAM_RUNTIME_BAD_REQUEST',
    `The upstream answer is larger than the ${megabytes(max)} limit, so it was cut off and not used. Ask for less (a smaller page, fewer fields, a narrower filter).`,
    {
      developer_message: `${request.method} ${withoutQuery(request.url)}: response body over ${max} bytes (the upstream response size limit).`,
    },
  ).error;
}

/**
 * A failure of a request that may have reached the upstream (a POST or PATCH that was sent, or whose
 * answer was a server error): the upstream may have acted, so repeating it as it is could act twice.
 */
function mayHaveActed(request: UpstreamRequest, error: ToolError): ToolError {
  if (SAFE_TO_RETRY.has(request.method)) return error;
  return {
    ...error,
    can_retry: false,
    message: `${error.message} The request may have reached the upstream service and taken effect: check before sending it again.`,
  };
}

function pastDeadline(error: ToolError, deadlineMs: number, attempts: number): ToolError {
  const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
  return {
    ...error,
    message: `${error.message} The call's ${deadlineMs / 1000} s deadline, every attempt included, leaves no time for another attempt (${tries} made).`,
  };
}

/** Media types that are text whatever their charset, besides text/* and the JSON types. */
const TEXTUAL_TYPES = new Set(['application/xml', 'application/javascript', 'application/x-www-form-urlencoded']);

/** Decodes UTF-8 like undici's text() did (a leading BOM dropped, invalid sequences replaced). */
const utf8 = new TextDecoder('utf-8');
/** The same, but throwing on invalid UTF-8: with no content type, that is how binary is recognised. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function parseBody(bytes: Buffer, contentType: string | string[] | undefined): unknown {
  if (bytes.length === 0) return undefined;
  const declared = (Array.isArray(contentType) ? contentType[0] : contentType)?.trim() || undefined;
  const mediaType = declared === undefined ? undefined : declared.split(';')[0]!.trim().toLowerCase();
  if (mediaType === undefined) {
    try {
      return strictUtf8.decode(bytes);
    } catch {
      return binaryBody(bytes, 'application/octet-stream');
    }
  }
  // Any type naming JSON (application/json, +json, vendor types such as application/vnd.api+json).
  if (mediaType.includes('json')) {
    const text = utf8.decode(bytes);
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  if (mediaType.startsWith('text/') || mediaType.endsWith('+xml') || TEXTUAL_TYPES.has(mediaType)) return utf8.decode(bytes);
  return binaryBody(bytes, declared!);
}

const binaryBody = (bytes: Buffer, contentType: string): BinaryBody => ({
  content_base64: bytes.toString('base64'),
  content_type: contentType,
  size_bytes: bytes.length,
});

/** `retryAfter`: how long the answer's budget reading keeps the request from being sent (for a rate limit). */
function httpError(request: UpstreamRequest, response: UpstreamResponse, kind: ErrorKind, retryAfterMs: number | undefined): ToolError {
  const detail = upstreamMessage(response.body);
  const retryAfter = kind === 'UPSTREAM_RUNTIME_RATE_LIMIT' ? retryAfterMs : undefined;
  const said = `The upstream service answered ${response.status}${detail ? `: ${detail}` : '.'}`;
  const missing = kind === 'UPSTREAM_RUNTIME_NOT_FOUND' ? notFoundAt(request) : undefined;
  const message = missing ? `${said}${/[.!?…]$/.test(said) ? '' : '.'} ${missing}` : said;
  const error = toolError(kind, message, {
    status_code: response.status,
    retry_after_ms: retryAfter,
    developer_message: `${request.method} ${withoutQuery(request.url)} -> ${response.status}; response body: ${truncate(JSON.stringify(response.body) ?? '', 2000)}`,
  }).error;
  // A server error may come after the work was done (or half done); a rate limit means it was not.
  return kind === 'UPSTREAM_RUNTIME_SERVER_ERROR' ? mayHaveActed(request, error) : error;
}

/**
 * What a 404 could not find, in the call's own terms: the path parameters and the values it gave them
 * (the upstream's message rarely says which one). A value is what the caller passed, never a credential.
 */
function notFoundAt(request: UpstreamRequest): string | undefined {
  // In the order they stand in the path (owner before repository), which the parameters' order need not be.
  const path = withoutQuery(request.url);
  const at = (value: string) => {
    const segment = `/${encodeURIComponent(value)}`;
    for (let from = path.indexOf(segment); from >= 0; from = path.indexOf(segment, from + 1)) {
      if ([undefined, '/'].includes(path[from + segment.length])) return from;
    }
    return Number.MAX_SAFE_INTEGER;
  };
  const named = Object.entries(request.pathArguments ?? {}).sort(([, a], [, b]) => at(a) - at(b));
  if (!named.length) return undefined;
  const values = named.map(([name, value]) => `${name}=${JSON.stringify(truncate(value, 100))}`).join(', ');
  return `Nothing was found for ${values}, or the credential cannot see it: check these values.`;
}

/**
 * The upstream's own words for the failure, from the common error body shapes: `message` (GitHub,
 * HubSpot), `error` or `error.message` (OAuth, Graph), `error_description`, `detail`, `err` (ClickUp,
 * Figma), `error_summary` (Dropbox), `meta.error` and `errors[0]` or `errors[0].message`
 * (Customer.io, Pylon).
 */
function upstreamMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return truncate(body, 500);
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  const field = (value: unknown, key: string) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined);
  const firstError = Array.isArray(record.errors) ? record.errors[0] : undefined;
  const candidates = [
    record.message,
    field(record.error, 'message') ?? record.error,
    record.error_description,
    record.detail,
    record.err,
    record.error_summary,
    field(record.meta, 'error'),
    typeof firstError === 'string' ? firstError : field(firstError, 'message'),
  ];
  const message = candidates.find((candidate) => typeof candidate === 'string' && candidate.length > 0);
  return typeof message === 'string' ? truncate(message, 500) : undefined;
}

/** From Retry-After (seconds or HTTP date) or x-ratelimit-reset (epoch seconds); the budget reading (budgets.ts) uses the same parsers. */
export function retryAfterMs(headers: UpstreamResponse['headers']): number | undefined {
  const now = Date.now();
  const retryAfter = retryAfterHeader(headers, now);
  if (retryAfter !== undefined) return retryAfter;
  if (headers['x-ratelimit-reset'] === undefined) return undefined;
  const reset = resetTime(headers['x-ratelimit-reset'], now);
  return Number.isFinite(reset) ? Math.max(0, reset - now) : undefined;
}

function transportError(request: UpstreamRequest, cause: unknown): ToolError {
  const error = cause as { name?: string; code?: string; message?: string };
  const timedOut = error.name === 'TimeoutError' || error.name === 'AbortError' || /TIMEOUT/.test(error.code ?? '');
  const developer_message = `${request.method} ${withoutQuery(request.url)}: ${error.code ?? error.name}: ${error.message}`;
  const failed = timedOut
    ? toolError('NETWORK_TRANSPORT_RUNTIME_TIMEOUT', 'The upstream service did not answer in time.', { developer_message }).error
    : toolError('NETWORK_TRANSPORT_RUNTIME_UNREACHABLE', 'The upstream service could not be reached.', { developer_message }).error;
  return NOT_SENT.has(error.code ?? '') ? failed : mayHaveActed(request, failed);
}

const withoutQuery = (url: string) => url.split('?')[0]!;
const ABSOLUTE_HTTP = /^https?:\/\//i;
const truncate = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);
