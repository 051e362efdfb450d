/**
 * Paging a model can follow: the keys by which results say that more pages exist are kept through a
 * field selection, a next page the upstream reports outside the body (GitHub's Link header) is told in
 * the tool's own parameters, and a page the response budget cut says where to resume, so that no item
 * is ever skipped.
 */
import type { NextPage } from './errors.js';
import type { UpstreamResponse } from './upstream.js';
import type { Parameter, Tool } from './tool.js';
import { isRecord } from './records.js';

/** Top-level keys of a result that carry its paging state (HubSpot, Pylon, Dropbox, ClickUp, Graph, Customer.io, ...). */
export const pagingKeys: ReadonlySet<string> = new Set([
  'paging',
  'pagination',
  'cursor',
  'next_cursor',
  'has_more',
  'has_next_page',
  'last_page',
  'pagination_token',
  'next_page',
  'next_page_token',
  'nextPageToken',
  'next',
  '@odata.nextLink',
  'total_count',
  'total',
]);

/** The paging keys that count the whole list rather than point past this page: still true of a page cut short. */
const countKeys: ReadonlySet<string> = new Set(['total_count', 'total']);

/** The value with its top-level paging keys put back after a field selection dropped them. */
export function withPagingKeys(selected: unknown, original: unknown): unknown {
  if (!isRecord(selected) || !isRecord(original)) return selected;
  const kept = Object.keys(original).filter((key) => pagingKeys.has(key) && !(key in selected));
  return kept.length ? { ...selected, ...Object.fromEntries(kept.map((key) => [key, original[key]])) } : selected;
}

/**
 * The arguments that fetch the next page, from the response's Link header (`<url>; rel="next"`): each
 * query parameter of the next URL that fills one of the tool's parameters and differs from what the
 * call passed. Undefined when there is no next page or none of its parameters is the tool's.
 */
export function nextPageArguments(tool: Tool, headers: UpstreamResponse['headers'], args: Record<string, unknown>): Record<string, unknown> | undefined {
  const link = headers.link;
  const next = (Array.isArray(link) ? link.join(',') : link)?.match(/<([^>]+)>\s*;[^,]*\brel="?next"?/)?.[1];
  if (!next) return undefined;
  let query: URLSearchParams;
  try {
    query = new URL(next, 'http://upstream.invalid').searchParams;
  } catch {
    return undefined;
  }
  const out: Record<string, unknown> = {};
  for (const parameter of tool.parameters) {
    if (parameter.in !== 'query') continue;
    const raw = query.get(parameter.upstream ?? parameter.name);
    if (raw === null) continue;
    const numeric = parameter.schema.type === 'integer' || parameter.schema.type === 'number';
    const value = numeric && raw !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
    if (args[parameter.name] !== value) out[parameter.name] = value;
  }
  return Object.keys(out).length ? out : undefined;
}

/** The note that tells the model how to get the next page. */
export function nextPageNote(next: Record<string, unknown>): string {
  return `[More results: call this tool again with the same arguments and ${argumentList(next)} for the next page.]`;
}

const argumentList = (args: Record<string, unknown>) =>
  Object.entries(args)
    .map(([name, value]) => `${name}: ${JSON.stringify(value)}`)
    .join(', ');

// Upstream names of the query parameters that page, by what they say (GitHub's page/per_page, HubSpot's
// after/limit, Graph's $skip/$top, ...).
const offsetNames = new Set(['offset', '$skip', 'skip', 'start']);
const pageNumberNames = new Set(['page']);
const pageSizeNames = new Set(['per_page', 'page_size', 'pagesize', 'limit', '$top', 'max_results', 'maxresults']);
const cursorNames = new Set(['after', 'before', 'cursor', 'page_token', 'pagetoken', 'starting_after']);

const upstreamName = (parameter: Parameter) => (parameter.upstream ?? parameter.name).toLowerCase();
/** Paging arguments go in the query, or in the body of APIs that read with a POST (Dropbox's `limit`). */
const sent = (parameter: Parameter) => parameter.in === 'query' || parameter.in === 'body';
const parameterOf = (tool: Tool, names: ReadonlySet<string>) => tool.parameters.find((p) => sent(p) && names.has(upstreamName(p)));

/** The tool's parameters that page its results, by the names the model uses. */
export function pagingParameters(tool: Tool): string[] {
  const pages = (p: Parameter) => [offsetNames, pageNumberNames, pageSizeNames, cursorNames].some((names) => names.has(upstreamName(p)));
  return tool.parameters.filter((p) => sent(p) && (p.paging || pages(p))).map((p) => p.name);
}

