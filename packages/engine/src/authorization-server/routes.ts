/**
 * The authorization server in the engine's HTTP API: its metadata (RFC 8414 and OpenID discovery),
 * the protected-resource metadata of the MCP endpoint (RFC 9728), oidc-provider's endpoints under
 * /oauth, and the sign-in and consent pages. All public: they are how a person gets a token.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Engine } from '../engine.js';
import type { Routes } from '../http/app.js';
import { retryAfterSeconds } from '../http/errors.js';
import { announce } from '../http/limits.js';
import type { SignInResult } from './grants.js';
import { SignInError, verifyApiKey } from './identity.js';
import { consentPage, errorPage, signInPage, type ClientView } from './pages.js';
import { mcpPaths, paths, toolScopes, type AuthorizationServer, type LimitedEndpoint } from './authorization-server.js';

/** The cookie that ties an identity provider's answer to the browser that went there. */
const SIGN_IN_COOKIE = 'quiver_sign_in';

export const authorizationServerRoutes: Routes = async (app, engine) => {
  const server = engine.authorizationServer;
  const hidden = { hide: true };

  // ---- Protected-resource metadata (RFC 9728): one document per MCP path, and the root's. ----
  const resourceMetadata = (path: string) => ({
    resource: server.resource(path),
    authorization_servers: [server.issuer],
    scopes_supported: Object.keys(toolScopes),
    bearer_methods_supported: ['header'],
    resource_name: `${engine.config.projectName} MCP`,
  });
  // Public documents: browser-based clients read them across origins.
  const documents: [string, string][] = [...mcpPaths.map((path) => [`/.well-known/oauth-protected-resource${path}`, path] as [string, string])];
  documents.push(['/.well-known/oauth-protected-resource', mcpPaths[0]]);
  for (const [url, path] of documents) {
    app.get(url, { config: { public: true }, schema: hidden }, async (_request, reply) => {
      reply.header('access-control-allow-origin', '*');
      return resourceMetadata(path);
    });
  }

  // ---- oidc-provider's own endpoints, handed the raw request before Fastify reads its body. ----
  const delegate = async (request: FastifyRequest, reply: FastifyReply) => {
    if (await tooMany(server, request, reply)) return;
    reply.hijack();
    // RFC 8414 metadata is the OpenID configuration document: the same server, the same fields.
    if (request.raw.url?.startsWith('/.well-known/oauth-authorization-server')) request.raw.url = '/.well-known/openid-configuration';
    if (request.raw.url?.startsWith(paths.authorization)) request.raw.url = withDefaultScope(request.raw.url);
    await server.handle(request.raw, reply.raw);
  };
  for (const url of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server', '/oauth/*']) {
    // Limited per endpoint by QUIVER_AUTH_RATE_LIMIT (tooMany), answering as OAuth answers: not by the engine's address limit.
    const route = { method: ['GET', 'POST', 'OPTIONS'], url, config: { public: true, limits: false as const }, schema: hidden };
    app.route({ ...route, onRequest: delegate, handler: async () => undefined });
  }

  // ---- Sign-in and consent: their own scope, for the form bodies they post. ----
  await app.register(async (pages) => {
    pages.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    interactionPages(pages, engine, server);
  });
};

function interactionPages(app: FastifyInstance, engine: Engine, server: AuthorizationServer) {
  const config = { public: true };
  const schema = { hide: true };
  type Uid = { Params: { uid: string } };

  const html = (reply: FastifyReply, body: string, status = 200) =>
    reply
      .status(status)
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('x-frame-options', 'DENY')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
      .send(body);

  /** The interaction the browser's cookie holds; it must be the one in the URL. */
  const details = async (request: FastifyRequest<Uid>, reply: FastifyReply) => {
    const provider = await server.provider();
    const interaction = await provider.interactionDetails(request.raw, reply.raw).catch(() => undefined);
    if (!interaction || interaction.uid !== request.params.uid) return undefined;
    const client = await provider.Client.find(interaction.params.client_id as string);
    if (!client) return undefined;
    const redirectUri = String(interaction.params.redirect_uri);
    const view: ClientView = { name: client.clientName ?? client.clientId, clientId: client.clientId, redirectUri };
    return { provider, interaction, client: view };
  };
  const expired = (reply: FastifyReply) => html(reply, errorPage('invalid_request', 'This sign-in has expired or belongs to another browser.'), 400);

  const signIn = (reply: FastifyReply, uid: string, client: ClientView, error?: string, status = 200) =>
    html(
      reply,
      signInPage({
        client,
        action: `${paths.interaction}/${uid}`,
        identityProvider: server.identity && { name: server.identity.settings.name, href: `${paths.interaction}/${uid}/sign-in` },
        // User keys sign in as their own user; an admin key only where QUIVER_AUTH_KEY_USER names the person.
        keySignIn: true,
        error,
      }),
      status,
    );

  app.get<Uid>(`${paths.interaction}/:uid`, { config, schema }, async (request, reply) => {
    const found = await details(request, reply);
    if (!found) return expired(reply);
    const { interaction, client } = found;
    if (interaction.prompt.name === 'login') return signIn(reply, interaction.uid, client);
    const requested = String(interaction.params.scope ?? '').split(' ');
    const scopes = Object.entries(toolScopes)
      .filter(([name]) => requested.includes(name))
      .map(([name, description]) => ({ name, description }));
    const resource = String(interaction.params.resource ?? server.resource(mcpPaths[0]));
    const action = `${paths.interaction}/${interaction.uid}`;
    return html(reply, consentPage({ client, action, userId: interaction.session!.accountId, scopes, resource }));
  });

  // The identity provider: there and back.
  app.get<Uid>(`${paths.interaction}/:uid/sign-in`, { config, schema }, async (request, reply) => {
    const found = await details(request, reply);
    if (found?.interaction.prompt.name !== 'login') return expired(reply);
    if (!server.identity) return signIn(reply, found.interaction.uid, found.client, 'No identity provider is configured.', 400);
    try {
      const { url, state } = await server.identity.start(found.interaction.uid);
      const secure = server.issuer.startsWith('https:') ? '; Secure' : '';
      reply.header('set-cookie', `${SIGN_IN_COOKIE}=${state}; Path=${paths.identityCallback}; HttpOnly; SameSite=Lax; Max-Age=600${secure}`);
      return reply.redirect(url, 303);
    } catch (error) {
      if (error instanceof SignInError) return signIn(reply, found.interaction.uid, found.client, error.message, 502);
      throw error;
    }
  });

  // Its query holds the identity provider's code: the route logs only warnings and errors.
  app.get(paths.identityCallback, { config, schema, logLevel: 'warn' }, async (request, reply) => {
    if (!server.identity) return html(reply, errorPage('invalid_request', 'No identity provider is configured.'), 400);
    const query = new URLSearchParams(request.url.split('?')[1] ?? '');
    reply.header('set-cookie', `${SIGN_IN_COOKIE}=; Path=${paths.identityCallback}; HttpOnly; SameSite=Lax; Max-Age=0`);
    let signedIn: { uid: string; subject: string };
    try {
      signedIn = await server.identity.finish(query, cookie(request, SIGN_IN_COOKIE));
    } catch (error) {
      if (error instanceof SignInError) return html(reply, errorPage('access_denied', error.message), 400);
      throw error;
    }
    // The browser is not on the interaction's path here; the interaction is found by the uid the
    // sign-in was started for, and resuming it still needs the browser's own resume cookie.
    const provider = await server.provider();
    const interaction = await provider.Interaction.find(signedIn.uid);
    if (!interaction) return expired(reply);
    interaction.result = { login: { accountId: signedIn.subject } };
    await interaction.save(interaction.exp - Math.floor(Date.now() / 1000));
    return reply.redirect(interaction.returnTo, 303);
  });

  // A user API key, for a single-person setup.
  app.post<Uid & { Body: { key?: string } }>(`${paths.interaction}/:uid/key`, { config, schema }, async (request, reply) => {
    if (await tooMany(server, request, reply, 'authorize')) return;
    const found = await details(request, reply);
    if (found?.interaction.prompt.name !== 'login') return expired(reply);
    const key = request.body?.key?.trim();
    const identity = key ? await verifyApiKey(engine.apiKeys, key, server.settings.keyUser) : undefined;
    if (identity?.role !== 'user' || !identity.userId) {
      return signIn(reply, found.interaction.uid, found.client, 'That key cannot sign in: use a valid user key.', 401);
    }
    // The key goes with the sign-in: the session, and the grants it leads to, remember it (grants.ts).
    const result: SignInResult = { login: { accountId: identity.userId }, apiKeyId: identity.keyId };
    const returnTo = await found.provider.interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: false });
    return reply.redirect(returnTo, 303);
  });

  app.post<Uid>(`${paths.interaction}/:uid/consent`, { config, schema }, async (request, reply) => {
    const found = await details(request, reply);
    if (found?.interaction.prompt.name !== 'consent') return expired(reply);
    const { provider, interaction } = found;
    const { accountId } = interaction.session!;
    const clientId = interaction.params.client_id as string;
    const grant = (interaction.grantId && (await provider.Grant.find(interaction.grantId))) || new provider.Grant({ accountId, clientId });
    const missing = interaction.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(resource, scopes.join(' '));
    const grantId = await grant.save();
    await server.keepClient(clientId);
    const returnTo = await provider.interactionResult(request.raw, reply.raw, { consent: { grantId } }, { mergeWithLastSubmission: true });
    return reply.redirect(returnTo, 303);
  });

  app.post<Uid>(`${paths.interaction}/:uid/deny`, { config, schema }, async (request, reply) => {
    const found = await details(request, reply);
    if (!found) return expired(reply);
    const result = { error: 'access_denied', error_description: 'The person declined the request.' };
    const returnTo = await found.provider.interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: false });
    return reply.redirect(returnTo, 303);
  });
}

