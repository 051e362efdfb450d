/**
 * Ranks issues for a parsed query with BM25 (k1 1.2, b 0.75) over title and description, on Porter
 * word stems, title matches counting double. MiniSearch does the indexing, Boolean combination and
 * scoring; three of its choices depart from BM25 and are undone here: its BM25+ term floor (`d`, set
 * to 0), its multiplying each score by the number of query terms matched (divided out below), and
 * its measuring a field's length in distinct words (see `numbered`). Both libraries are loaded on the
 * first search, not when the toolkit loads.
 */
import type { CombinationOperator, Query } from 'minisearch';
import { htmlToText } from './html.js';
import type { QueryNode } from './issue-query.js';

export interface Rankable {
  title: string;
  body_html?: string;
}

export interface Ranked<T> {
  issue: T;
  score: number;
}

export const BM25 = { k: 1.2, b: 0.75, d: 0 };
export const FIELD_WEIGHTS = { title: 2, description: 1 };

/**
 * BM25 counts every word of a field in its length; MiniSearch counts distinct words. Numbering the
 * repeats (charge, charge#2) makes every word distinct for that count, and processTerm drops the
 * number again, so term frequencies stay as they were. The tokenizer splits on '#', so no word
 * carries one of its own.
 */
function numbered(words: string[]): string[] {
  const seen = new Map<string, number>();
  return words.map((word) => {
    const count = (seen.get(word) ?? 0) + 1;
    seen.set(word, count);
    return count === 1 ? word : `${word}#${count}`;
  });
}

const load = () => Promise.all([import('minisearch'), import('stemmer')]);
let libraries: ReturnType<typeof load> | undefined;

/** The issues that match, best first; equal scores keep the input's order. */
export async function rankIssues<T extends Rankable>(issues: readonly T[], query: QueryNode): Promise<Ranked<T>[]> {
  libraries ??= load();
  const [{ default: MiniSearch }, { stemmer }] = await libraries;
  const words = (text: string) => MiniSearch.getDefault('tokenize')(text).filter(Boolean);
  const index = new MiniSearch<{ key: number; title: string; description: string }>({
    idField: 'key',
    fields: ['title', 'description'],
    tokenize: (text) => numbered(words(text)),
    processTerm: (term) => stemmer(term.replace(/#\d+$/, '').toLowerCase()),
    searchOptions: { boost: FIELD_WEIGHTS, bm25: BM25, tokenize: words },
  });
  index.addAll(issues.map((issue, key) => ({ key, title: issue.title, description: htmlToText(issue.body_html ?? '') })));

  // Every issue, contributing nothing to the score: the base that a leading NOT subtracts from.
  const everything: Query = { queries: [MiniSearch.wildcard], boostDocument: () => 0 };
  const combine = (combineWith: CombinationOperator, queries: Query[]): Query => ({ queries, combineWith });
  const toQuery = (node: QueryNode): Query => {
    switch (node.kind) {
      // The tokens of one word (e-mail, INV-1043) must all be present.
      case 'word':
        return combine('AND', [node.text]);
      case 'not':
        return combine('AND_NOT', [everything, toQuery(node.operand)]);
      case 'without':
        return combine('AND_NOT', [toQuery(node.include), toQuery(node.exclude)]);
      case 'or':
        return combine('OR', node.operands.map(toQuery));
      case 'and': {
        // `a AND NOT b` is a without b, so that b's absence adds nothing to the score.
        const positive = node.operands.filter((operand) => operand.kind !== 'not');
        const negative = node.operands.flatMap((operand): Query[] => (operand.kind === 'not' ? [toQuery(operand.operand)] : []));
        const base = positive.length ? combine('AND', positive.map(toQuery)) : everything;
        return negative.length ? combine('AND_NOT', [base, ...negative]) : base;
      }
    }
  };

  return index
    .search(toQuery(query))
    .map((result) => ({ key: result.id as number, score: result.score / Math.max(1, result.queryTerms.length) }))
    .sort((a, b) => b.score - a.score || a.key - b.key)
    .map(({ key, score }) => ({ issue: issues[key]!, score }));
}
