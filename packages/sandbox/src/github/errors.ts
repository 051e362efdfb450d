/**
 * GitHub's error bodies: `{ message, errors?, documentation_url }`. A request that breaks the
 * operation's description (path or query parameter, content type, body) is "Validation Failed"
 * (422) with one error naming the field; unparsable JSON is 400 "Problems parsing JSON"; an unknown
 * path, or a known path with a method it does not take, is 404 "Not Found", as GitHub answers both.
 */
import { EmulatorError, type EmulatorResponse } from '../emulator/server.js';
import { GithubError } from './context.js';

export const DOCUMENTATION_URL = 'https://docs.github.com/enterprise-server@3.8/rest';

/** What GitHub calls the resource in validation errors, by the operation's tag. */
const RESOURCES: Record<string, string> = {
  repos: 'Repository',
  issues: 'Issue',
  pulls: 'PullRequest',
  reactions: 'Reaction',
  git: 'Git',
  checks: 'CheckRun',
  actions: 'Actions',
  orgs: 'Organization',
  users: 'User',
  teams: 'Team',
  gists: 'Gist',
  projects: 'Project',
};

export function renderGithubError(error: unknown, tags: Record<string, string>): EmulatorResponse {
  if (error instanceof GithubError) return answer(error.status, error.message, error.errors);
  if (error instanceof EmulatorError) {
    if (error.issue?.code === 'INVALID_JSON') return answer(400, 'Problems parsing JSON');
    if (error.status === 404 || error.status === 405) return answer(404, 'Not Found');
    if (!error.issue) return answer(error.status, error.message);
    const tag = error.label ? (tags[error.label] ?? '') : '';
    const resource = RESOURCES[tag] ?? (tag ? tag.charAt(0).toUpperCase() + tag.slice(1) : 'Request');
    return answer(422, 'Validation Failed', [
      {
        resource,
        ...(error.issue.field !== undefined && { field: error.issue.field }),
        code: error.issue.code === 'REQUIRED' ? 'missing_field' : 'invalid',
        message: error.issue.message,
      },
    ]);
  }
  // Anything else is a fault in the emulator itself; say so plainly rather than pass it off as GitHub's.
  return answer(500, error instanceof Error ? error.message : String(error));
}

function answer(status: number, message: string, errors: GithubError['errors'] = []): EmulatorResponse {
  return { status, body: { message, ...(errors.length > 0 && { errors }), documentation_url: DOCUMENTATION_URL } };
}
