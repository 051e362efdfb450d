/**
 * The worker protocol (engine -> remote worker), as in docs/engine-api.md (Workers): `GET /worker/tools`,
 * `POST /worker/tools/invoke`, `GET /worker/health`. Each call but health carries
 * `Authorization: Bearer <JWT>`: HS256 with the worker's secret, `aud: "worker"`, `ver: "1"`, a short `exp`.
 */
import { errors, jwtVerify, SignJWT } from 'jose';
import type { ToolDefinition, ToolError } from '@quiver/core';

export const audience = 'worker';
export const protocolVersion = '1';
/** How long a token the engine signs is good for: one request's worth. */
export const tokenLifetimeSeconds = 60;
/** Clock difference tolerated between engine and worker. */
export const clockSkewSeconds = 30;

export interface InvokeRequest {
  execution_id: string;
  tool: { name: string; toolkit: string; version: string };
  inputs: Record<string, unknown>;
  context: {
    authorization?: { token: string; user_info: Record<string, unknown> };
    secrets?: Array<{ key: string; value: string }>;
    user_id?: string;
  };
}

export interface InvokeResponse {
  execution_id: string;
  finished_at: string;
  /** Milliseconds. */
  duration: number;
  success: boolean;
  output: { value?: unknown; error?: ToolError; requires_authorization?: unknown };
}

export interface WorkerHealth {
  status: 'ok';
  tool_count: number;
}

export type { ToolDefinition };

const keyOf = (secret: string) => new TextEncoder().encode(secret);

/** A fresh token for one request to a worker. */
export function signWorkerToken(secret: string): Promise<string> {
  return new SignJWT({ ver: protocolVersion })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime(`${tokenLifetimeSeconds}s`)
    .sign(keyOf(secret));
}

/** Why the token is refused, or undefined when it is good. Only HS256 is accepted (so never `alg: none`). */
export async function checkWorkerToken(token: string, secret: string): Promise<string | undefined> {
  try {
    const { payload } = await jwtVerify(token, keyOf(secret), {
      algorithms: ['HS256'],
      audience,
      clockTolerance: clockSkewSeconds,
      requiredClaims: ['exp'],
    });
    return payload.ver === protocolVersion ? undefined : `unsupported protocol version (ver must be "${protocolVersion}")`;
  } catch (error) {
    if (error instanceof errors.JWTExpired) return 'the token has expired';
    if (error instanceof errors.JWTClaimValidationFailed) return `the token's ${error.claim} claim is not accepted`;
    if (error instanceof errors.JWSSignatureVerificationFailed) return 'the token signature does not match the worker secret';
    return 'the token is not a valid HS256 JWT';
  }
}
