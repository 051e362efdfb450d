/** Splits identifiers and prose alike into lower-case words: `CreateRepohostPullRequest` → create, repohost, pull, request. */
export function words(text: string): string[] {
  return [...text.matchAll(wordPattern)].map(([word, plural]) => (plural ?? word).toLowerCase());
}

/**
 * An upper-case run with a plural `s` is one acronym, its singular (`PRs` → pr, `CVEs` → cve), where a
 * camelCase split would make it `P` + `Rs`. Otherwise an upper-case run not followed by lower case is an
 * acronym (`SSHKey` → ssh, key; `getHTTPResponse` → get, http, response), and digits stand alone.
 */
const wordPattern = /(\p{Lu}{2,})s(?!\p{Ll})|\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{N}+/gu;
