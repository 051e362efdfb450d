import { requireRole } from './access.js';
import type Database from 'better-sqlite3';
import { idParam, iso, page, repoUrl } from './common.js';
import { GithubError, notFound, type GithubContext, type GithubRequest, type Handler, type Repository } from './context.js';

/**
 * Repository settings with their own records: autolink references (a key prefix that turns
 * "TICKET-123" into a link built from a `<num>` URL template) and tag protection patterns.
 */

export function createRepoSettingsTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS autolinks (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      repo_id INTEGER NOT NULL,
      key_prefix TEXT NOT NULL,
      url_template TEXT NOT NULL,
      is_alphanumeric INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS tag_protections (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      repo_id INTEGER NOT NULL,
      pattern TEXT NOT NULL,
      created_at INTEGER NOT NULL
    );
  `);
}

interface Autolink {
  id: number;
  repo_id: number;
  key_prefix: string;
  url_template: string;
  is_alphanumeric: number;
}

interface TagProtection {
  id: number;
  repo_id: number;
  pattern: string;
  created_at: number;
}

/** Autolinks and tag protection are repository administration: admins only, for reading too. */
function repositoryOf(req: GithubRequest, ctx: GithubContext): Repository {
  const repo = ctx.repository(req.params.owner ?? '', req.params.repo ?? '');
  requireRole(ctx.db, repo, req.user, 'admin');
  createRepoSettingsTables(ctx.db);
  return repo;
}

const autolinkView = (a: Autolink) => ({ id: a.id, key_prefix: a.key_prefix, url_template: a.url_template, is_alphanumeric: a.is_alphanumeric === 1 });

function autolinkOf(req: GithubRequest, ctx: GithubContext): Autolink {
  const repo = repositoryOf(req, ctx);
  const autolink = ctx.db.prepare('SELECT * FROM autolinks WHERE id = ? AND repo_id = ?').get(idParam(req, 'autolink_id'), repo.id) as Autolink | undefined;
  if (!autolink) throw notFound();
  return autolink;
}

function createAutolink(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const { key_prefix, url_template, is_alphanumeric = true } = req.body as { key_prefix: string; url_template: string; is_alphanumeric?: boolean };
  const errors: GithubError['errors'] = [];
  if (!url_template.includes('<num>')) {
    errors.push({ resource: 'KeyPrefix', field: 'url_template', code: 'custom', message: 'url_template is missing a <num> token' });
  }
  const taken = ctx.db.prepare('SELECT 1 FROM autolinks WHERE repo_id = ? AND lower(key_prefix) = lower(?)').get(repo.id, key_prefix);
  if (taken) errors.push({ resource: 'KeyPrefix', field: 'key_prefix', code: 'already_exists' });
  if (errors.length > 0) throw new GithubError(422, 'Validation Failed', errors);
  const result = ctx.db
    .prepare('INSERT INTO autolinks (repo_id, key_prefix, url_template, is_alphanumeric) VALUES (?, ?, ?, ?)')
    .run(repo.id, key_prefix, url_template, is_alphanumeric ? 1 : 0);
  const autolink = ctx.db.prepare('SELECT * FROM autolinks WHERE id = ?').get(result.lastInsertRowid) as Autolink;
  return { status: 201, body: autolinkView(autolink), headers: { Location: `${repoUrl(repo)}/autolinks/${autolink.id}` } };
}

function listAutolinks(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const autolinks = ctx.db.prepare('SELECT * FROM autolinks WHERE repo_id = ? ORDER BY id').all(repo.id) as Autolink[];
  return { status: 200, body: page(autolinks, req.query).map(autolinkView) };
}

function deleteAutolink(req: GithubRequest, ctx: GithubContext) {
  ctx.db.prepare('DELETE FROM autolinks WHERE id = ?').run(autolinkOf(req, ctx).id);
  return { status: 204 };
}

const tagProtectionView = (t: TagProtection) => ({ id: t.id, created_at: iso(t.created_at), updated_at: iso(t.created_at), enabled: true, pattern: t.pattern });

function createTagProtection(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const { pattern } = req.body as { pattern: string };
  if (pattern.trim() === '') throw new GithubError(422, 'Validation Failed', [{ resource: 'TagProtection', field: 'pattern', code: 'missing_field' }]);
  const result = ctx.db.prepare('INSERT INTO tag_protections (repo_id, pattern, created_at) VALUES (?, ?, ?)').run(repo.id, pattern, ctx.clock.now());
  const created = ctx.db.prepare('SELECT * FROM tag_protections WHERE id = ?').get(result.lastInsertRowid) as TagProtection;
  return { status: 201, body: tagProtectionView(created) };
}

function listTagProtections(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const rows = ctx.db.prepare('SELECT * FROM tag_protections WHERE repo_id = ? ORDER BY id').all(repo.id) as TagProtection[];
  return { status: 200, body: rows.map(tagProtectionView) };
}

function deleteTagProtection(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const result = ctx.db.prepare('DELETE FROM tag_protections WHERE id = ? AND repo_id = ?').run(idParam(req, 'tag_protection_id'), repo.id);
  if (result.changes === 0) throw notFound();
  return { status: 204 };
}

export const repoSettingsHandlers: Record<string, Handler> = {
  'repos/create-autolink': createAutolink,
  'repos/list-autolinks': listAutolinks,
  'repos/get-autolink': (req, ctx) => ({ status: 200, body: autolinkView(autolinkOf(req, ctx)) }),
  'repos/delete-autolink': deleteAutolink,
  'repos/create-tag-protection': createTagProtection,
  'repos/list-tag-protection': listTagProtections,
  'repos/delete-tag-protection': deleteTagProtection,
};
