/** The tools that find, read and change one issue. */
import { toolError, type ToolContext, type ToolHandler, type ToolResult } from '@quiver/core';
import { ASSIGN_SCORE_GAP, CANDIDATES, judgeScores, round, SCORE_GAP, scoreGap } from './acceptance.js';
import { textToHtml } from './html.js';
import { resolveIssue, searchIssues, summary, type Issue, type Resolution } from './issues.js';
import { resolveUser } from './users.js';
import { answers, calledAs, pylon, send } from './upstream.js';

const unchanged = (resolution: Extract<Resolution, { issue: null }>) => ({ ...resolution, message: `${resolution.message} Nothing was changed.` });

const GetIssue: ToolHandler = async (input, context) =>
  resolveIssue(
    {
      lookupBy: input.lookup_by as 'id' | 'search',
      value: input.value as string,
      autoAccept: input.auto_accept_matches === true,
      requiredGap: SCORE_GAP,
      parameter: 'value',
      retryHint: 'lookup_by "id"',
    },
    context,
  );

const SearchIssues: ToolHandler = async (input, context) => {
  const found = await searchIssues(input.query as string, 'query', context);
  if ('error' in found) return found;
  const { ranked, indexed, window } = found.value;
  const scores = ranked.map((entry) => entry.score);
  const verdict = judgeScores(scores, input.auto_accept_matches === true, SCORE_GAP);
  const listing = {
    results: ranked.slice(0, CANDIDATES).map((entry) => summary(entry.issue, entry.score)),
    total_matches: ranked.length,
    indexed_issues: indexed,
    window,
  };
  if (verdict.accepted)
    return { value: { auto_accepted: true, issue: ranked[0]!.issue, score: round(ranked[0]!.score), score_gap: round(scoreGap(scores)), ...listing } };
  return { value: { auto_accepted: false, ...(input.auto_accept_matches === true && { message: verdict.reason }), ...listing } };
};

const UpdateIssueStatus: ToolHandler = async (input, context) => {
  const resolved = await resolveIssue(
    {
      lookupBy: input.lookup_by as 'id' | 'search',
      value: input.value as string,
      autoAccept: input.auto_accept_matches === true,
      requiredGap: SCORE_GAP,
      parameter: 'value',
      retryHint: 'lookup_by "id"',
    },
    context,
  );
  if ('error' in resolved) return resolved;
  if (resolved.value.issue === null) return { value: unchanged(resolved.value) };
  const { issue, match } = resolved.value;
  const updated = await send<{ data: Issue }>(pylon.updateIssue, { id: issue.id, state: input.state }, context, answers.issue);
  if ('error' in updated) return updated;
  return { value: { issue: updated.value.data, previous_state: issue.state, ...(match && { match }) } };
};

const AssignIssue: ToolHandler = async (input, context): Promise<ToolResult> => {
  const resolved = await resolveIssue(
    {
      lookupBy: input.issue_lookup_by as 'id' | 'search',
      value: input.issue_value as string,
      autoAccept: input.auto_accept_matches === true,
      requiredGap: ASSIGN_SCORE_GAP,
      parameter: 'issue_value',
      retryHint: 'issue_lookup_by "id"',
    },
    context,
  );
  if ('error' in resolved) return resolved;
  if (resolved.value.issue === null) return { value: { ...unchanged(resolved.value), unresolved: 'issue' } };
  const { issue, match } = resolved.value;

  const user = await resolveUser(input.user_lookup_by as 'id' | 'name', input.user_value as string, input.auto_accept_matches === true, context);
  if ('error' in user) return user;
  if (user.value.user === null) {
    return { value: { issue: null, unresolved: 'user', candidates: user.value.candidates, message: `${user.value.message} Nothing was changed.` } };
  }
  const assignee = user.value.user;
  const updated = await send<{ data: Issue }>(pylon.updateIssue, { id: issue.id, assignee_id: assignee.id }, context, answers.issue);
  if ('error' in updated) return updated;
  return {
    value: {
      issue: updated.value.data,
      assignee,
      previous_assignee_id: issue.assignee?.id ?? null,
      ...(match && { issue_match: match }),
      ...(user.value.confidence !== undefined && { user_match: { confidence: user.value.confidence } }),
    },
  };
};

const AddInternalNote: ToolHandler = async (input, context: ToolContext) => {
  const text = input.body as string;
  if (!text.trim()) return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', "Invalid input for AddInternalNote: parameter 'body' is blank.");
  return send(
    calledAs(pylon.createIssueNote, 'issue_id'),
    { issue_id: (input.issue_id as string).trim(), body_html: input.as_html === true ? text : textToHtml(text) },
    context,
  );
};

export const issueHandlers: Record<string, ToolHandler> = { GetIssue, SearchIssues, UpdateIssueStatus, AssignIssue, AddInternalNote };
