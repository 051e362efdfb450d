/**
 * Auth providers: an OAuth 2.0 client of one service (its endpoints and client credentials), created
 * through the admin API or the engine's config file. The client secret is sealed by the vault and
 * never leaves it again: a provider reads back as `client_secret: {exists, editable}`.
 */
import type { Kysely } from 'kysely';
import { conflict, invalid } from '../errors.js';
import { isLoopback } from '@quiver/core';
import type { Vault } from '../security/vault.js';
import type { AuthProviderTable, Database } from '../store/schema.js';
import { presets, type EndpointRequest, type OAuth2Settings, type Preset } from './presets.js';

/** What the admin API and the config file accept. */
export interface AuthProviderInput {
  id: string;
  description?: string;
  /** The service, e.g. `github`; a preset of that name fills in what is not given. Default: the id. */
  provider_id?: string;
  type?: string;
  oauth2?: Partial<Omit<OAuth2Settings, 'pkce'>> & { client_secret?: string; pkce?: Partial<OAuth2Settings['pkce']> };
}

export type AuthProviderPatch = Partial<AuthProviderInput>;

/** An auth provider as the engine uses it: settings and the opened client secret. */
export interface AuthProvider {
  id: string;
  description: string;
  provider_id: string;
  oauth2: OAuth2Settings;
  clientSecret: string | undefined;
  preset: Preset | undefined;
  /**
   * The connection a user who never authorized the provider gets on first use, without a consent page
   * (every provider in the sandbox); undefined where the user always consents first.
   */
  firstUse?: FirstUseGrant;
}

/** What a user connected on first use holds. */
export interface FirstUseGrant {
  token: string;
  /** Granted along with those the first call asks for. */
  scopes: string[];
}

/** Where the OAuth flow finds its providers: the configured ones, and in the sandbox the sandbox's beside them. */
export interface ProviderDirectory {
  /** A tool names a service (`github`); a caller may also name a provider by its id. The id wins. */
  resolve(key: string): Promise<AuthProvider | undefined>;
  /** By the id an authorization or a connection keeps. */
  byId(id: string): Promise<AuthProvider | undefined>;
  /** Resolves many keys against one read, for a listing: no secret is opened. */
  resolver(): Promise<(key: string) => Pick<AuthProvider, 'id' | 'firstUse'> | undefined>;
  /** Whether a provider may connect users on first use: only then does a listing need whom they authorized before. */
  readonly connectsOnFirstUse: boolean;
}

/** The configured providers. */
export class AuthProviders implements ProviderDirectory {
  readonly connectsOnFirstUse = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly vault: Vault,
    /** The callback URL providers must allow (it follows the engine's public URL). */
    private readonly redirectUri: () => string,
    /** Told of every change, so that tokens opened through a changed provider are forgotten. */
    private readonly changed: () => void = () => {},
  ) {}

  async list(): Promise<AuthProviderTable[]> {
    return this.db.selectFrom('auth_providers').selectAll().orderBy('created_at').orderBy('id').execute();
  }

  async row(id: string): Promise<AuthProviderTable | undefined> {
    return this.db.selectFrom('auth_providers').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async create(input: AuthProviderInput): Promise<AuthProviderTable> {
    if (await this.row(input.id)) throw conflict(`auth provider ${input.id} exists already`);
    const providerId = input.provider_id ?? input.id;
    if (!input.oauth2?.client_id) throw invalid('oauth2.client_id is required');
    const oauth2 = settingsOf(providerId, input.oauth2);
    const now = new Date().toISOString();
    const row: AuthProviderTable = {
      id: input.id,
      description: input.description ?? presets[providerId]?.description ?? input.id,
      provider_id: providerId,
      type: 'oauth2',
      oauth2: JSON.stringify(oauth2),
      client_secret_ciphertext: input.oauth2.client_secret ? this.vault.seal(input.oauth2.client_secret) : null,
      created_at: now,
      updated_at: now,
    };
    await this.db.insertInto('auth_providers').values(row).execute();
    this.changed();
    return row;
  }

  async update(id: string, patch: AuthProviderPatch): Promise<AuthProviderTable | undefined> {
    const row = await this.row(id);
    if (!row) return undefined;
    if (patch.id !== undefined && patch.id !== id) throw invalid('an auth provider cannot be renamed');
    const providerId = patch.provider_id ?? row.provider_id;
    const oauth2 = settingsOf(providerId, patch.oauth2 ?? {}, JSON.parse(row.oauth2) as OAuth2Settings);
    const secret = patch.oauth2?.client_secret;
    const next: AuthProviderTable = {
      ...row,
      description: patch.description ?? row.description,
      provider_id: providerId,
      oauth2: JSON.stringify(oauth2),
      client_secret_ciphertext: secret === undefined ? row.client_secret_ciphertext : secret ? this.vault.seal(secret) : null,
      updated_at: new Date().toISOString(),
    };
    await this.db.updateTable('auth_providers').set(next).where('id', '=', id).execute();
    this.changed();
    return next;
  }

  /** Deletes the provider and every connection made through it. */
  async delete(id: string): Promise<AuthProviderTable | undefined> {
    const row = await this.row(id);
    if (!row) return undefined;
    await this.db.transaction().execute(async (tx) => {
      await tx.deleteFrom('connections').where('provider_id', '=', id).execute();
      await tx.deleteFrom('auth_providers').where('id', '=', id).execute();
    });
    this.changed();
    return row;
  }

  /** Creates the providers that are missing and brings the others in line (the config file wins). */
  async apply(inputs: AuthProviderInput[]): Promise<void> {
    for (const input of inputs) {
      if (await this.row(input.id)) await this.update(input.id, input);
      else await this.create(input);
    }
  }

  async resolve(key: string): Promise<AuthProvider | undefined> {
    return pick(await this.list(), key, (row) => this.open(row));
  }

  async byId(id: string): Promise<AuthProvider | undefined> {
    const row = await this.row(id);
    return row && this.open(row);
  }

  async resolver(): Promise<(key: string) => AuthProviderTable | undefined> {
    const rows = await this.list();
    return (key) => pick(rows, key, (row) => row);
  }

  open(row: AuthProviderTable): AuthProvider {
    return {
      id: row.id,
      description: row.description,
      provider_id: row.provider_id,
      oauth2: JSON.parse(row.oauth2) as OAuth2Settings,
      clientSecret: row.client_secret_ciphertext ? this.vault.open(row.client_secret_ciphertext) : undefined,
      preset: presets[row.provider_id],
    };
  }

  /** The AuthProviderResponse: everything but the secret, of which only its presence shows. */
  view(row: AuthProviderTable) {
    const oauth2 = JSON.parse(row.oauth2) as OAuth2Settings;
    return {
      id: row.id,
      description: row.description,
      provider_id: row.provider_id,
      type: row.type,
      status: 'active',
      binding: { type: 'static' as const },
      created_at: row.created_at,
      updated_at: row.updated_at,
      oauth2: {
        ...oauth2,
        client_secret: { binding: 'static' as const, exists: row.client_secret_ciphertext !== null, editable: true },
        redirect_uri: this.redirectUri(),
      },
    };
  }
}

