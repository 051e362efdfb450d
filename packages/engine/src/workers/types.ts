/** A registered worker's settings, and what the engine can ask of one beyond a ToolSource. */
import { isErrorKind, type ErrorKind, type ToolSource } from '@quiver/core';

export type WorkerType = 'http' | 'mcp';

export interface WorkerSettings {
  /** Also the catalog source id; for an mcp worker, the toolkit name of its tools. */
  id: string;
  type: WorkerType;
  enabled: boolean;
  uri: string;
  /** Seconds one request may take (for an http worker, every attempt of it included). */
  timeout: number;
  /**
   * Further attempts of a request that a repeat cannot make run twice: an http worker's listing (by the
   * upstream client's rules; an invoke never), an mcp worker's connect.
   */
  retry: number;
  /**
   * The keys of the engine's secrets this worker may receive with a call (none by default): a call of
   * one of its tools that declares any other secret is refused.
   */
  allowedSecrets: string[];
  /** http: the secret tokens are signed with. */
  secret?: string;
  /** mcp: headers sent with every request (may hold credentials, so kept sealed). */
  headers?: Record<string, string>;
}

export interface WorkerCheck {
  healthy: boolean;
  message: string;
}

/** Whether the worker wants OAuth before it serves (mcp workers only). */
export interface WorkerAuthorization {
  status: 'not_required' | 'required' | 'unknown';
  message: string;
}

export interface WorkerSource extends ToolSource {
  /** Reachable, and accepting the engine's credentials. */
  check(): Promise<WorkerCheck>;
  authorization(): Promise<WorkerAuthorization>;
}

export const defaultTimeoutSeconds = 30;
export const defaultRetry = 3;

/** A worker that cannot be reached or will not answer; the message names the worker, never a credential. */
export class WorkerUnavailable extends Error {
  constructor(
    workerId: string,
    reason: string,
    readonly timedOut = false,
  ) {
    super(`worker ${workerId}: ${reason}`);
  }
}

/** A known error kind, or TOOL_RUNTIME_FATAL. */
export const errorKindOf = (kind: unknown): ErrorKind => (isErrorKind(kind) ? kind : 'TOOL_RUNTIME_FATAL');
