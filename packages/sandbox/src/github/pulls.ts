/**
 * Pull requests, as far as review comments need them: opened between two branches of one
 * repository (both must exist in its git data, and the caller needs write access, as GitHub asks for
 * the head branch), read, listed and edited. A pull request is an issue too: it takes the next issue
 * number and shows in issue lists. Merging, reviews and cross-repository heads are answered from
 * samples only.
 */
import type Database from 'better-sqlite3';
import { iso, nodeId, page, simpleUser, textParam, API, WEB } from './common.js';
import { associationOf, requireRole } from './access.js';
import { notFound, validationFailed, type GithubContext, type GithubRequest, type Handler } from './context.js';
import { resolveCommit } from './git-data.js';
import { assigneesOf, findIssue, insertIssue, issueUrl, labelsOn, type IssueRow } from './issues.js';
import { labelView } from './labels.js';
import { repositoryView, toRepository, requestedRepository, type RepositoryRow } from './repositories.js';
import { overlay, relink } from './shapes.js';

export function createPullTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS pulls (
      issue_id INTEGER PRIMARY KEY,
      repo_id INTEGER NOT NULL,
      number INTEGER NOT NULL,
      head_ref TEXT NOT NULL,
      head_sha TEXT NOT NULL,
      base_ref TEXT NOT NULL,
      base_sha TEXT NOT NULL,
      draft INTEGER NOT NULL DEFAULT 0,
      maintainer_can_modify INTEGER NOT NULL DEFAULT 0
    );
  `);
}

export interface PullRow {
  issue_id: number;
  repo_id: number;
  number: number;
  head_ref: string;
  head_sha: string;
  base_ref: string;
  base_sha: string;
  draft: number;
  maintainer_can_modify: number;
}

export const pullUrl = (repo: RepositoryRow, number: number) => `${API}/repos/${repo.full_name}/pulls/${number}`;

export function findPull(db: Database.Database, repo: RepositoryRow, number: number): PullRow {
  const pull = db.prepare('SELECT * FROM pulls WHERE repo_id = ? AND number = ?').get(repo.id, number) as PullRow | undefined;
  if (!pull) throw notFound();
  return pull;
}

/** The tip of a branch; 422 naming the field when the repository has no such branch. */
function branchTip(ctx: GithubContext, repo: RepositoryRow, branch: string, field: 'head' | 'base'): string {
  const sha = resolveCommit(ctx, toRepository(repo), `refs/heads/${branch}`);
  if (!sha) throw validationFailed([{ resource: 'PullRequest', field, code: 'invalid' }]);
  return sha;
}

/** One end of a pull request: the sample's shape with this branch, commit and repository. */
function end(ctx: GithubContext, repo: RepositoryRow, sample: Record<string, any>, ref: string, sha: string, viewer: GithubRequest['user']) {
  const owner = simpleUser(ctx.user(repo.owner));
  // The nested repository is a smaller object than any repository shape: only its plain fields and owner are written.
  const plain = Object.fromEntries(
    Object.entries(repositoryView(ctx, repo, viewer, 'repos/create-for-authenticated-user')).filter(([, value]) => value === null || typeof value !== 'object'),
  );
  return overlay(sample, {
    label: `${repo.owner}:${ref}`,
    ref,
    sha,
    user: owner,
    repo: sample.repo ? overlay(sample.repo, { ...plain, owner }) : undefined,
  });
}

/** The `pull-request` shape (or `pull-request-simple` for lists). */
export function pullView(ctx: GithubContext, repo: RepositoryRow, pull: PullRow, viewer: GithubRequest['user'], label = 'pulls/get') {
  const issue = findIssue(ctx.db, repo, pull.number);
  const url = pullUrl(repo, pull.number);
  const html = `${WEB}/${repo.full_name}/pull/${pull.number}`;
  // Lists answer the smaller `pull-request-simple`; its sample has only the fields it allows.
  const answered = ctx.sample(label);
  const sample = relink(Array.isArray(answered) ? answered[0] : answered, repo.full_name);
  const assignees = assigneesOf(issue).map((user) => simpleUser(user));
  const count = (sql: string) => (ctx.db.prepare(sql).get(issue.id) as { n: number }).n;
  const link = (href: string) => ({ href });
  return overlay(sample, {
    id: issue.id,
    node_id: nodeId('PullRequest', issue.id),
    url,
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: issueUrl(repo, pull.number),
    commits_url: `${url}/commits`,
    review_comments_url: `${url}/comments`,
    review_comment_url: `${API}/repos/${repo.full_name}/pulls/comments{/number}`,
    comments_url: `${issueUrl(repo, pull.number)}/comments`,
    statuses_url: `${API}/repos/${repo.full_name}/statuses/${pull.head_sha}`,
    number: pull.number,
    state: issue.state,
    locked: issue.locked === 1,
    title: issue.title,
    body: issue.body,
    user: simpleUser({ id: issue.user_id, login: issue.login }),
    labels: labelsOn(ctx.db, issue).map((label) => labelView(repo, label)),
    milestone: null,
    active_lock_reason: null,
    assignee: assignees[0] ?? null,
    assignees,
    requested_reviewers: [],
    requested_teams: [],
    head: end(ctx, repo, sample.head, pull.head_ref, pull.head_sha, viewer),
    base: end(ctx, repo, sample.base, pull.base_ref, pull.base_sha, viewer),
    _links: {
      self: link(url),
      html: link(html),
      issue: link(issueUrl(repo, pull.number)),
      comments: link(`${issueUrl(repo, pull.number)}/comments`),
      review_comments: link(`${url}/comments`),
      review_comment: link(`${API}/repos/${repo.full_name}/pulls/comments{/number}`),
      commits: link(`${url}/commits`),
      statuses: link(`${API}/repos/${repo.full_name}/statuses/${pull.head_sha}`),
    },
    author_association: associationOf(ctx.db, repo, { id: issue.user_id, login: issue.login }),
    auto_merge: null,
    draft: pull.draft === 1,
    merged: false,
    merged_at: null,
    merged_by: null,
    merge_commit_sha: null,
    mergeable: true,
    rebaseable: true,
    mergeable_state: 'clean',
    maintainer_can_modify: pull.maintainer_can_modify === 1,
    comments: count('SELECT COUNT(*) AS n FROM issue_comments WHERE issue_id = ?'),
    review_comments: count('SELECT COUNT(*) AS n FROM review_comments WHERE pull_issue_id = ?'),
    closed_at: issue.closed_at === null ? null : iso(issue.closed_at),
    created_at: iso(issue.created_at),
    updated_at: iso(issue.updated_at),
  });
}

/** `owner:branch` names a branch of `owner`'s repository; only this repository's own branches are known here. */
function branchName(repo: RepositoryRow, head: string): string {
  const [owner, branch] = head.includes(':') ? head.split(/:(.*)/s) : [repo.owner, head];
  if (owner!.toLowerCase() !== repo.owner.toLowerCase()) throw validationFailed([{ resource: 'PullRequest', field: 'head', code: 'invalid' }]);
  return branch!;
}

interface PullInput {
  title?: string;
  head: string;
  head_repo?: string;
  base: string;
  body?: string;
  maintainer_can_modify?: boolean;
  draft?: boolean;
  issue?: number;
}

function createPull(req: GithubRequest<PullInput>, ctx: GithubContext) {
  const repo = requestedRepository(req, ctx);
  requireRole(ctx.db, repo, req.user, 'write');
  const head = branchName(repo, req.body.head);
  const base = String(req.body.base);
  const headSha = branchTip(ctx, repo, head, 'head');
  const baseSha = branchTip(ctx, repo, base, 'base');
  const open = ctx.db
    .prepare(
      "SELECT 1 FROM pulls JOIN issues ON issues.id = pulls.issue_id WHERE pulls.repo_id = ? AND head_ref = ? AND base_ref = ? AND issues.state = 'open'",
    )
    .get(repo.id, head, base);
  if (open) throw validationFailed([{ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${repo.owner}:${head}.` }]);
  let issue: IssueRow;
  if (req.body.issue !== undefined) {
    // Turning an existing issue into a pull request keeps its number, title and body.
    issue = findIssue(ctx.db, repo, Number(req.body.issue));
    if (issue.is_pull) throw validationFailed([{ resource: 'PullRequest', field: 'issue', code: 'invalid' }]);
    ctx.db.prepare('UPDATE issues SET is_pull = 1 WHERE id = ?').run(issue.id);
  } else {
    if (req.body.title === undefined) throw validationFailed([{ resource: 'PullRequest', field: 'title', code: 'missing_field' }]);
    issue = insertIssue(ctx, repo, req.user, { title: req.body.title, body: req.body.body, isPull: true });
  }
  ctx.db
    .prepare(
      'INSERT INTO pulls (issue_id, repo_id, number, head_ref, head_sha, base_ref, base_sha, draft, maintainer_can_modify) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    )
    .run(issue.id, repo.id, issue.number, head, headSha, base, baseSha, req.body.draft ? 1 : 0, req.body.maintainer_can_modify ? 1 : 0);
  return { status: 201, body: pullView(ctx, repo, findPull(ctx.db, repo, issue.number), req.user) };
}

