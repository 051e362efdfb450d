/**
 * The one path every tool call takes, whoever makes it (MCP over stdio or HTTP, the HTTP API, the
 * command line, a worker, the scheduler): find the tool, apply the serving policy, resolve the call's
 * credentials, run it where its toolkit is served, turn a throw into an error, and record the call.
 */
import { randomUUID } from 'node:crypto';
import { ToolCatalog, type CatalogEntry } from './catalog.js';
import { toolError, unexpectedFailure, type ErrorKind, type ToolError, type ToolResult } from './errors.js';
import { declaredSecrets } from './execute.js';
import { credentialForms, redactResult } from './redaction.js';
import { createToolIndex, type SearchHit, type SearchOptions, type ToolIndex } from './search/index.js';
import { didYouMean, suggestToolNames } from './search/suggest.js';
import type { ServingPolicy } from './serving.js';
import { builtinSource } from './source.js';
import { qualifiedName, type Tool, type Toolkit } from './tool.js';
import type { UpstreamClient } from './upstream.js';

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
  resolve(tool: Tool, userId: string | undefined): Promise<CallCredentials | CredentialRefusal>;
}

export interface CallOptions {
  userId?: string;
  executionId?: string;
  /** `Toolkit.Tool@version` may also pin the version. */
  version?: string;
  /** This call's serving policy, where it differs from the dispatcher's (an MCP session's). */
  policy?: ServingPolicy;
  /** This call's credentials, where they differ from the dispatcher's (those a worker receives with an invoke). */
  credentials?: CredentialResolver;
}

/** What is recorded of every call: names and outcome, never inputs, tokens or secrets. */
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
  /** Told of every finished call (the engine logs and stores it; the CLI logs it). */
  record?: (record: CallRecord) => void;
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

  /** The result alone. */
  async call(name: string, input: unknown, options: CallOptions = {}): Promise<ToolResult> {
    return (await this.dispatch(name, input, options)).result;
  }

  async dispatch(name: string, input: unknown, options: CallOptions = {}): Promise<Dispatched> {
    const executionId = options.executionId ?? randomUUID();
    const startedAt = new Date();
    const started = performance.now();
    let tool: Tool | undefined;
    let unknown = false;
    let authorization: Authorization | undefined;
    let result: ToolResult;
    /** The forms of the credentials this call was handed, kept out of whatever it answers. */
    let credentials: string[] = [];
    try {
      const found = await this.catalog.resolve(name, options.version);
      if (!found) {
        unknown = true;
        const suggestions = suggestToolNames(name, await this.list(options.policy ?? this.options.policy));
        result = toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `Unknown tool '${name}'.${didYouMean(suggestions) || ' Tool names look like Toolkit.Tool.'}`);
      } else if ('unavailable' in found) {
        const kind = found.retryable ? 'NETWORK_TRANSPORT_RUNTIME_UNREACHABLE' : 'TOOL_RUNTIME_FATAL';
        result = toolError(kind, `${name} cannot run now: ${found.unavailable}`);
      } else {
        tool = found.tool;
        const run = async (args: Record<string, unknown>): Promise<ToolResult> => {
          const resolved = await (options.credentials ?? this.options.credentials).resolve(found.tool, options.userId);
          if ('refused' in resolved) {
            authorization = resolved.authorization;
            return { error: resolved.refused };
          }
          credentials = credentialForms(found.tool, resolved);
          return redactResult(await found.source.invoke(found.tool, args, { executionId, userId: options.userId, ...resolved }), credentials);
        };
        const policy = options.policy ?? this.options.policy;
        // The policy refuses before any credential is looked up: a refused tool starts no OAuth flow.
        result = policy ? await policy.run(found.tool, input, run) : await run(asArguments(input));
      }
    } catch (cause) {
      // A bug in a handler: one line for the developer, the stack apart (only for a caller who asks for it).
      result = redactResult(unexpectedFailure(`${tool?.name ?? name} failed unexpectedly.`, cause), credentials);
    }
    const durationMs = performance.now() - started;
    this.options.record?.({
      execution_id: executionId,
      tool: tool ? qualifiedName(tool) : name,
      ...(tool && { toolkit: tool.toolkit.name, version: tool.toolkit.version }),
      ...(options.userId && { user_id: options.userId }),
      success: !('error' in result),
      ...('error' in result && { kind: result.error.kind }),
      started_at: startedAt.toISOString(),
      duration_ms: Math.round(durationMs * 10) / 10,
    });
    return { executionId, result, tool, authorization, durationMs, ...(unknown && { unknown }) };
  }
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
}

/** Credentials that are the same for every call and user: the CLI's configuration, a worker's invoke, a test. */
export function staticCredentials({ tokens = {}, token, secrets = {} }: StaticCredentials): CredentialResolver {
  return {
    resolve: async (tool) => {
      const provider = tool.requirements.oauth2?.provider;
      return { token: provider ? (tokens[provider] ?? token) : undefined, secrets: declaredSecrets(tool, secrets) };
    },
  };
}

export interface LocalDispatcherOptions extends StaticCredentials, Omit<DispatcherOptions, 'credentials'> {
  client: UpstreamClient;
  /** Base URL per toolkit, where it differs from the toolkit's default. */
  baseUrls?: Record<string, string>;
}

/** Toolkits run in this process with fixed credentials: the command line, and tests. */
export function localDispatcher(toolkits: readonly Toolkit[], { client, baseUrls, tokens, token, secrets, ...options }: LocalDispatcherOptions): Dispatcher {
  const catalog = new ToolCatalog([builtinSource(toolkits, client, baseUrls)]);
  return new Dispatcher(catalog, { ...options, credentials: staticCredentials({ tokens, token, secrets }) });
}
