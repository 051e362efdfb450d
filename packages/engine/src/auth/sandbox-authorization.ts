/**
 * The sandbox's authorization server: with `--sandbox`, every OAuth provider a tool names exists, and
 * its authorization and token endpoints are the engine's own (a consent page, and a token endpoint
 * that hands out the token the sandbox's emulators accept). So a flow started in the sandbox runs
 * exactly as against a real provider: the user opens the URL, allows, the browser comes back to the
 * engine's callback, and the engine redeems the code with PKCE (RFC 7636, S256 only).
 *
 * Codes and refresh tokens live in this process's memory: the sandbox is one process.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { AuthProvider, FirstUseGrant, ProviderDirectory } from './providers.js';

export interface SandboxAuthorizationOptions {
  /** The token every sandbox emulator accepts. */
  token: string;
  /** The engine's public URL (read when needed: it is known only once the server listens). */
  publicUrl: () => string;
  /** Every scope the served tools ask of each provider: what a user connected on first use is granted. */
  scopes: Record<string, string[]>;
}

const clientId = 'quiver-sandbox';
const codeTtlMs = 60_000;

interface IssuedCode {
  redirectUri: string;
  challenge: string;
  scope: string;
  expiresAt: number;
}

/** What the consent page's form and the token endpoint receive. */
export type Params = Record<string, string | undefined>;

export class SandboxAuthorization {
  private readonly codes = new Map<string, IssuedCode>();
  private readonly refreshTokens = new Map<string, string>();

  constructor(private readonly options: SandboxAuthorizationOptions) {}

  /**
   * The providers of the sandbox: the configured ones, and under any other key one served by the engine
   * itself. Each connects a user on first use, as if they had allowed every scope the tools ask of it,
   * so that every tool runs straight away.
   */
  beside(configured: ProviderDirectory): ProviderDirectory {
    const withFirstUse = (provider: AuthProvider | undefined) => provider && { ...provider, firstUse: this.firstUse(provider.id) };
    return {
      resolve: async (key) => withFirstUse(await configured.resolve(key)) ?? this.provider(key),
      byId: async (id) => withFirstUse(await configured.byId(id)) ?? this.provider(id),
      resolver: async () => {
        const resolve = await configured.resolver();
        return (key) => {
          const id = resolve(key)?.id ?? key;
          return { id, firstUse: this.firstUse(id) };
        };
      },
      connectsOnFirstUse: true,
    };
  }

  /** The authorization request, checked as a provider checks it; a problem in words, or undefined. */
  check(params: Params): string | undefined {
    if (params.response_type !== 'code') return 'response_type must be code';
    if (params.client_id !== clientId) return `unknown client_id '${params.client_id ?? ''}'`;
    if (params.redirect_uri !== this.callbackUrl()) return 'redirect_uri is not the registered callback';
    if (!params.state) return 'state is required';
    if (!params.code_challenge || params.code_challenge_method !== 'S256') return 'PKCE with code_challenge_method S256 is required';
    return undefined;
  }

  /** The browser's way back to the engine after the person chose; the code is good once, for a minute. */
  decide(params: Params, allowed: boolean): string {
    const back = new URL(params.redirect_uri!);
    back.searchParams.set('state', params.state!);
    if (!allowed) {
      back.searchParams.set('error', 'access_denied');
      return back.href;
    }
    const code = randomBytes(24).toString('base64url');
    this.codes.set(code, {
      redirectUri: params.redirect_uri!,
      challenge: params.code_challenge!,
      scope: params.scope ?? '',
      expiresAt: Date.now() + codeTtlMs,
    });
    back.searchParams.set('code', code);
    return back.href;
  }

  /** The token endpoint (RFC 6749 §4.1.3 and §6): the answer's status and body. */
  exchange(params: Params): { status: number; body: Record<string, unknown> } {
    const refused = (error: string, description: string) => ({ status: 400, body: { error, error_description: description } });
    if (params.client_id !== clientId) return { status: 401, body: { error: 'invalid_client', error_description: 'unknown client' } };
    if (params.grant_type === 'refresh_token') {
      const scope = params.refresh_token ? this.refreshTokens.get(params.refresh_token) : undefined;
      if (scope === undefined) return refused('invalid_grant', 'unknown or used refresh token');
      this.refreshTokens.delete(params.refresh_token!);
      return { status: 200, body: this.tokens(scope) };
    }
    if (params.grant_type !== 'authorization_code') return refused('unsupported_grant_type', 'use authorization_code or refresh_token');
    const issued = params.code ? this.codes.get(params.code) : undefined;
    // A code is redeemed once, whatever the outcome (RFC 6749 §4.1.2).
    if (params.code) this.codes.delete(params.code);
    if (!issued || issued.expiresAt < Date.now()) return refused('invalid_grant', 'unknown, used or expired code');
    if (params.redirect_uri !== issued.redirectUri) return refused('invalid_grant', 'redirect_uri differs from the authorization request');
    const challenge = params.code_verifier ? createHash('sha256').update(params.code_verifier).digest('base64url') : undefined;
    if (challenge !== issued.challenge) return refused('invalid_grant', 'code_verifier does not match the code_challenge');
    return { status: 200, body: this.tokens(issued.scope) };
  }

  /** The token the emulators accept, with every scope the tools ask of the provider. */
  private firstUse(providerId: string): FirstUseGrant {
    return { token: this.options.token, scopes: this.options.scopes[providerId] ?? [] };
  }

  /** A provider the engine serves itself. */
  private provider(providerId: string): AuthProvider {
    const base = `${this.options.publicUrl()}/v1/sandbox/oauth`;
    return {
      id: providerId,
      description: `${providerId} (sandbox)`,
      provider_id: providerId,
      oauth2: {
        client_id: clientId,
        authorize_request: { endpoint: `${base}/authorize`, params: { provider: providerId } },
        token_request: { endpoint: `${base}/token`, auth_method: 'none' },
        scope_delimiter: ' ',
        pkce: { enabled: true, code_challenge_method: 'S256' },
      },
      clientSecret: undefined,
      preset: undefined,
      firstUse: this.firstUse(providerId),
    };
  }

  private tokens(scope: string): Record<string, unknown> {
    const refreshToken = randomBytes(24).toString('base64url');
    this.refreshTokens.set(refreshToken, scope);
    return { access_token: this.options.token, token_type: 'bearer', expires_in: 3600, refresh_token: refreshToken, scope };
  }

  private callbackUrl(): string {
    return `${this.options.publicUrl()}/v1/oauth/callback`;
  }
}
