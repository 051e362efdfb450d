/** The terms a text is indexed and searched by: words, with phrases joined, stop words dropped, stemmed, synonyms merged. */
import { BoundedMemo } from '../bounded-memo.js';
import { stemmer } from 'stemmer';
import { phrases, stopWords, synonyms } from './synonyms.js';

/** Stem of each synonym to the stem of its group's first word. */
const canonical = new Map(synonyms.flatMap((group) => group.map((word) => [stemmer(word), stemmer(group[0]!)] as const)));

/**
 * The term of each word seen, or null for a word that is no term. Indexing reads the same few thousand
 * words over and over; the cache is emptied when it grows past its bound, so queries cannot grow it without end.
 */
const termCache = new BoundedMemo<string, string | null>(50_000);

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

/**
 * The words with a phrase in the plural made singular (`pull requests` → `pull request`), so that `terms` reads it
 * as the phrase. The index does not: measured, it ranked worse (README, Search, the sixth part of reading intent).
 */
export function singularPhrases(words: readonly string[]): string[] {
  return words.map((word, i) => (i > 0 && word.endsWith('s') && phrases.has(`${words[i - 1]} ${word.slice(0, -1)}`) ? word.slice(0, -1) : word));
}

const termOf = (word: string): string | null => termCache.get(word, workOutTerm);

function workOutTerm(word: string): string | null {
  // Numbers are values (an issue number, a version), not what the tool does.
  if (stopWords.has(word) || /^\p{N}+$/u.test(word)) return null;
  const stem = stemmer(word);
  return canonical.get(stem) ?? stem;
}
