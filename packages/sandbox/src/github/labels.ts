/**
 * Repository labels. A new repository gets GitHub's default labels (label-table.ts; a repository made from a
 * template gets the template's instead). Names match case-insensitively. Labelling an issue with a
 * name the repository lacks creates that label, grey (ededed), as GitHub does.
 */
import type Database from 'better-sqlite3';
import { nodeId, page, API } from './common.js';
import { requireRole } from './access.js';
import { notFound, validationFailed, type GithubContext, type GithubRequest, type Handler } from './context.js';
import type { LabelRow } from './label-table.js';
import { requestedRepository, type RepositoryRow } from './repositories.js';

/** The `label` shape. */
export function labelView(repo: RepositoryRow, label: LabelRow) {
  return {
    id: label.id,
    node_id: nodeId('Label', label.id),
    url: `${API}/repos/${repo.full_name}/labels/${encodeURIComponent(label.name)}`,
    name: label.name,
    description: label.description,
    color: label.color,
    default: label.is_default === 1,
  };
}

export function findLabel(db: Database.Database, repo: RepositoryRow, name: string): LabelRow | undefined {
  return db.prepare('SELECT * FROM labels WHERE repo_id = ? AND name = ?').get(repo.id, name) as LabelRow | undefined;
}

/** The labels with these names, creating the ones the repository lacks. */
export function labelsNamed(db: Database.Database, repo: RepositoryRow, names: string[]): LabelRow[] {
  const labels = new Map<number, LabelRow>();
  for (const name of names.map((n) => n.trim()).filter(Boolean)) {
    let label = findLabel(db, repo, name);
    if (!label) {
      db.prepare("INSERT INTO labels (repo_id, name, color) VALUES (?, ?, 'ededed')").run(repo.id, name);
      label = findLabel(db, repo, name)!;
    }
    labels.set(label.id, label);
  }
  return [...labels.values()];
}

/** GitHub takes colors as six hex digits, with or without a leading '#'. */
function color(value: string): string {
  const hex = value.replace(/^#/, '');
  if (!/^[0-9a-fA-F]{6}$/.test(hex)) throw validationFailed([{ resource: 'Label', code: 'invalid', field: 'color' }]);
  return hex.toLowerCase();
}

function existingLabel(ctx: GithubContext, repo: RepositoryRow, name: string): LabelRow {
  const label = findLabel(ctx.db, repo, name);
  if (!label) throw notFound();
  return label;
}

export const labelHandlers: Record<string, Handler> = {
  'issues/list-labels-for-repo': (req, ctx) => {
    const repo = requestedRepository(req, ctx);
    const labels = ctx.db.prepare('SELECT * FROM labels WHERE repo_id = ? ORDER BY name COLLATE NOCASE').all(repo.id) as LabelRow[];
    return { status: 200, body: page(labels, req.query).map((label) => labelView(repo, label)) };
  },

  'issues/create-label': (req: GithubRequest<{ name: string; color?: string; description?: string }>, ctx) => {
    const repo = requestedRepository(req, ctx);
    requireRole(ctx.db, repo, req.user, 'write');
    const name = String(req.body.name).trim();
    if (findLabel(ctx.db, repo, name)) throw validationFailed([{ resource: 'Label', code: 'already_exists', field: 'name' }]);
    ctx.db
      .prepare('INSERT INTO labels (repo_id, name, color, description) VALUES (?, ?, ?, ?)')
      .run(repo.id, name, color(req.body.color ?? 'ededed'), req.body.description ?? null);
    return { status: 201, body: labelView(repo, findLabel(ctx.db, repo, name)!) };
  },

  'issues/get-label': (req, ctx) => {
    const repo = requestedRepository(req, ctx);
    return { status: 200, body: labelView(repo, existingLabel(ctx, repo, req.params.name ?? '')) };
  },

  'issues/update-label': (req: GithubRequest<{ new_name?: string; color?: string; description?: string } | undefined>, ctx) => {
    const repo = requestedRepository(req, ctx);
    requireRole(ctx.db, repo, req.user, 'write');
    const label = existingLabel(ctx, repo, req.params.name ?? '');
    const body = req.body ?? {};
    const name = body.new_name === undefined ? label.name : String(body.new_name).trim();
    const clash = findLabel(ctx.db, repo, name);
    if (clash && clash.id !== label.id) throw validationFailed([{ resource: 'Label', code: 'already_exists', field: 'name' }]);
    ctx.db
      .prepare('UPDATE labels SET name = ?, color = ?, description = ? WHERE id = ?')
      .run(name, body.color === undefined ? label.color : color(body.color), body.description === undefined ? label.description : body.description, label.id);
    return { status: 200, body: labelView(repo, ctx.db.prepare('SELECT * FROM labels WHERE id = ?').get(label.id) as LabelRow) };
  },

  'issues/delete-label': (req, ctx) => {
    const repo = requestedRepository(req, ctx);
    requireRole(ctx.db, repo, req.user, 'write');
    const label = existingLabel(ctx, repo, req.params.name ?? '');
    ctx.db.prepare('DELETE FROM issue_labels WHERE label_id = ?').run(label.id);
    ctx.db.prepare('DELETE FROM labels WHERE id = ?').run(label.id);
    return { status: 204 };
  },
};
