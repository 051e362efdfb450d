/**
 * ListIssues: one page of Pylon's issue list for a creation window (default the last 7 days),
 * filtered here by state, assignee, team and tags, which Pylon's list does not take. The cursor we
 * hand out wraps Pylon's together with the window, so that a listing continues over the same window
 * however much later the next page is asked for.
 */
import { toolError, type ToolHandler } from '@quiver/core';
import { DAY_MS, type Issue, type Window } from './issues.js';
import { answers, pylon, send, type Page } from './upstream.js';

/** Spec 8: the default window. */
const DEFAULT_WINDOW_MS = 7 * DAY_MS;
/** Pylon's limit on a listing's window. */
const MAX_WINDOW_MS = 30 * DAY_MS;
const PAGE_SIZE = 100;

interface ListingCursor extends Window {
  cursor: string;
}

const encode = (cursor: ListingCursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');

function decode(text: string): ListingCursor | undefined {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<ListingCursor>;
    return typeof value.cursor === 'string' && typeof value.start_time === 'string' && typeof value.end_time === 'string'
      ? (value as ListingCursor)
      : undefined;
  } catch {
    return undefined;
  }
}

const bad = (message: string) => toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `Invalid input for ListIssues: ${message}`);

export const ListIssues: ToolHandler = async (input, context) => {
  let window: Window;
  let upstreamCursor: string | undefined;
  if (input.cursor !== undefined) {
    const cursor = decode(input.cursor as string);
    if (!cursor) return bad("parameter 'cursor' is not a cursor ListIssues returned.");
    if (input.start_time !== undefined || input.end_time !== undefined)
      return bad("parameter 'cursor' already carries its listing's window; leave start_time and end_time out.");
    window = { start_time: cursor.start_time, end_time: cursor.end_time };
    upstreamCursor = cursor.cursor;
  } else {
    const end = input.end_time === undefined ? Date.now() : Date.parse(input.end_time as string);
    const start = input.start_time === undefined ? end - DEFAULT_WINDOW_MS : Date.parse(input.start_time as string);
    if (start > end) return bad("parameter 'start_time' is after end_time.");
    if (end - start > MAX_WINDOW_MS) return bad('the window from start_time to end_time spans more than 30 days, the most Pylon lists at once.');
    window = { start_time: new Date(start).toISOString(), end_time: new Date(end).toISOString() };
  }

  const answer = await send<Page<Issue>>(pylon.getIssues, { ...window, cursor: upstreamCursor, limit: PAGE_SIZE }, context, answers.issues);
  if ('error' in answer) return answer;
  const { data, pagination } = answer.value;
  const tags = (input.tags as string[] | undefined) ?? [];
  const issues = data.filter(
    (issue) =>
      (input.state === undefined || issue.state === input.state) &&
      (input.assignee_id === undefined || issue.assignee?.id === input.assignee_id) &&
      (input.team_id === undefined || issue.team?.id === input.team_id) &&
      tags.every((tag) => issue.tags?.includes(tag)),
  );
  const more = pagination.has_next_page && !!pagination.cursor;
  return {
    value: {
      issues,
      pagination: { cursor: more ? encode({ cursor: pagination.cursor, ...window }) : null, has_next_page: more },
      window,
      scanned: data.length,
    },
  };
};
