/**
 * The engine's limits on the wire. Every request counted against a policy of requests a minute says where
 * it stands in the RateLimit-Policy and RateLimit fields of draft-ietf-httpapi-ratelimit-headers
 * (`RateLimit-Policy: "key";q=1200;w=60`, `RateLimit: "key";r=1199;t=60`), success or not; a request over
 * one is a 429 `too_many_requests` with `Retry-After` (seconds, never earlier than the window's end).
 *
 * What is counted where: every route with an API key, against the key (app.ts); executions and MCP
 * requests, against the user they act for too (tools.ts, mcp.ts, which also limit the key themselves);
 * public routes and requests whose key is refused, against the client address (app.ts), except the
 * routes that say `limits: false` (liveness, readiness and metrics scrapes, which must not be starved; the
 * authorization server's endpoints, which have limits of their own; MCP, which counts for itself).
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import { RateLimited } from '../errors.js';
import { WINDOW_S, type PolicyState } from '../limits/limits.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: the engine's limits of requests a minute leave this route alone. */
    limits?: false;
  }
}

/** What each policy counts, in words for a message. */
const subjects: Record<string, string> = { key: 'this API key', user: 'this user', address: 'this address' };

/** Adds the policies' items to the answer's RateLimit-Policy and RateLimit fields (set on the raw response: a hijacked reply keeps them). */
export function announce(reply: FastifyReply | ServerResponse, states: readonly (PolicyState | undefined)[]): void {
  const raw = 'raw' in reply ? reply.raw : reply;
  for (const state of states) {
    if (!state) continue;
    append(raw, 'ratelimit-policy', `"${state.policy}";q=${state.quota};w=${WINDOW_S}`);
    append(raw, 'ratelimit', `"${state.policy}";r=${state.remaining};t=${Math.ceil(state.resetMs / 1000)}`);
  }
}

function append(raw: ServerResponse, name: string, item: string): void {
  const prior = raw.getHeader(name);
  raw.setHeader(name, prior ? `${prior}, ${item}` : item);
}

/** The refusal of a request over one of its policies (the one with the longest wait), if it went over any. */
export function refusalOf(states: readonly (PolicyState | undefined)[]): RateLimited | undefined {
  let worst: PolicyState | undefined;
  for (const state of states) if (state?.exceeded && (!worst || state.resetMs > worst.resetMs)) worst = state;
  if (!worst) return undefined;
  const seconds = Math.max(1, Math.ceil(worst.resetMs / 1000));
  const subject = subjects[worst.policy] ?? 'this address';
  return new RateLimited(`Too many requests for ${subject}: at most ${worst.quota} a minute. Try again in ${seconds} s.`, seconds * 1000);
}

/** Announces the counts, and refuses the request with 429 when it went over one of them. */
export async function enforce(reply: FastifyReply, counting: Promise<PolicyState | undefined>[]): Promise<void> {
  const states = await Promise.all(counting);
  announce(reply, states);
  const refused = refusalOf(states);
  if (refused) throw refused;
}
