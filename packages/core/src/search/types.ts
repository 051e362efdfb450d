/** What a search is asked and answers, apart from the index that answers it, so that every module of the search can name them. */
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
