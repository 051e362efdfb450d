/**
 * The console's address: `#/page/detail?name=value`. The path picks the page; the query keeps a page's own
 * state (a search, its filters) so that Back, a reload or a shared link shows the page as it was left.
 */
import { query } from './api.js';

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
  // A flag that is on is written `1` (`destructive=1`); one that is off is left out, as an empty value is.
  const next = path + query(Object.fromEntries(Object.entries(params).map(([name, value]) => [name, value === true ? '1' : value || undefined])));
  if (next !== location.hash) history.replaceState(history.state, '', next);
}
