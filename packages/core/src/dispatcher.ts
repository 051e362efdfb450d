/**
 * The one path every tool call takes, whoever makes it (MCP over stdio or HTTP, the HTTP API, the
 * command line, a worker, the scheduler): find the tool, apply the serving policy, resolve the call's
 * credentials, run it where its toolkit is served, turn a throw into an error, and record the call.
 */
import { randomUUID } from 'node:crypto';
import { ToolCatalog, type CatalogEntry } from './tool-catalog.js';
import type { ConfirmWithPerson } from './confirmation.js';
import { toolError, unexpectedFailure, type ErrorKind, type ToolError, type ToolResult } from './errors.js';
import { declaredSecrets, missingSecrets, missingToken, unsetSecrets } from './execute.js';
import { credentialForms, redactInput, redactResult } from './redaction.js';
import { createToolIndex, type SearchHit, type SearchOptions, type ToolIndex } from './search/index.js';
import { didYouMean, suggestToolNames } from './search/suggest.js';
import type { ServingPolicy } from './serving.js';
import { builtinSource } from './source.js';
import { durationHistogram, failed, telemetry } from './telemetry.js';
import { annotationsOf, qualifiedName, type Tool, type Toolkit } from './tool.js';
import type { UpstreamClient } from './upstream.js';
import type { Span } from '@opentelemetry/api';

/** An OAuth authorization the user must complete before the tool can run (the engine's AuthorizationResponse). */
export interface Authorization {
  id: string;
  status: 'not_started' | 'pending' | 'completed' | 'failed';
  url?: string;
  scopes: string[];
  provider_id: string;
  user_id: string;
  context?: { token?: string; user_info?: Record<string, unknown> };
}

export interface CallCredentials {
  token?: string;
  /** Values of the secrets the tool declares (only those). */
  secrets: Record<string, string>;
}

/** Why a call cannot get its credentials: an error for the caller, and the authorization to complete, if any. */
export interface CredentialRefusal {
  refused: ToolError;
  authorization?: Authorization;
}

/** Where a call's credentials come from: the engine's users' tokens and sealed secrets, or the CLI's configuration. */
export interface CredentialResolver {
  resolve(tool: Tool, userId: string | undefined, call?: CredentialCall): Promise<CallCredentials | CredentialRefusal>;
}

/** What a resolver may tell of the call beyond its tool and user. */
export interface CredentialCall {
  /** How the caller names the acting user (see CallOptions.actingUserHint). */
  actingUserHint?: string;
}

export interface CallOptions {
  userId?: string;
  /**
   * What the caller is told to do when a tool acts for a user and the call names none, as the way in it
   * came by names the user: `pass user_id` (a body field), `send the Quiver-User-ID header` (MCP).
   */
  actingUserHint?: string;
  executionId?: string;
  /** `Toolkit.Tool@version` may also pin the version. */
  version?: string;
  /** This call's serving policy, where it differs from the dispatcher's (an MCP session's). */
  policy?: ServingPolicy;
  /** This call's credentials, where they differ from the dispatcher's (those a worker receives with an invoke). */
  credentials?: CredentialResolver;
  /** The HTTP request that made the call and the API key it came with (its id, never the key), for the call's log line. */
  requestId?: string;
  keyId?: string;
  /**
   * Asks the person to confirm a destructive call the model did not confirm, where the serving policy
   * confirms destructive tools and the caller can reach the person (an MCP client with form elicitation).
   */
  confirmWithPerson?: ConfirmWithPerson;
  /**
   * Asked once the call is about to run (its input checked, before any credential is looked up): the
   * engine's limits of calls in flight. A refusal is the call's result; an admitted call is released when it ends.
   */
  admit?: () => Promise<Admission>;
  /**
   * The caller no longer wants the answer (an MCP client cancelled the request, or went away): a read's
   * upstream request still unanswered is aborted. A write is never cut short: it may already have acted.
   */
  cancelled?: AbortSignal;
}

/** A call let through (to be released once it has ended), or refused with an error for the caller. */
export type Admission = { release(): void } | { refused: ToolError };

/** What is logged of every call: names and outcome, never inputs, results, tokens or secrets (those go to the recorder apart, as CallData). */
export interface CallRecord {
  execution_id: string;
  tool: string;
  toolkit?: string;
  version?: string;
  user_id?: string;
  success: boolean;
  kind?: ErrorKind;
  started_at: string;
  duration_ms: number;
  /** Where the call came from, when a request made it: the request's id and its API key's id. */
  request_id?: string;
  key_id?: string;
}

