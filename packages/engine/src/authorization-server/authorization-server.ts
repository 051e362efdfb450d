/**
 * The engine as the OAuth 2.1 authorization server of its MCP endpoint (oidc-provider): public
 * clients only, registered dynamically (RFC 7591) or described by a client ID metadata document;
 * the authorization code grant with PKCE S256; access tokens bound to the MCP resource (RFC 8707);
 * refresh tokens rotated on every use; revocation (RFC 7009). Its storage is the engine's database.
 *
 * The issuer is the engine's public URL, so the metadata is at the well-known addresses of its root.
 * The provider is made on first use: with port 0 the public URL is known only once the engine listens.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Configuration, default as Provider, KoaContextWithOIDC } from 'oidc-provider';
import type { Kysely } from 'kysely';
import type { Vault } from '../security/vault.js';
import type { Database } from '../store/schema.js';
import type { AuthorizationServerSettings } from './settings.js';
import { addressKey, type Limits, type PolicyState, type WindowLimit } from '../limits/limits.js';
import { DatabaseAdapter } from './adapter.js';
import { clientMetadataProblem, redirectUriProblem } from './client-metadata.js';
import { recordSignIn, type SignInResult } from './grants.js';
import { ClientDocuments } from './client-documents.js';
import { IdentityProvider } from './identity.js';
import { serverKeys } from './keys.js';
import { errorPage } from './pages.js';

/** The scopes of the MCP resource; a session holds one or both. */
export const toolScopes = {
  'tools:read': 'See the tools and call those that only read data',
  'tools:write': 'Call every tool, including those that change or delete data',
} as const;
export type ToolScope = keyof typeof toolScopes;

/** Where the server's endpoints and pages live, under the issuer. */
export const paths = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  userinfo: '/oauth/userinfo',
  interaction: '/oauth/interaction',
  identityCallback: '/oauth/sign-in/callback',
} as const;

/** The MCP endpoint's paths: each is a resource of its own (a token for one is refused by the other). */
export const mcpPaths = ['/v1/mcp', '/mcp'] as const;

/** A registered client that no person has allowed yet is forgotten after this long. */
export const UNUSED_CLIENT_TTL_S = 24 * 3600;

/** The endpoints anyone may call, each limited per client address. */
export type LimitedEndpoint = 'register' | 'authorize' | 'token';

export class AuthorizationServer {
  readonly identity?: IdentityProvider;
  private readonly limiters: Record<LimitedEndpoint, WindowLimit>;
  private made?: Promise<{ provider: Provider; handler: (req: IncomingMessage, res: ServerResponse) => Promise<void> }>;

  constructor(
    private readonly deps: {
      db: Kysely<Database>;
      vault: Vault;
      settings: AuthorizationServerSettings;
      /** The engine's address as browsers reach it: the issuer (known once the engine listens, for port 0). */
      publicUrl: () => string;
      /** The engine's limits: each endpoint is a policy of its own, per client address. */
      limits: Limits;
    },
  ) {
    const endpoint = (name: LimitedEndpoint) => deps.limits.perMinute(`oauth-${name}`);
    this.limiters = { register: endpoint('register'), authorize: endpoint('authorize'), token: endpoint('token') };
    if (deps.settings.identityProvider) {
      this.identity = new IdentityProvider(deps.settings.identityProvider, deps.db, deps.vault, () => this.issuer + paths.identityCallback);
    }
  }

  get issuer(): string {
    return this.deps.publicUrl();
  }

  get settings(): AuthorizationServerSettings {
    return this.deps.settings;
  }

  /** The resource (RFC 8707) an MCP path stands for. */
  resource(path: string): string {
    return this.issuer + path;
  }

  /** Counts a request of `address` at `endpoint` (QUIVER_AUTH_RATE_LIMIT); undefined when the endpoint has no limit. */
  limit(endpoint: LimitedEndpoint, address: string): Promise<PolicyState | undefined> {
    return this.limiters[endpoint].take(addressKey(address), this.settings.rateLimits[endpoint]);
  }

  /** Keeps a registered client that a person has allowed (an unused registration expires). */
  keepClient(clientId: string): Promise<void> {
    return new DatabaseAdapter(this.deps.db, this.deps.vault, 'Client').keep(clientId);
  }

  async provider(): Promise<Provider> {
    return (await this.make()).provider;
  }

