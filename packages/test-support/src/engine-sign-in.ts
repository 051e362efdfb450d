/**
 * An MCP client and its person, without a real browser: register a public client, send the person
 * through the engine's sign-in (with an API key) and consent pages, redeem and refresh tokens. The
 * browser suite drives the same pages in Chromium; these helpers let the attack tests run many flows
 * quickly, on every database.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Browser } from './oidc.js';

export const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

export interface SignInClient {
  /** The engine's address, and its issuer (its public URL) where that differs. */
  engine: string;
  issuer?: string;
  clientId: string;
  redirectUri: string;
}

/** Registers a public client (RFC 7591) with one redirect URI; answers the client id. */
export async function registerClient(engine: string, redirectUri: string, extra: Record<string, unknown> = {}): Promise<string> {
  const response = await fetch(`${engine}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Attack Test Client', redirect_uris: [redirectUri], ...extra }),
  });
  const body = (await response.json()) as { client_id?: string };
  if (response.status !== 201 || !body.client_id) throw new Error(`registration answered ${response.status}: ${JSON.stringify(body)}`);
  return body.client_id;
}

export interface Authorized {
  /** Where the engine sent the browser back to: `code`, `state` and `iss`, or `error`. */
  back: URL;
  verifier: string;
  /** The pages the person saw on the way, by kind: 'sign-in' and 'consent'. */
  pages: string[];
}

/**
 * The person's part: from the authorization request to the redirect back, signing in with `key` when
 * the engine asks and allowing when it asks for consent. `browser` keeps the person's cookies across flows.
 */
export async function authorize(
  client: SignInClient,
  browser: Browser,
  key: string | undefined,
  params: Record<string, string> = {},
  options: { until?: 'consent' } = {},
): Promise<Authorized> {
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${client.engine}/oauth/authorize`);
  const values = {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope: 'tools:read tools:write',
    state: randomBytes(8).toString('hex'),
    code_challenge: s256(verifier),
    code_challenge_method: 'S256',
    ...params,
  };
  for (const [name, value] of Object.entries(values)) url.searchParams.set(name, value);
  return { ...(await walk(client, browser, key, url.href, options)), verifier };
}

/** From an authorization URL (a client's own) to the redirect back, as `authorize` does. */
export async function walk(
  client: SignInClient,
  browser: Browser,
  key: string | undefined,
  url: string,
  { until }: { until?: 'consent' } = {},
): Promise<Omit<Authorized, 'verifier'>> {
  const pages: string[] = [];
  // Absolute URLs the engine builds from its issuer lead to the engine itself.
  const local = (location: string, from: string) => new URL(location.replace(client.issuer ?? client.engine, client.engine), from).href;
  let current = url;
  for (let step = 0; step < 12; step++) {
    if (current.startsWith(client.redirectUri)) return { back: new URL(current), pages };
    const response = await browser.fetch(current);
    const location = response.headers.get('location');
    if (location) {
      current = local(location, current);
      continue;
    }
    const html = await response.text();
    const uid = /\/oauth\/interaction\/([^/?"']+)/.exec(current)?.[1];
    if (response.status !== 200 || !uid) throw new Error(`unexpected page ${response.status} at ${current}: ${html.slice(0, 400)}`);
    const page = html.includes('id="allow"') ? 'consent' : 'sign-in';
    pages.push(page);
    // The person leaves the consent page open: `back` is that page.
    if (page === until) return { back: new URL(current), pages };
    if (page === 'sign-in' && key === undefined) throw new SignInAsked(current);
    const action = `${client.engine}/oauth/interaction/${uid}/${page === 'consent' ? 'consent' : 'key'}`;
    const submitted = await browser.fetch(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(page === 'consent' ? {} : { key: key! }),
    });
    const next = submitted.headers.get('location');
    if (!next) throw new Error(`the ${page} page answered ${submitted.status}: ${(await submitted.text()).slice(0, 400)}`);
    current = local(next, action);
  }
  throw new Error('too many redirects');
}

/** The engine asked the person to sign in, and the test gave no key: the browser's sign-in is gone. */
export class SignInAsked extends Error {}

export interface TokenAnswer {
  status: number;
  body: Record<string, string>;
}

/** A token request (form-encoded) at `engine`. */
export async function tokenRequest(engine: string, values: Record<string, string>): Promise<TokenAnswer> {
  const response = await fetch(`${engine}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(values),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

export const redeem = (client: SignInClient, { back, verifier }: Authorized, engine = client.engine, extra: Record<string, string> = {}) =>
  tokenRequest(engine, {
    grant_type: 'authorization_code',
    code: back.searchParams.get('code')!,
    redirect_uri: client.redirectUri,
    client_id: client.clientId,
    code_verifier: verifier,
    ...extra,
  });

export const refresh = (client: SignInClient, refreshToken: string, engine = client.engine, extra: Record<string, string> = {}) =>
  tokenRequest(engine, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.clientId, ...extra });

/** A tools/list over MCP with the access token: the HTTP status and the challenge, if any. */
export async function mcpWith(engine: string, accessToken: string, message: object = { method: 'tools/list', params: {} }, path = '/v1/mcp') {
  const response = await fetch(engine + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }),
  });
  const text = await response.text();
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body: text ? JSON.parse(text) : undefined };
}

/** The MCP SDK's client-side OAuth state, as a desktop client keeps it: what it registered, its tokens, where it sent the person. */
export class ClientState implements OAuthClientProvider {
  information?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  authorizationUrl?: URL;

  constructor(
    readonly redirectUrl: string,
    private readonly scope?: string,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test MCP Client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(this.scope && { scope: this.scope }),
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier!;
  }
}
