/**
 * Review comments on pull requests and replies to them. A reply hangs on a top-level comment:
 * replying to a reply is refused, as GitHub documents ("Replies to replies are not supported"),
 * with 404 from the replies route (the only failure it documents) and 422 from create-review-comment.
 */
import type Database from 'better-sqlite3';
import { iso, nodeId, page, simpleUser, API, WEB } from './common.js';
import { associationOf } from './access.js';
import { commentHandlers, findComment, listed, repositoryComments, type CommentKind } from './comments.js';
import { GithubError, notFound, validationFailed, type GithubContext, type GithubRequest, type Handler } from './context.js';
import { resolveCommit } from './git-data.js';
import { findPull, pullUrl, type PullRow } from './pulls.js';
import { reactionRollup, subjectKey } from './reactions.js';
import { toRepository, requestedRepository, type RepositoryRow } from './repositories.js';
import { overlay } from './shapes.js';

export function createReviewCommentTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS review_comments (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      repo_id INTEGER NOT NULL,
      pull_issue_id INTEGER NOT NULL,
      pull_number INTEGER NOT NULL,
      in_reply_to_id INTEGER,
      body TEXT NOT NULL,
      path TEXT NOT NULL,
      commit_id TEXT NOT NULL,
      position INTEGER,
      line INTEGER,
      side TEXT,
      start_line INTEGER,
      start_side TEXT,
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
  pull_issue_id: number;
  pull_number: number;
  in_reply_to_id: number | null;
  body: string;
  path: string;
  commit_id: string;
  position: number | null;
  line: number | null;
  side: string | null;
  start_line: number | null;
  start_side: string | null;
  user_id: number;
  login: string;
  created_at: number;
  updated_at: number;
}

/** The `pull-request-review-comment` shape. */
function commentView(ctx: GithubContext, repo: RepositoryRow, comment: CommentRow) {
  const url = `${API}/repos/${repo.full_name}/pulls/comments/${comment.id}`;
  const html = `${WEB}/${repo.full_name}/pull/${comment.pull_number}#discussion_r${comment.id}`;
  const pull = pullUrl(repo, comment.pull_number);
  const user = { id: comment.user_id, login: comment.login };
  const view = overlay(ctx.sample('pulls/get-review-comment'), {
    id: comment.id,
    node_id: nodeId('PullRequestReviewComment', comment.id),
    url,
    html_url: html,
    pull_request_url: pull,
    pull_request_review_id: null,
    diff_hunk: '@@ -1 +1 @@',
    path: comment.path,
    commit_id: comment.commit_id,
    original_commit_id: comment.commit_id,
    body: comment.body,
    user: simpleUser(user),
    author_association: associationOf(ctx.db, repo, user),
    created_at: iso(comment.created_at),
    updated_at: iso(comment.updated_at),
    _links: { self: { href: url }, html: { href: html }, pull_request: { href: pull } },
  }) as Record<string, unknown>;
  // Where the comment sits: set as known, left out when not (several of these admit no null). The
  // sample's values, and body_html and the like, would describe another comment.
  const placement: Record<string, unknown> = {
    position: comment.position,
    original_position: comment.position,
    line: comment.line,
    original_line: comment.line,
    side: comment.side,
    start_line: comment.start_line,
    original_start_line: comment.start_line,
    start_side: comment.start_side,
    in_reply_to_id: comment.in_reply_to_id,
  };
  for (const key of ['body_html', 'body_text', 'subject_type', ...Object.keys(placement)]) delete view[key];
  for (const [key, value] of Object.entries(placement)) if (value !== null) view[key] = value;
  // Optional in the schema and absent from the sample, but GitHub always sends the summary.
  view.reactions = reactionRollup(ctx.db, subjectKey('review_comment', comment.id), url);
  return view;
}

const comments: CommentKind<CommentRow> = { table: 'review_comments', subject: 'review_comment', view: commentView };