function updatePull(
  req: GithubRequest<{ title?: string; body?: string; state?: 'open' | 'closed'; base?: string; maintainer_can_modify?: boolean } | undefined>,
  ctx: GithubContext,
) {
  const repo = requestedRepository(req, ctx);
  const pull = findPull(ctx.db, repo, Number(req.params.pull_number));
  const issue = findIssue(ctx.db, repo, pull.number);
  if (issue.user_id !== req.user.id) requireRole(ctx.db, repo, req.user, 'write');
  const body = req.body ?? {};
  const now = ctx.clock.now();
  const state = body.state ?? issue.state;
  const closing = state !== issue.state;
  ctx.db
    .prepare('UPDATE issues SET title = ?, body = ?, state = ?, closed_at = ?, closed_by = ?, state_reason = ?, updated_at = ? WHERE id = ?')
    .run(
      body.title ?? issue.title,
      body.body === undefined ? issue.body : body.body,
      state,
      closing ? (state === 'closed' ? now : null) : issue.closed_at,
      closing ? (state === 'closed' ? req.user.login : null) : issue.closed_by,
      closing ? (state === 'closed' ? null : 'reopened') : issue.state_reason,
      now,
      issue.id,
    );
  if (body.base !== undefined) {
    ctx.db.prepare('UPDATE pulls SET base_ref = ?, base_sha = ? WHERE issue_id = ?').run(body.base, branchTip(ctx, repo, body.base, 'base'), pull.issue_id);
  }
  if (body.maintainer_can_modify !== undefined)
    ctx.db.prepare('UPDATE pulls SET maintainer_can_modify = ? WHERE issue_id = ?').run(body.maintainer_can_modify ? 1 : 0, pull.issue_id);
  return { status: 200, body: pullView(ctx, repo, findPull(ctx.db, repo, pull.number), req.user) };
}

