/**
 * Tasks (the `io.modelcontextprotocol/tasks` extension of the 2026-07-28 revision): a `tools/call` from a
 * client that declares the extension on its request may be answered with a task handle (`resultType:
 * "task"`) instead of its result, which the client then polls (`tasks/get`) and may cancel
 * (`tasks/cancel`). A call becomes a task in two ways:
 * - it has not answered after `TASK_AFTER_MS`: it goes on in this process, as a task of this process;
 * - it names `run_at`, a time to come (listed on every tool to such clients only): on the engine it becomes
 *   a scheduled execution, durable, run by whichever engine process claims it and readable by all; on
 *   `quiver mcp` it waits in this process, and its status says it is lost if the process stops.
 * Cancelling stops what has not started and aborts a read still waiting for its upstream; a write that is
 * running goes on (it may already have acted), and its task ends with what it did.
 */
import { randomUUID } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type Server,
  type ServerContext,
} from '#mcp-server';
import {
  confirmName,
  needsConfirmation,
  toolError,
  type CallOptions,
  type CatalogEntry,
  type Dispatcher,
  type ServingPolicy,
  type Tool,
  type ToolResult,
} from '@quiver/core';
import { rfc3339 } from '../rfc3339.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** How long a call answers as itself before it becomes a task. */
export const TASK_AFTER_MS = 2_000;
/** How long a task of this process is kept once created, and how many may be kept at once. */
const PROCESS_TTL_MS = 60 * 60_000;
const PROCESS_LIMIT = 1_000;

type Status = 'working' | 'input_required' | 'completed' | 'cancelled' | 'failed';

/** A task as `tasks/get` answers it (the extension's DetailedTask). */
export interface DetailedTask {
  taskId: string;
  status: Status;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
  result?: CallToolResult;
}

/** Whether this request declared the extension (only a 2026-07-28 request can). */
export function declaresTasks(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: Record<string, unknown> } | undefined;
  return capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
}

/** The `run_at` parameter offered to clients that declared the extension. */
export const runAtName = 'run_at';
export const runAtSchema = {
  type: 'string',
  description:
    'Run later instead of now: an RFC 3339 date-time with an offset, in the future (e.g. 2030-01-01T10:00:00Z). The call then answers with a task to poll.',
};

/** The time `run_at` names, or why it names none. */
export function runAtOf(value: unknown): { at: Date } | { problem: string } {
  // The scheduler's own reading of a time, so that run_at means over MCP what it means to POST /v1/tools/execute.
  const instant = typeof value === 'string' ? rfc3339(value) : undefined;
  const at = instant === undefined ? undefined : new Date(instant);
  if (!at) {
    return { problem: `run_at must be an RFC 3339 date-time with an offset, such as 2030-01-01T10:00:00Z; got ${JSON.stringify(value)}.` };
  }
  if (at.getTime() <= Date.now()) return { problem: `run_at must be in the future; ${value} has passed. Leave it out to run now.` };
  return { at };
}

/** Whose tasks: the session (its key or sign-in, and user) that created them. */
export interface TaskOwner {
  session: string;
  userId: string | undefined;
}

/** Where a server's tasks live, as far as the MCP methods read them. */
export interface TaskStore {
  get(taskId: string, owner: TaskOwner): Promise<DetailedTask | undefined>;
  /** True when the task is the owner's (cancelling is cooperative: the task may still end otherwise). */
  cancel(taskId: string, owner: TaskOwner): Promise<boolean>;
}

/** What a server's tasks need: where calls that outlast a moment go, and where `run_at` calls go. */
export interface Tasks {
  process: ProcessTasks;
  /** The engine's scheduled executions; without them (`quiver mcp`), `run_at` calls wait in this process. */
  scheduled?: ScheduledTasks;
}

/** A call the process runs (or will run) for a task. */
interface ProcessTask extends DetailedTask {
  owner: TaskOwner;
  expires: number;
  /** Cancels what may be cancelled: the call before it starts, a read while it waits for its upstream. */
  cancel(): void;
}

/** Tasks held by this process: calls that outlasted `TASK_AFTER_MS`, and `run_at` calls where there is no engine. */
export class ProcessTasks implements TaskStore {
  private readonly tasks = new Map<string, ProcessTask>();

  /** Room for one more, after forgetting the expired ones. */
  hasRoom(): boolean {
    const now = Date.now();
    for (const [id, task] of this.tasks) if (task.expires <= now) this.tasks.delete(id);
    return this.tasks.size < PROCESS_LIMIT;
  }

