/**
 * Issues as the tools see them: read by id or number, searched over the newest 400 issues of the
 * last 30 days (fetched from Pylon a page at a time and ranked here), and resolved for the tools
 * that act on one issue.
 */
import { toolError, type ToolContext, type ToolError } from '@quiver/core';
import { CANDIDATES, judgeScores, round, scoreGap } from './acceptance.js';
import { parseQuery, QueryError } from './issue-query.js';
import { rankIssues } from './issue-ranking.js';
import { answers, calledAs, collect, pylon, send, type Outcome } from './upstream.js';

export interface Issue {
  id: string;
  number: number;
  title: string;
  body_html?: string;
  state: string;
  assignee?: { id: string; email?: string };
  team?: { id: string };
  tags?: string[];
  created_at: string;
  [field: string]: unknown;
}

export const DAY_MS = 86_400_000;
/** Spec 4.4 and 8: the search index holds up to 400 issues created in the last 30 days. */
export const SEARCH_WINDOW_MS = 30 * DAY_MS;
export const SEARCH_LIMIT = 400;
const PAGE_SIZE = 100;

export interface Window {
  start_time: string;
  end_time: string;
}

export interface SearchOutcome {
  ranked: Array<{ issue: Issue; score: number }>;
  indexed: number;
  window: Window;
}

/** The issue by id or number (the input `parameter`); Pylon's 404 comes back saying which issue was missing. */
export async function getIssue(idOrNumber: string, parameter: string, context: ToolContext): Promise<Outcome<Issue>> {
  const answer = await send<{ data: Issue }>(calledAs(pylon.getIssue, parameter), { [parameter]: idOrNumber.trim() }, context, answers.issue);
  if ('error' in answer)
    return answer.error.kind === 'UPSTREAM_RUNTIME_NOT_FOUND'
      ? { error: { ...answer.error, message: `No issue has the id or number ${idOrNumber}.` } }
      : answer;
  return { value: answer.value.data };
}

/** Ranks the newest 400 issues of the last 30 days for `query`; `parameter` names the input in errors. */
export async function searchIssues(query: string, parameter: string, context: ToolContext): Promise<Outcome<SearchOutcome>> {
  let parsed: ReturnType<typeof parseQuery>;
  try {
    parsed = parseQuery(query);
  } catch (error) {
    if (error instanceof QueryError) return badQuery(parameter, error.message);
    throw error;
  }
  const now = Date.now();
  const window = { start_time: new Date(now - SEARCH_WINDOW_MS).toISOString(), end_time: new Date(now).toISOString() };
  // Pylon lists newest first, so the first 400 are the newest 400.
  const fetched = await collect<Issue>(
    pylon.getIssues,
    { ...window, limit: PAGE_SIZE },
    context,
    answers.issues,
    Math.ceil(SEARCH_LIMIT / PAGE_SIZE),
    SEARCH_LIMIT,
  );
  if ('error' in fetched) return fetched;
  const issues = fetched.value.items;
  return { value: { ranked: await rankIssues(issues, parsed), indexed: issues.length, window } };
}

const badQuery = (parameter: string, problem: string): { error: ToolError } =>
  toolError(
    'TOOL_RUNTIME_BAD_INPUT_VALUE',
    `Invalid search in parameter '${parameter}': ${problem}. Use words with AND, OR, NOT (upper case) and parentheses, e.g. refund AND (card OR invoice) NOT duplicate.`,
  );

/** What a result list shows of an issue. */
export function summary(issue: Issue, score?: number) {
  return {
    id: issue.id,
    number: issue.number,
    title: issue.title,
    state: issue.state,
    assignee_id: issue.assignee?.id ?? null,
    team_id: issue.team?.id ?? null,
    tags: issue.tags ?? [],
    created_at: issue.created_at,
    ...(score !== undefined && { score: round(score) }),
  };
}

export type Resolution =
  | { issue: Issue; match?: { score: number; score_gap: number } }
  | { issue: null; candidates: ReturnType<typeof summary>[]; message: string };

export interface IssueLookup {
  lookupBy: 'id' | 'search';
  value: string;
  autoAccept: boolean;
  /** The lead a search result needs over the runner-up to be accepted. */
  requiredGap: number;
  /** The input parameter holding `value`, for error messages. */
  parameter: string;
  /** What to call again with once the caller picks an issue, e.g. `lookup_by "id"`. */
  retryHint: string;
}

/** One issue, by id, or by search when its best result is accepted; otherwise the candidates. */
export async function resolveIssue(lookup: IssueLookup, context: ToolContext): Promise<Outcome<Resolution>> {
  if (lookup.lookupBy === 'id') {
    const issue = await getIssue(lookup.value, lookup.parameter, context);
    return 'error' in issue ? issue : { value: { issue: issue.value } };
  }
  const found = await searchIssues(lookup.value, lookup.parameter, context);
  if ('error' in found) return found;
  const { ranked } = found.value;
  const scores = ranked.map((entry) => entry.score);
  const verdict = judgeScores(scores, lookup.autoAccept, lookup.requiredGap);
  if (verdict.accepted) return { value: { issue: ranked[0]!.issue, match: { score: round(ranked[0]!.score), score_gap: round(scoreGap(scores)) } } };
  const candidates = ranked.slice(0, CANDIDATES).map((entry) => summary(entry.issue, entry.score));
  const next = candidates.length
    ? `Call again with ${lookup.retryHint} and the id of the intended issue, or with more specific keywords.`
    : `No issue created in the last 30 days matches '${lookup.value}'.`;
  return { value: { issue: null, candidates, message: `${verdict.reason} ${next}` } };
}
