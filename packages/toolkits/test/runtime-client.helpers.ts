/**
 * The core of the end-to-end test clients: calls one toolkit's tools through the real dispatcher with one
 * set of credentials, and turns results into values or into the errors the tests expect.
 */
import { localDispatcher, UpstreamClient, type Dispatcher, type Toolkit, type ToolContext, type ToolError, type ToolResult } from '@quiver/core';

export class RuntimeClient {
  readonly runtime: Dispatcher;

  constructor(
    private readonly toolkit: Toolkit,
    context: Omit<ToolContext, 'client'>,
    /** Where tools that answered with a value are recorded; nothing is recorded without it. */
    private readonly covered?: Set<string>,
    // No retries: every call reaches the emulator at most once, so its request log stays exact.
    client: UpstreamClient = new UpstreamClient({ maxRetries: 0 }),
  ) {
    this.runtime = localDispatcher([toolkit], { client, baseUrls: { [toolkit.name]: context.baseUrl }, token: context.token, secrets: context.secrets });
  }

  /** The raw result. A value from a call that went upstream counts the tool as covered. */
  async attempt(tool: string, input: unknown): Promise<ToolResult> {
    const result = await this.runtime.call(`${this.toolkit.name}.${tool}`, input);
    const schemaOnly = (input as { mode?: unknown } | null)?.mode === 'get_request_schema';
    if (this.covered && 'value' in result && !schemaOnly) this.covered.add(tool);
    return result;
  }

  /** The value; an error fails the test with the tool's own message. */
  async call(tool: string, input: Record<string, unknown> = {}): Promise<any> {
    const result = await this.attempt(tool, input);
    if ('error' in result) throw new Error(`${tool} failed: ${result.error.kind}: ${result.error.message}${this.detail(result.error)}`);
    return result.value;
  }

  /** A mode-driven tool in mode execute, with its path/query parameters and a body serialised to JSON. */
  execute(tool: string, params: Record<string, unknown>, body: unknown): Promise<any> {
    return this.call(tool, { mode: 'execute', ...params, request_body: JSON.stringify(body) });
  }

  /** The error of a call that must fail; a value fails the test. */
  async fail(tool: string, input: Record<string, unknown>): Promise<ToolError> {
    const result = await this.attempt(tool, input);
    if (!('error' in result)) throw new Error(`${tool} should have failed but answered ${JSON.stringify(result.value)}`);
    return result.error;
  }

  failExecute(tool: string, params: Record<string, unknown>, body: unknown): Promise<ToolError> {
    return this.fail(tool, { mode: 'execute', ...params, request_body: JSON.stringify(body) });
  }

  /** What a failed call's message adds after the tool's own; a client may add the developer message. */
  protected detail(_error: ToolError): string {
    return '';
  }
}
