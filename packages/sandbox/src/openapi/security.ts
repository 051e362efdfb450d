/**
 * Credentials as an OpenAPI document declares them: each operation's requirements (alternatives, each of
 * one or more schemes at once), read from where each scheme puts its credential (the Authorization header
 * for bearer, OAuth 2 and Basic, a header, query parameter or cookie for an API key), and the values the
 * emulator grants per scheme.
 */
import type { AuthenticationRequest } from '../emulator/server.js';
import type { SecurityRequirement, SecurityScheme } from './table.js';

/** What a public operation's callers count as, for the rate limit. */
export const PUBLIC_CALLER = '\u0000public';
/** The value every scheme accepts unless the emulator is given another (the sandbox's token). */
export const DEFAULT_CREDENTIAL = 'quiver-sandbox-token';
/** The user name of a Basic scheme given a bare secret. */
export const DEFAULT_BASIC_USER = 'quiver';

/** The credential a request carries for one scheme, as text (`user:password` for Basic), or undefined. */
export function presented(scheme: SecurityScheme, headers: Record<string, string>, query: Record<string, string | string[]>): string | undefined {
  const authorization = headers.authorization ?? '';
  switch (scheme.kind) {
    case 'bearer':
      return /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    case 'basic': {
      const encoded = /^Basic\s+(\S+)\s*$/i.exec(authorization)?.[1];
      return encoded === undefined ? undefined : Buffer.from(encoded, 'base64').toString('utf8');
    }
    case 'http':
      return new RegExp(`^${scheme.scheme!.replace(/[^\w-]/g, '')}\\s+(.+?)\\s*$`, 'i').exec(authorization)?.[1];
    case 'apiKey': {
      const name = scheme.parameter!;
      if (scheme.in === 'header') return headers[name.toLowerCase()];
      if (scheme.in === 'query') {
        const value = query[name];
        return Array.isArray(value) ? value[0] : value;
      }
      return cookies(headers.cookie)[name];
    }
  }
}

export function cookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const index = part.indexOf('=');
    if (index < 1) continue;
    const name = part.slice(0, index).trim();
    const raw = part.slice(index + 1).trim();
    try {
      out[name] = decodeURIComponent(raw);
    } catch {
      out[name] = raw;
    }
  }
  return out;
}

/**
 * The credential of one requirement as the emulator issues it: the schemes' names, then their values, one a
 * line, so that a value granted to one scheme is no credential for another.
 */
export const joined = (names: string[], values: string[]) => [names.join(' '), ...values].join('\n');

export interface CredentialReader {
  /** The credential to look up among the issued ones: for the requirement the request meets, or the first it tries. */
  read(headers: Record<string, string>, request: AuthenticationRequest): string | undefined;
  /** How a caller meets the operation's requirements, for the refusal. */
  describe(requirements: SecurityRequirement[]): { detail: string; challenge?: string };
}

export function credentialReader(
  schemes: Record<string, SecurityScheme>,
  requirementsOf: (label: string | undefined) => SecurityRequirement[],
  granted: (credential: string) => boolean,
): CredentialReader {
  return {
    read(headers, request) {
      const requirements = requirementsOf(request.label);
      if (requirements.some((requirement) => requirement.length === 0)) return PUBLIC_CALLER;
      let tried: string | undefined;
      for (const requirement of requirements) {
        const values = requirement.map((name) => (schemes[name] ? presented(schemes[name], headers, request.query) : undefined));
        if (values.some((value) => value === undefined)) continue;
        const credential = joined(requirement, values as string[]);
        if (granted(credential)) return credential;
        // A value issued through the shared `issueToken` stands alone; the layer checks whether it was.
        tried ??= values.length === 1 ? values[0] : credential;
      }
      return tried;
    },
    describe(requirements) {
      const ways = requirements.map((requirement) =>
        requirement
          .map((name) => {
            const scheme = schemes[name];
            if (!scheme) return `${name} (a scheme the emulator cannot check)`;
            if (scheme.kind === 'bearer') return `Authorization: Bearer <token> (${name})`;
            if (scheme.kind === 'basic') return `Authorization: Basic <user:password> (${name})`;
            if (scheme.kind === 'http') return `Authorization: ${scheme.scheme} <credentials> (${name})`;
            return `the API key in ${scheme.in === 'query' ? 'query parameter' : scheme.in} '${scheme.parameter}' (${name})`;
          })
          .join(' and '),
      );
      const first = schemes[requirements[0]?.[0] ?? ''];
      const challenge =
        first?.kind === 'bearer'
          ? 'Bearer realm="emulator"'
          : first?.kind === 'basic'
            ? 'Basic realm="emulator"'
            : first?.kind === 'http'
              ? `${first.scheme} realm="emulator"`
              : undefined;
      return { detail: `send ${ways.join(', or ')}`, ...(challenge && { challenge }) };
    },
  };
}
