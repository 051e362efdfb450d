/** The page envelope every list route answers with, and the query that asks for a page. */

export const pageQuery = {
  limit: { type: 'integer', minimum: 1, maximum: 100, default: 25, description: 'Items per page (at most 100).' },
  offset: { type: 'integer', minimum: 0, default: 0, description: 'Items to skip.' },
} as const;

export interface PageRequest {
  limit: number;
  offset: number;
}

export function page<T>(all: readonly T[], { limit, offset }: PageRequest) {
  const items = all.slice(offset, offset + limit);
  return { items, limit, offset, page_count: items.length, total_count: all.length };
}

/** The response schema of a page of `item`. */
export const pageOf = (item: object) => ({
  type: 'object',
  required: ['items', 'limit', 'offset', 'page_count', 'total_count'],
  properties: {
    items: { type: 'array', items: item },
    limit: { type: 'integer' },
    offset: { type: 'integer' },
    page_count: { type: 'integer' },
    total_count: { type: 'integer' },
  },
});
