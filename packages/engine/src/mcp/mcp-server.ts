/**
 * Tools as an MCP server (the official SDK's low-level server: our tools bring their own JSON Schemas),
 * one definition for both eras: the 2026-07-28 revision (each request stateless, with its own `_meta`)
 * and the 2025 revisions (`initialize`). The serving entries pick the era per request or connection
 * (routes/mcp.ts over HTTP, `quiver mcp` over stdio); the handlers here differ by era only where the
 * protocol does, in the schema dialect they declare.
 */
import {
  Server,
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  type ListToolsResult,
  type ServerCapabilities,
  type RequestStateCodec,
  type Transport,
} from '#mcp-server';
import {
  annotationsOf,
  confirmName,
  in2026,
  JSON_SCHEMA_2020_12,
  toMcpTool,
  toolError,
  type CallOptions,
  type Dispatcher,
  type ServingPolicy,
  type Tool,
  type ToolResult,
} from '@quiver/core';
import { callMetaTool, isMetaTool, metaTools } from './discovery.js';
import { askStateCodec, callRound, declaredCapabilities, personConfirms, type AskState, type AuthorizationWait } from './elicitation.js';
import {
  confirmedOnce,
  createTaskResult,
  declaresTasks,
  runAtName,
  runAtOf,
  runAtSchema,
  scheduling,
  serveTaskMethods,
  TASK_AFTER_MS,
  TASKS_EXTENSION,
  type TaskOwner,
  type Tasks,
} from './tasks.js';
import { definitionIn2026 } from './definition-text.js';
import { jsonArray } from './stdio.js';
import { observeMcp, type McpNetwork } from './telemetry.js';

export { metaTools } from './discovery.js';
export { ProcessTasks } from './tasks.js';
// `quiver mcp` serves over stdio with the same copy of the SDK its servers are made with.
export { serveStdio } from '#mcp-server';
export { StdioTransport } from './stdio.js';

export const serverInfo = { name: 'quiver', version: '0.1.0' };

/** The two changes to a 2026-07-28 client's definitions (`in2026` and run_at) as JSON text, for a listing sent as text (definition-text.ts). */
const dialectText = Buffer.from(`"$schema":${JSON.stringify(JSON_SCHEMA_2020_12)},`);
const runAtText = Buffer.from(`${JSON.stringify(runAtName)}:${JSON.stringify(runAtSchema)}`);

/** How often a call that runs long tells a client that asked for progress that it still does. */
export const PROGRESS_EVERY_MS = 5_000;

/** A tool list holds for a minute: it changes only with the engine's toolkits and workers, and differs by caller. */
const LIST_CACHE = { ttlMs: 60_000, cacheScope: 'private' } as const;

export interface McpServerOptions {
  /** List the discovery meta-tools (search, describe, call) instead of every tool. */
  discovery?: boolean;
  /** The session's user: every call runs as this user. */
  userId?: string;
  /** What a call is told to do when its tool acts for a user and the session has none (see CallOptions). */
  actingUserHint?: string;
  /** The session's policy, where it differs from the dispatcher's. */
  policy?: ServingPolicy;
  /** How messages arrive, for telemetry: `pipe` (stdio) or `tcp` (streamable HTTP, the default). */
  network?: McpNetwork;
  /**
   * The transport sends a result's JsonText as its text (StdioTransport): a 2025 client's tool listing is then the
   * definitions' text, as the build wrote them where it could (ServingPolicy.definitionText), not objects.
   */
  sendsJsonText?: boolean;
  /** The HTTP request carrying the session's messages and its API key's id, for each call's log line. */
  requestId?: string;
  keyId?: string;
  /** The engine's limits of calls in flight, asked as each call is about to run (see CallOptions). */
  admit?: CallOptions['admit'];
  /**
   * What a 2025 client declared at `initialize`, where this server did not see it: over stateless HTTP each
   * message gets a server of its own, and the session id carries the elicitation modes (see routes/mcp.ts).
   */
  clientCapabilities?: ClientCapabilities;
  /** The engine's authorizations: a call that needs one asks a client with URL elicitation to open it, and waits. */
  authorizations?: AuthorizationWait;
  /** Seals what a call carries between the rounds of a question to the person (see elicitation.ts); a process-local key by default. */
  askState?: RequestStateCodec<AskState>;
  /** Where calls go that become tasks, for 2026-07-28 clients that declare the extension (see tasks.ts); none without. */
  tasks?: Tasks;
  /** Whose tasks this session's are: its key or sign-in, and user. */
  taskOwner?: TaskOwner;
}

/** A server whose transport's requests are traced and measured once it is connected (see telemetry.ts). */
class ObservedServer extends Server {
  network: McpNetwork = 'tcp';

