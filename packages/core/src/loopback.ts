/**
 * What "loopback" means everywhere (the engine's Origin and Host check, OAuth endpoints that may be plain
 * http, session verification, client metadata documents; the OpenAPI importer's own address): an IP literal of 127.0.0.0/8, the
 * IPv6 literal ::1, or the name `localhost`. Nothing else: a name that merely starts with `127.` is a
 * DNS name like any other (`127.0.0.1.evil.example`), and resolves wherever its owner likes.
 */
import { isIPv4 } from 'node:net';

/** A host name (bracketed IPv6 or not) or a URL's host. */
export function isLoopback(host: string | URL): boolean {
  const name = (typeof host === 'string' ? host : host.hostname).replace(/^\[|\]$/g, '').toLowerCase();
  if (name === 'localhost' || name === '::1') return true;
  return isIPv4(name) && name.startsWith('127.');
}
