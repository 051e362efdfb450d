/**
 * Issues and the labels on them. Issues and pull requests share one numbering per repository (a
 * pull request is an issue with more to it, see pulls.ts), and issue lists include pull requests,
 * as GitHub's do. Only users with triage access set labels and assignees; on creation GitHub drops
 * them silently for others, and so does the emulator. Labels named but missing are created.
 */
import type Database from 'better-sqlite3';
import { iso, nodeId, page, simpleUser, textParam, API, WEB } from './common.js';
import { associationOf, hasRole, requireRole } from './access.js';
import { GithubError, notFound, validationFailed, type GithubContext, type GithubRequest, type GithubUser, type Handler } from './context.js';
import type { LabelRow } from './label-table.js';
import { labelsNamed, labelView, findLabel } from './labels.js';
import { reactionRollup, subjectKey } from './reactions.js';
import { requestedRepository, type RepositoryRow } from './repositories.js';
import { overlay, relink } from './shapes.js';

export function createIssueTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS issues (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      repo_id INTEGER NOT NULL,
      number INTEGER NOT NULL,
      title TEXT NOT NULL,
      body TEXT,
      state TEXT NOT NULL DEFAULT 'open',
      state_reason TEXT,
      user_id INTEGER NOT NULL,
      login TEXT NOT NULL,
      -- [{id, login}]
      assignees TEXT NOT NULL DEFAULT '[]',
      locked INTEGER NOT NULL DEFAULT 0,
      is_pull INTEGER NOT NULL DEFAULT 0,
      closed_at INTEGER,
      closed_by TEXT,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      UNIQUE (repo_id, number)
    );
    CREATE TABLE IF NOT EXISTS issue_labels (
      repo_id INTEGER NOT NULL,
      issue_id INTEGER NOT NULL,
      label_id INTEGER NOT NULL,
      PRIMARY KEY (issue_id, label_id)
    );
  `);
}

export interface IssueRow {
  id: number;
  repo_id: number;
  number: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  state_reason: string | null;
  user_id: number;
  login: string;
  assignees: string;
  locked: number;
  is_pull: number;
  closed_at: number | null;
  closed_by: string | null;
  created_at: number;
  updated_at: number;
}

export const issueUrl = (repo: RepositoryRow, number: number) => `${API}/repos/${repo.full_name}/issues/${number}`;

export function findIssue(db: Database.Database, repo: RepositoryRow, number: number): IssueRow {
  const row = db.prepare('SELECT * FROM issues WHERE repo_id = ? AND number = ?').get(repo.id, number) as IssueRow | undefined;
  if (!row) throw notFound();
  return row;
}

/** Opens an issue (or the issue half of a pull request) under the repository's next number. */
export function insertIssue(
  ctx: GithubContext,
  repo: RepositoryRow,
  user: GithubUser,
  fields: { title: string; body?: string | null; isPull?: boolean },
): IssueRow {
  const number = (ctx.db.prepare('SELECT COALESCE(MAX(number), 0) + 1 AS n FROM issues WHERE repo_id = ?').get(repo.id) as { n: number }).n;
  const now = ctx.clock.now();
  ctx.db
    .prepare('INSERT INTO issues (repo_id, number, title, body, user_id, login, is_pull, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
    .run(repo.id, number, fields.title, fields.body ?? null, user.id, user.login, fields.isPull ? 1 : 0, now, now);
  return findIssue(ctx.db, repo, number);
}

export const labelsOn = (db: Database.Database, issue: IssueRow) =>
  db
    .prepare('SELECT labels.* FROM issue_labels JOIN labels ON labels.id = issue_labels.label_id WHERE issue_id = ? ORDER BY labels.name COLLATE NOCASE')
    .all(issue.id) as LabelRow[];

export const assigneesOf = (issue: IssueRow) => JSON.parse(issue.assignees) as GithubUser[];

/** The `issue` shape. */
export function issueView(ctx: GithubContext, repo: RepositoryRow, issue: IssueRow) {
  const url = issueUrl(repo, issue.number);
  const assignees = assigneesOf(issue).map((user) => simpleUser(user));
  const comments = (ctx.db.prepare('SELECT COUNT(*) AS n FROM issue_comments WHERE issue_id = ?').get(issue.id) as { n: number }).n;
  const closedBy = issue.closed_by ? simpleUser(ctx.user(issue.closed_by)) : null;
  const view = overlay(relink(ctx.sample('issues/get'), repo.full_name), {
    id: issue.id,
    node_id: nodeId('Issue', issue.id),
    url,
    repository_url: `${API}/repos/${repo.full_name}`,
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    timeline_url: `${url}/timeline`,
    html_url: `${WEB}/${repo.full_name}/${issue.is_pull ? 'pull' : 'issues'}/${issue.number}`,
    number: issue.number,
    state: issue.state,
    state_reason: issue.state_reason,
    title: issue.title,
    body: issue.body,
    user: simpleUser({ id: issue.user_id, login: issue.login }),
    labels: labelsOn(ctx.db, issue).map((label) => labelView(repo, label)),
    assignee: assignees[0] ?? null,
    assignees,
    milestone: null,
    locked: issue.locked === 1,
    active_lock_reason: null,
    comments,
    closed_at: issue.closed_at === null ? null : iso(issue.closed_at),
    closed_by: closedBy,
    created_at: iso(issue.created_at),
    updated_at: iso(issue.updated_at),
    author_association: associationOf(ctx.db, repo, { id: issue.user_id, login: issue.login }),
  });
  // Optional in the schema and absent from the sample, but GitHub always sends the summary.
  Object.assign(view, { reactions: reactionRollup(ctx.db, subjectKey('issue', issue.id), url) });
  // Fields the emulator keeps no state for, which would otherwise show the sample's.
  for (const key of ['repository', 'performed_via_github_app', 'body_html', 'body_text', 'draft', 'pull_request'])
    delete (view as Record<string, unknown>)[key];
  if (issue.is_pull) {
    const pull = `${API}/repos/${repo.full_name}/pulls/${issue.number}`;
    const html = `${WEB}/${repo.full_name}/pull/${issue.number}`;
    Object.assign(view, { pull_request: { url: pull, html_url: html, diff_url: `${html}.diff`, patch_url: `${html}.patch`, merged_at: null } });
  }
  return view;
}

const issueOf = (req: GithubRequest, ctx: GithubContext, repo: RepositoryRow) => findIssue(ctx.db, repo, Number(req.params.issue_number));

/** Assignees must be able to work on the repository (write access), else 422 as GitHub answers. */
function assignable(ctx: GithubContext, repo: RepositoryRow, logins: string[]): GithubUser[] {
  return [...new Set(logins.map((login) => login.toLowerCase()))].map((login) => {
    const user = ctx.user(login);
    if (!hasRole(ctx.db, repo, user, 'write'))
      throw validationFailed([{ resource: 'Issue', code: 'invalid', field: 'assignees', message: `${login} cannot be assigned` }]);
    return user;
  });
}

/** Label names from any of the body forms the description allows: names, or objects with a name. */
const labelNames = (labels: unknown[] | undefined): string[] =>
  (labels ?? []).map((label) => (typeof label === 'string' ? label : String((label as { name?: unknown }).name ?? ''))).filter(Boolean);

function setLabels(db: Database.Database, repo: RepositoryRow, issue: IssueRow, names: string[], replace: boolean): void {
  if (replace) db.prepare('DELETE FROM issue_labels WHERE issue_id = ?').run(issue.id);
  const add = db.prepare('INSERT OR IGNORE INTO issue_labels (repo_id, issue_id, label_id) VALUES (?, ?, ?)');
  for (const label of labelsNamed(db, repo, names)) add.run(repo.id, issue.id, label.id);
}

const touch = (ctx: GithubContext, issue: IssueRow) => ctx.db.prepare('UPDATE issues SET updated_at = ? WHERE id = ?').run(ctx.clock.now(), issue.id);

/** What issues/create and issues/update take; labels by name or as label objects. */
interface IssueInput {
  title?: string | number | null;
  body?: string | null;
  assignee?: string | null;
  assignees?: string[];
  milestone?: string | number | null;
  labels?: unknown[];
  state?: 'open' | 'closed';
  state_reason?: 'completed' | 'not_planned' | 'reopened' | null;
}

function createIssue(req: GithubRequest<IssueInput>, ctx: GithubContext) {
  const repo = requestedRepository(req, ctx);
  if ((JSON.parse(repo.settings) as { has_issues?: boolean }).has_issues === false) throw new GithubError(410, 'Issues are disabled for this repo');
  if (req.body.milestone !== undefined && req.body.milestone !== null) throw validationFailed([{ resource: 'Issue', code: 'invalid', field: 'milestone' }]);
  const issue = insertIssue(ctx, repo, req.user, { title: String(req.body.title), body: req.body.body });
  if (hasRole(ctx.db, repo, req.user, 'triage')) {
    const logins = [...(req.body.assignees ?? []), ...(req.body.assignee ? [req.body.assignee] : [])];
    ctx.db.prepare('UPDATE issues SET assignees = ? WHERE id = ?').run(JSON.stringify(assignable(ctx, repo, logins)), issue.id);
    setLabels(ctx.db, repo, issue, labelNames(req.body.labels), true);
  }
  return { status: 201, body: issueView(ctx, repo, findIssue(ctx.db, repo, issue.number)) };
}

/** The author edits title and body; state, labels and assignees, and others' issues, need triage access. */
function updateIssue(req: GithubRequest<IssueInput | undefined>, ctx: GithubContext) {
  const repo = requestedRepository(req, ctx);
  const issue = issueOf(req, ctx, repo);
  const body = req.body ?? {};
  const triaging = body.labels !== undefined || body.assignees !== undefined || body.assignee !== undefined;
  if (issue.user_id !== req.user.id || triaging) requireRole(ctx.db, repo, req.user, 'triage');
  if (body.milestone !== undefined && body.milestone !== null) throw validationFailed([{ resource: 'Issue', code: 'invalid', field: 'milestone' }]);
  if (body.title === null) throw validationFailed([{ resource: 'Issue', code: 'missing_field', field: 'title' }]);
  const now = ctx.clock.now();
  let { state, state_reason: reason, closed_at: closedAt, closed_by: closedBy } = issue;
  if (body.state && body.state !== issue.state) {
    state = body.state;
    closedAt = state === 'closed' ? now : null;
    closedBy = state === 'closed' ? req.user.login : null;
    reason = state === 'closed' ? (body.state_reason ?? 'completed') : 'reopened';
  } else if (body.state_reason !== undefined && state === 'closed') {
    reason = body.state_reason;
  }
  const assignees =
    body.assignees !== undefined || body.assignee !== undefined
      ? JSON.stringify(assignable(ctx, repo, [...(body.assignees ?? []), ...(body.assignee ? [body.assignee] : [])]))
      : issue.assignees;
  ctx.db
    .prepare('UPDATE issues SET title = ?, body = ?, state = ?, state_reason = ?, closed_at = ?, closed_by = ?, assignees = ?, updated_at = ? WHERE id = ?')
    .run(
      body.title === undefined ? issue.title : String(body.title),
      body.body === undefined ? issue.body : body.body,
      state,
      reason,
      closedAt,
      closedBy,
      assignees,
      now,
      issue.id,
    );
  if (body.labels !== undefined) setLabels(ctx.db, repo, issue, labelNames(body.labels), true);
  return { status: 200, body: issueView(ctx, repo, findIssue(ctx.db, repo, issue.number)) };
}

function listIssues(req: GithubRequest, ctx: GithubContext) {
  const repo = requestedRepository(req, ctx);
  const state = textParam(req.query.state) ?? 'open';
  const wantedLabels = (textParam(req.query.labels) ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const assignee = textParam(req.query.assignee);
  const creator = textParam(req.query.creator)?.toLowerCase();
  const milestone = textParam(req.query.milestone);
  const since = textParam(req.query.since);
  const sort = textParam(req.query.sort) ?? 'created';
  const direction = textParam(req.query.direction) ?? 'desc';
  const rows = (ctx.db.prepare('SELECT * FROM issues WHERE repo_id = ?').all(repo.id) as IssueRow[]).filter((issue) => {
    if (state !== 'all' && issue.state !== state) return false;
    if (creator && issue.login.toLowerCase() !== creator) return false;
    // The emulator keeps no milestones: no issue has one.
    if (milestone && milestone !== 'none') return false;
    if (since && issue.updated_at < Date.parse(since)) return false;
    const assigned = assigneesOf(issue).map((user) => user.login.toLowerCase());
    if (assignee === 'none' && assigned.length) return false;
    if (assignee === '*' && !assigned.length) return false;
    if (assignee && assignee !== 'none' && assignee !== '*' && !assigned.includes(assignee.toLowerCase())) return false;
    const names = labelsOn(ctx.db, issue).map((label) => label.name.toLowerCase());
    return wantedLabels.every((name) => names.includes(name));
  });
  const key = (issue: IssueRow) =>
    sort === 'updated'
      ? issue.updated_at
      : sort === 'comments'
        ? (ctx.db.prepare('SELECT COUNT(*) AS n FROM issue_comments WHERE issue_id = ?').get(issue.id) as { n: number }).n
        : issue.created_at;
  rows.sort((a, b) => key(a) - key(b) || a.number - b.number);
  if (direction === 'desc') rows.reverse();
  return { status: 200, body: page(rows, req.query).map((issue) => issueView(ctx, repo, issue)) };
}

/** Each label operation: the issue, labelling rights checked, then the labels it ends up with. */
function onIssueLabels(
  change: (ctx: GithubContext, repo: RepositoryRow, issue: IssueRow, req: GithubRequest<{ labels?: unknown[] } | undefined>) => void,
  status = 200,
): Handler {
  return (req: GithubRequest<{ labels?: unknown[] } | undefined>, ctx) => {
    const repo = requestedRepository(req, ctx);
    const issue = issueOf(req, ctx, repo);
    requireRole(ctx.db, repo, req.user, 'triage');
    change(ctx, repo, issue, req);
    touch(ctx, issue);
    return status === 204 ? { status } : { status, body: labelsOn(ctx.db, issue).map((label) => labelView(repo, label)) };
  };
}

export const issueHandlers: Record<string, Handler> = {
  'issues/create': createIssue,
  'issues/get': (req, ctx) => {
    const repo = requestedRepository(req, ctx);
    return { status: 200, body: issueView(ctx, repo, issueOf(req, ctx, repo)) };
  },
  'issues/update': updateIssue,
  'issues/list-for-repo': listIssues,

  'issues/list-labels-on-issue': (req, ctx) => {
    const repo = requestedRepository(req, ctx);
    return { status: 200, body: page(labelsOn(ctx.db, issueOf(req, ctx, repo)), req.query).map((label) => labelView(repo, label)) };
  },
  'issues/add-labels': onIssueLabels((ctx, repo, issue, req) => setLabels(ctx.db, repo, issue, labelNames(req.body?.labels), false)),
  'issues/set-labels': onIssueLabels((ctx, repo, issue, req) => setLabels(ctx.db, repo, issue, labelNames(req.body?.labels), true)),
  'issues/remove-label': onIssueLabels((ctx, repo, issue, req) => {
    const label = findLabel(ctx.db, repo, req.params.name ?? '');
    const removed = label && ctx.db.prepare('DELETE FROM issue_labels WHERE issue_id = ? AND label_id = ?').run(issue.id, label.id).changes;
    if (!removed) throw new GithubError(404, 'Label does not exist');
  }),
  'issues/remove-all-labels': onIssueLabels((ctx, _repo, issue) => void ctx.db.prepare('DELETE FROM issue_labels WHERE issue_id = ?').run(issue.id), 204),
};