  /** The client's capabilities, declared at an `initialize` another server answered (the SDK keeps them private). */
  assumeClientCapabilities(capabilities: ClientCapabilities): void {
    Object.assign(this, { _clientCapabilities: capabilities });
  }

  override async connect(transport: Transport): Promise<void> {
    await super.connect(transport);
    observeMcp(transport, this.network);
  }
}

/** The seal of a process of its own (`quiver mcp`), made when its first server is. */
let processAskState: RequestStateCodec<AskState> | undefined;
const ownAskState = () => {
  processAskState ??= askStateCodec();
  return processAskState;
};

/** An MCP server over the dispatcher: it lists what the policy offers and sends every call through the dispatcher. */
export function createMcpServer(dispatcher: Dispatcher, options: McpServerOptions = {}): Server {
  const { discovery = false, userId, actingUserHint, requestId, keyId, admit, authorizations, tasks } = options;
  const owner = options.taskOwner ?? { session: 'this process', userId };
  const policy = options.policy ?? dispatcher.policy;
  const codec = options.askState ?? ownAskState();
  const server = new ObservedServer(serverInfo, {
    capabilities: { tools: {}, ...(tasks && { extensions: { [TASKS_EXTENSION]: {} } }) } as ServerCapabilities,
    cacheHints: { 'tools/list': LIST_CACHE },
    requestState: { verify: codec.verify },
    inputRequired: { roundTimeoutMs: 10 * 60_000 },
  });
  server.network = options.network ?? 'tcp';
  if (options.clientCapabilities) server.assumeClientCapabilities(options.clientCapabilities);

  server.setRequestHandler('tools/list', async (_request, ctx) => {
    const tools = await dispatcher.list(policy);
    const capabilities = declaredCapabilities(ctx, server.getClientCapabilities());
    // A client that can hold a task is offered run_at on every tool it may call by name.
    const later = tasks && !discovery && declaresTasks(ctx);
    if (options.sendsJsonText && policy && !discovery && !tools.some((tool) => personConfirms(tool, policy, capabilities))) {
      // The transport writes the JSON text in place of the array it stands for: as the build wrote it for a client
      // of either revision, and with run_at put in for one that holds tasks.
      const revision = ctx.mcpReq.envelope === undefined ? undefined : '2026-07-28';
      if (!later) return { tools: jsonArray(policy.listingJson(tools, revision)) } as unknown as ListToolsResult;
      const withRunAt = policy.definitionsJson(tools).map((text) => definitionIn2026(text, dialectText, runAtText));
      if (withRunAt.every((parts) => parts !== undefined)) return { tools: jsonArray(withRunAt) } as unknown as ListToolsResult;
    }
    const listed = (
      discovery
        ? metaTools(tools, policy?.options.readOnly === true)
        : tools.map((tool) => listedTool(tool, policy, personConfirms(tool, policy, capabilities)))
    ) as ListToolsResult['tools'];
    if (ctx.mcpReq.envelope === undefined) return { tools: listed };
    return {
      tools: listed.map((tool) => {
        const definition = in2026(tool);
        if (later) definition.inputSchema.properties = { ...definition.inputSchema.properties, [runAtName]: runAtSchema };
        return definition;
      }),
    };
  });
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name, arguments: given = {} } = request.params;
    const asTask = tasks !== undefined && declaresTasks(ctx);
    const { [runAtName]: runAtGiven, ...args } = given;
    const runAt = asTask && runAtName in given ? runAtOf(runAtGiven) : undefined;
    if (runAt && 'problem' in runAt) return toCallToolResult(toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', runAt.problem));
    const token = ctx.mcpReq._meta?.progressToken;
    let step = 0;
    const progress =
      token === undefined
        ? undefined
        : (message: string) =>
            ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: ++step, message } }).catch(() => {});
    // The call's own cancellation: the request's, until the call becomes a task and outlives the request.
    const cancelling = new AbortController();
    const cancel = () => cancelling.abort();
    ctx.mcpReq.signal.addEventListener('abort', cancel, { once: true });
    let scheduled: string | undefined;
    const options = { userId, actingUserHint, policy, requestId, keyId, admit };
    const call = (tool: string, input: Record<string, unknown>) =>
      callRound(tool, input, {
        dispatcher,
        options,
        ctx,
        codec,
        capabilities: declaredCapabilities(ctx, server.getClientCapabilities()),
        authorizations,
        cancelled: cancelling.signal,
        ...(runAt &&
          'at' in runAt && {
            // Checked and confirmed now, as a call would be; run then.
            dispatch: scheduling(dispatcher, async (entry, checked) => {
              scheduled = tasks?.scheduled
                ? await tasks.scheduled.schedule(entry, checked, userId, runAt.at)
                : tasks!.process.adopt(
                    owner,
                    // Confirmed when scheduled (by the model or the person): it is not asked again when it runs.
                    { run: () => dispatcher.call(tool, confirmedOnce(entry.tool, checked, policy), options).then(toCallToolResult), startAt: runAt.at },
                    { note: `Scheduled for ${runAt.at.toISOString()} in this process: it is lost if the process stops before then.` },
                  ).taskId;
            }),
          }),
        progress,
      });
    // In discovery mode a tool may still be called by its own name: the same guards apply.
    const running = discovery && isMetaTool(name) ? callMetaTool(name, given, { dispatcher, policy, call }) : call(name, runAt ? args : given);
    const answer = (result: ToolResult | InputRequiredResult) => (isInputRequired(result) ? result : toCallToolResult(result));
    // A client that asked for progress hears, while the call runs, that it still does: its timeout starts again.
    const started = Date.now();
    const beat = progress && setInterval(() => progress(`Still running after ${Math.round((Date.now() - started) / 1000)} s.`), PROGRESS_EVERY_MS);
    try {
      if (!asTask) return answer(await running);
      if (runAt) {
        const result = await running;
        const task = scheduled && (await (tasks!.scheduled ?? tasks!.process).get(scheduled, owner));
        return task ? createTaskResult(task) : answer(result);
      }
      // A call that has not answered in a moment goes on as a task, if this process has room for one.
      let moment: NodeJS.Timeout | undefined;
      const outlasted = new Promise<undefined>((resolve) => {
        moment = setTimeout(() => resolve(undefined), TASK_AFTER_MS);
      });
      // A call that answers in time leaves no timer behind it.
      const first = await Promise.race([running, outlasted]).finally(() => clearTimeout(moment));
      if (first !== undefined || !tasks!.process.hasRoom()) return answer(first ?? (await running));
      ctx.mcpReq.signal.removeEventListener('abort', cancel);
      const found = (await dispatcher.find(name, policy))?.tool;
      const task = tasks!.process.adopt(
        owner,
        { running: running.then((result) => (isInputRequired(result) ? askedTooLate : toCallToolResult(result))) },
        found && annotationsOf(found).readOnlyHint ? { abort: cancel } : {},
      );
      return createTaskResult(task);
    } finally {
      clearInterval(beat);
    }
  });
  if (tasks) serveTaskMethods(server, tasks, owner);
  return server;
}

