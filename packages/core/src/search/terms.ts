/** The terms a text is indexed and searched by: words, with phrases joined, stop words dropped, stemmed, synonyms merged. */
import { stemmer } from 'stemmer';
import { phrases, stopWords, synonyms } from './synonyms.js';

/** Stem of each synonym to the stem of its group's first word. */
const canonical = new Map(synonyms.flatMap((group) => group.map((word) => [stemmer(word), stemmer(group[0]!)] as const)));

export function terms(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const pair = phrases.get(`${words[i]} ${words[i + 1]}`);
    const word = pair ?? words[i]!;
    if (pair) i++;
    // Numbers are values (an issue number, a version), not what the tool does.
    if (stopWords.has(word) || /^\p{N}+$/u.test(word)) continue;
    const stem = stemmer(word);
    out.push(canonical.get(stem) ?? stem);
  }
  return out;
}
