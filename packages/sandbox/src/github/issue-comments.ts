/**
 * Comments on issues (and on pull requests as issues). Anyone who can see the repository comments;
 * the author or someone with write access edits and deletes.
 */
import type Database from 'better-sqlite3';
import { iso, nodeId, page, simpleUser, API, WEB } from './common.js';
import { associationOf } from './access.js';
import { commentHandlers, findComment, listed, repositoryComments, type CommentKind } from './comments.js';
import type { GithubContext, GithubRequest, Handler } from './context.js';
import { findIssue, issueUrl, type IssueRow } from './issues.js';
import { reactionRollup, subjectKey } from './reactions.js';
import { requestedRepository, type RepositoryRow } from './repositories.js';
import { overlay } from './shapes.js';

export function createIssueCommentTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS issue_comments (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      repo_id INTEGER NOT NULL,
      issue_id INTEGER NOT NULL,
      issue_number INTEGER NOT NULL,
      user_id INTEGER NOT NULL,
      login TEXT NOT NULL,
      body TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
  `);
}

interface CommentRow {
  id: number;
  repo_id: number;
  issue_id: number;
  issue_number: number;
  user_id: number;
  login: string;
  body: string;
  created_at: number;
  updated_at: number;
}

/** The `issue-comment` shape. */
function commentView(ctx: GithubContext, repo: RepositoryRow, comment: CommentRow) {
  const url = `${API}/repos/${repo.full_name}/issues/comments/${comment.id}`;
  const user = { id: comment.user_id, login: comment.login };
  const view = overlay(ctx.sample('issues/get-comment'), {
    id: comment.id,
    node_id: nodeId('IssueComment', comment.id),
    url,
    html_url: `${WEB}/${repo.full_name}/issues/${comment.issue_number}#issuecomment-${comment.id}`,
    issue_url: issueUrl(repo, comment.issue_number),
    body: comment.body,
    user: simpleUser(user),
    created_at: iso(comment.created_at),
    updated_at: iso(comment.updated_at),
    author_association: associationOf(ctx.db, repo, user),
  });
  for (const key of ['performed_via_github_app', 'body_html', 'body_text']) delete (view as Record<string, unknown>)[key];
  // Optional in the schema and absent from the sample, but GitHub always sends the summary.
  return { ...view, reactions: reactionRollup(ctx.db, subjectKey('issue_comment', comment.id), url) };
}

const comments: CommentKind<CommentRow> = { table: 'issue_comments', subject: 'issue_comment', view: commentView };

export const issueCommentHandlers: Record<string, Handler> = {
  'issues/create-comment': (req: GithubRequest<{ body: string }>, ctx) => {
    const repo = requestedRepository(req, ctx);
    const issue: IssueRow = findIssue(ctx.db, repo, Number(req.params.issue_number));
    const now = ctx.clock.now();
    const { lastInsertRowid } = ctx.db
      .prepare('INSERT INTO issue_comments (repo_id, issue_id, issue_number, user_id, login, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(repo.id, issue.id, issue.number, req.user.id, req.user.login, req.body.body, now, now);
    ctx.db.prepare('UPDATE issues SET updated_at = ? WHERE id = ?').run(now, issue.id);
    return { status: 201, body: commentView(ctx, repo, findComment(ctx, comments, repo, Number(lastInsertRowid))) };
  },
  ...commentHandlers(comments, { get: 'issues/get-comment', update: 'issues/update-comment', delete: 'issues/delete-comment' }),
  'issues/list-comments': (req, ctx) => {
    const repo = requestedRepository(req, ctx);
    const issue = findIssue(ctx.db, repo, Number(req.params.issue_number));
    const rows = ctx.db.prepare('SELECT * FROM issue_comments WHERE issue_id = ?').all(issue.id) as CommentRow[];
    return { status: 200, body: page(listed(rows, req), req.query).map((comment) => commentView(ctx, repo, comment)) };
  },
  'issues/list-comments-for-repo': repositoryComments(comments),
};
