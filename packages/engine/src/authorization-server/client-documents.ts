/**
 * Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document, as the MCP
 * authorization specification of 2025-11-25 has it): a client whose id is an https URL is described
 * by the JSON document at that URL. The document must name itself as `client_id`, and a public
 * client is all it can describe (no secrets, PKCE only).
 */
import { BlockList, isIP } from 'node:net';
import type { AdapterPayload } from 'oidc-provider';
import { isLoopback } from '../auth/providers.js';

/** A document is fetched again after this long. */
const CACHE_MS = 5 * 60_000;
const MAX_BYTES = 16 * 1024;
const TIMEOUT_MS = 5_000;

/** The metadata a document may set; everything else in it is ignored. */
const FIELDS = [
  ...['client_name', 'client_uri', 'logo_uri', 'tos_uri', 'policy_uri', 'contacts'],
  ...['redirect_uris', 'grant_types', 'response_types', 'scope', 'application_type'],
];

/** Addresses a document is never fetched from by IP literal: the engine's own network. */
const internal = new BlockList();
const ipv4 = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const;
for (const [net, prefix] of ipv4) internal.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const)
  internal.addSubnet(net, prefix, 'ipv6');

function isInternal(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const family = isIP(host);
  return host === 'localhost' || host.endsWith('.localhost') || (family !== 0 && internal.check(host, family === 4 ? 'ipv4' : 'ipv6'));
}

export class ClientDocuments {
  private readonly cache = new Map<string, { at: number; metadata: AdapterPayload }>();

  constructor(private readonly allowInsecureLoopback: boolean) {}

  /** True when `clientId` is a URL a document may be fetched from. */
  accepts(clientId: string): boolean {
    let url: URL;
    try {
      url = new URL(clientId);
    } catch {
      return false;
    }
    if (url.hash || url.username || url.password || url.pathname === '/') return false;
    if (this.allowInsecureLoopback && isLoopback(url)) return url.protocol === 'http:' || url.protocol === 'https:';
    return url.protocol === 'https:' && !isInternal(url);
  }

  /** The client's metadata, or undefined when the document is missing or invalid (the client is unknown). */
  async find(clientId: string): Promise<AdapterPayload | undefined> {
    const cached = this.cache.get(clientId);
    if (cached && Date.now() - cached.at < CACHE_MS) return cached.metadata;
    const metadata = await this.fetch(clientId).catch(() => undefined);
    if (metadata) this.cache.set(clientId, { at: Date.now(), metadata });
    else this.cache.delete(clientId);
    return metadata;
  }

  private async fetch(clientId: string): Promise<AdapterPayload | undefined> {
    const response = await fetch(clientId, { headers: { accept: 'application/json' }, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (!response.ok) return undefined;
    const text = await response.text();
    if (Buffer.byteLength(text) > MAX_BYTES) return undefined;
    const document = JSON.parse(text) as Record<string, unknown>;
    if (document.client_id !== clientId) return undefined;
    if ('client_secret' in document || (document.token_endpoint_auth_method ?? 'none') !== 'none') return undefined;
    if (!Array.isArray(document.redirect_uris) || document.redirect_uris.length === 0) return undefined;
    const metadata: AdapterPayload = { client_id: clientId, token_endpoint_auth_method: 'none' };
    for (const field of FIELDS) if (document[field] !== undefined) metadata[field] = document[field];
    return metadata;
  }
}
