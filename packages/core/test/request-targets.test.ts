/**
 * The upstream client sends a URL already in the form URL parsing gives as its origin and path, unparsed:
 * what it takes for them must be what parsing gives, and every URL parsing would rewrite is left to it.
 */
import { describe, expect, it } from 'vitest';
import { RequestTargets } from '../src/upstream.js';

const parsed = (url: string) => {
  const { origin, pathname, search } = new URL(url);
  return { origin, path: `${pathname}${search}` };
};

describe('request targets', () => {
  const targets = new RequestTargets();

  it('splits a plain URL as URL parsing does, its origin written as parsing writes it', () => {
    for (const url of [
      'http://127.0.0.1:8080/marketing/v3/campaigns/bf6e4cf0-1ffe',
      'https://api.github.com/repos/o/r/issues?state=open&per_page=100',
      'https://API.Example.com:443/v1/things/a%20b?q=x%2By&empty=',
      'http://user:secret@example.com:80/path:with@chars;and=more,(*)!$+~',
      'https://example.com/?only=query',
    ]) {
      expect(targets.of(url)).toEqual(parsed(url));
    }
  });

  it('leaves to URL parsing every URL it would rewrite', () => {
    for (const url of [
      'https://example.com/a/../b',
      'https://example.com/a/./b',
      'https://example.com/%2e%2E/b',
      'https://example.com/a b',
      'https://example.com/caf\u00e9',
      'https://example.com/a\\b',
      'https://example.com/a#fragment',
      "https://example.com/a?it's",
      'https://example.com/{x}',
      'https://example.com/a\tb',
      'https://example.com?q=/x',
      'https://example.com',
      'ftp://example.com/file',
      'http://exa mple.com/x',
    ]) {
      expect(targets.of(url)).toBeUndefined();
    }
  });
});
