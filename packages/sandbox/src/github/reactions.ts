/**
 * Reactions on issues, issue comments, commit comments, pull-request review comments, releases,
 * team discussions and team discussion comments. A user reacts with a given content once per
 * subject: repeating it answers 200 with the existing reaction, a new one answers 201. The contents
 * allowed (eight, or six for releases) are enforced by the request schema.
 *
 * Issues and comments must exist here. Releases and team discussions belong to parts of the API the
 * emulator answers from samples only, so any id is taken (within a repository the caller can see).
 */
import type Database from 'better-sqlite3';
import { iso, nodeId, page, simpleUser, textParam } from './common.js';
import { GithubError, notFound, type GithubContext, type GithubRequest, type Handler } from './context.js';
import { requestedRepository } from './repositories.js';

export function createReactionTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS reactions (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      -- 0 for team discussions, which belong to no repository
      repo_id INTEGER NOT NULL,
      subject TEXT NOT NULL,
      user_id INTEGER NOT NULL,
      login TEXT NOT NULL,
      content TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      UNIQUE (subject, user_id, content)
    );
  `);
}

interface ReactionRow {
  id: number;
  repo_id: number;
  subject: string;
  user_id: number;
  login: string;
  content: string;
  created_at: number;
}

const CONTENTS = ['+1', '-1', 'laugh', 'confused', 'heart', 'hooray', 'eyes', 'rocket'] as const;

/** Subjects are keyed by kind and id, e.g. "issue:12"; the key is what a reaction hangs on. */
export const subjectKey = (kind: string, id: number | string) => `${kind}:${id}`;

/** The `reaction-rollup` summary that issues and comments carry. */
export function reactionRollup(db: Database.Database, subject: string, url: string) {
  const counts = Object.fromEntries(CONTENTS.map((content) => [content, 0])) as Record<(typeof CONTENTS)[number], number>;
  const rows = db.prepare('SELECT content, COUNT(*) AS n FROM reactions WHERE subject = ? GROUP BY content').all(subject) as Array<{
    content: (typeof CONTENTS)[number];
    n: number;
  }>;
  for (const row of rows) counts[row.content] = row.n;
  return { url: `${url}/reactions`, total_count: rows.reduce((sum, row) => sum + row.n, 0), ...counts };
}

/** Removes every reaction on a subject that is being deleted. */
export const deleteReactions = (db: Database.Database, subject: string) => db.prepare('DELETE FROM reactions WHERE subject = ?').run(subject);

/** The `reaction` shape. */
const reactionView = (row: ReactionRow) => ({
  id: row.id,
  node_id: nodeId('Reaction', row.id),
  user: simpleUser({ id: row.user_id, login: row.login }),
  content: row.content,
  created_at: iso(row.created_at),
});

interface Subject {
  repoId: number;
  key: string;
}

type Locate = (req: GithubRequest, ctx: GithubContext) => Subject;

/** A subject stored in one of this emulator's tables, found by a path parameter within the repository. */
function stored(kind: string, table: string, column: string, param: string): Locate {
  return (req, ctx) => {
    const repo = requestedRepository(req, ctx);
    const row = ctx.db.prepare(`SELECT id FROM ${table} WHERE repo_id = ? AND ${column} = ?`).get(repo.id, Number(req.params[param])) as
      | { id: number }
      | undefined;
    if (!row) throw notFound();
    return { repoId: repo.id, key: subjectKey(kind, row.id) };
  };
}

const release: Locate = (req, ctx) => {
  const repo = requestedRepository(req, ctx);
  return { repoId: repo.id, key: subjectKey('release', `${repo.id}/${req.params.release_id}`) };
};

/** Team discussions by organization and team slug, or (the legacy routes) by team id. */
const discussion =
  (withComment: boolean): Locate =>
  (req) => {
    const team = req.params.team_id ? `team-${req.params.team_id}` : `${req.params.org}/${req.params.team_slug}`.toLowerCase();
    const path = `${team}/${req.params.discussion_number}${withComment ? `/${req.params.comment_number}` : ''}`;
    return { repoId: 0, key: subjectKey(withComment ? 'team_discussion_comment' : 'team_discussion', path) };
  };

function reactionsOn(locate: Locate) {
  const list: Handler = (req, ctx) => {
    const { key } = locate(req, ctx);
    const content = textParam(req.query.content);
    const rows = ctx.db.prepare('SELECT * FROM reactions WHERE subject = ? ORDER BY id').all(key) as ReactionRow[];
    return {
      status: 200,
      body: page(
        rows.filter((row) => !content || row.content === content),
        req.query,
      ).map(reactionView),
    };
  };

  /** `repeatStatus` is what a repeat answers: 200 where documented, else the creation status. */
  const create =
    (repeatStatus: number): Handler =>
    (req: GithubRequest<{ content: string }>, ctx) => {
      const { repoId, key } = locate(req, ctx);
      const content = String(req.body.content);
      const existing = ctx.db.prepare('SELECT * FROM reactions WHERE subject = ? AND user_id = ? AND content = ?').get(key, req.user.id, content) as
        | ReactionRow
        | undefined;
      if (existing) return { status: repeatStatus, body: reactionView(existing) };
      const { lastInsertRowid } = ctx.db
        .prepare('INSERT INTO reactions (repo_id, subject, user_id, login, content, created_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(repoId, key, req.user.id, req.user.login, content, ctx.clock.now());
      return { status: 201, body: reactionView(ctx.db.prepare('SELECT * FROM reactions WHERE id = ?').get(lastInsertRowid) as ReactionRow) };
    };

  const remove: Handler = (req, ctx) => {
    const { key } = locate(req, ctx);
    const row = ctx.db.prepare('SELECT * FROM reactions WHERE id = ? AND subject = ?').get(Number(req.params.reaction_id), key) as ReactionRow | undefined;
    if (!row) throw notFound();
    if (row.user_id !== req.user.id) throw new GithubError(403, 'You can only delete your own reactions.');
    ctx.db.prepare('DELETE FROM reactions WHERE id = ?').run(row.id);
    return { status: 204 };
  };

  return { list, create, remove };
}

const issue = reactionsOn(stored('issue', 'issues', 'number', 'issue_number'));
const issueComment = reactionsOn(stored('issue_comment', 'issue_comments', 'id', 'comment_id'));
const commitComment = reactionsOn(stored('commit_comment', 'commit_comments', 'id', 'comment_id'));
const reviewComment = reactionsOn(stored('review_comment', 'review_comments', 'id', 'comment_id'));
const releases = reactionsOn(release);
const teamDiscussion = reactionsOn(discussion(false));
const teamDiscussionComment = reactionsOn(discussion(true));

export const reactionHandlers: Record<string, Handler> = {
  'reactions/list-for-issue': issue.list,
  'reactions/create-for-issue': issue.create(200),
  'reactions/delete-for-issue': issue.remove,
  'reactions/list-for-issue-comment': issueComment.list,
  'reactions/create-for-issue-comment': issueComment.create(200),
  'reactions/delete-for-issue-comment': issueComment.remove,
  'reactions/list-for-commit-comment': commitComment.list,
  'reactions/create-for-commit-comment': commitComment.create(200),
  'reactions/delete-for-commit-comment': commitComment.remove,
  'reactions/list-for-pull-request-review-comment': reviewComment.list,
  'reactions/create-for-pull-request-review-comment': reviewComment.create(200),
  'reactions/delete-for-pull-request-comment': reviewComment.remove,
  'reactions/list-for-release': releases.list,
  'reactions/create-for-release': releases.create(200),
  'reactions/delete-for-release': releases.remove,
  'reactions/list-for-team-discussion-in-org': teamDiscussion.list,
  'reactions/create-for-team-discussion-in-org': teamDiscussion.create(200),
  'reactions/delete-for-team-discussion': teamDiscussion.remove,
  'reactions/list-for-team-discussion-legacy': teamDiscussion.list,
  // The legacy routes document only 201, which a repeat therefore answers too.
  'reactions/create-for-team-discussion-legacy': teamDiscussion.create(201),
  'reactions/list-for-team-discussion-comment-in-org': teamDiscussionComment.list,
  'reactions/create-for-team-discussion-comment-in-org': teamDiscussionComment.create(200),
  'reactions/delete-for-team-discussion-comment': teamDiscussionComment.remove,
  'reactions/list-for-team-discussion-comment-legacy': teamDiscussionComment.list,
  'reactions/create-for-team-discussion-comment-legacy': teamDiscussionComment.create(201),
};
