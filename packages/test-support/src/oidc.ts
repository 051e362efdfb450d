/**
 * A real OAuth 2.0 authorization server for tests (oidc-provider on loopback: PKCE required, rotating
 * refresh tokens, 62 s access tokens), and a scripted browser that logs in and consents through the
 * server's own interaction pages.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defineToolkit, type ToolData } from '@quiver/core';
import Provider from 'oidc-provider';

export const CLIENT_SECRET = 'engine-client-secret-0f9e8d7c6b5a';
export const RESOURCE = 'https://upstream.test/';

export const tool = (name: string, scopes: string[]): ToolData => ({
  name,
  description: `Calls the upstream with scopes ${scopes.join(', ')}.`,
  parameters: [],
  output: { description: 'Who the token belongs to.' },
  requirements: { oauth2: { provider: 'testidp', scopes } },
  http: { method: 'GET', path: '/whoami' },
});

/** The resource server's toolkit: `Upstream` at `baseUrl`, its tools needing the given scopes of the test provider. */
export const upstreamToolkit = (baseUrl: string, tools: ToolData[] = [tool('WhoAmI', ['read'])]) =>
  defineToolkit({ name: 'Upstream', version: '1.0.0', description: 'A resource server.', baseUrl, tools });

export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The resource server as the sandbox's tests need it: it answers `{account: 'sandbox'}` and keeps each request's Authorization header. */
export async function recordingUpstream(): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server = createServer((request, response) => {
    seen.push(request.headers.authorization ?? '');
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ account: 'sandbox' }));
  });
  const url = await listen(server);
  return {
    url,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A browser, as far as an OAuth flow needs one: cookies, redirects, and the dev login/consent forms. */
export class Browser {
  private cookies = new Map<string, string>();

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const [name, value] = [pair!.slice(0, at).trim(), pair!.slice(at + 1)];
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  /**
   * Follows the authorization URL through login and consent as `account`; answers the URL the
   * authorization server redirects back to (not followed: the test decides what reaches the engine).
   */
  async authorize(url: string, account: string, stopAt: string, { deny = false } = {}): Promise<string> {
    let current = url;
    for (let step = 0; step < 20; step++) {
      if (current.startsWith(stopAt)) return current;
      const response = await this.fetch(current);
      const location = response.headers.get('location');
      if (location) {
        current = new URL(location, current).href;
        continue;
      }
      const html = await response.text();
      const uid = /\/interaction\/([^/?"']+)/.exec(current)?.[1];
      if (response.status !== 200 || !uid) throw new Error(`unexpected page ${response.status} at ${current}: ${html.slice(0, 300)}`);
      const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
      const origin = new URL(current).origin;
      if (deny) {
        current = `${origin}/interaction/${uid}/abort`;
        continue;
      }
      const form = new URLSearchParams(prompt === 'login' ? { prompt, login: account, password: 'any' } : { prompt: prompt ?? 'consent' });
      const submitted = await this.fetch(`${origin}/interaction/${uid}`, {
        method: 'POST',
        body: form,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      current = new URL(submitted.headers.get('location')!, current).href;
    }
    throw new Error('too many redirects');
  }
}

/** The engine's side of that client: the `oauth2` settings of an auth provider on the server at `issuer`. */
export const providerSettings = (issuer: string) => ({
  client_id: 'quiver',
  client_secret: CLIENT_SECRET,
  authorize_request: { endpoint: `${issuer}/auth` },
  token_request: { endpoint: `${issuer}/token`, auth_method: 'client_secret_basic' },
  issuer,
});

/** The authorization server, with one client (`quiver`) whose redirect URI is the engine's callback. */
export function authorizationServer(issuer: string, callback: string): Provider {
  return new Provider(issuer, {
    clients: [
      {
        client_id: 'quiver',
        client_secret: CLIENT_SECRET,
        redirect_uris: [callback],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: true },
      revocation: { enabled: true, allowedPolicy: () => true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({ scope: 'read write', accessTokenFormat: 'opaque', accessTokenTTL: 62 }),
      },
    },
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    ttl: { AccessToken: 62, AuthorizationCode: 60, Grant: 3600, Interaction: 600, RefreshToken: 3600, Session: 3600 },
    cookies: { keys: ['test-cookie-signing-key'] },
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
  });
}

/**
 * A resource server's request handler: it asks the authorization server about every bearer token it
 * is shown, answers 401 for unknown or expired ones, and otherwise who the token belongs to.
 */
export function checkTokens(provider: Provider, onToken: (token: string) => void = () => {}) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const found = token ? await provider.AccessToken.find(token) : undefined;
    if (token) onToken(token);
    res.setHeader('content-type', 'application/json');
    if (!found || found.isExpired) {
      res.statusCode = 401;
      return res.end(JSON.stringify({ message: 'invalid token' }));
    }
    res.end(JSON.stringify({ account: found.accountId, scope: found.scope }));
  };
}