/** What a cut that left items of a page out does to the page's paging. */
export interface CutPaging {
  /** The arguments that fetch the list from the first item left out; absent where the tool's paging cannot say so. */
  next_page?: NextPage;
  /** The value with its paging keys made true of the cut page: a next-page pointer set to `next_page`'s, or dropped. */
  value: unknown;
  /** For the model: how to get the items left out. */
  advice: string;
}

/**
 * Where to resume after a cut kept the first `kept` of a page's `of` items, so that following it skips
 * nothing: an offset resumes `kept` items on; a page number resumes on the page that starts with the
 * first item left out, at a page size that divides the items before it; a cursor or token (opaque) cannot
 * say where, so every next-page pointer is dropped and the advice is to ask again for fewer items (the
 * tool's page size named) and page on from that answer. `upstreamNext` is the next page the upstream told
 * (the Link header): a page with one after it is full, so its length is the page size. Undefined when the
 * tool does not page at all.
 */
export function resumeAfterCut(
  tool: Tool,
  value: unknown,
  args: Record<string, unknown>,
  kept: number,
  of: number,
  upstreamNext?: NextPage,
): CutPaging | undefined {
  const pointers = isRecord(value) ? Object.keys(value).filter((key) => pagingKeys.has(key) && !countKeys.has(key)) : [];
  const size = parameterOf(tool, pageSizeNames);
  const next = resumeArguments(tool, args, kept, of, size, upstreamNext !== undefined);
  if (!next && !pointers.length && !upstreamNext && !pagingParameters(tool).length) return undefined;

  // Pointers past this page go; one named as the argument that resumes (MailClient's pagination_token) takes its
  // value, even on a last page that had none, since a model reads its next page there.
  let body = value;
  if (isRecord(value)) {
    body = Object.fromEntries(Object.entries(value).filter(([key]) => !pointers.includes(key)));
    for (const [key, resume] of Object.entries(next ?? {})) if (pagingKeys.has(key)) (body as Record<string, unknown>)[key] = resume;
  }
  if (next) {
    return {
      next_page: next,
      value: body,
      advice: `The next page starts at the first item left out: call this tool again with the same arguments and ${argumentList(next)}.`,
    };
  }
  const left = `the ${of - kept} items cut here`;
  const how = size
    ? `call this tool again with the same arguments and ${size.name}: ${kept}, then follow that answer's next page.`
    : 'narrow the request (filters, a smaller range).';
  const advice =
    pointers.length || upstreamNext ? `Its next page is not given: following it would skip ${left}. To get them, ${how}` : `To get ${left}, ${how}`;
  return { value: body, advice };
}

/** The arguments that fetch the list from the `kept`th item of this page on, where the tool's paging can say so. */
function resumeArguments(
  tool: Tool,
  args: Record<string, unknown>,
  kept: number,
  of: number,
  size: Parameter | undefined,
  full: boolean,
): NextPage | undefined {
  const offset = parameterOf(tool, offsetNames);
  if (offset) {
    const start = numberOf(args[offset.name]) ?? 0;
    return { [offset.name]: typed(offset, start + kept) };
  }
  const page = parameterOf(tool, pageNumberNames);
  if (!page || !size) return undefined;
  const first = page.schema.minimum === 0 ? 0 : 1;
  // GitHub reads a page before the first as the first.
  const current = Math.max(numberOf(args[page.name]) ?? first, first);
  // Past the first page, the page size says where this page began: as asked, or (a page with one after it being full) its length.
  const pageSize = numberOf(args[size.name]) ?? (full ? of : numberOf(size.schema.default));
  if (pageSize === undefined && current !== first) return undefined;
  const start = (current - first) * (pageSize ?? 0) + kept;
  // Pages of a size that divides `start` have one that begins exactly there; the largest such size up to `kept` fits the budget.
  let perPage = kept;
  while (start % perPage) perPage--;
  return { [page.name]: typed(page, start / perPage + first), [size.name]: typed(size, perPage) };
}

const numberOf = (value: unknown): number | undefined => {
  const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  return Number.isInteger(number) && number >= 0 ? number : undefined;
};

/** A number as the parameter takes it: text for a string parameter (MailClient's token), else the number. */
const typed = (parameter: Parameter, value: number): unknown => (parameter.schema.type === 'string' ? String(value) : value);
