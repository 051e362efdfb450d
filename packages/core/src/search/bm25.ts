/**
 * A field-weighted BM25+ index over analysed text, scored as MiniSearch scores (its constants, its field
 * lengths in distinct terms, its prefix weights, a hit's score times the number of query terms it
 * matched), so that the ranking learned on it holds. What differs is the layout: the field weights are
 * fixed when the index is built, so each term's postings carry one precomputed score per document, in
 * typed arrays; a search adds those up in one flat array instead of building a map per term and field.
 * Searching ten thousand tools then costs about what a thousand did.
 */

/** BM25+ as MiniSearch sets it: term-frequency saturation k, length normalisation b, the lower bound d of a match. */
const k = 1.2;
const b = 0.7;
const d = 0.5;
/** A prefix match counts this much of an exact one, less as the term grows past the prefix. */
const prefixWeight = 0.375;

export interface QueryTerm {
  term: string;
  /** How much this term counts against 1 for a plain one. */
  boost: number;
  /** Whether terms that begin with this one match too. */
  prefix: boolean;
  /**
   * Whether the term is a value the request gives (a word of a repository's name or of a path), not a word of
   * what it asks: it adds to a document's score but does not count among the terms the document matches.
   */
  value?: boolean;
}

export interface Bm25Hit {
  id: number;
  score: number;
}

interface Postings {
  docs: Int32Array;
  scores: Float64Array;
}

export class Bm25Index<Field extends string> {
  private readonly vocabulary: string[];
  private readonly postings: Postings[];
  private readonly byTerm: Map<string, number>;
  // Reused by every search (searches are synchronous), so that a search allocates only its hits.
  private readonly total: Float64Array;
  private readonly matched: Uint16Array;
  private readonly lastTerm: Int32Array;

  /** `documents[i]` is document `i`: each field's text, analysed into terms joined by single spaces. */
  constructor(documents: readonly Readonly<Record<Field, string>>[], fields: readonly Field[], boosts: Readonly<Record<Field, number>>) {
    const count = documents.length;
    // term -> flat [field, document, frequency, ...] in document order, then field order
    const occurrences = new Map<string, number[]>();
    const lengths = fields.map(() => new Float64Array(count));
    const averages = fields.map(() => 0);
    for (const [id, document] of documents.entries()) {
      for (const [field, name] of fields.entries()) {
        const tokens = document[name].split(' ');
        // MiniSearch's field length: distinct tokens, the empty one included; its average kept as it keeps it.
        const length = new Set(tokens).size;
        lengths[field]![id] = length;
        averages[field] = (averages[field]! * id + length) / (id + 1);
        const frequencies = new Map<string, number>();
        for (const token of tokens) if (token) frequencies.set(token, (frequencies.get(token) ?? 0) + 1);
        for (const [term, frequency] of frequencies) {
          const list = occurrences.get(term);
          if (list) list.push(field, id, frequency);
          else occurrences.set(term, [field, id, frequency]);
        }
      }
    }
    this.vocabulary = [...occurrences.keys()].sort();
    this.byTerm = new Map(this.vocabulary.map((term, i) => [term, i]));
    const weights = fields.map((name) => boosts[name]);
    // Scratch space shared by every term: a large vocabulary (ten thousand imported tools) is mostly rare terms.
    const inField = new Float64Array(fields.length);
    const idf = new Float64Array(fields.length);
    this.postings = this.vocabulary.map((term) => {
      const list = occurrences.get(term)!;
      inField.fill(0);
      let documents = 0;
      for (let i = 0; i < list.length; i += 3) {
        inField[list[i]!]!++;
        if (list[i + 1] !== list[i - 2]) documents++;
      }
      for (let field = 0; field < fields.length; field++) idf[field] = Math.log(1 + (count - inField[field]! + 0.5) / (inField[field]! + 0.5));
      const docs = new Int32Array(documents);
      const scores = new Float64Array(documents);
      let at = -1;
      for (let i = 0; i < list.length; i += 3) {
        const [field, id, frequency] = [list[i]!, list[i + 1]!, list[i + 2]!];
        const raw = idf[field]! * (d + (frequency * (k + 1)) / (frequency + k * (1 - b + (b * lengths[field]![id]!) / averages[field]!)));
        if (at < 0 || docs[at] !== id) docs[++at] = id;
        scores[at]! += weights[field]! * raw;
      }
      return { docs, scores };
    });
    this.total = new Float64Array(count);
    this.matched = new Uint16Array(count);
    this.lastTerm = new Int32Array(count).fill(-1);
  }

  /** Every document that matches a term, with its score; in no particular order. A term given twice counts twice. */
  search(query: readonly QueryTerm[]): Bm25Hit[] {
    const { total, matched, lastTerm } = this;
    const touched: number[] = [];
    const distinct = new Map<string, QueryTerm & { times: number }>();
    for (const term of query) {
      const seen = distinct.get(term.term);
      if (seen) seen.times++;
      else distinct.set(term.term, { ...term, times: 1 });
    }
    let ordinal = 0;
    for (const { term, boost, prefix, times, value } of distinct.values()) {
      const add = (index: number, weight: number) => {
        const { docs, scores } = this.postings[index]!;
        for (let i = 0; i < docs.length; i++) {
          const doc = docs[i]!;
          if (lastTerm[doc] !== ordinal) {
            if (lastTerm[doc] === -1) touched.push(doc);
            lastTerm[doc] = ordinal;
            if (!value) matched[doc]!++;
          }
          total[doc]! += weight * scores[i]!;
        }
      };
      const exact = this.byTerm.get(term);
      if (exact !== undefined) add(exact, times * boost);
      if (prefix) {
        for (let i = this.firstAtOrAfter(term); i < this.vocabulary.length; i++) {
          const longer = this.vocabulary[i]!;
          if (!longer.startsWith(term)) break;
          if (longer.length === term.length) continue;
          add(i, (times * boost * prefixWeight * longer.length) / (longer.length + 0.3 * (longer.length - term.length)));
        }
      }
      ordinal++;
    }
    const hits = touched.map((id) => ({ id, score: total[id]! * matched[id]! }));
    for (const id of touched) {
      total[id] = 0;
      matched[id] = 0;
      lastTerm[id] = -1;
    }
    return hits;
  }

  /** How many documents have `term`, in any field (0 for a term none has). */
  documentsWith(term: string): number {
    const index = this.byTerm.get(term);
    return index === undefined ? 0 : this.postings[index]!.docs.length;
  }

  private firstAtOrAfter(term: string): number {
    let low = 0;
    let high = this.vocabulary.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.vocabulary[middle]! < term) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