  /**
   * A task for a call: `running`, already under way, or `run`, started at `startAt`. `abort` (given for
   * reads only) aborts it while it waits for its upstream; a write is not cut short.
   */
  adopt(
    owner: TaskOwner,
    call: { running: Promise<CallToolResult> } | { run: () => Promise<CallToolResult>; startAt: Date },
    options: { abort?: () => void; note?: string } = {},
  ): DetailedTask {
    const now = new Date().toISOString();
    let timer: NodeJS.Timeout | undefined;
    let aborted = false;
    const task: ProcessTask = {
      taskId: randomUUID(),
      owner,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: PROCESS_TTL_MS,
      pollIntervalMs: 1_000,
      expires: Date.now() + PROCESS_TTL_MS,
      ...(options.note && { statusMessage: options.note }),
      cancel: () => {
        if (timer) {
          clearTimeout(timer);
          return end('cancelled', undefined, 'Cancelled before it started.');
        }
        if (!options.abort || task.status !== 'working') return;
        aborted = true;
        options.abort();
      },
    };
    const end = (status: Status, result?: CallToolResult, statusMessage?: string) => {
      if (task.status !== 'working') return;
      Object.assign(task, { status, lastUpdatedAt: new Date().toISOString(), statusMessage, ...(result && { result }) });
    };
    const follow = (running: Promise<CallToolResult>) =>
      running.then(
        (result) => (aborted ? end('cancelled', undefined, 'Cancelled: its upstream request was aborted.') : end('completed', result)),
        (error: unknown) => end('failed', undefined, error instanceof Error ? error.message : String(error)),
      );
    if ('running' in call) follow(call.running);
    else {
      timer = setTimeout(() => {
        timer = undefined;
        follow(call.run());
      }, call.startAt.getTime() - Date.now());
      timer.unref();
    }
    this.tasks.set(task.taskId, task);
    return view(task);
  }

  async get(taskId: string, owner: TaskOwner): Promise<DetailedTask | undefined> {
    const task = this.tasks.get(taskId);
    return task && task.owner.session === owner.session && task.expires > Date.now() ? view(task) : undefined;
  }

  async cancel(taskId: string, owner: TaskOwner): Promise<boolean> {
    const task = this.tasks.get(taskId);
    if (!task || task.owner.session !== owner.session) return false;
    task.cancel();
    return true;
  }
}

const view = ({ owner: _owner, expires: _expires, cancel: _cancel, ...task }: ProcessTask): DetailedTask => task;

/** The scheduled executions a task may be, as the engine's scheduler keeps them. */
export interface ScheduledExecutions {
  get(id: string): Promise<
    | {
        execution_status: string;
        user_id: string | null;
        run_at: string | null;
        created_at: string;
        updated_at: string;
        attempts: { output: unknown; system_error_message: string | null }[];
      }
    | undefined
  >;
  cancel(id: string, userId: string | undefined): Promise<boolean>;
  schedule(entry: CatalogEntry, input: unknown, userId: string | undefined, runAt: string): Promise<{ id: string }>;
}

/**
 * The engine's scheduled executions as tasks: durable (a restart loses none), run by whichever engine
 * process claims them, and read by any. The task id is the execution's id; only its user reads it.
 */
export class ScheduledTasks implements TaskStore {
  constructor(
    private readonly executions: ScheduledExecutions,
    private readonly toResult: ToResult,
  ) {}

  async get(taskId: string, owner: TaskOwner): Promise<DetailedTask | undefined> {
    const execution = await this.executions.get(taskId);
    if (!execution || (execution.user_id ?? undefined) !== owner.userId) return undefined;
    const base = { taskId, createdAt: execution.created_at, lastUpdatedAt: execution.updated_at, ttlMs: null };
    const last = execution.attempts.at(-1);
    switch (execution.execution_status) {
      case 'scheduled':
        return { ...base, status: 'working', statusMessage: `Scheduled for ${execution.run_at}; the engine keeps it across restarts.`, pollIntervalMs: 5_000 };
      case 'running':
        return { ...base, status: 'working', statusMessage: 'Running.', pollIntervalMs: 1_000 };
      case 'cancelled':
        return { ...base, status: 'cancelled', statusMessage: 'Cancelled before it started.' };
      default: {
        // A tool's own error is a completed task whose result says so; so is a run the engine could not finish.
        const output = last?.output as ToolResult | null | undefined;
        const result = output
          ? this.toResult(output)
          : { isError: true, content: [{ type: 'text' as const, text: last?.system_error_message ?? 'The run ended without an outcome.' }] };
        return { ...base, status: 'completed', result };
      }
    }
  }