/**
 * A finished call's input and result, for a recorder that keeps them. The input is redacted only when
 * first read, so a recorder that keeps neither (the command line, an engine not keeping call data, a
 * scheduled execution's record) costs the call nothing, and one that does may read it once the answer
 * has gone. Neither is copied: nothing changes a call's input or result once the call has ended (its
 * callers only answer them), so a later read sees them as the call ended.
 */
export interface CallData {
  /** The input with the call's credentials, and every property whose name says it is one, redacted (redactInput). */
  readonly input: unknown;
  /** The result as the caller got it (scrubbed of the call's credentials, like every result). */
  readonly result: ToolResult;
}

export interface Dispatched {
  executionId: string;
  result: ToolResult;
  /** Absent when no tool has the name, or its source cannot run it now. */
  tool?: Tool;
  /** No tool has the name (as against a tool whose worker is down or disabled). */
  unknown?: boolean;
  authorization?: Authorization;
  durationMs: number;
}

export interface DispatcherOptions {
  credentials: CredentialResolver;
  /** What is offered and how calls are guarded and shaped; absent, every tool runs as it is. */
  policy?: ServingPolicy;
  /**
   * Told of every finished call, before its answer is sent (the engine logs and stores it; the CLI logs
   * it): so it should put off what can wait. What the call ran with and answered comes apart from the
   * record, which is logged, as CallData: reading its input is what redacts it.
   */
  record?: (record: CallRecord, data: CallData) => void;
}

export class Dispatcher {
  /** The search index of the tools last searched, kept while they stay the same. */
  private index: { tools: readonly Tool[]; index: Promise<ToolIndex> } | undefined;

  constructor(
    readonly catalog: ToolCatalog,
    private readonly options: DispatcherOptions,
  ) {}

  get policy(): ServingPolicy | undefined {
    return this.options.policy;
  }

  /** The tools a caller is offered under the policy. */
  async list(policy = this.options.policy): Promise<Tool[]> {
    const tools = await this.catalog.tools();
    return policy ? tools.filter((tool) => policy.offers(tool)) : tools;
  }

  /** A tool the policy offers, by any of its names; undefined otherwise. */
  async find(name: string, policy = this.options.policy): Promise<CatalogEntry | undefined> {
    const found = await this.catalog.resolve(name);
    return found && 'tool' in found && (!policy || policy.offers(found.tool)) ? found : undefined;
  }

  /** The tools the policy offers, best match first; the index is built again only when they change. */
  async search(query: string, options?: SearchOptions, policy = this.options.policy): Promise<SearchHit[]> {
    const tools = await this.list(policy);
    if (!this.index || !sameTools(this.index.tools, tools)) this.index = { tools, index: createToolIndex(tools) };
    return (await this.index.index).search(query, options);
  }

  /** Up to three names of tools the policy offers that an unknown `name` may mean, by spelling and by meaning. */
  async suggest(name: string, nameOf?: (tool: Tool) => string, policy = this.options.policy): Promise<string[]> {
    return suggestToolNames(name, await this.list(policy), { nameOf, search: (query, options) => this.search(query, options, policy) });
  }

  /** The result alone. */
  async call(name: string, input: unknown, options: CallOptions = {}): Promise<ToolResult> {
    return (await this.dispatch(name, input, options)).result;
  }

  // Not async: the call's own promise is answered, not one more around it (two microtask turns more on every call).
  dispatch(name: string, input: unknown, options: CallOptions = {}): Promise<Dispatched> {
    const tracer = telemetry.tracer;
    if (!tracer) return this.run(name, input, options, undefined);
    // OpenTelemetry's `execute_tool` span, active while the tool runs so that upstream attempts nest under it.
    return tracer.startActiveSpan('execute_tool', { attributes: { 'gen_ai.operation.name': 'execute_tool' } }, async (span) => {
      try {
        return await this.run(name, input, options, span);
      } finally {
        span.end();
      }
    });
  }

