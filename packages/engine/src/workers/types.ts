/** A registered worker's settings, and what the engine can ask of one beyond a ToolSource. */
import { errorKinds, type ErrorKind, type ToolSource } from '@quiver/core';

export type WorkerType = 'http' | 'mcp';

export interface WorkerSettings {
  /** Also the catalog source id; for an mcp worker, the toolkit name of its tools. */
  id: string;
  type: WorkerType;
  enabled: boolean;
  uri: string;
  /** Seconds one request may take. */
  timeout: number;
  /** Further attempts after a transport failure that cannot have run anything. */
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

/** Describes a failed fetch without anything from the request (no headers, no tokens). */
export function transportProblem(error: unknown): { timedOut: boolean; refused: boolean; text: string } {
  const failure = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = failure.cause?.code ?? failure.code;
  const timedOut = failure.name === 'TimeoutError' || failure.name === 'AbortError' || /TIMEOUT/.test(code ?? '');
  return {
    timedOut,
    // The connection was never made: nothing reached the worker, so the request may be sent again.
    refused: neverConnected.has(code ?? ''),
    text: timedOut ? 'timed out' : (code ?? failure.cause?.message ?? failure.message ?? 'failed'),
  };
}

const neverConnected = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);

export const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.min(2000, 100 * 2 ** attempt)));

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

const knownKinds = new Set<string>(errorKinds);

/** A known error kind, or TOOL_RUNTIME_FATAL. */
export const errorKindOf = (kind: unknown): ErrorKind => (typeof kind === 'string' && knownKinds.has(kind) ? (kind as ErrorKind) : 'TOOL_RUNTIME_FATAL');
