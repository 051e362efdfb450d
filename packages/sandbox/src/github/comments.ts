/**
 * What issue, commit and review comments have in common: each kind has its own table of rows found by
 * id within a repository; the author, or someone with write access, edits and deletes; deleting a
 * comment deletes its reactions.
 */
import { requireRole } from './access.js';
import { page, textParam } from './common.js';
import { notFound, type GithubContext, type GithubRequest, type Handler } from './context.js';
import { deleteReactions, subjectKey } from './reactions.js';
import { requestedRepository, type RepositoryRow } from './repositories.js';

export interface CommentRow {
  id: number;
  user_id: number;
  created_at: number;
  updated_at: number;
}

export interface CommentKind<Row extends CommentRow> {
  /** The table, with `repo_id`, `body` and `updated_at` columns besides the row's. */
  table: string;
  /** The reactions' subject type, e.g. `issue_comment`. */
  subject: string;
  /** The comment as GitHub answers it. */
  view(ctx: GithubContext, repo: RepositoryRow, comment: Row): unknown;
}

/** The comment `id` of `repo`; 404 when there is none. */
export function findComment<Row extends CommentRow>(ctx: GithubContext, kind: CommentKind<Row>, repo: RepositoryRow, id: number): Row {
  const comment = ctx.db.prepare(`SELECT * FROM ${kind.table} WHERE id = ? AND repo_id = ?`).get(id, repo.id) as Row | undefined;
  if (!comment) throw notFound();
  return comment;
}

/** The get, update (of the body) and delete handlers of one kind of comment, under their operation labels. */
export function commentHandlers<Row extends CommentRow>(
  kind: CommentKind<Row>,
  labels: { get: string; update: string; delete: string },
): Record<string, Handler> {
  const changeable = (req: GithubRequest, ctx: GithubContext): { repo: RepositoryRow; comment: Row } => {
    const repo = requestedRepository(req, ctx);
    const comment = findComment(ctx, kind, repo, Number(req.params.comment_id));
    if (comment.user_id !== req.user.id) requireRole(ctx.db, repo, req.user, 'write');
    return { repo, comment };
  };
  return {
    [labels.get]: (req, ctx) => {
      const repo = requestedRepository(req, ctx);
      return { status: 200, body: kind.view(ctx, repo, findComment(ctx, kind, repo, Number(req.params.comment_id))) };
    },
    [labels.update]: (req: GithubRequest<{ body: string }>, ctx) => {
      const { repo, comment } = changeable(req, ctx);
      ctx.db.prepare(`UPDATE ${kind.table} SET body = ?, updated_at = ? WHERE id = ?`).run(req.body.body, ctx.clock.now(), comment.id);
      return { status: 200, body: kind.view(ctx, repo, findComment(ctx, kind, repo, comment.id)) };
    },
    [labels.delete]: (req, ctx) => {
      const { comment } = changeable(req, ctx);
      ctx.db.prepare(`DELETE FROM ${kind.table} WHERE id = ?`).run(comment.id);
      deleteReactions(ctx.db, subjectKey(kind.subject, comment.id));
      return { status: 204 };
    },
  };
}

/** Every comment of the kind in the repository, in the order the listing asks for, paged. */
export function repositoryComments<Row extends CommentRow>(kind: CommentKind<Row>): Handler {
  return (req, ctx) => {
    const repo = requestedRepository(req, ctx);
    const rows = ctx.db.prepare(`SELECT * FROM ${kind.table} WHERE repo_id = ?`).all(repo.id) as Row[];
    return { status: 200, body: page(listed(rows, req), req.query).map((comment) => kind.view(ctx, repo, comment)) };
  };
}

/** Comments in the order a listing asks for: updated `since`, by `sort` (created or updated), in `direction`. */
export function listed<Row extends CommentRow>(rows: Row[], req: GithubRequest): Row[] {
  const since = textParam(req.query.since);
  const sort = textParam(req.query.sort) ?? 'created';
  const kept = rows.filter((row) => !since || row.updated_at >= Date.parse(since));
  kept.sort((a, b) => (sort === 'updated' ? a.updated_at - b.updated_at : a.created_at - b.created_at) || a.id - b.id);
  return textParam(req.query.direction) === 'desc' ? kept.reverse() : kept;
}
