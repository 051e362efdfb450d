/**
 * The MCP endpoint (streamable HTTP) at /v1/mcp and /mcp: the engine's tools, called for the session's
 * user with that user's tokens, whatever a tool's arguments say. The session's user is the signed-in
 * person of an access token (OAuth, within its scopes), a user key's own user (a `Quiver-User-ID` naming
 * another is refused with 403), or else the user the header names. ToolEngineApi is served to admin keys
 * only. A session signed in with `tools:read` only that calls a tool that changes data is answered 403
 * `insufficient_scope`, so that its client can ask the person for `tools:write` (step-up).
 * `?discovery=true` lists the discovery meta-tools instead of the tools, `?discovery=false` every tool;
 * without it, the engine's setting (`quiver serve --discovery`) decides.
 *
 * Both eras, negotiated per request as the SDK classifies it: a request carrying the 2026-07-28 envelope
 * in its `_meta` goes to the SDK's handler for that revision (which checks the envelope and the
 * `Mcp-Method`/`Mcp-Name` headers against the body); any other (`initialize` and the 2025 revisions) to a
 * server of its own over the SDK's streamable HTTP transport, stateless. Neither keeps a stream open: a
 * GET answers 405.
 *
 * Limits: each request counts against its API key and its user. Over either, a message of `tools/call`
 * requests only is answered as the model should hear it, a tool error `TOOL_RUNTIME_RATE_LIMIT` with
 * `retry_after_ms` (HTTP 200); any other message gets 429 with `Retry-After` and a JSON-RPC error. A call
 * over the key's or the user's calls in flight is the same tool error, from the dispatcher.
 *
 * Elicitation (see mcp/elicitation.ts): a 2026-07-28 client is asked through `input_required` results,
 * with the call's state sealed by a key derived from the master key, so that its next round may reach any
 * engine. A 2025 client that declares it at `initialize` gets a session id carrying the modes it declared,
 * its messages are answered as streams, on which the server asks the person, and the answers it posts are
 * handed to the server that asked (see mcp/stateless.ts). Any other client is served as before.
 */
import { createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport } from '#mcp-server';
import { annotationsOf, functionName } from '@quiver/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { challenge, mcpAuthentication, readScopeOnly, sessionPolicy, type UserCaller } from '../../authorization-server/bearer.js';
import type { Engine } from '../../engine.js';
import { callToolName } from '../../mcp/discovery.js';
import { askStateCodec } from '../../mcp/elicitation.js';
import { createMcpServer, toCallToolResult, type McpServerOptions } from '../../mcp/mcp-server.js';
import { capabilitiesOf, PendingQuestions, sessionIdFor } from '../../mcp/stateless.js';
import { ProcessTasks, ScheduledTasks } from '../../mcp/tasks.js';
import { rateLimited } from '../../limits/limits.js';
import { actingUser, policyFor } from '../access.js';
import type { Routes } from '../app.js';
import { retryAfterSeconds } from '../errors.js';
import { iconBaseUrl } from './toolkits.js';
import { announce, refusalOf } from '../limits.js';

export const mcpRoutes: Routes = (app, engine) => {
  const authenticate = mcpAuthentication(engine);
  const questions = new PendingQuestions();
  // Every engine sharing the master key seals alike: a client's next round may reach any of them.
  const askState = askStateCodec(engine.vault.derive('mcp request state'));
  /** Each 2026-07-28 request's session, by the request the SDK's handler hands its server factory. */
  const sessions = new WeakMap<Request, McpServerOptions>();
  // Calls that outlast a moment are tasks of this process; those with run_at, the engine's scheduled executions.
  const tasks = { process: new ProcessTasks(), scheduled: new ScheduledTasks(engine.scheduler, toCallToolResult) };
  const modern = createMcpHandler(({ requestInfo }) => createMcpServer(engine.dispatcher, sessions.get(requestInfo!)!), { legacy: 'reject' });
  app.addHook('onClose', () => modern.close());

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
    // Answers to the servers' questions (2025 elicitations) go to the servers waiting for them, whoever else may be over a limit.
    const owner = session ? `session of ${session.userId}` : `key ${request.apiKeyId} for ${userId ?? ''}`;
    if (questions.deliver(request.body, owner)) return reply.status(202).send();
    const caller = session ? undefined : request.caller;
    const states = await Promise.all([caller && engine.limits.key(caller), userId === undefined ? undefined : engine.limits.user(userId)]);
    announce(reply, states);
    const refused = refusalOf(states);
    if (refused) return overLimit(reply, request.body, refused.message, refused.retryAfterMs);
    const options: McpServerOptions = {
      userId,
      // An API key without the header: the user goes in the header here, there is no user_id to pass.
      actingUserHint: 'send the acting user in the Quiver-User-ID header',
      // Icons as the engine's own URLs (read per request: with port 0 the address is known once it listens).
      policy: (session ? sessionPolicy(policyFor(engine, 'user'), session) : policyFor(engine, request.caller!.role)).narrowed({
        iconBaseUrl: iconBaseUrl(engine),
      }),
      discovery: request.query.discovery ?? engine.discovery,
      requestId: request.id,
      keyId: request.apiKeyId,
      admit: engine.limits.admission(caller, userId),
      authorizations: engine.oauth,
      askState,
      tasks,
      taskOwner: { session: owner, userId },
    };
    const web = webRequest(request, reply);
    if (!(await isLegacyRequest(web, request.body))) {
      sessions.set(web, options);
      return reply.send(await modern.fetch(web, { parsedBody: request.body }));
    }
    // The 2025 revisions: a server of its own for each message, told what the session's client declared.
    const sessionId = sessionIdFor(request.body);
    const clientCapabilities = capabilitiesOf(sessionId ?? headerValue(request.headers['mcp-session-id']));
    const server = createMcpServer(engine.dispatcher, { ...options, clientCapabilities });
    // A client that can be asked, or asked for progress, gets its answers as a stream, on which the questions and progress go out too.
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !clientCapabilities && !asksProgress(request.body),
    });
    const forget = clientCapabilities ? questions.track(transport, owner) : undefined;
    reply.raw.on('close', () => {
      forget?.();
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    if (sessionId) reply.header('mcp-session-id', sessionId);
    return reply.send(await transport.handleRequest(web, { parsedBody: request.body }));
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

/** Whether a message asks for progress notifications (a progress token in a request's `_meta`). */
const asksProgress = (body: unknown) =>
  [body].flat().some((message) => (message as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta?.progressToken !== undefined);

const headerValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) || undefined;

/** The request as the SDK reads it (its body already parsed), aborted when the client goes away before the answer. */
function webRequest(request: FastifyRequest, reply: FastifyReply): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    for (const item of [value ?? []].flat()) headers.append(name, item);
  }
  const gone = new AbortController();
  reply.raw.on('close', () => gone.abort());
  return new Request(`http://${request.host}${request.url}`, { method: request.method, headers, signal: gone.signal });
}

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