  /** Lets oidc-provider answer one request (its endpoints and metadata). */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    await (await this.make()).handler(req, res);
  }

  private make() {
    this.made ??= (async () => {
      const provider = await this.build();
      return { provider, handler: provider.callback() as (req: IncomingMessage, res: ServerResponse) => Promise<void> };
    })();
    return this.made;
  }

  private async build(): Promise<Provider> {
    // Loaded on first use: an engine that never signs anyone in does not load it at all.
    const { default: Provider, errors } = await import('oidc-provider');
    const { db, vault } = this.deps;
    const settings = this.settings;
    const keys = await serverKeys(db, vault);
    const documents = new ClientDocuments(settings.insecureClientDocuments);
    const resources = mcpPaths.map((path) => this.resource(path));
    const scope = Object.keys(toolScopes).join(' ');

    const configuration: Configuration = {
      adapter: (model: string) => {
        const stored = new DatabaseAdapter(db, vault, model, () => new errors.InvalidGrant(`${model} already used: the grant it belongs to has ended`));
        if (model !== 'Client') return stored;
        return Object.assign(Object.create(stored) as DatabaseAdapter, {
          // A client id that is an https URL names its metadata document; any other was registered.
          find: (id: string) => (documents.accepts(id) ? documents.find(id) : stored.find(id)),
          // Registration (RFC 7591): bounded, and forgotten unless a person allows it within a day.
          upsert: (id: string, payload: Record<string, unknown>) => {
            const redirect = [payload.redirect_uris ?? []].flat().map(redirectUriProblem).find(Boolean);
            if (redirect) throw Object.assign(new errors.InvalidRedirectUri(), { error_description: redirect });
            const problem = clientMetadataProblem(payload);
            if (problem) throw new errors.InvalidClientMetadata(problem);
            return stored.upsert(id, payload, UNUSED_CLIENT_TTL_S);
          },
        });
      },
      jwks: keys.jwks,
      cookies: { keys: keys.cookieKeys },
      clientAuthMethods: ['none'],
      clientDefaults: {
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        id_token_signed_response_alg: 'RS256',
      },
      responseTypes: ['code'],
      // The tool scopes are listed here too, so that clients may register them (RFC 7591 `scope`).
      scopes: ['openid', 'offline_access', ...Object.keys(toolScopes)],
      claims: { openid: ['sub'] },
      findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
      pkce: { required: () => true },
      // The engine fetches nothing a client names (a sector identifier, a JWKS, a logout endpoint): a
      // registration would otherwise make it fetch any address. Client metadata documents are fetched
      // apart, bounded (client-documents.ts).
      ...({ sectorIdentifierUriValidate: () => false } as Partial<Configuration>), // (missing from oidc-provider's types)
      fetch: async (url) => {
        throw new Error(`the engine's authorization server fetches nothing for a client (${new URL(String(url)).origin})`);
      },
      allowOmittingSingleRegisteredRedirectUri: false,
      // Every client is public: a refresh token is rotated on each use, and a replayed one revokes the grant.
      // A refresh that is going to fail on its resource fails before the token is used up (RFC 8707 §2.2).
      rotateRefreshToken: async (ctx) => {
        const resource = ctx.oidc.params?.resource;
        if (resource === undefined) return true;
        const token = await ctx.oidc.provider.RefreshToken.find(String(ctx.oidc.params!.refresh_token));
        const granted = [token?.resource ?? []].flat();
        if (typeof resource !== 'string' || !resources.includes(resource) || !granted.includes(resource)) {
          throw new errors.InvalidTarget(`resource must be the one the refresh token was issued for${token?.resource ? `, ${token.resource}` : ''}`);
        }
        return true;
      },
      issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
      ttl: {
        AccessToken: settings.accessTokenTtl,
        AuthorizationCode: 60,
        IdToken: 3600,
        Interaction: 15 * 60,
        Grant: settings.refreshTokenTtl,
        RefreshToken: settings.refreshTokenTtl,
        Session: 12 * 3600,
      },
      features: {
        devInteractions: { enabled: false },
        // Nothing an MCP client uses, and one more unauthenticated way to store requests.
        pushedAuthorizationRequests: { enabled: false },
        // No registration access token: registrations are not managed afterwards, so none is stored.
        registration: { enabled: true, issueRegistrationAccessToken: false },
        revocation: { enabled: true },
        rpInitiatedLogout: { enabled: false },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => resources[0]!,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx, resource) => {
            if (!resources.includes(resource)) throw new errors.InvalidTarget(`resource must be this engine's MCP endpoint, ${resources[0]}`);
            return { scope, audience: resource, accessTokenTTL: settings.accessTokenTtl, accessTokenFormat: 'opaque' };
          },
        },
      },
      interactions: { url: (_ctx, interaction) => `${paths.interaction}/${interaction.uid}` },
      routes: {
        authorization: paths.authorization,
        token: paths.token,
        registration: paths.registration,
        revocation: paths.revocation,
        jwks: paths.jwks,
        userinfo: paths.userinfo,
        introspection: '/oauth/introspect',
        pushed_authorization_request: '/oauth/par',
        end_session: '/oauth/logout',
        code_verification: '/oauth/device',
        device_authorization: '/oauth/device/auth',
        backchannel_authentication: '/oauth/backchannel',
      },
      discovery: { client_id_metadata_document_supported: true, scopes_supported: ['openid', 'offline_access', ...Object.keys(toolScopes)] },
      renderError: (ctx: KoaContextWithOIDC, out) => {
        ctx.type = 'html';
        ctx.body = errorPage(out.error ?? 'error', out.error_description ?? 'The request could not be completed.');
      },
    };
    const provider = new Provider(this.issuer, configuration);
    // A code is good for one redemption attempt: a failed one (a wrong PKCE verifier, another
    // redirect_uri) uses it up, so a stolen code cannot be tried against verifier after verifier.
    const codes = new DatabaseAdapter(db, vault, 'AuthorizationCode');
    provider.use(async (ctx, next) => {
      await next();
      const oidc = (ctx as KoaContextWithOIDC).oidc;
      if (oidc?.route === 'token' && ctx.status >= 400) {
        const params = oidc?.params;
        if (params?.grant_type === 'authorization_code' && typeof params.code === 'string') await codes.useUp(params.code);
      }
      // A sign-in taking effect, or a code issued for a grant: remember the API key the person signed in with.
      const sessionUid = oidc?.session?.uid;
      const signedIn = oidc?.result as SignInResult | undefined;
      const grantId = oidc?.entities.AuthorizationCode?.grantId;
      if (sessionUid && (signedIn?.login || grantId)) await recordSignIn(db, { sessionUid, signedIn, grantId });
    });
    // Behind a TLS-terminating proxy the public URL is https: trust its forwarded protocol for cookies.
    provider.proxy = this.issuer.startsWith('https:');
    return provider;
  }
}
