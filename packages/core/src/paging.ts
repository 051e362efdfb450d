/**
 * Paging a model can follow: the keys by which results say that more pages exist are kept through a
 * field selection, and a next page the upstream reports outside the body (GitHub's Link header) is
 * told in the tool's own parameters.
 */
import type { UpstreamResponse } from './upstream.js';
import type { Tool } from './tool.js';

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
  const pairs = Object.entries(next).map(([name, value]) => `${name}: ${JSON.stringify(value)}`);
  return `[More results: call this tool again with the same arguments and ${pairs.join(', ')} for the next page.]`;
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
