/**
 * Which browsers' pages may talk to the engine. A page on another site must not drive the API or the MCP
 * endpoint through the user's browser: neither directly (its `Origin` says where it comes from) nor by
 * DNS rebinding (its own name made to point at the engine, which the `Host` header then carries).
 *
 * Allowed: requests without an Origin (programs, not pages); loopback origins; the engine's public URL;
 * the origins of the QUIVER_ALLOWED_ORIGINS setting. Hosts: loopback names, IP literals (a rebound DNS
 * name is never an IP literal), the address the engine listens on, its public URL's host, and the hosts of
 * the allowed origins. Anything else is 403, before the API key is looked at.
 */
import { isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';
import type { EngineConfig } from '../config.js';
import { forbidden } from '../errors.js';
import { isLoopback } from '@quiver/core';

const bare = (hostname: string) => hostname.replace(/^\[|\]$/g, '').toLowerCase();

export class OriginPolicy {
  private readonly origins: Set<string>;
  private readonly hosts: Set<string>;
  /** Host headers already judged: a client sends the same one on every request, so it is parsed once. */
  private readonly judged = new Map<string, boolean>();

  constructor(config: Pick<EngineConfig, 'host' | 'publicUrl' | 'allowedOrigins'>) {
    const allowed = [...(config.publicUrl ? [config.publicUrl] : []), ...config.allowedOrigins].map((origin) => new URL(origin));
    this.origins = new Set(allowed.map((url) => url.origin));
    this.hosts = new Set([...allowed.map((url) => bare(url.hostname)), bare(config.host)]);
  }

  /** Throws 403 unless the request's Origin and Host are allowed. */
  check(request: Pick<FastifyRequest, 'headers'>): void {
    const host = request.headers.host;
    if (host !== undefined && !this.allowsHost(host))
      throw forbidden(`Requests for host '${host}' are not served here; add its origin to QUIVER_ALLOWED_ORIGINS.`);
    const origin = request.headers.origin;
    if (origin !== undefined && !this.allowsOrigin(origin))
      throw forbidden(`Requests from origin '${origin}' are not allowed; add it to QUIVER_ALLOWED_ORIGINS.`);
  }

  private allowsHost(header: string): boolean {
    let allowed = this.judged.get(header);
    if (allowed === undefined) {
      allowed = this.judgeHost(header);
      // Bounded: a client sending ever new Host headers cannot grow it without end.
      if (this.judged.size >= 1000) this.judged.clear();
      this.judged.set(header, allowed);
    }
    return allowed;
  }

  private judgeHost(header: string): boolean {
    let hostname: string;
    try {
      hostname = bare(new URL(`http://${header}`).hostname);
    } catch {
      return false;
    }
    return isLoopback(hostname) || isIP(hostname) !== 0 || this.hosts.has(hostname);
  }

  private allowsOrigin(header: string): boolean {
    let url: URL;
    try {
      url = new URL(header);
    } catch {
      return false; // `null` (a sandboxed page, a file) included
    }
    return ((url.protocol === 'http:' || url.protocol === 'https:') && isLoopback(url)) || this.origins.has(url.origin);
  }
}
