import type { ToolData } from '@quiver/core';

/**
 * The secrets a toolkit's bindings send as credentials, each set to what an emulator that grants `token`
 * accepts: the token itself, or for HTTP Basic the pair (`basicUser`, token). What `--sandbox` gives an
 * imported toolkit, and what the proof test gives each document's tools.
 */
export function credentialSecrets(tools: readonly ToolData[], token: string, basicUser: string): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const tool of tools) {
    for (const auth of [tool.http?.auth ?? []].flat()) {
      if ('secrets' in auth) {
        secrets[auth.secrets[0]] = basicUser;
        secrets[auth.secrets[1]] = token;
      } else secrets[auth.secret] = token;
    }
  }
  return secrets;
}
