import type { UpstreamClient } from './upstream.js';

/** What one call of a tool runs with: where its upstream is and the credentials it may use. */
export interface ToolContext {
  /** Upstream base URL for the tool's toolkit. */
  baseUrl: string;
  /** OAuth access token of the acting user, for tools that need one. */
  token?: string;
  /** Secret values by key; a tool sees only the keys it declares. */
  secrets: Record<string, string>;
  client: UpstreamClient;
  /** The toolkit making the call, which the upstream client's metrics are labelled with. */
  toolkit?: string;
  /** Set when the caller cancels a read: its upstream request is aborted (see Invocation.cancelled). */
  cancelled?: AbortSignal;
}
