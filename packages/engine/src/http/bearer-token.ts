/**
 * The one reading of `Authorization: Bearer <token>` (RFC 6750 §2.1), shared by the API, the MCP
 * endpoint and the worker server: the scheme in any case, one space, one token68 (RFC 7235 §2.1), and
 * nothing else. A header that bends the form (two spaces, a second word, a character no token has) is
 * not read leniently: it carries no bearer token.
 */
const bearerCredentials = /^bearer ([A-Za-z0-9\-._~+/]+=*)$/i;

/** The token of a well-formed Bearer header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  return header === undefined ? undefined : bearerCredentials.exec(header)?.[1];
}
