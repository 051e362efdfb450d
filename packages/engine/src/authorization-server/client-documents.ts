/**
 * Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document, as the MCP
 * authorization specification of 2025-11-25 has it): a client whose id is an https URL is described
 * by the JSON document at that URL. The document must name itself as `client_id`, and a public
 * client is all it can describe (no secrets, PKCE only).
 *
 * Anyone can make the engine fetch such a URL (an unauthenticated authorization request names it), so
 * the fetch is bounded in every way: 16 KB and 5 s in all, read as a stream and abandoned past either;
 * no redirect; and only from a public address, checked on the address actually connected to (after
 * DNS), so that neither an IP literal nor a name that resolves inside the engine's network reaches
 * anything there. What was fetched is cached, bounded in entries and in bytes.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import type { AdapterPayload } from 'oidc-provider';
import { isLoopback } from '@quiver/core';
import { clientMetadataProblem } from './client-metadata.js';

export const DOCUMENT_LIMITS = {
  bytes: 16 * 1024,
  /** For the whole fetch: connecting, waiting, and every byte of the answer. */
  ms: 5_000,
  /** A document is fetched again after this long. */
  cacheMs: 5 * 60_000,
  cacheEntries: 500,
  cacheBytes: 1024 * 1024,
} as const;

/** The metadata a document may set; everything else in it is ignored. */
const FIELDS = [
  ...['client_name', 'client_uri', 'logo_uri', 'tos_uri', 'policy_uri', 'contacts'],
  ...['redirect_uris', 'grant_types', 'response_types', 'scope', 'application_type'],
];

/**
 * Addresses that are not the public internet: the engine's own host and network, and forms that hide
 * them. One list per family: a BlockList matches IPv4 addresses against IPv4-mapped IPv6 rules too.
 */
const notPublic = { 4: new BlockList(), 6: new BlockList() };
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", 0.0.0.0 included
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24], // documentation ranges, often a lab's own addresses
  ['192.88.99.0', 24], // 6to4 relays
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3], // multicast, reserved, broadcast
] as const)
  notPublic[4].addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128],
  ['::ffff:0:0', 96], // IPv4-mapped
  ['64:ff9b::', 96], // NAT64, an IPv4 address inside
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 32], // Teredo, an IPv4 address inside
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4, an IPv4 address inside
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const)
  notPublic[6].addSubnet(net, prefix, 'ipv6');

/** Whether an IP address is on the public internet. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !notPublic[4].check(address, 'ipv4');
  return family === 6 && !notPublic[6].check(address, 'ipv6');
}

class DocumentRefused extends Error {}

export class ClientDocuments {
  /** Most recently used last; bounded by `cacheEntries` and `cacheBytes`. */
  private readonly cache = new Map<string, { at: number; metadata: AdapterPayload; bytes: number }>();
  private cachedBytes = 0;
  /** Fetches under way: many requests naming one document share one fetch. */
  private readonly fetching = new Map<string, Promise<AdapterPayload | undefined>>();

  constructor(
    /** Development only: http on loopback, and any address, are allowed. */
    private readonly insecure: boolean,
    /** How names are resolved (the system's resolver; a test gives its own). */
    private readonly resolve: typeof dnsLookup = dnsLookup,
  ) {}

  /** What the cache holds now. */
  get cached(): { entries: number; bytes: number } {
    return { entries: this.cache.size, bytes: this.cachedBytes };
  }

  /** True when `clientId` is a URL a document may be fetched from. */
  accepts(clientId: string): boolean {
    let url: URL;
    try {
      url = new URL(clientId);
    } catch {
      return false;
    }
    if (url.hash || url.username || url.password || url.pathname === '/') return false;
    if (this.insecure) return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url));
    if (url.protocol !== 'https:' || url.hostname === 'localhost' || url.hostname.endsWith('.localhost')) return false;
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    return isIP(literal) === 0 || isPublicAddress(literal);
  }

  /** The client's metadata, or undefined when the document is missing or invalid (the client is unknown). */
  async find(clientId: string): Promise<AdapterPayload | undefined> {
    const cached = this.cache.get(clientId);
    if (cached && Date.now() - cached.at < DOCUMENT_LIMITS.cacheMs) {
      this.cache.delete(clientId);
      this.cache.set(clientId, cached);
      return cached.metadata;
    }
    let pending = this.fetching.get(clientId);
    if (!pending) {
      pending = this.fetch(clientId)
        .catch(() => undefined)
        .finally(() => this.fetching.delete(clientId));
      this.fetching.set(clientId, pending);
    }
    const metadata = await pending;
    this.remember(clientId, metadata);
    return metadata;
  }

  private remember(clientId: string, metadata: AdapterPayload | undefined): void {
    const known = this.cache.get(clientId);
    if (known) {
      this.cache.delete(clientId);
      this.cachedBytes -= known.bytes;
    }
    if (!metadata) return;
    const bytes = Buffer.byteLength(clientId) + Buffer.byteLength(JSON.stringify(metadata));
    this.cache.set(clientId, { at: Date.now(), metadata, bytes });
    this.cachedBytes += bytes;
    for (const [id, entry] of this.cache) {
      if (this.cache.size <= DOCUMENT_LIMITS.cacheEntries && this.cachedBytes <= DOCUMENT_LIMITS.cacheBytes) break;
      this.cache.delete(id);
      this.cachedBytes -= entry.bytes;
    }
  }

  private async fetch(clientId: string): Promise<AdapterPayload | undefined> {
    const document = JSON.parse(await this.read(new URL(clientId))) as Record<string, unknown>;
    if (!document || typeof document !== 'object' || document.client_id !== clientId) return undefined;
    if ('client_secret' in document || (document.token_endpoint_auth_method ?? 'none') !== 'none') return undefined;
    if (!Array.isArray(document.redirect_uris) || document.redirect_uris.length === 0) return undefined;
    const metadata: AdapterPayload = { client_id: clientId, token_endpoint_auth_method: 'none' };
    for (const field of FIELDS) if (document[field] !== undefined) metadata[field] = document[field];
    return clientMetadataProblem(metadata) ? undefined : metadata;
  }

  /** The document's text: a 200 answer of at most 16 KB, all of it within 5 s, from a public address. */
  private read(url: URL): Promise<string> {
    const options: RequestOptions = { headers: { accept: 'application/json' }, lookup: this.insecure ? undefined : publicOnly(this.resolve) };
    return new Promise((resolve, reject) => {
      const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, options, (response: IncomingMessage) => {
        if (response.statusCode !== 200) return request.destroy(new DocumentRefused(`the document answered ${response.statusCode}`));
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > DOCUMENT_LIMITS.bytes) request.destroy(new DocumentRefused(`the document is larger than ${DOCUMENT_LIMITS.bytes} bytes`));
          else chunks.push(chunk);
        });
        response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        response.on('error', reject);
      });
      const deadline = setTimeout(() => request.destroy(new DocumentRefused(`the document took longer than ${DOCUMENT_LIMITS.ms} ms`)), DOCUMENT_LIMITS.ms);
      request.on('error', reject);
      request.on('close', () => clearTimeout(deadline));
      request.end();
    });
  }
}

/** DNS resolution that refuses a name resolving to any address that is not public: that is where the socket would go. */
const publicOnly =
  (resolve: typeof dnsLookup): LookupFunction =>
  (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const inside = addresses.find((entry) => !isPublicAddress(entry.address));
      if (inside || !addresses.length) {
        return callback(new DocumentRefused(`${hostname} resolves to ${inside?.address ?? 'no address'}, which is not a public address`), '', 0);
      }
      if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
