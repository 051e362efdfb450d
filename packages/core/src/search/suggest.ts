/**
 * "Did you mean" for a tool name that names no tool: a typo, the wrong separator, a bare `CreateRepohostIssue`,
 * or other words for what a tool does (`RepoHostApi_CreateIssue` for `RepoHostApi.CreateRepohostIssue`).
 */
import { editDistance } from '../edit-distance.js';
import { functionName } from '../formats.js';
import { qualifiedName, type Tool } from '../tool.js';
import type { SearchHit, SearchOptions } from './types.js';
import { words } from './words.js';

export interface SuggestOptions {
  /** At most this many names; default 3. */
  limit?: number;
  /**
   * How each name is spelt; by default as the unknown name is: `Toolkit_Tool`, as MCP lists names, for one with an
   * underscore and no dot, else the qualified `Toolkit.Tool`.
   */
  nameOf?: (tool: Tool) => string;
  /**
   * The search over the same tools (a tool index's, or the dispatcher's for the caller's policy), to find
   * names by what their words mean as well as by spelling. Without it, only close spellings are suggested.
   */
  search?: (query: string, options: SearchOptions) => SearchHit[] | Promise<SearchHit[]>;
}

/**
 * Up to `limit` names of tools that `name` may mean: first the close spellings, closest first, then the
 * tools the search ranks for the name's words, best first, each tool once.
 *
 * A close spelling is within a tenth of the name's length in edits (at least two) of a tool's bare,
 * qualified or function name, ignoring letter case. The words are the name's after its toolkit, split at
 * case changes, and are searched for among that toolkit's tools when it names one; a tool found counts
 * only if its own name has at least half of those words (as the search reads them: stemmed, synonyms
 * merged), one of them other than the first, so that a name like no tool suggests nothing rather than
 * whatever ranked first.
 */
export async function suggestToolNames(name: string, tools: readonly Tool[], { limit = 3, nameOf, search }: SuggestOptions = {}): Promise<string[]> {
  const wanted = name.split('@')[0]!.trim();
  // Spelling is compared in time proportional to the name's length times every tool's: a name longer than any
  // tool's could be (a caller's megabyte) would hold the process for minutes, and is like no tool anyway.
  if (!wanted || wanted.length > MAX_NAME_LENGTH) return [];
  // A client that can only call the names it was listed can call these.
  const spelt = nameOf ?? (wanted.includes('_') && !wanted.includes('.') ? functionName : qualifiedName);
  const suggested = new Set(closeSpellings(wanted, tools));
  if (search && suggested.size < limit) for (const tool of await closeMeanings(wanted, tools, search)) suggested.add(tool);
  return [...suggested].slice(0, limit).map(spelt);
}

/** Longer than any `Toolkit.Tool@version` can be (a toolkit's and a tool's name are at most 64 characters each). */
const MAX_NAME_LENGTH = 200;

/** " Did you mean A, B or C?" for an error message, or nothing when there is no suggestion. */
export function didYouMean(suggestions: readonly string[]): string {
  if (!suggestions.length) return '';
  const list = suggestions.length === 1 ? suggestions[0] : `${suggestions.slice(0, -1).join(', ')} or ${suggestions.at(-1)}`;
  return ` Did you mean ${list}?`;
}

function closeSpellings(wanted: string, tools: readonly Tool[]): Tool[] {
  const lower = wanted.toLowerCase();
  const most = Math.max(2, Math.floor(lower.length / 10));
  const scored: Array<{ tool: Tool; distance: number }> = [];
  for (const tool of tools) {
    const forms = [tool.name, qualifiedName(tool), functionName(tool)].map((form) => form.toLowerCase());
    const distance = Math.min(...forms.map((form) => editDistance(lower, form)));
    if (distance <= most) scored.push({ tool, distance });
  }
  return scored.sort((a, b) => a.distance - b.distance).map(({ tool }) => tool);
}

async function closeMeanings(wanted: string, tools: readonly Tool[], search: NonNullable<SuggestOptions['search']>): Promise<Tool[]> {
  const lower = wanted.toLowerCase();
  const toolkit = [...new Set(tools.map((tool) => tool.toolkit.name))].find(
    (name) => lower.startsWith(name.toLowerCase()) && ['.', '_'].includes(lower.charAt(name.length)),
  );
  const rest = toolkit ? wanted.slice(toolkit.length + 1) : wanted;
  // Only called with a search, whose module holds the analysis: loading it here costs nothing more.
  const [{ nameTerms, nameWords }, { singularPhrases, terms }] = await Promise.all([import('./tool-index.js'), import('./terms.js')]);
  const asked = [...new Set(nameTerms(rest, toolkit ?? ''))];
  if (!asked.length) return [];
  // A name's first word is mostly its action (List, Get, Create): shared alone, it says nothing of which tool.
  const objects = asked.length > 1 ? asked.slice(1) : asked;
  // A name of the same words comes first, whatever the search ranks first: `ListPRs` is `ListPullRequests`, where
  // the search puts the tools that name one pull request (`ListPullRequestCommits`) above the one that lists them.
  const key = (name: string, toolkitName: string) =>
    terms(singularPhrases(nameWords(name, toolkitName)))
      .sort()
      .join(' ');
  const wantedKey = key(rest, toolkit ?? '');
  const same = tools.filter((tool) => (!toolkit || tool.toolkit.name === toolkit) && key(tool.name, tool.toolkit.name) === wantedKey);
  const hits = await search(words(rest).join(' '), { toolkit });
  const found = hits
    .map(({ tool }) => tool)
    .filter((tool) => {
      const own = nameTerms(tool.name, tool.toolkit.name);
      return asked.filter((term) => own.includes(term)).length * 2 >= asked.length && objects.some((term) => own.includes(term));
    });
  return [...same, ...found];
}
