/**
 * The MCP endpoint (streamable HTTP) at /v1/mcp and /mcp: the engine's tools, called for the session's
 * user with that user's tokens, whatever a tool's arguments say. The session's user is the signed-in
 * person of an access token (OAuth, within its scopes), a user key's own user (a `Quiver-User-ID` naming
 * another is refused with 403), or else the user the header names. ToolEngineApi is served to admin keys
 * only. Stateless: each request gets its own server, and there is no stream to open with GET (405); a
 * DELETE, which would end a session, is answered as the transport answers it (there is none to end).
 * A session signed in with `tools:read` only that calls a tool that changes data is answered 403
 * `insufficient_scope`, so that its client can ask the person for `tools:write` (step-up).
 * `?discovery=true` lists the discovery meta-tools instead of the tools, `?discovery=false` every tool;
 * without it, the engine's setting (`quiver serve --discovery`) decides.
 *
 * Limits: each request counts against its API key and its user. Over either, a message of `tools/call`
 * requests only is answered as the model should hear it, a tool error `TOOL_RUNTIME_RATE_LIMIT` with
 * `retry_after_ms` (HTTP 200); any other message gets 429 with `Retry-After` and a JSON-RPC error. A call
 * over the key's or the user's calls in flight is the same tool error, from the dispatcher.
 *
 * Elicitation: a client that declares it at `initialize` gets a session id carrying the modes it declared,
 * its messages are answered as streams, on which the server asks the person (confirming a destructive
 * call, sending them to an authorization), and the answers it posts are handed to the server that asked
 * (see mcp/stateless.ts). Any other client is served exactly as before, without a session id.
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { annotationsOf, functionName } from '@quiver/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { challenge, mcpAuthentication, readScopeOnly, sessionPolicy, type UserCaller } from '../../authorization-server/bearer.js';
import type { Engine } from '../../engine.js';
import { callToolName } from '../../mcp/discovery.js';
import { createMcpServer, toCallToolResult } from '../../mcp/server.js';
import { capabilitiesOf, PendingQuestions, sessionIdFor } from '../../mcp/stateless.js';
import { rateLimited } from '../../limits/limits.js';
import { actingUser, policyFor } from '../access.js';
import type { Routes } from '../app.js';
import { retryAfterSeconds } from '../errors.js';
import { announce, refusalOf } from '../limits.js';

export const mcpRoutes: Routes = (app, engine) => {
  const authenticate = mcpAuthentication(engine);
  const questions = new PendingQuestions();
  async function handle(request: FastifyRequest<{ Querystring: { discovery?: boolean } }>, reply: FastifyReply) {
    if (request.method === 'GET') {
      return reply
        .status(405)
        .header('allow', 'POST, DELETE')
        .send({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless, with no stream to open; POST each message.' },
        });
    }
    // An OAuth session acts as its token's user, within its scopes; an API key as its role allows.
    const session = request.oauthSession;
    const beyondScope = session && (await writeToolCalled(engine, session, request.body));
    if (beyondScope) {
      const message = `The access token's scope is ${session.scopes.join(' ')}: ${beyondScope} changes data and needs tools:write; ${readScopeOnly.remedy}.`;
      return challenge(engine.authorizationServer, request, reply, 403, 'insufficient_scope', message);
    }
    const userId = session ? session.userId : actingUser(request, headerValue(request.headers['quiver-user-id']));
    // Answers to the servers' questions (elicitations) go to the servers waiting for them, whoever else may be over a limit.
    const owner = session ? `session of ${session.userId}` : `key ${request.apiKeyId} for ${userId ?? ''}`;
    if (questions.deliver(request.body, owner)) return reply.status(202).send();
    const caller = session ? undefined : request.caller;
    const states = await Promise.all([caller && engine.limits.key(caller), userId === undefined ? undefined : engine.limits.user(userId)]);
    announce(reply, states);
    const refused = refusalOf(states);
    if (refused) return overLimit(reply, request.body, refused.message, refused.retryAfterMs);
    const policy = session ? sessionPolicy(policyFor(engine, 'user'), session) : policyFor(engine, request.caller!.role);
    const sessionId = sessionIdFor(request.body);
    const clientCapabilities = capabilitiesOf(sessionId ?? headerValue(request.headers['mcp-session-id']));
    const server = createMcpServer(engine.dispatcher, {
      userId,
      // An API key without the header: the user goes in the header here, there is no user_id to pass.
      actingUserHint: 'send the acting user in the Quiver-User-ID header',
      policy,
      discovery: request.query.discovery ?? engine.discovery,
      requestId: request.id,
      keyId: request.apiKeyId,
      admit: () => engine.limits.admit(caller, userId),
      clientCapabilities,
      authorizations: engine.oauth,
    });
    // A client that can be asked gets its answers as a stream, on which the questions go out too.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !clientCapabilities });
    const forget = clientCapabilities ? questions.track(transport, owner) : undefined;
    reply.hijack();
    if (sessionId) reply.raw.setHeader('mcp-session-id', sessionId);
    reply.raw.on('close', () => {
      forget?.();
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  }

  for (const url of ['/v1/mcp', '/mcp']) {
    app.route({
      method: ['GET', 'POST', 'DELETE'],
      url,
      // It authenticates itself (an API key or an access token) and counts its requests in the handler.
      config: { public: true, limits: false },
      onRequest: authenticate,
      schema: {
        operationId: url === '/v1/mcp' ? 'mcp-endpoint' : 'mcp-endpoint-short',
        summary: 'MCP streamable HTTP; an OAuth access token, or an API key with the acting user in the Quiver-User-ID header',
        hide: url === '/mcp',
        querystring: {
          type: 'object',
          properties: { discovery: { type: 'boolean', description: 'List the search, describe and call meta-tools instead of every tool.' } },
        },
      },
      handler: handle,
    });
  }
};

/**
 * The first tool a read-only session's message calls that changes data (by its own name, or through the
 * discovery meta-tool), if any; undefined for a session that may write, or a message that calls no such tool.
 */