/** A tool as listed: the policy's definition, without `confirm` where the person confirms rather than the model. */
function listedTool(tool: Tool, policy: ServingPolicy | undefined, byPerson: boolean) {
  const definition = policy ? policy.toMcpTool(tool) : toMcpTool(tool);
  if (!byPerson) return definition;
  const { [confirmName]: _byModel, ...properties } = definition.inputSchema.properties as Record<string, unknown>;
  const required = (definition.inputSchema.required as string[]).filter((name) => name !== confirmName);
  return { ...definition, inputSchema: { ...definition.inputSchema, properties, required } };
}

/** What an adopted call answers that asked the person something after it had become a task (it cannot be asked then). */
const askedTooLate: CallToolResult = {
  isError: true,
  content: [{ type: 'text', text: "The call needed the user's answer after it had become a task, when it can no longer ask; call it again." }],
};

const isInputRequired = (result: ToolResult | InputRequiredResult): result is InputRequiredResult => 'resultType' in result;

/**
 * A value is its JSON text, followed by the server's note when there is one; a value cut as text
 * (the note says so) is shown as that text. A tool error is a result with isError, its message for
 * the model, and its kind in _meta. A JSON object comes back as `structuredContent` too (a list as
 * `{ items: [...] }`, since structured content is an object), and a next page's arguments as
 * `_meta.next_page`.
 */
export function toCallToolResult(result: ToolResult): CallToolResult {
  if ('value' in result) {
    const { value, note, next_page } = result;
    const text = typeof value === 'string' && note ? value : JSON.stringify(value);
    const structured = Array.isArray(value) ? { items: value } : value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
    return {
      content: [{ type: 'text', text }, ...(note ? [{ type: 'text' as const, text: note }] : [])],
      ...(structured && { structuredContent: structured }),
      ...(next_page && { _meta: { next_page } }),
    };
  }
  const { message, additional_prompt_content, developer_message: _hidden, stacktrace: _internal, ...details } = result.error;
  const text = additional_prompt_content ? `${message}\n\n${additional_prompt_content}` : message;
  return { isError: true, content: [{ type: 'text', text }], _meta: details };
}