/**
 * Answers 429 with Retry-After when the client address has used up its requests at this endpoint:
 * registration; a new authorization request (with the sign-in forms); and every other POST oidc-provider
 * answers (the token endpoint, revocation), which counts as `token`. The counts are the engine's limits
 * (shared by every process through Redis when there is one); the policy is named `oauth-<endpoint>`.
 */
async function tooMany(server: AuthorizationServer, request: FastifyRequest, reply: FastifyReply, endpoint = limitedEndpoint(request)): Promise<boolean> {
  if (!endpoint) return false;
  const state = await server.limit(endpoint, request.ip);
  announce(reply, [state]);
  if (!state?.exceeded) return false;
  const seconds = retryAfterSeconds(state.resetMs);
  const description = `Too many requests from this address at ${endpoint}: try again in ${seconds} s.`;
  reply.status(429).header('retry-after', String(seconds)).header('cache-control', 'no-store');
  if (endpoint === 'authorize') reply.header('content-type', 'text/html; charset=utf-8').send(errorPage('temporarily_unavailable', description));
  else reply.send({ error: 'temporarily_unavailable', error_description: description });
  return true;
}

function limitedEndpoint(request: FastifyRequest): LimitedEndpoint | undefined {
  const path = routedPath(request.url);
  if (path === paths.registration) return 'register';
  // A new authorization request; resuming one (`/oauth/authorize/<uid>`) needs the browser's own cookie.
  if (path === paths.authorization) return 'authorize';
  return request.method === 'POST' ? 'token' : undefined;
}

/** The path as oidc-provider's router reads it: decoded, in any letter case, slashes doubled or trailing. */
function routedPath(url: string): string {
  let path = url.split('?')[0]!;
  try {
    path = decodeURIComponent(path);
  } catch {
    // Not decodable: the router will not match it either.
  }
  return path
    .toLowerCase()
    .replace(/\/{2,}/g, '/')
    .replace(/(.)\/+$/, '$1');
}

/**
 * An authorization request without a scope asks for both tool scopes: the consent page then shows
 * the person everything the client will be able to do, rather than a token that can do nothing.
 */
function withDefaultScope(url: string): string {
  const [path, query = ''] = url.split('?');
  const params = new URLSearchParams(query);
  if (params.get('scope')?.trim()) return url;
  params.set('scope', Object.keys(toolScopes).join(' '));
  return `${path}?${params}`;
}

function cookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
