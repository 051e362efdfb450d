/**
 * The console's address: `#/page/detail?name=value`. The path picks the page; the query keeps a page's own
 * state (a search, its filters) so that Back, a reload or a shared link shows the page as it was left.
 */

export function hashParts(): string[] {
  return location.hash.replace(/^#\/?/, '').split('?')[0]!.split('/').map(decodeURIComponent);
}

export function hashParams(): URLSearchParams {
  const hash = location.hash;
  const at = hash.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : hash.slice(at + 1));
}

/**
 * The page's state into the address, replacing the current history entry (typing a search makes no entry
 * per keystroke, and replaceState fires no hashchange); empty values are left out.
 */
export function keepInHash(params: Record<string, string | boolean | undefined>): void {
  const path = location.hash.split('?')[0] || '#/';
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value) search.set(name, value === true ? '1' : value);
  const text = search.toString();
  const next = text ? `${path}?${text}` : path;
  if (next !== location.hash) history.replaceState(history.state, '', next);
}
