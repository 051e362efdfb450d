/** The terms a text is indexed and searched by: words, with phrases joined, stop words dropped, stemmed, synonyms merged. */
import { stemmer } from 'stemmer';
import { phrases, stopWords, synonyms } from './synonyms.js';

/** Stem of each synonym to the stem of its group's first word. */
const canonical = new Map(synonyms.flatMap((group) => group.map((word) => [stemmer(word), stemmer(group[0]!)] as const)));

/**
 * The term of each word seen, or null for a word that is no term. Indexing reads the same few thousand
 * words over and over; the cache is emptied when it grows past its bound, so queries cannot grow it without end.
 */
const termCache = new Map<string, string | null>();
const termCacheBound = 50_000;

export function terms(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const pair = phrases.get(`${words[i]} ${words[i + 1]}`);
    const word = pair ?? words[i]!;
    if (pair) i++;
    const term = termOf(word);
    if (term !== null) out.push(term);
  }
  return out;
}

function termOf(word: string): string | null {
  let term = termCache.get(word);
  if (term !== undefined) return term;
  // Numbers are values (an issue number, a version), not what the tool does.
  if (stopWords.has(word) || /^\p{N}+$/u.test(word)) term = null;
  else {
    const stem = stemmer(word);
    term = canonical.get(stem) ?? stem;
  }
  if (termCache.size >= termCacheBound) termCache.clear();
  termCache.set(word, term);
  return term;
}
