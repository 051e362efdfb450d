/**
 * Search over tools by what a user asks for ("make a new branch called release-2"). The ranking
 * library is loaded on the first index built, so that processes that never search do not load it.
 */
import type { Tool } from '../tool.js';

export interface SearchOptions {
  /** At most this many hits; default: every tool that matches. */
  limit?: number;
  /** Only tools of this toolkit (any letter case). */
  toolkit?: string;
}

export interface SearchHit {
  tool: Tool;
  /** Relevance (BM25+); only the order means something. */
  score: number;
}

export interface ToolIndex {
  /** Tools best first; a query with no useful word finds none. Only the first 500 characters of a query are read. */
  search(query: string, options?: SearchOptions): SearchHit[];
}

/** Indexes the tools: a one-off cost of about half a second for a thousand tools with their phrases, then each search takes about a millisecond. */
export async function createToolIndex(tools: readonly Tool[]): Promise<ToolIndex> {
  const { buildToolIndex } = await import('./tool-index.js');
  return buildToolIndex(tools);
}

export { didYouMean, type SuggestOptions, suggestToolNames } from './suggest.js';