  private async run(name: string, input: unknown, options: CallOptions, span: Span | undefined): Promise<Dispatched> {
    const executionId = options.executionId ?? randomUUID();
    const startedAt = new Date();
    const started = performance.now();
    let tool: Tool | undefined;
    let unknown = false;
    let authorization: Authorization | undefined;
    /** The source that ran the tool: `builtin` or a worker's id. */
    let source: string | undefined;
    let result: ToolResult;
    /** The forms of the credentials this call was handed, kept out of whatever it answers. */
    let credentials: readonly string[] = [];
    try {
      const found = await this.catalog.resolve(name, options.version);
      if (!found) {
        unknown = true;
        const suggestions = await this.suggest(name, undefined, options.policy ?? this.options.policy);
        result = toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `Unknown tool '${name}'.${didYouMean(suggestions) || ' Tool names look like Toolkit.Tool.'}`);
      } else if ('unavailable' in found) {
        const kind = found.retryable ? 'NETWORK_TRANSPORT_RUNTIME_UNREACHABLE' : 'TOOL_RUNTIME_FATAL';
        result = toolError(kind, `${name} cannot run now: ${found.unavailable}`);
      } else {
        tool = found.tool;
        source = found.source.id;
        const run = async (args: Record<string, unknown>): Promise<ToolResult> => {
          // No admission asked for (no limit applies): no await either.
          const admission = options.admit ? await options.admit() : undefined;
          if (admission && 'refused' in admission) return { error: admission.refused };
          try {
            const resolved = await (options.credentials ?? this.options.credentials).resolve(found.tool, options.userId, {
              actingUserHint: options.actingUserHint,
            });
            if ('refused' in resolved) {
              authorization = resolved.authorization;
              return { error: resolved.refused };
            }
            credentials = credentialForms(found.tool, resolved);
            const cancelled = annotationsOf(found.tool).readOnlyHint ? options.cancelled : undefined;
            return redactResult(await found.source.invoke(found.tool, args, { executionId, userId: options.userId, ...resolved, cancelled }), credentials);
          } finally {
            admission?.release();
          }
        };
        const policy = options.policy ?? this.options.policy;
        // The policy refuses before any credential is looked up: a refused tool starts no OAuth flow.
        result = policy ? await policy.run(found.tool, input, run, options.confirmWithPerson) : await run(asArguments(input));
      }
    } catch (cause) {
      // A bug in a handler: one line for the developer, the stack apart (only for a caller who asks for it).
      result = redactResult(unexpectedFailure(`${tool?.name ?? name} failed unexpectedly.`, cause), credentials);
    }
    const durationMs = performance.now() - started;
    const record = callRecord(executionId, tool, name, options, result, startedAt, durationMs);
    if (span || telemetry.meter) observeCall(record, durationMs, source, span);
    this.options.record?.(record, new RedactedOnRead(input, credentials, result));
    return { executionId, result, tool, authorization, durationMs, ...(unknown && { unknown }) };
  }
}

/**
 * What is logged of a finished call. Its fields are set one after the other, absent ones left out, in the
 * order a log line shows them: no object is made and copied for each optional field.
 */
function callRecord(
  executionId: string,
  tool: Tool | undefined,
  name: string,
  options: CallOptions,
  result: ToolResult,
  startedAt: Date,
  durationMs: number,
): CallRecord {
  const record = { execution_id: executionId } as CallRecord;
  record.tool = tool ? qualifiedName(tool) : name;
  if (tool) {
    record.toolkit = tool.toolkit.name;
    record.version = tool.toolkit.version;
  }
  if (options.userId) record.user_id = options.userId;
  record.success = !('error' in result);
  if ('error' in result) record.kind = result.error.kind;
  record.started_at = startedAt.toISOString();
  record.duration_ms = Math.round(durationMs * 10) / 10;
  if (options.requestId) record.request_id = options.requestId;
  if (options.keyId) record.key_id = options.keyId;
  return record;
}

/**
 * The call's data, its input redacted on first read with the credentials this call ran with. A class, not
 * an object literal with a getter (such a literal is built anew, property by property, on every call); what
 * it was given stays in private fields, so that what walks or serializes it sees the redacted input alone.
 */
class RedactedOnRead implements CallData {
  readonly #given: unknown;
  readonly #credentials: readonly string[];
  #redacted: { input: unknown } | undefined;

  constructor(
    given: unknown,
    credentials: readonly string[],
    readonly result: ToolResult,
  ) {
    this.#given = given;
    this.#credentials = credentials;
  }

  get input(): unknown {
    this.#redacted ??= { input: redactInput(this.#given, this.#credentials) };
    return this.#redacted.input;
  }