function pick<T>(rows: AuthProviderTable[], key: string, open: (row: AuthProviderTable) => T): T | undefined {
  const row = rows.find((r) => r.id === key) ?? rows.find((r) => r.provider_id === key);
  return row && open(row);
}

/** The settings from what was given, over what there was (or the preset), with the endpoints checked. */
export function settingsOf(providerId: string, given: NonNullable<AuthProviderInput['oauth2']>, current?: OAuth2Settings): OAuth2Settings {
  const base = current ?? {
    client_id: '',
    ...(presets[providerId]?.oauth2 ?? {
      authorize_request: { endpoint: '' },
      token_request: { endpoint: '' },
      scope_delimiter: ' ',
      pkce: { enabled: true, code_challenge_method: 'S256' },
    }),
  };
  const request = (name: 'authorize_request' | 'token_request' | 'refresh_request'): EndpointRequest | undefined => {
    const over = given[name];
    const under = base[name];
    return over || under ? ({ ...under, ...over } as EndpointRequest) : undefined;
  };
  const settings: OAuth2Settings = {
    client_id: given.client_id ?? base.client_id,
    authorize_request: request('authorize_request')!,
    token_request: request('token_request')!,
    ...(request('refresh_request') && { refresh_request: request('refresh_request') }),
    scope_delimiter: given.scope_delimiter ?? base.scope_delimiter,
    pkce: { ...base.pkce, ...given.pkce, code_challenge_method: 'S256' },
    ...((given.issuer ?? base.issuer) && { issuer: given.issuer ?? base.issuer }),
  };
  if (!settings.client_id) throw invalid('oauth2.client_id is required');
  if (settings.scope_delimiter !== ' ' && settings.scope_delimiter !== ',') throw invalid("oauth2.scope_delimiter must be ' ' or ','");
  for (const name of ['authorize_request', 'token_request', 'refresh_request'] as const) {
    const request = settings[name];
    if (!request) continue;
    if (!request.endpoint) throw invalid(`oauth2.${name}.endpoint is required for ${providerId} (no built-in preset: ${Object.keys(presets).join(', ')})`);
    checkEndpoint(`oauth2.${name}.endpoint`, request.endpoint);
    if (request.auth_method && !['client_secret_basic', 'client_secret_post', 'none'].includes(request.auth_method)) {
      throw invalid(`oauth2.${name}.auth_method must be client_secret_basic, client_secret_post or none`);
    }
  }
  return settings;
}

/** HTTPS, or plain HTTP on the loopback interface (a local authorization server). */
function checkEndpoint(name: string, value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(`${name} is not a URL: ${value}`);
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url))) return;
  throw invalid(`${name} must be an https:// URL (http:// only on loopback)`);
}

/**
 * The `authProviders` of the config file, checked and completed from the presets, e.g.
 *   [{ "id": "github", "client_id": "...", "client_secret": "..." }]
 * Each entry takes the admin API's shape (`oauth2: {client_id, client_secret, ...}`) or, for short,
 * `client_id` and `client_secret` at the top. `source` names the file in errors. Apply the result with
 * `OAuth.applyProviders`.
 */
export function parseAuthProviders(list: unknown, source: string): AuthProviderInput[] {
  if (!Array.isArray(list)) throw new Error(`${source}: authProviders must be an array`);
  return list.map((entry: Record<string, unknown>, index) => {
    const at = `${source}: authProviders[${index}]`;
    if (!entry || typeof entry !== 'object' || typeof entry.id !== 'string' || !entry.id) throw new Error(`${at}: id is required`);
    const { id, description, provider_id, client_id, client_secret, oauth2 } = entry as { id: string } & Record<string, string | undefined> & {
        oauth2?: AuthProviderInput['oauth2'];
      };
    const input: AuthProviderInput = {
      id,
      ...(description !== undefined && { description }),
      ...(provider_id !== undefined && { provider_id }),
      oauth2: { ...oauth2, ...(client_id !== undefined && { client_id }), ...(client_secret !== undefined && { client_secret }) },
    };
    try {
      settingsOf(input.provider_id ?? id, input.oauth2!);
    } catch (cause) {
      throw new Error(`${at}: ${(cause as Error).message}`);
    }
    return input;
  });
}
