/**
 * Search over tools by what a user asks for ("make a new branch called release-2"). The ranking
 * library is loaded on the first index built, so that processes that never search do not load it.
 */
import type { Tool } from '../tool.js';
import type { ToolIndex } from './types.js';

export type { SearchHit, SearchOptions, ToolIndex } from './types.js';

/** Indexes the tools: a one-off cost of about half a second for a thousand tools with their phrases, then each search takes about a millisecond. */
export async function createToolIndex(tools: readonly Tool[]): Promise<ToolIndex> {
  const { buildToolIndex } = await import('./tool-index.js');
  return buildToolIndex(tools);
}

export { didYouMean, type SuggestOptions, suggestToolNames } from './suggest.js';
