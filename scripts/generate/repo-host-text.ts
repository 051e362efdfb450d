/**
 * Turns GitHub's markdown operation and field descriptions into the short plain text a model reads:
 * what the operation does and its notable limits, without links, HTML, authentication boilerplate
 * (scopes become requirements data instead) or pointers to the documentation.
 */

/** Markdown to plain sentences, in order; lists, tables, headings and code blocks are left out. */
export function sentencesOf(markdown: string | undefined): string[] {
  if (!markdown) return [];
  const text = markdown
    .replace(/```[\s\S]*?```/g, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    // Only real HTML tags: `<num>` and `<USERNAME>` placeholders are part of the text.
    .replace(/<\/?(a|br|p|div|span|code|pre|strong|em|b|i|ul|ol|li|details|summary|table|tr|td|th|sup|sub|img|kbd)\b[^>]*>/gi, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1')
    .replace(/\*\*([^*]+)\*\*/g, '$1')
    .replace(/\*\*/g, '')
    .replace(/(^|[\s(])\*([^*\s][^*]*?)\*(?=[\s).,:;]|$)/g, '$1$2')
    .replace(/(^|\s)_([^_\s][^_]*?)_(?=[\s).,:;]|$)/g, '$1$2')
    // Typographic apostrophes as plain ones: the same to a model, and a catalog of ASCII alone is read faster.
    .replaceAll('’', "'");

  const units: string[] = [];
  for (const paragraph of text.split(/\n\s*\n/)) {
    let prose: string[] = [];
    const flush = () => {
      if (prose.length) units.push(prose.join(' '));
      prose = [];
    };
    for (const raw of paragraph.split('\n')) {
      const line = raw.trim();
      // Headings, tables and list items are structure the short description does without.
      if (/^(#|\||[*+-]\s|\d+\.\s)/.test(line)) {
        flush();
        continue;
      }
      if (line) prose.push(line);
    }
    flush();
  }
  return units
    .flatMap((unit) =>
      unit
        .replace(/\s+/g, ' ')
        .trim()
        .split(/(?<!\b(?:e\.g|i\.e|etc|vs))(?<=[.!?])\s+(?=[A-Z`"'(])/),
    )
    .map((sentence) => sentence.replace(/\s*\((?:see|for more)[^)]*\)/gi, '').trim())
    .filter((sentence) => sentence && !dropped.some((pattern) => pattern.test(sentence)));
}

/** Sentences a model does not need: each pattern says why. */
const dropped: RegExp[] = [
  /\bscopes?\b/i, // token scopes: extracted into requirements.oauth2.scopes
  /\b(must|need|needs|required|requires?)\b.*\b(token|OAuth|GitHub Apps?|authenticat\w*|JWT)\b/i, // how to authenticate
  /\b(token|OAuth|GitHub Apps?|authenticat\w*|JWT)\b.*\b(must|required|requires?)\b/i,
  /fine-grained|Basic Auth|not compatible with/i,
  /\bsee\b\s*(also\s*)?["“]|for more (information|details)|learn more|in the (GitHub )?docs\b|documentation/i, // pointers to docs
  /https?:\/\//i, // bare links
  /`\w+\.\w+\(\)`/, // Octokit method names
  /private beta|subject to change|preview period/i, // release-stage notes
  /GitHub (Free|Pro|Team|AE|Enterprise Cloud)\b/, // other products and plans
  /media types?\b/i, // custom Accept media types: the tools send one fixed Accept header
  /\busing the route\b|Content-Length/i, // other routes to the same operation; transport details the runtime handles
  /:$/, // introduces a list or an example that is not kept
];

/**
 * Joins sentences up to `limit` characters and `maxSentences`; the first one is always kept (cut at a
 * word boundary if it is too long on its own).
 */
export function joinWithin(sentences: string[], limit: number, maxSentences: number): string {
  let out = '';
  for (const sentence of sentences.slice(0, maxSentences).map(terminated)) {
    const next = out ? `${out} ${sentence}` : sentence;
    if (out && next.length > limit) break;
    out = next;
  }
  return out.length > limit ? cut(out, limit) : out;
}

/** Cuts at the last word boundary that leaves room for the ellipsis. */
export function cut(text: string, limit: number): string {
  const head = text.slice(0, limit - 3);
  const space = head.lastIndexOf(' ');
  return `${(space > limit / 2 ? head.slice(0, space) : head).replace(/[\s,;:(]+$/, '')}...`;
}

export const terminated = (sentence: string): string => (/[.!?]$/.test(sentence) ? sentence : `${sentence}.`);

const stopWords = new Set(['the', 'and', 'for', 'with', 'from', 'into', 'that', 'this', 'your', 'all', 'are']);
const stems = (text: string) =>
  text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 2 && !stopWords.has(word))
    .map((word) => word.replace(/(ies|es|s|ed|ing|e)$/, ''));

/**
 * True when `sentence` opens with the summary's verb and says all that the summary says ("Create an
 * issue." / "Creates an issue in ...").
 */
export function restates(summary: string, sentence: string): boolean {
  const words = stems(summary);
  const said = stems(sentence);
  return words.length > 0 && words[0] === said[0] && words.every((word) => said.includes(word));
}

/**
 * True when `sentence` says again what `first` says, in other words ("Get a repository webhook." / "Returns a
 * webhook configured in a repository."): their words after the verb are mostly the same.
 */
export function repeats(first: string, sentence: string): boolean {
  const a = new Set(stems(first).slice(1));
  const b = new Set(stems(sentence).slice(1));
  if (!a.size || !b.size) return false;
  const shared = [...a].filter((word) => b.has(word)).length;
  return shared / (a.size + b.size - shared) >= 0.6;
}
