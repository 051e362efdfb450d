/**
 * Comments on commits. The commit must exist in the repository's git data (the git-data module
 * resolves SHAs, branch and tag names); GitHub refuses a comment on an unknown commit with 422.
 */
import type Database from 'better-sqlite3';
import { iso, nodeId, page, simpleUser, API, WEB } from './common.js';
import { associationOf } from './access.js';
import { commentHandlers, findComment, type CommentKind } from './comments.js';
import { GithubError, type GithubContext, type GithubRequest, type Handler } from './context.js';
import { resolveCommit } from './git-data.js';
import { reactionRollup, subjectKey } from './reactions.js';
import { toRepository, requestedRepository, type RepositoryRow } from './repositories.js';
import { overlay } from './shapes.js';

export function createCommitCommentTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS commit_comments (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      repo_id INTEGER NOT NULL,
      commit_id TEXT NOT NULL,
      path TEXT,
      position INTEGER,
      line INTEGER,
      body TEXT NOT NULL,
      user_id INTEGER NOT NULL,
      login TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
  `);
}

interface CommentRow {
  id: number;
  repo_id: number;
  commit_id: string;
  path: string | null;
  position: number | null;
  line: number | null;
  body: string;
  user_id: number;
  login: string;
  created_at: number;
  updated_at: number;
}

/** The `commit-comment` shape. */
function commentView(ctx: GithubContext, repo: RepositoryRow, comment: CommentRow) {
  const url = `${API}/repos/${repo.full_name}/comments/${comment.id}`;
  const user = { id: comment.user_id, login: comment.login };
  const view = overlay(ctx.sample('repos/get-commit-comment'), {
    id: comment.id,
    node_id: nodeId('CommitComment', comment.id),
    url,
    html_url: `${WEB}/${repo.full_name}/commit/${comment.commit_id}#commitcomment-${comment.id}`,
    commit_id: comment.commit_id,
    path: comment.path,
    position: comment.position,
    line: comment.line,
    body: comment.body,
    user: simpleUser(user),
    author_association: associationOf(ctx.db, repo, user),
    created_at: iso(comment.created_at),
    updated_at: iso(comment.updated_at),
  });
  // Optional in the schema and absent from the sample, but GitHub always sends the summary.
  return { ...view, reactions: reactionRollup(ctx.db, subjectKey('commit_comment', comment.id), url) };
}

const comments: CommentKind<CommentRow> = { table: 'commit_comments', subject: 'commit_comment', view: commentView };

/** The commit's full SHA; 422 when the repository has no such commit. */
function commitOf(ctx: GithubContext, repo: RepositoryRow, sha: string): string {
  const found = resolveCommit(ctx, toRepository(repo), sha);
  if (!found) throw new GithubError(422, `No commit found for SHA: ${sha}`);
  return found;
}

export const commitCommentHandlers: Record<string, Handler> = {
  'repos/create-commit-comment': (req: GithubRequest<{ body: string; path?: string; position?: number; line?: number }>, ctx) => {
    const repo = requestedRepository(req, ctx);
    const sha = commitOf(ctx, repo, req.params.commit_sha ?? '');
    const now = ctx.clock.now();
    const { lastInsertRowid } = ctx.db
      .prepare(
        'INSERT INTO commit_comments (repo_id, commit_id, path, position, line, body, user_id, login, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(repo.id, sha, req.body.path ?? null, req.body.position ?? null, req.body.line ?? null, req.body.body, req.user.id, req.user.login, now, now);
    return { status: 201, body: commentView(ctx, repo, findComment(ctx, comments, repo, Number(lastInsertRowid))) };
  },
  ...commentHandlers(comments, { get: 'repos/get-commit-comment', update: 'repos/update-commit-comment', delete: 'repos/delete-commit-comment' }),
  'repos/list-commit-comments-for-repo': (req, ctx) => {
    const repo = requestedRepository(req, ctx);
    const rows = ctx.db.prepare('SELECT * FROM commit_comments WHERE repo_id = ? ORDER BY id').all(repo.id) as CommentRow[];
    return { status: 200, body: page(rows, req.query).map((comment) => commentView(ctx, repo, comment)) };
  },
  'repos/list-comments-for-commit': (req, ctx) => {
    const repo = requestedRepository(req, ctx);
    const sha = commitOf(ctx, repo, req.params.commit_sha ?? '');
    const rows = ctx.db.prepare('SELECT * FROM commit_comments WHERE repo_id = ? AND commit_id = ? ORDER BY id').all(repo.id, sha) as CommentRow[];
    return { status: 200, body: page(rows, req.query).map((comment) => commentView(ctx, repo, comment)) };
  },
};