  toJSON(): { input: unknown; result: ToolResult } {
    return { input: this.input, result: this.result };
  }
}

/** A call's series: toolkit, tool and error kind (none for a success), the tool left out when no toolkit has it. */
const callDurations = durationHistogram(
  'quiver.tool.duration',
  'Tool calls through the dispatcher, by toolkit, tool, outcome and error kind; its count is the number of calls.',
  ([toolkit, tool, kind]) => ({
    'quiver.toolkit': toolkit || '_OTHER',
    'gen_ai.tool.name': toolkit ? tool! : '_OTHER',
    'quiver.outcome': kind ? 'error' : 'success',
    ...(kind && { 'error.type': kind }),
  }),
);

/**
 * A finished call on its span and in the tool metrics: names, outcome and error kind, never its input,
 * result or message. A name no tool has is `_OTHER` in metrics, so that callers cannot add series at will.
 */
function observeCall(record: CallRecord, durationMs: number, source: string | undefined, span: Span | undefined): void {
  const outcome = record.success ? 'success' : 'error';
  if (span) {
    if (record.toolkit) {
      span.updateName(`execute_tool ${record.tool}`);
      span.setAttributes({
        'gen_ai.tool.name': record.tool,
        'quiver.toolkit': record.toolkit,
        'quiver.toolkit.version': record.version,
        'quiver.tool.source': source,
      });
    }
    span.setAttribute('gen_ai.tool.call.id', record.execution_id);
    span.setAttribute('quiver.outcome', outcome);
    if (record.user_id && telemetry.recordUserId) span.setAttribute('user.id', record.user_id);
    if (record.kind) failed(span, record.kind);
  }
  callDurations()?.record(durationMs / 1000, [record.toolkit ?? '', record.toolkit ? record.tool : '', record.kind ?? '']);
}

const sameTools = (a: readonly Tool[], b: readonly Tool[]) => a.length === b.length && a.every((tool, i) => tool === b[i]);

/** Without a policy to check it, a non-object input is passed on as it is: the tool's own validation names the problem. */
const asArguments = (input: unknown) => input as Record<string, unknown>;

export interface StaticCredentials {
  /** Token per OAuth provider. */
  tokens?: Record<string, string>;
  /** A token for every provider that `tokens` does not name (a test, a sandbox). */
  token?: string;
  secrets?: Record<string, string>;
  /**
   * How to supply a provider's token, when it is known where the credentials come from (the command line's flag
   * and variable): a tool needing a token there is none for is then refused with it. Absent, the tool's own check
   * refuses it, without a hint.
   */
  tokenHint?: (provider: string) => string;
  /** The same for the secrets a tool needs that there are none for, given their keys. */
  secretHint?: (keys: readonly string[]) => string;
}

/** Credentials that are the same for every call and user: the CLI's configuration, a worker's invoke, a test. */
export function staticCredentials({ tokens = {}, token, secrets = {}, tokenHint, secretHint }: StaticCredentials): CredentialResolver {
  return {
    resolve: async (tool) => {
      const provider = tool.requirements.oauth2?.provider;
      const found = provider ? (tokens[provider] ?? token) : undefined;
      if (provider && !found && tokenHint) return { refused: missingToken(tool, tokenHint(provider)) };
      const unset = secretHint ? unsetSecrets(tool, secrets) : [];
      if (unset.length) return { refused: missingSecrets(tool, unset, secretHint!(unset)) };
      return { token: found, secrets: declaredSecrets(tool, secrets) };
    },
  };
}

export interface LocalDispatcherOptions extends StaticCredentials, Omit<DispatcherOptions, 'credentials'> {
  client: UpstreamClient;
  /** Base URL per toolkit, where it differs from the toolkit's default. */
  baseUrls?: Record<string, string>;
}

/** Toolkits run in this process with fixed credentials: the command line, and tests. */
export function localDispatcher(
  toolkits: readonly Toolkit[],
  { client, baseUrls, tokens, token, secrets, tokenHint, secretHint, ...options }: LocalDispatcherOptions,
): Dispatcher {
  const catalog = new ToolCatalog([builtinSource(toolkits, client, baseUrls)]);
  return new Dispatcher(catalog, { ...options, credentials: staticCredentials({ tokens, token, secrets, tokenHint, secretHint }) });
}