function listPulls(req: GithubRequest, ctx: GithubContext) {
  const repo = requestedRepository(req, ctx);
  const state = textParam(req.query.state) ?? 'open';
  const head = textParam(req.query.head);
  const base = textParam(req.query.base);
  const rows = (
    ctx.db
      .prepare(
        'SELECT pulls.*, issues.state AS state, issues.created_at AS created_at, issues.updated_at AS updated_at FROM pulls JOIN issues ON issues.id = pulls.issue_id WHERE pulls.repo_id = ?',
      )
      .all(repo.id) as Array<PullRow & { state: string; created_at: number; updated_at: number }>
  ).filter(
    (pull) =>
      (state === 'all' || pull.state === state) &&
      (!head || `${repo.owner}:${pull.head_ref}`.toLowerCase() === head.toLowerCase()) &&
      (!base || pull.base_ref === base),
  );
  const sort = textParam(req.query.sort) ?? 'created';
  rows.sort((a, b) => (sort === 'updated' ? a.updated_at - b.updated_at : a.created_at - b.created_at) || a.number - b.number);
  if ((textParam(req.query.direction) ?? 'desc') === 'desc') rows.reverse();
  return { status: 200, body: page(rows, req.query).map((pull) => pullView(ctx, repo, pull, req.user, req.operation)) };
}

export const pullHandlers: Record<string, Handler> = {
  'pulls/create': createPull,
  'pulls/get': (req, ctx) => {
    const repo = requestedRepository(req, ctx);
    return { status: 200, body: pullView(ctx, repo, findPull(ctx.db, repo, Number(req.params.pull_number)), req.user) };
  },
  'pulls/update': updatePull,
  'pulls/list': listPulls,
};
