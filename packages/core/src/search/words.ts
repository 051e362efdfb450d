/** Splits identifiers and prose alike into lower-case words: `CreateRepohostPullRequest` → create, repohost, pull, request. */
export function words(text: string): string[] {
  // An upper-case run not followed by lower case is an acronym (`SSHKey` → ssh, key); digits stand alone.
  return (text.match(/\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{N}+/gu) ?? []).map((word) => word.toLowerCase());
}
