/**
 * The Pylon operations the handlers call. Each is a binding like a catalog tool's, so core's
 * callUpstream builds and sends it (bearer API token, base URL, error kinds) exactly as it sends a
 * plain tool's request.
 */
import {
  answerOfShape,
  callUpstream,
  type HttpMethod,
  type JsonSchema,
  type ParameterLocation,
  type Tool,
  type ToolContext,
  type ToolError,
} from '@quiver/core';

export const API_TOKEN = 'SUPPORT_API_TOKEN';

function operation(name: string, method: HttpMethod, path: string, placed: Record<string, ParameterLocation> = {}): Tool {
  return {
    name,
    description: `Pylon ${name}`,
    parameters: Object.entries(placed).map(([parameter, where]) => ({
      name: parameter,
      in: where,
      required: where === 'path',
      description: parameter,
      schema: {},
    })),
    output: { description: `The answer of Pylon ${name}.` },
    requirements: { secrets: [{ key: API_TOKEN }] },
    http: { method, path, auth: { secret: API_TOKEN, scheme: 'Bearer' } },
    toolkit: { name: 'Pylon', version: '1', description: 'Pylon API' },
  };
}

export const pylon = {
  getIssue: operation('GetIssue', 'GET', '/issues/{id}', { id: 'path' }),
  getIssues: operation('GetIssues', 'GET', '/issues', { start_time: 'query', end_time: 'query', cursor: 'query', limit: 'query' }),
  updateIssue: operation('UpdateIssue', 'PATCH', '/issues/{id}', { id: 'path', state: 'body', assignee_id: 'body' }),
  createIssueNote: operation('CreateIssueNote', 'POST', '/issues/{id}/note', { id: 'path', body_html: 'body' }),
  getUsers: operation('GetUsers', 'GET', '/users', { cursor: 'query', limit: 'query' }),
  getTeams: operation('GetTeams', 'GET', '/teams', { cursor: 'query' }),
  getTeam: operation('GetTeam', 'GET', '/teams/{id}', { id: 'path' }),
  getContacts: operation('GetContacts', 'GET', '/contacts', { cursor: 'query', limit: 'query' }),
  searchContacts: operation('SearchContacts', 'POST', '/contacts/search', { filter: 'body', cursor: 'body', limit: 'body' }),
};

/**
 * The operation with its path parameter named as the caller's input (`value`, `issue_id`): core's
 * builder refuses a value that would leave its path segment under that name, the one the caller knows.
 */
export const calledAs = (op: Tool, input: string): Tool => ({
  ...op,
  parameters: op.parameters.map((parameter) =>
    parameter.in === 'path' ? { ...parameter, name: input, upstream: parameter.upstream ?? parameter.name } : parameter,
  ),
});

export interface Pagination {
  cursor: string;
  has_next_page: boolean;
}

export interface Page<T> {
  data: T[];
  pagination: Pagination;
}

export type Outcome<T> = { value: T } | { error: ToolError };

/**
 * The fields of Pylon's records that the handlers read (names to match, text to rank, fields to filter
 * on), each of the type they read it as; what they pass on untouched is not checked.
 */
const issue: JsonSchema = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    body_html: { type: ['string', 'null'] },
    state: { type: 'string' },
    tags: { type: ['array', 'null'], items: { type: 'string' } },
    assignee: { type: ['object', 'null'] },
    team: { type: ['object', 'null'] },
  },
};
const named: JsonSchema = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string' }, email: { type: ['string', 'null'] }, emails: { type: ['array', 'null'], items: { type: 'string' } } },
};

/** An answer that holds one record in `data`. */
const one = (record: JsonSchema): JsonSchema => ({ type: 'object', required: ['data'], properties: { data: record } });

/** A page of records, and what tells whether another follows. */
const page = (record: JsonSchema): JsonSchema => ({
  type: 'object',
  required: ['data', 'pagination'],
  properties: {
    data: { type: 'array', items: record },
    pagination: { type: 'object', required: ['has_next_page'], properties: { cursor: { type: ['string', 'null'] }, has_next_page: { type: 'boolean' } } },
  },
});

/** The answers the handlers read, by what they hold; made once, so each is compiled once. */
export const answers = {
  issue: one(issue),
  issues: page(issue),
  /** Users, contacts and teams are matched by name (and email). */
  people: page(named),
  /** An exact contact search answers its matches without paging. */
  matches: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: named } } },
  team: one({ type: 'object' }),
} satisfies Record<string, JsonSchema>;

/**
 * One call; the parsed answer, or the error as core classified it. With a `shape` (made once, as a
 * constant), an answer that lacks what the handler reads is an unexpected response.
 */
export async function send<T>(op: Tool, args: Record<string, unknown>, context: ToolContext, shape?: JsonSchema): Promise<Outcome<T>> {
  const answer = await callUpstream(op, args, context);
  if ('error' in answer || !shape) return answer as Outcome<T>;
  return answerOfShape<T>(op, answer.value, shape);
}

/** `data` of every page in order, following cursors while pages remain and `maxPages` allows. */
export async function collect<T>(
  op: Tool,
  args: Record<string, unknown>,
  context: ToolContext,
  pageShape: JsonSchema,
  maxPages: number,
  maxItems = Infinity,
): Promise<Outcome<{ items: T[]; pages: number; complete: boolean }>> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let pages = 1; ; pages++) {
    const answer = await send<Page<T>>(op, { ...args, ...(cursor && { cursor }) }, context, pageShape);
    if ('error' in answer) return answer;
    items.push(...answer.value.data);
    // No cursor (empty, or null from an upstream that sends one) means no next page to ask for.
    const more = answer.value.pagination.has_next_page && !!answer.value.pagination.cursor;
    if (!more || pages >= maxPages || items.length >= maxItems) return { value: { items: items.slice(0, maxItems), pages, complete: !more } };
    cursor = answer.value.pagination.cursor;
  }
}