  /** The call, persisted to run at `runAt`: its task id. */
  async schedule(entry: CatalogEntry, input: Record<string, unknown>, userId: string | undefined, runAt: Date): Promise<string> {
    return (await this.executions.schedule(entry, input, userId, runAt.toISOString())).id;
  }

  async cancel(taskId: string, owner: TaskOwner): Promise<boolean> {
    if (!(await this.get(taskId, owner))) return false;
    // One that has started ends as it ends: it may already have acted upstream.
    await this.executions.cancel(taskId, owner.userId);
    return true;
  }
}

/** The answer of a `tools/call` that became a task. */
export const createTaskResult = (task: DetailedTask) => ({ resultType: 'task', ...task }) as unknown as CallToolResult;

/** The error for a task id the caller does not know (another's, expired, or never issued). */
export const unknownTask = (taskId: string) =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task ${taskId}: it is not one of this session's, or it has expired.`);

/** A tool's result as a finished task holds it (a tool error is a completed task, with isError). */
export type ToResult = (result: ToolResult) => CallToolResult;

/**
 * A dispatch that schedules instead of running: the session's policy checks the call as it would check
 * one that runs now (offered, read-only, confirmed by the model or the person, its input an object), and
 * `schedule` keeps what passes. The scheduled call is checked against its tool's schema when kept.
 */
export function scheduling(dispatcher: Dispatcher, schedule: (entry: CatalogEntry, args: Record<string, unknown>) => Promise<void>) {
  return async (name: string, args: Record<string, unknown>, options: CallOptions) => {
    const entry = await dispatcher.find(name, options.policy);
    if (!entry) return dispatcher.dispatch(name, args, options);
    const keep = async (checked: Record<string, unknown>): Promise<ToolResult> => {
      try {
        await schedule(entry, checked);
        return { value: {} };
      } catch (error) {
        return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', error instanceof Error ? error.message : String(error));
      }
    };
    const result = options.policy ? await options.policy.run(entry.tool, args, keep, options.confirmWithPerson) : await keep(args);
    return { executionId: '', result, tool: entry.tool, durationMs: 0 };
  };
}

/** The arguments of a call confirmed already, as the policy wants a confirmed call's. */
export const confirmedOnce = (tool: Tool, args: Record<string, unknown>, policy: ServingPolicy | undefined) =>
  policy?.options.confirmDestructive && needsConfirmation(tool) ? { ...args, [confirmName]: true } : args;

/** A Standard Schema for a custom method's params: `problem` says what is wrong, or nothing. */
function standardSchema(problem: (params: { taskId?: unknown } | undefined) => string | undefined) {
  return {
    '~standard': {
      version: 1 as const,
      vendor: 'quiver',
      validate: (value: unknown) => {
        const wrong = problem(value as { taskId?: unknown } | undefined);
        return wrong ? { issues: [{ message: wrong }] } : { value: value as { taskId: string } };
      },
    },
  };
}

/** `tasks/get`, `tasks/cancel` and `tasks/update` on a server whose tasks are `tasks`, for the session `owner`. */
export function serveTaskMethods(server: Server, tasks: Tasks, owner: TaskOwner): void {
  const taskId = standardSchema((params) => (typeof params?.taskId === 'string' ? undefined : 'taskId must be the id of a task.'));
  const find = (id: string) => tasks.process.get(id, owner).then((task) => task ?? tasks.scheduled?.get(id, owner));
  /** The task a request names, from a request that declared the extension (the methods are the extension's). */
  const idOf = (params: unknown, ctx: ServerContext) => {
    if (!declaresTasks(ctx)) {
      throw new MissingRequiredClientCapabilityError(
        { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
        `The tasks methods are the ${TASKS_EXTENSION} extension's: declare it in the request's capabilities.`,
      );
    }
    return (params as { taskId: string }).taskId;
  };
  server.setRequestHandler('tasks/get', { params: taskId }, async (params, ctx) => {
    const id = idOf(params, ctx);
    const task = await find(id);
    if (!task) throw unknownTask(id);
    return task as unknown as Record<string, unknown>;
  });
  server.setRequestHandler('tasks/cancel', { params: taskId }, async (params, ctx) => {
    const id = idOf(params, ctx);
    const known = (await tasks.process.cancel(id, owner)) || (await tasks.scheduled?.cancel(id, owner));
    if (!known) throw unknownTask(id);
    return {};
  });
  // Questions to the person are asked before a call becomes a task: a task never waits for input.
  server.setRequestHandler('tasks/update', { params: taskId }, async (params, ctx) => {
    const id = idOf(params, ctx);
    if (!(await find(id))) throw unknownTask(id);
    return {};
  });
}
