/**
 * Where tools come from and how one is run: the built-in toolkits in this process, or a remote worker.
 * The dispatcher resolves credentials first and hands a source only what the tool declares.
 */
import type { ToolResult } from './errors.js';
import { executeTool } from './execute.js';
import type { Tool, Toolkit } from './tool.js';
import type { UpstreamClient } from './upstream.js';

export interface Invocation {
  executionId: string;
  userId?: string;
  /** OAuth access token for the tool's provider, when it has one. */
  token?: string;
  /** The secrets the tool declares, and no others. */
  secrets: Record<string, string>;
  /**
   * Aborts the call's upstream request once the caller cancels it; given for reads only, since a write
   * that may have reached the upstream must finish and be reported as what it did.
   */
  cancelled?: AbortSignal;
}

export interface ToolSource {
  /** "builtin", or a worker's id. */
  id: string;
  /** How errors name the source: "the built-in toolkits", "worker crm-1". */
  label: string;
  tools(): Promise<readonly Tool[]>;
  invoke(tool: Tool, input: Record<string, unknown>, invocation: Invocation): Promise<ToolResult>;
  /**
   * Toolkits the source serves even while its tools cannot be listed (a worker that is down or
   * disabled, known from an earlier listing): they are routed to it, never to another source.
   */
  toolkits?: readonly string[];
  /** Set while the source refuses every call (a disabled worker): why, and what to do. */
  disabled?: string;
}

/**
 * A toolkit's base URL: fixed, or read at each call (the engine's own address, known only once it
 * listens, for the toolkit that administers it).
 */
export type BaseUrl = string | (() => string);

/** The built-in toolkits in this process, each pointed at its configured base URL (or its default). */
export function builtinSource(toolkits: readonly Toolkit[], client: UpstreamClient, baseUrls: Record<string, BaseUrl> = {}): ToolSource {
  const baseUrlOf = new Map(toolkits.map((toolkit) => [toolkit.name, baseUrls[toolkit.name] ?? toolkit.baseUrl]));
  // Listed when first asked: a toolkit may read its tools from disk then.
  let listing: Promise<Tool[]> | undefined;
  return {
    id: 'builtin',
    label: 'the built-in toolkits',
    tools: () => (listing ??= Promise.resolve().then(() => toolkits.flatMap((toolkit) => toolkit.tools))),
    invoke: (tool, input, { token, secrets, cancelled }) => {
      const baseUrl = baseUrlOf.get(tool.toolkit.name)!;
      const context = { baseUrl: typeof baseUrl === 'function' ? baseUrl() : baseUrl, token, secrets, client, toolkit: tool.toolkit.name, cancelled };
      return executeTool(tool, input, context);
    },
  };
}
