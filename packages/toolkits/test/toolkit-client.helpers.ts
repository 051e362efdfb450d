/**
 * A test client that calls one toolkit's tools through the real dispatcher against an emulator, records which
 * tools answered with a value, and tells what the emulator received meanwhile.
 */
import { localDispatcher, UpstreamClient, type Dispatcher, type Toolkit, type ToolError, type ToolResult } from '@quiver/core';
import type { RecordedRequest } from '@quiver/sandbox';
import { expect } from 'vitest';

export interface Upstream {
  url: string;
  requests: RecordedRequest[];
}

export class ToolkitClient {
  /** Made on the first call: the emulator starts after the client is created. */
  private dispatcher: Dispatcher | undefined;

  constructor(
    private readonly toolkit: Toolkit,
    private readonly upstream: () => Upstream,
    private readonly token: string | undefined,
    private readonly covered: Set<string>,
    // No retries: every call reaches the emulator at most once, so its request log stays exact.
    private readonly client = new UpstreamClient({ maxRetries: 0 }),
  ) {}

  async attempt(tool: string, input: unknown): Promise<ToolResult> {
    this.dispatcher ??= localDispatcher([this.toolkit], { client: this.client, baseUrls: { [this.toolkit.name]: this.upstream().url }, token: this.token });
    const result = await this.dispatcher.call(`${this.toolkit.name}.${tool}`, input);
    if ('value' in result) this.covered.add(tool);
    return result;
  }

  /** The value; an error fails the test with the tool's own message. */
  async call(tool: string, input: Record<string, unknown> = {}): Promise<any> {
    const result = await this.attempt(tool, input);
    if ('error' in result) throw new Error(`${tool} failed: ${result.error.kind}: ${result.error.message} (${result.error.developer_message ?? ''})`);
    return result.value;
  }

  /** The error of a call that must fail; a value fails the test. */
  async fail(tool: string, input: unknown): Promise<ToolError> {
    const result = await this.attempt(tool, input);
    if (!('error' in result)) throw new Error(`${tool} should have failed but answered ${JSON.stringify(result.value)}`);
    return result.error;
  }

  /** The error of a call that must be refused before anything reaches the emulator. */
  async refuse(tool: string, input: unknown): Promise<ToolError> {
    const { result, sent } = await this.sentDuring(() => this.fail(tool, input));
    expect(sent, `requests sent by ${tool}`).toEqual([]);
    return result;
  }

  /** What the emulator received while `work` ran. */
  async sentDuring<T>(work: () => Promise<T>): Promise<{ result: T; sent: RecordedRequest[] }> {
    const before = this.upstream().requests.length;
    const result = await work();
    return { result, sent: this.upstream().requests.slice(before) };
  }
}
