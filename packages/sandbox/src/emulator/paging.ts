/**
 * Paging told in a `Link` header, as GitHub tells it: a list handler answers one page of its items
 * through `linkedPage`, and the shared layer adds the header to the answer (`pageLinks`): rel="next" and
 * "last" before the last page, "prev" and "first" after the first, on the emulator's own origin with
 * every other query parameter as the request sent it. A list of one page has none.
 *
 * The page is recorded against the request's query object, which is the request's own (one per request,
 * handed to its handler as it is), so that list handlers return their page and nothing else.
 */
const pages = new WeakMap<object, { page: number; last: number }>();

/** Items `(page - 1) * size` to `page * size` of `items`, page 1 first; the layer links the request's answer to the other pages. */
export function linkedPage<T>(items: readonly T[], query: object, page: number, size: number): T[] {
  pages.set(query, { page, last: Math.max(1, Math.ceil(items.length / size)) });
  return items.slice((page - 1) * size, page * size);
}

/** The `Link` header of the answer to the request at `url` whose query is `query`; undefined when its handler answered no page of several. */
export function pageLinks(query: object, url: string): string | undefined {
  const paged = pages.get(query);
  if (!paged || paged.last === 1) return undefined;
  const { page, last } = paged;
  const to = (number: number, rel: string) => {
    const target = new URL(url);
    target.searchParams.set('page', String(number));
    return `<${target}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page > 1) links.push(to(Math.min(page - 1, last), 'prev'));
  if (page < last) links.push(to(page + 1, 'next'), to(last, 'last'));
  if (page > 1) links.push(to(1, 'first'));
  return links.join(', ');
}