async function writeToolCalled(engine: Engine, session: UserCaller, body: unknown): Promise<string | undefined> {
  if (session.scopes.includes('tools:write')) return undefined;
  for (const message of [body].flat()) {
    const call = message as { method?: unknown; params?: { name?: unknown; arguments?: { name?: unknown } } } | null;
    if (call?.method !== 'tools/call') continue;
    const named = call.params?.name === callToolName ? call.params.arguments?.name : call.params?.name;
    if (typeof named !== 'string') continue;
    const found = await engine.dispatcher.find(named, policyFor(engine, 'user'));
    if (found && !annotationsOf(found.tool).readOnlyHint) return functionName(found.tool);
  }
  return undefined;
}

const headerValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) || undefined;

/**
 * The answer to a message over a limit: a tool error for each call when it holds nothing but `tools/call`
 * requests (the model hears when to come back), otherwise 429 with a JSON-RPC error.
 */
function overLimit(reply: FastifyReply, body: unknown, message: string, retryAfterMs: number) {
  const messages = [body].flat() as ({ method?: unknown; id?: string | number } | null)[];
  const calls = messages.every((item) => item?.method === 'tools/call' && item.id !== undefined);
  if (calls && messages.length) {
    const answers = messages.map((item) => ({ jsonrpc: '2.0', id: item!.id, result: toCallToolResult({ error: rateLimited(message, retryAfterMs) }) }));
    return reply.status(200).send(Array.isArray(body) ? answers : answers[0]);
  }
  const id = Array.isArray(body) ? null : ((body as { id?: string | number } | null)?.id ?? null);
  return reply
    .status(429)
    .header('retry-after', String(retryAfterSeconds(retryAfterMs)))
    .send({ jsonrpc: '2.0', id, error: { code: -32000, message, data: { retry_after_ms: retryAfterMs } } });
}
