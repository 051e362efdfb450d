/** Text from a description: plain, short, and names a model can call. */

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'", mdash: '—', ndash: '–', hellip: '…' };

/** Markdown and HTML stripped: links keep their text, emphasis, code marks, headings, tables and URLs go. */
export function plainText(text: unknown): string {
  if (typeof text !== 'string') return '';
  return (
    text
      // Fenced code blocks say nothing a model needs from a description.
      .replace(/```[\s\S]*?(```|$)/g, ' ')
      .replace(/<!--[\s\S]*?-->/g, ' ')
      .replace(/<(br|\/p|p|\/li|li|\/div|div|\/h\d|h\d|tr|\/tr)\b[^>]*>/gi, ' ')
      .replace(/<[^>]+>/g, '')
      .replace(/&(#?\w+);/g, (whole, name: string) => entities[name] ?? (/^#\d+$/.test(name) ? String.fromCodePoint(Number(name.slice(1))) : whole))
      // Images go; links keep their text; autolinks and bare addresses go.
      .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
      // A bare scheme (`must begin with https://`) keeps its name.
      .replace(/<?\b(https?):\/\/([^\s)>\]]*)>?/g, (_, scheme: string, rest: string) => (rest ? '' : scheme))
      .replace(/^\s{0,3}#{1,6}\s*/gm, '')
      .replace(/^\s*[-*+]\s+/gm, '')
      .replace(/^\s*\|?(\s*:?-{2,}:?\s*\|)+\s*:?-*:?\s*$/gm, '')
      .replace(/\|/g, ' ')
      .replace(/(\*\*|__)(.+?)\1/g, '$2')
      // Emphasis may end right before code (`*Types:*`*/*``): the stars of both would meet once the code marks go.
      .replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=[\s).,;:!?`]|$)/g, '$1$2')
      .replace(/\*\*|__/g, '')
      .replace(/`+/g, '')
      .replace(/\s+/g, ' ')
      .replace(/\(\s*\)/g, '')
      .replace(/\s+([.,;:])/g, '$1')
      .trim()
  );
}

/** At most `max` characters: whole sentences when they fit, else whole words and an ellipsis. */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const sentences = text.match(/[^.!?]+[.!?]+(\s|$)|[^.!?]+$/g) ?? [text];
  let out = '';
  for (const sentence of sentences) {
    if ((out + sentence).trim().length > max) break;
    out += sentence;
  }
  out = out.trim();
  if (out.length >= Math.min(40, max / 3)) return out;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, '')}…`;
}

export const wordCount = (text: string): number => text.split(/\s+/).filter(Boolean).length;

/** `listPets`, `pets.list`, `get_user-by_id` → `ListPets`, `PetsList`, `GetUserById`. */
export function pascalCase(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');
}

/** An operationId as a sentence-case label: `listPets`, `get_user-by_id`, `pets.list` → `List pets`, `Get user by id`, `Pets list`. */
export function operationWords(text: string): string {
  const words = text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    // Acronyms stay as they are (`getURL`, `listAPIKeys`); other words go lower case.
    .map((word) => (/^[A-Z0-9]{2,}$/.test(word) ? word : word.toLowerCase()));
  const sentence = words.join(' ');
  return sentence && sentence[0]!.toUpperCase() + sentence.slice(1);
}

/** `PetStore`, `api-key` → `PET_STORE`, `API_KEY`. */
export function screamingSnake(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .join('_')
    .toUpperCase();
}
