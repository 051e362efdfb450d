import type Database from 'better-sqlite3';
import { iso, minimalRepository, nodeId, page, repoUrl, simpleUser } from './common.js';
import { GithubError, type GithubContext, type GithubRequest, type Handler, type Repository } from './context.js';
import { createGitDataTables, resolveCommit } from './git-data.js';

/**
 * Commit statuses. A status belongs to a commit and a context; contexts compare
 * case-insensitively, and the latest status of each context is what the combined status, and
 * deployments' required contexts, look at. GitHub keeps at most 1000 statuses per SHA and context.
 */

export const STATUS_LIMIT = 1000;

export function createStatusesTables(db: Database.Database): void {
  createGitDataTables(db);
  db.exec(`
    CREATE TABLE IF NOT EXISTS commit_statuses (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      repo_id INTEGER NOT NULL,
      sha TEXT NOT NULL,
      context TEXT NOT NULL,
      state TEXT NOT NULL,
      target_url TEXT,
      description TEXT,
      creator_id INTEGER NOT NULL,
      creator_login TEXT NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS commit_statuses_by_commit ON commit_statuses (repo_id, sha, context COLLATE NOCASE);
  `);
}

export interface CommitStatus {
  id: number;
  sha: string;
  context: string;
  state: 'error' | 'failure' | 'pending' | 'success';
  target_url: string | null;
  description: string | null;
  creator_id: number;
  creator_login: string;
  created_at: number;
}

function statusesOf(db: Database.Database, repo: Repository, sha: string): CommitStatus[] {
  return db.prepare('SELECT * FROM commit_statuses WHERE repo_id = ? AND sha = ? ORDER BY id DESC').all(repo.id, sha) as CommitStatus[];
}

/** The newest status of each context, in the order the contexts first reported. */
export function latestStatuses(db: Database.Database, repo: Repository, sha: string): CommitStatus[] {
  createStatusesTables(db);
  const latest = new Map<string, CommitStatus>();
  for (const status of statusesOf(db, repo, sha)) {
    const key = status.context.toLowerCase();
    if (!latest.has(key)) latest.set(key, status);
  }
  return [...latest.values()].sort((a, b) => a.id - b.id);
}

/** failure (any error or failure) beats pending (any pending, or nothing reported) beats success. */
export function combinedState(statuses: CommitStatus[]): 'failure' | 'pending' | 'success' {
  if (statuses.some((s) => s.state === 'error' || s.state === 'failure')) return 'failure';
  if (statuses.length === 0 || statuses.some((s) => s.state === 'pending')) return 'pending';
  return 'success';
}

function commitOf(req: GithubRequest, ctx: GithubContext, given: string) {
  const repo = ctx.repository(req.params.owner ?? '', req.params.repo ?? '');
  createStatusesTables(ctx.db);
  const sha = resolveCommit(ctx, repo, given);
  return { repo, sha };
}

const simpleView = (repo: Repository, status: CommitStatus) => ({
  url: `${repoUrl(repo)}/statuses/${status.sha}`,
  avatar_url: `https://avatars.githubusercontent.com/u/${status.creator_id}?v=4`,
  id: status.id,
  node_id: nodeId('StatusContext', status.id),
  state: status.state,
  description: status.description,
  target_url: status.target_url,
  context: status.context,
  created_at: iso(status.created_at),
  updated_at: iso(status.created_at),
});

const statusView = (repo: Repository, status: CommitStatus) => ({
  ...simpleView(repo, status),
  creator: simpleUser({ login: status.creator_login, id: status.creator_id }),
});

function createStatus(req: GithubRequest, ctx: GithubContext) {
  const { repo, sha } = commitOf(req, ctx, req.params.sha ?? '');
  if (!sha) throw new GithubError(422, `No commit found for SHA: ${req.params.sha}`);
  const body = req.body as { state: CommitStatus['state']; target_url?: string | null; description?: string | null; context?: string };
  const context = body.context ?? 'default';
  const count = ctx.db
    .prepare('SELECT COUNT(*) AS n FROM commit_statuses WHERE repo_id = ? AND sha = ? AND context = ? COLLATE NOCASE')
    .get(repo.id, sha, context) as { n: number };
  if (count.n >= STATUS_LIMIT) {
    throw new GithubError(422, 'Validation Failed', [
      { resource: 'Status', field: 'context', code: 'custom', message: 'This SHA and context has reached the maximum number of statuses.' },
    ]);
  }
  const result = ctx.db
    .prepare(
      `INSERT INTO commit_statuses (repo_id, sha, context, state, target_url, description, creator_id, creator_login, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(repo.id, sha, context, body.state, body.target_url ?? null, body.description ?? null, req.user.id, req.user.login, ctx.clock.now());
  const status = ctx.db.prepare('SELECT * FROM commit_statuses WHERE id = ?').get(result.lastInsertRowid) as CommitStatus;
  const view = statusView(repo, status);
  return { status: 201, body: view, headers: { Location: view.url } };
}

/** Newest first; a ref that names no commit simply has no statuses. */
function listStatuses(req: GithubRequest, ctx: GithubContext) {
  const { repo, sha } = commitOf(req, ctx, req.params.ref ?? '');
  const statuses = sha ? statusesOf(ctx.db, repo, sha) : [];
  return { status: 200, body: page(statuses, req.query).map((s) => statusView(repo, s)) };
}

function combinedStatus(req: GithubRequest, ctx: GithubContext) {
  const { repo, sha } = commitOf(req, ctx, req.params.ref ?? '');
  if (!sha) throw new GithubError(404, `No commit found for the ref ${req.params.ref}`);
  const latest = latestStatuses(ctx.db, repo, sha);
  return {
    status: 200,
    body: {
      state: combinedState(latest),
      statuses: page(latest, req.query).map((s) => simpleView(repo, s)),
      sha,
      total_count: latest.length,
      repository: minimalRepository(ctx, repo),
      commit_url: `${repoUrl(repo)}/commits/${sha}`,
      url: `${repoUrl(repo)}/commits/${sha}/status`,
    },
  };
}

export const statusesHandlers: Record<string, Handler> = {
  'repos/create-commit-status': createStatus,
  'repos/list-commit-statuses-for-ref': listStatuses,
  'repos/get-combined-status-for-ref': combinedStatus,
};
