/**
 * What the engine accepts as a client's metadata, registered (RFC 7591) or read from a client ID
 * metadata document: bounded in every field and in total, so that an unauthenticated registration
 * cannot grow the database without end, and with redirect URIs the MCP authorization specification
 * allows: HTTPS, or plain HTTP on a loopback address (a desktop client's local listener).
 */
import { isLoopback } from '@quiver/core';

export const CLIENT_LIMITS = {
  /** The whole metadata as stored, in bytes of JSON; a real client's is well under 2 KB. */
  totalBytes: 8 * 1024,
  /** Any one text field (a name, a URI). */
  fieldChars: 2000,
  /** Names shown to the person on the consent page. */
  nameChars: 200,
  /** Any one list (redirect URIs, contacts, grant types). */
  listItems: 10,
} as const;

/** Metadata that would have the engine fetch an address the client names, which it never does for a public client. */
const FETCHED = ['sector_identifier_uri', 'jwks_uri', 'request_uris', 'backchannel_logout_uri', 'backchannel_client_notification_endpoint'];

/** Why the metadata is refused, in words for the client's developer; undefined when it is accepted. */
export function clientMetadataProblem(metadata: Record<string, unknown>): string | undefined {
  const fetched = FETCHED.find((field) => metadata[field] !== undefined);
  if (fetched) return `${fetched} is not supported: the engine serves public clients with PKCE and fetches nothing a client names`;
  for (const [field, value] of Object.entries(metadata)) {
    const problem = fieldProblem(field, value);
    if (problem) return problem;
  }
  const size = Buffer.byteLength(JSON.stringify(metadata));
  if (size > CLIENT_LIMITS.totalBytes) return `the client metadata is ${size} bytes; at most ${CLIENT_LIMITS.totalBytes} are accepted`;
  for (const uri of (metadata.redirect_uris as unknown[] | undefined) ?? []) {
    const problem = redirectUriProblem(uri);
    if (problem) return problem;
  }
  return undefined;
}

function fieldProblem(field: string, value: unknown): string | undefined {
  const longest = field === 'client_name' ? CLIENT_LIMITS.nameChars : CLIENT_LIMITS.fieldChars;
  if (typeof value === 'string' && value.length > longest) return `${field} is ${value.length} characters; at most ${longest} are accepted`;
  if (Array.isArray(value)) {
    if (value.length > CLIENT_LIMITS.listItems) return `${field} lists ${value.length} items; at most ${CLIENT_LIMITS.listItems} are accepted`;
    const long = value.find((item) => typeof item === 'string' && item.length > CLIENT_LIMITS.fieldChars);
    if (long !== undefined) return `an item of ${field} is ${long.length} characters; at most ${CLIENT_LIMITS.fieldChars} are accepted`;
  }
  return undefined;
}

/** HTTPS anywhere; HTTP only on a loopback address (127.0.0.0/8, ::1, localhost). */
export function redirectUriProblem(uri: unknown): string | undefined {
  let url: URL;
  try {
    url = new URL(String(uri));
  } catch {
    return `redirect_uris must hold URLs, not ${JSON.stringify(uri)}`;
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url))) return undefined;
  return `redirect URI ${url.href} is refused: it must be https, or http on a loopback address (127.0.0.1, [::1] or localhost)`;
}
