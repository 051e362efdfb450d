/**
 * The one client of the toolkit suites: calls one toolkit's tools through the real dispatcher against
 * an upstream (an emulator, a running engine, or none for toolkits on local data), records which tools
 * answered with a value, tells what the upstream received meanwhile, and turns results into values or
 * into the errors the tests expect.
 */
import { localDispatcher, UpstreamClient, type Dispatcher, type ServingPolicy, type Toolkit, type ToolError, type ToolResult } from '@quiver/core';
import type { RecordedRequest } from '@quiver/sandbox';
import { expect } from 'vitest';

export interface Upstream {
  url: string;
  /** What the upstream received, when it keeps a log (the emulators do). */
  requests?: RecordedRequest[];
}

export interface ToolClientOptions {
  /** Where the toolkit's upstream is; a function when it starts after the client is made. */
  upstream?: Upstream | (() => Upstream);
  token?: string;
  secrets?: Record<string, string>;
  /** Where tools that answered with a value are recorded, for the coverage tests. */
  covered?: Set<string>;
  /** Told of every result, to look for credentials in afterwards. */
  results?: string[];
  /** Default: no retries, so every call reaches the upstream at most once and its request log stays exact. */
  client?: UpstreamClient;
  /** A failed call's message adds the developer message (what the upstream answered). */
  verbose?: boolean;
  /** How calls are shaped as a server shapes them (`fields`, the response budget); default none, the tool's result as it is. */
  policy?: ServingPolicy;
}

export class ToolClient {
  readonly client: UpstreamClient;
  /** Made on the first call: the upstream may start after the client is made. */
  private dispatcher: Dispatcher | undefined;

  constructor(
    readonly toolkit: Toolkit,
    private readonly options: ToolClientOptions = {},
  ) {
    this.client = options.client ?? new UpstreamClient({ maxRetries: 0 });
  }

  get secrets(): Record<string, string> {
    return this.options.secrets ?? {};
  }

  /** The raw result. A value from a call that went upstream counts the tool as covered. */
  async attempt(tool: string, input: unknown): Promise<ToolResult> {
    this.dispatcher ??= localDispatcher([this.toolkit], {
      client: this.client,
      ...(this.target && { baseUrls: { [this.toolkit.name]: this.target.url } }),
      token: this.options.token,
      secrets: this.options.secrets,
      policy: this.options.policy,
    });
    const result = await this.dispatcher.call(`${this.toolkit.name}.${tool}`, input);
    this.options.results?.push(JSON.stringify(result));
    const schemaOnly = (input as { mode?: unknown } | null)?.mode === 'get_request_schema';
    if ('value' in result && !schemaOnly) this.options.covered?.add(tool);
    return result;
  }

  /** The value; an error fails the test with the tool's own message. */
  async call(tool: string, input: Record<string, unknown> = {}): Promise<any> {
    const result = await this.attempt(tool, input);
    if ('error' in result) {
      const detail = this.options.verbose ? ` (${result.error.developer_message ?? ''})` : '';
      throw new Error(`${tool} failed: ${result.error.kind}: ${result.error.message}${detail}`);
    }
    return result.value;
  }

  /** A mode-driven tool in mode execute, with its path/query parameters and a body serialised to JSON. */
  execute(tool: string, params: Record<string, unknown>, body: unknown): Promise<any> {
    return this.call(tool, { mode: 'execute', ...params, request_body: JSON.stringify(body) });
  }

  /** The error of a call that must fail; a value fails the test. */
  async fail(tool: string, input: unknown): Promise<ToolError> {
    const result = await this.attempt(tool, input);
    if (!('error' in result)) throw new Error(`${tool} should have failed but answered ${JSON.stringify(result.value)}`);
    return result.error;
  }

  failExecute(tool: string, params: Record<string, unknown>, body: unknown): Promise<ToolError> {
    return this.fail(tool, { mode: 'execute', ...params, request_body: JSON.stringify(body) });
  }

  /** The error of a call that must be refused before anything reaches the upstream. */
  async refuse(tool: string, input: unknown): Promise<ToolError> {
    const { result, sent } = await this.sentDuring(() => this.fail(tool, input));
    expect(sent, `requests sent by ${tool}`).toEqual([]);
    return result;
  }

  /** What the upstream received while `work` ran. */
  async sentDuring<T>(work: () => Promise<T>): Promise<{ result: T; sent: RecordedRequest[] }> {
    const log = this.target?.requests;
    if (!log) throw new Error(`${this.toolkit.name}: this client's upstream keeps no request log`);
    const before = log.length;
    const result = await work();
    return { result, sent: log.slice(before) };
  }

  close(): Promise<void> {
    return this.client.close();
  }

  private get target(): Upstream | undefined {
    const { upstream } = this.options;
    return typeof upstream === 'function' ? upstream() : upstream;
  }
}