function insert(
  ctx: GithubContext,
  repo: RepositoryRow,
  pull: PullRow,
  req: GithubRequest,
  fields: Omit<CommentRow, 'id' | 'repo_id' | 'pull_issue_id' | 'pull_number' | 'user_id' | 'login' | 'created_at' | 'updated_at'>,
) {
  const now = ctx.clock.now();
  const { lastInsertRowid } = ctx.db
    .prepare(
      `INSERT INTO review_comments (repo_id, pull_issue_id, pull_number, in_reply_to_id, body, path, commit_id, position, line, side, start_line, start_side, user_id, login, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      repo.id,
      pull.issue_id,
      pull.number,
      fields.in_reply_to_id,
      fields.body,
      fields.path,
      fields.commit_id,
      fields.position,
      fields.line,
      fields.side,
      fields.start_line,
      fields.start_side,
      req.user.id,
      req.user.login,
      now,
      now,
    );
  return { status: 201, body: commentView(ctx, repo, findComment(ctx, comments, repo, Number(lastInsertRowid))) };
}

/** A reply copies where its top-level comment sits in the diff. */
const replyTo = (parent: CommentRow, body: string) => ({
  in_reply_to_id: parent.id,
  body,
  path: parent.path,
  commit_id: parent.commit_id,
  position: parent.position,
  line: parent.line,
  side: parent.side,
  start_line: parent.start_line,
  start_side: parent.start_side,
});

/** A review comment: on a line (or range) of the diff, or, with in_reply_to, a reply. */
interface ReviewCommentInput {
  body: string;
  commit_id: string;
  path: string;
  position?: number;
  side?: 'LEFT' | 'RIGHT';
  line?: number;
  start_line?: number;
  start_side?: 'LEFT' | 'RIGHT' | 'side';
  in_reply_to?: number;
}

function createComment(req: GithubRequest<ReviewCommentInput>, ctx: GithubContext) {
  const repo = requestedRepository(req, ctx);
  const pull = findPull(ctx.db, repo, Number(req.params.pull_number));
  const body = req.body;
  if (body.in_reply_to !== undefined) {
    const parent = ctx.db.prepare('SELECT * FROM review_comments WHERE id = ? AND pull_issue_id = ?').get(body.in_reply_to, pull.issue_id) as
      | CommentRow
      | undefined;
    if (!parent || parent.in_reply_to_id !== null)
      throw validationFailed([
        {
          resource: 'PullRequestReviewComment',
          field: 'in_reply_to',
          code: 'invalid',
          message: 'in_reply_to must be a top-level review comment of this pull request',
        },
      ]);
    return insert(ctx, repo, pull, req, replyTo(parent, body.body));
  }
  if (!resolveCommit(ctx, toRepository(repo), body.commit_id))
    throw validationFailed([{ resource: 'PullRequestReviewComment', field: 'commit_id', code: 'invalid' }]);
  if (body.position === undefined && body.line === undefined)
    throw validationFailed([{ resource: 'PullRequestReviewComment', field: 'line', code: 'missing_field' }]);
  return insert(ctx, repo, pull, req, {
    in_reply_to_id: null,
    body: body.body,
    path: body.path,
    commit_id: body.commit_id,
    position: body.position ?? null,
    line: body.line ?? null,
    side: body.side ?? (body.line === undefined ? null : 'RIGHT'),
    start_line: body.start_line ?? null,
    start_side: body.start_side ?? (body.start_line === undefined ? null : 'RIGHT'),
  });
}

function createReply(req: GithubRequest<{ body: string }>, ctx: GithubContext) {
  const repo = requestedRepository(req, ctx);
  const pull = findPull(ctx.db, repo, Number(req.params.pull_number));
  const parent = ctx.db.prepare('SELECT * FROM review_comments WHERE id = ? AND pull_issue_id = ?').get(Number(req.params.comment_id), pull.issue_id) as
    | CommentRow
    | undefined;
  if (!parent) throw notFound();
  if (parent.in_reply_to_id !== null) throw new GithubError(404, 'Not Found: replies to replies are not supported; reply to the top-level review comment');
  return insert(ctx, repo, pull, req, replyTo(parent, req.body.body));
}

export const reviewCommentHandlers: Record<string, Handler> = {
  'pulls/create-review-comment': createComment,
  'pulls/create-reply-for-review-comment': createReply,
  ...commentHandlers(comments, { get: 'pulls/get-review-comment', update: 'pulls/update-review-comment', delete: 'pulls/delete-review-comment' }),
  'pulls/list-review-comments': (req, ctx) => {
    const repo = requestedRepository(req, ctx);
    const pull = findPull(ctx.db, repo, Number(req.params.pull_number));
    const rows = ctx.db.prepare('SELECT * FROM review_comments WHERE pull_issue_id = ?').all(pull.issue_id) as CommentRow[];
    return { status: 200, body: page(listed(rows, req), req.query).map((comment) => commentView(ctx, repo, comment)) };
  },
  'pulls/list-review-comments-for-repo': repositoryComments(comments),
};
