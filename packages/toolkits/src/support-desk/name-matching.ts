/**
 * Fuzzy matching of people's and teams' names (and email addresses), on Levenshtein distance
 * (fastest-levenshtein, loaded on first use). A candidate's confidence, from 0 to 1, is the better of:
 * the similarity of the whole names (1 − edits / longer length), and a word-by-word similarity that
 * pairs each query word with the closest unused word of the name and divides by the longer word
 * count, so that word order does not matter and a partial name scores by how much of it was given.
 * Case and accents never matter. Email addresses are compared only when the query is one, as the
 * product of the similarities of the local parts and of the domains: addresses at one domain differ
 * only before the @, and whole-address similarity would call them all alike.
 */

export interface NameMatch<T> {
  item: T;
  confidence: number;
}

/** Candidates below this are noise, not worth proposing. */
export const MIN_CONFIDENCE = 0.3;

let library: Promise<typeof import('fastest-levenshtein')> | undefined;

/** The items whose names (or emails) resemble the query, best first; equal ones keep their order. */
export async function matchNames<T>(
  items: readonly T[],
  query: string,
  namesOf: (item: T) => string[],
  emailsOf: (item: T) => string[] = () => [],
): Promise<NameMatch<T>[]> {
  library ??= import('fastest-levenshtein');
  const { distance } = await library;
  const similarity = (a: string, b: string) => (a.length || b.length ? 1 - distance(a, b) / Math.max(a.length, b.length) : 1);
  const wanted = words(query);
  const emailSimilarity = (a: string, b: string) => {
    const [localA, domainA] = splitEmail(a);
    const [localB, domainB] = splitEmail(b);
    return similarity(localA, localB) * similarity(domainA, domainB);
  };
  const isEmail = query.includes('@');

  const nameConfidence = (name: string): number => {
    const have = words(name);
    if (!have.length || !wanted.length) return 0;
    const unused = [...have];
    let total = 0;
    for (const word of wanted) {
      if (!unused.length) break;
      const scores = unused.map((candidate) => similarity(word, candidate));
      const best = scores.indexOf(Math.max(...scores));
      total += scores[best]!;
      unused.splice(best, 1);
    }
    return Math.max(similarity(wanted.join(' '), have.join(' ')), total / Math.max(wanted.length, have.length));
  };

  return items
    .map((item, order) => {
      const scores = namesOf(item).map(nameConfidence);
      if (isEmail) scores.push(...emailsOf(item).map((email) => emailSimilarity(fold(query), fold(email))));
      return { item, order, confidence: Math.max(0, ...scores) };
    })
    .filter((match) => match.confidence >= MIN_CONFIDENCE)
    .sort((a, b) => b.confidence - a.confidence || a.order - b.order)
    .map(({ item, confidence }) => ({ item, confidence }));
}

const splitEmail = (email: string): [string, string] => {
  const at = email.lastIndexOf('@');
  return [email.slice(0, at), email.slice(at + 1)];
};

/** Lower case without accents: "Müller" and "muller" are the same name. */
const fold = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .trim();

const words = (text: string) =>
  fold(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
