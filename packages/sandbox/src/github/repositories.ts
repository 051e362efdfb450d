/**
 * Repositories: created for the caller or an organization, or from a template; read (owner and name
 * match case-insensitively; a private repository is invisible, 404, to those without access),
 * updated (renames included), deleted and listed. Settings an update may change are kept as given
 * and shown back in the repository's fields.
 */
import type Database from 'better-sqlite3';
import { isOrganization, iso, nodeId, organization, page, simpleUser, textParam, API, WEB } from './common.js';
import { hasRole, permissionsOf, requireRole, roleOf } from './access.js';
import { GithubError, notFound, type GithubContext, type GithubRequest, type GithubUser, type Handler, type Repository } from './context.js';
import { seedLabels } from './label-table.js';
import { isActiveMember } from './org-membership.js';
import { overlay, relink } from './shapes.js';

export function createRepositoryTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS repos (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      owner TEXT NOT NULL,
      name TEXT NOT NULL,
      full_name TEXT NOT NULL UNIQUE COLLATE NOCASE,
      visibility TEXT NOT NULL,
      private INTEGER NOT NULL,
      default_branch TEXT NOT NULL,
      description TEXT,
      homepage TEXT,
      is_template INTEGER NOT NULL DEFAULT 0,
      template_id INTEGER,
      archived INTEGER NOT NULL DEFAULT 0,
      -- further settings as sent (has_issues, allow_squash_merge, ...), shown back in the repository's fields
      settings TEXT NOT NULL DEFAULT '{}',
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
  `);
}

export interface RepositoryRow {
  id: number;
  owner: string;
  name: string;
  full_name: string;
  visibility: 'public' | 'private' | 'internal';
  private: number;
  default_branch: string;
  description: string | null;
  homepage: string | null;
  is_template: number;
  template_id: number | null;
  archived: number;
  settings: string;
  created_at: number;
  updated_at: number;
}

export function findRepositoryRow(db: Database.Database, owner: string, name: string): RepositoryRow | undefined {
  return db.prepare('SELECT * FROM repos WHERE full_name = ?').get(`${owner}/${name}`) as RepositoryRow | undefined;
}

/** The repository as the viewer may see it: absent and private-without-access are both 404, as on GitHub. */
export function visibleRepositoryRow(db: Database.Database, owner: string, name: string, viewer: GithubUser): RepositoryRow {
  const row = findRepositoryRow(db, owner, name);
  if (!row || !roleOf(db, row, viewer)) throw notFound();
  return row;
}

/** The repository a request's `owner` and `repo` path parameters name, as the caller may see it. */
export const requestedRepository = (req: GithubRequest, ctx: GithubContext): RepositoryRow =>
  visibleRepositoryRow(ctx.db, req.params.owner ?? '', req.params.repo ?? '', req.user);

export const toRepository = (row: RepositoryRow): Repository => ({
  id: row.id,
  owner: row.owner,
  name: row.name,
  fullName: row.full_name,
  private: row.private === 1,
  defaultBranch: row.default_branch,
});

/** The row behind a Repository handed to handlers. */
export const rowOf = (db: Database.Database, repo: Repository): RepositoryRow => db.prepare('SELECT * FROM repos WHERE id = ?').get(repo.id) as RepositoryRow;

/** Settings fields that a create or update body may carry, shown back under the same names. */
const SETTINGS = [
  'has_issues',
  'has_projects',
  'has_wiki',
  'has_downloads',
  'has_discussions',
  'allow_squash_merge',
  'allow_merge_commit',
  'allow_rebase_merge',
  'allow_auto_merge',
  'delete_branch_on_merge',
  'allow_update_branch',
  'use_squash_pr_title_as_default',
  'squash_merge_commit_title',
  'squash_merge_commit_message',
  'merge_commit_title',
  'merge_commit_message',
  'allow_forking',
  'web_commit_signoff_required',
];

const DEFAULT_SETTINGS: Record<string, unknown> = {
  has_issues: true,
  has_projects: true,
  has_wiki: true,
  has_downloads: true,
  has_discussions: false,
  allow_squash_merge: true,
  allow_merge_commit: true,
  allow_rebase_merge: true,
  allow_auto_merge: false,
  delete_branch_on_merge: false,
  allow_update_branch: false,
  use_squash_pr_title_as_default: false,
  squash_merge_commit_title: 'COMMIT_OR_PR_TITLE',
  squash_merge_commit_message: 'COMMIT_MESSAGES',
  merge_commit_title: 'MERGE_MESSAGE',
  merge_commit_message: 'PR_TITLE',
  allow_forking: true,
  web_commit_signoff_required: false,
};

const pickSettings = (body: Record<string, unknown>) => Object.fromEntries(SETTINGS.filter((key) => body[key] !== undefined).map((key) => [key, body[key]]));

/** Which repository shape each operation answers with; template_repository differs between them. */
const SHAPES: Record<string, 'full' | 'repository' | 'minimal'> = {
  'repos/get': 'full',
  'repos/update': 'full',
  'repos/create-for-authenticated-user': 'repository',
  'repos/create-in-org': 'repository',
  'repos/create-using-template': 'repository',
  'repos/list-for-authenticated-user': 'repository',
  'repos/list-for-user': 'minimal',
  'repos/list-for-org': 'minimal',
};

/** The `repository` shape, which a full repository's template_repository has. */
const REPOSITORY_SHAPE = 'repos/create-for-authenticated-user';

/** Fields of `repository` that the smaller object nested as a repository's own template_repository lacks. */
const NOT_IN_NESTED_TEMPLATE = [
  'allow_forking',
  'anonymous_access_enabled',
  'forks',
  'has_discussions',
  'license',
  'master_branch',
  'open_issues',
  'organization',
  'starred_at',
  'template_repository',
  'watchers',
  'web_commit_signoff_required',
];

/**
 * A repository in the shape `label` answers with (full-repository, repository or minimal-repository):
 * that operation's sample, with this repository's state and the viewer's permissions written over it.
 */
export function repositoryView(ctx: GithubContext, row: RepositoryRow, viewer: GithubUser, label: string): Record<string, unknown> {
  const shape = SHAPES[label];
  if (!shape) throw new Error(`GitHub emulator: no repository shape known for ${label}`);
  const sample = ctx.sample(label);
  const base = Array.isArray(sample) ? sample[0] : sample;
  const ownerIsOrg = isOrganization(ctx.db, row.owner);
  const owner = simpleUser(ctx.user(row.owner), ownerIsOrg ? 'Organization' : 'User');
  const openIssues = (ctx.db.prepare("SELECT COUNT(*) AS n FROM issues WHERE repo_id = ? AND state = 'open'").get(row.id) as { n: number }).n;
  const view = overlay(relink(base, row.full_name), {
    ...DEFAULT_SETTINGS,
    ...(JSON.parse(row.settings) as Record<string, unknown>),
    id: row.id,
    node_id: nodeId('Repository', row.id),
    name: row.name,
    full_name: row.full_name,
    owner,
    private: row.private === 1,
    visibility: row.visibility,
    html_url: `${WEB}/${row.full_name}`,
    url: `${API}/repos/${row.full_name}`,
    description: row.description,
    homepage: row.homepage,
    fork: false,
    is_template: row.is_template === 1,
    archived: row.archived === 1,
    disabled: false,
    default_branch: row.default_branch,
    master_branch: row.default_branch,
    permissions: permissionsOf(ctx.db, row, viewer),
    organization: ownerIsOrg ? owner : null,
    open_issues_count: openIssues,
    open_issues: openIssues,
    forks_count: 0,
    forks: 0,
    stargazers_count: 0,
    watchers_count: 0,
    watchers: 0,
    subscribers_count: 0,
    network_count: 0,
    size: 0,
    topics: [],
    license: null,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    pushed_at: iso(row.updated_at),
  });
  // A new repository is no fork; the sample's parent and source are another repository's.
  delete view.parent;
  delete view.source;
  if (shape !== 'minimal') {
    const template =
      row.template_id === null ? undefined : (ctx.db.prepare('SELECT * FROM repos WHERE id = ?').get(row.template_id) as RepositoryRow | undefined);
    const nested: Record<string, unknown> | undefined = template && { ...repositoryView(ctx, template, viewer, REPOSITORY_SHAPE), template_repository: null };
    if (nested && shape === 'repository') {
      // That smaller object requires nothing and admits no nulls: what is unknown is left out.
      for (const key of NOT_IN_NESTED_TEMPLATE) delete nested[key];
      for (const [key, value] of Object.entries(nested)) if (value === null) delete nested[key];
    }
    view.template_repository = nested ?? null;
  }
  return view;
}

/** GitHub turns characters it does not allow in names into hyphens. */
const cleanName = (name: string) => name.trim().replace(/[^A-Za-z0-9._-]/g, '-');

interface NewRepository {
  owner: string;
  name: string;
  visibility: RepositoryRow['visibility'];
  description?: string;
  homepage?: string;
  isTemplate?: boolean;
  templateId?: number;
  settings?: Record<string, unknown>;
}

function insertRepository(ctx: GithubContext, fields: NewRepository): RepositoryRow {
  const name = cleanName(fields.name);
  if (!name || name === '.' || name === '..')
    throw new GithubError(422, 'Repository creation failed.', [{ resource: 'Repository', code: 'custom', field: 'name', message: 'name is invalid' }]);
  if (findRepositoryRow(ctx.db, fields.owner, name)) {
    throw new GithubError(422, 'Repository creation failed.', [
      { resource: 'Repository', code: 'custom', field: 'name', message: 'name already exists on this account' },
    ]);
  }
  const now = ctx.clock.now();
  const { lastInsertRowid } = ctx.db
    .prepare(
      `INSERT INTO repos (owner, name, full_name, visibility, private, default_branch, description, homepage, is_template, template_id, settings, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'main', ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      fields.owner,
      name,
      `${fields.owner}/${name}`,
      fields.visibility,
      fields.visibility === 'public' ? 0 : 1,
      fields.description ?? null,
      fields.homepage ?? null,
      fields.isTemplate ? 1 : 0,
      fields.templateId ?? null,
      JSON.stringify(fields.settings ?? {}),
      now,
      now,
    );
  seedLabels(ctx.db, Number(lastInsertRowid), fields.templateId);
  return ctx.db.prepare('SELECT * FROM repos WHERE id = ?').get(lastInsertRowid) as RepositoryRow;
}

const visibilityOf = (body: { private?: boolean; visibility?: RepositoryRow['visibility'] }): RepositoryRow['visibility'] =>
  body.visibility ?? (body.private ? 'private' : 'public');

/** An account the caller may create repositories under: themselves, or an organization they belong to. */
function ownerFor(ctx: GithubContext, login: string, user: GithubUser): string {
  if (login.toLowerCase() === user.login.toLowerCase()) return user.login;
  const existing = isOrganization(ctx.db, login);
  const org = organization(ctx, login, user);
  if (existing && !isActiveMember(ctx.db, org, user)) {
    throw new GithubError(403, `You need admin access to the organization before adding a repository to it.`);
  }
  return org.login;
}

/** What the create and update operations take; the repository settings (has_issues, ...) beside the named fields. */
type RepositoryInput = Record<string, unknown> & {
  name?: string;
  owner?: string;
  description?: string;
  homepage?: string;
  is_template?: boolean;
  private?: boolean;
  visibility?: RepositoryRow['visibility'];
  default_branch?: string;
  archived?: boolean;
};

function createForUser(req: GithubRequest<RepositoryInput & { name: string }>, ctx: GithubContext) {
  const row = insertRepository(ctx, { ...fieldsOf(req.body), owner: req.user.login, visibility: visibilityOf(req.body) });
  return { status: 201, body: repositoryView(ctx, row, req.user, req.operation) };
}

function createInOrg(req: GithubRequest<RepositoryInput & { name: string }>, ctx: GithubContext) {
  const owner = ownerFor(ctx, req.params.org ?? '', req.user);
  const row = insertRepository(ctx, { ...fieldsOf(req.body), owner, visibility: visibilityOf(req.body) });
  return { status: 201, body: repositoryView(ctx, row, req.user, req.operation) };
}

const fieldsOf = (body: RepositoryInput & { name: string }) => ({
  name: body.name,
  description: body.description,
  homepage: body.homepage,
  isTemplate: body.is_template,
  settings: pickSettings(body),
});

/**
 * A new repository from a template, which must be marked as one. With include_all_branches the new
 * repository is meant to get every branch; the emulator's repositories start with their default
 * branch either way (git content lives with the git-data module and is created on first use).
 */
function createFromTemplate(req: GithubRequest<RepositoryInput & { name: string }>, ctx: GithubContext) {
  const template = visibleRepositoryRow(ctx.db, req.params.template_owner ?? '', req.params.template_repo ?? '', req.user);
  if (template.is_template !== 1) {
    throw new GithubError(422, 'Validation Failed', [
      { resource: 'Repository', field: 'template', code: 'invalid', message: `${template.full_name} is not a template repository` },
    ]);
  }
  const owner = ownerFor(ctx, req.body.owner ?? req.user.login, req.user);
  const row = insertRepository(ctx, {
    owner,
    name: req.body.name,
    description: req.body.description ?? template.description ?? undefined,
    visibility: req.body.private ? 'private' : 'public',
    templateId: template.id,
    settings: { ...(JSON.parse(template.settings) as Record<string, unknown>) },
  });
  return { status: 201, body: repositoryView(ctx, row, req.user, req.operation) };
}

function getRepository(req: GithubRequest, ctx: GithubContext) {
  const row = requestedRepository(req, ctx);
  return { status: 200, body: repositoryView(ctx, row, req.user, req.operation) };
}

function updateRepository(req: GithubRequest<RepositoryInput | undefined>, ctx: GithubContext) {
  const row = requestedRepository(req, ctx);
  requireRole(ctx.db, row, req.user, 'admin');
  const body = req.body ?? {};
  const name = body.name === undefined ? row.name : cleanName(body.name);
  if (name.toLowerCase() !== row.name.toLowerCase() && findRepositoryRow(ctx.db, row.owner, name)) {
    throw new GithubError(422, 'Validation Failed', [
      { resource: 'Repository', code: 'custom', field: 'name', message: 'name already exists on this account' },
    ]);
  }
  const visibility = body.visibility ?? (body.private === undefined ? row.visibility : body.private ? 'private' : 'public');
  ctx.db
    .prepare(
      `UPDATE repos SET name = ?, full_name = ?, visibility = ?, private = ?, description = ?, homepage = ?, is_template = ?, default_branch = ?,
       archived = ?, settings = ?, updated_at = ? WHERE id = ?`,
    )
    .run(
      name,
      `${row.owner}/${name}`,
      visibility,
      visibility === 'public' ? 0 : 1,
      body.description === undefined ? row.description : body.description,
      body.homepage === undefined ? row.homepage : body.homepage,
      body.is_template === undefined ? row.is_template : body.is_template ? 1 : 0,
      body.default_branch ?? row.default_branch,
      body.archived === undefined ? row.archived : body.archived ? 1 : 0,
      JSON.stringify({ ...(JSON.parse(row.settings) as object), ...pickSettings(body) }),
      ctx.clock.now(),
      row.id,
    );
  const updated = ctx.db.prepare('SELECT * FROM repos WHERE id = ?').get(row.id) as RepositoryRow;
  return { status: 200, body: repositoryView(ctx, updated, req.user, req.operation) };
}

/** Tables of this side of the emulator that hang off a repository; deleting it removes their rows. */
const DEPENDENT_TABLES = [
  'collaborators',
  'invitations',
  'issues',
  'labels',
  'issue_labels',
  'issue_comments',
  'commit_comments',
  'pulls',
  'review_comments',
  'reactions',
];

function deleteRepository(req: GithubRequest, ctx: GithubContext) {
  const row = requestedRepository(req, ctx);
  if (!hasRole(ctx.db, row, req.user, 'admin')) throw new GithubError(403, 'Must have admin rights to Repository.');
  for (const table of DEPENDENT_TABLES) ctx.db.prepare(`DELETE FROM ${table} WHERE repo_id = ?`).run(row.id);
  ctx.db.prepare('DELETE FROM repos WHERE id = ?').run(row.id);
  return { status: 204 };
}

/** Sorting as the list operations offer it: by name ascending, by time newest first unless told. */
function sorted(rows: RepositoryRow[], query: GithubRequest['query'], defaultSort: string): RepositoryRow[] {
  const sort = textParam(query.sort) ?? defaultSort;
  const direction = textParam(query.direction) ?? (sort === 'full_name' ? 'asc' : 'desc');
  const key = (row: RepositoryRow) => (sort === 'full_name' ? row.full_name.toLowerCase() : sort === 'created' ? row.created_at : row.updated_at);
  const ordered = [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id - b.id));
  return direction === 'desc' ? ordered.reverse() : ordered;
}

const allRows = (db: Database.Database) => db.prepare('SELECT * FROM repos').all() as RepositoryRow[];

function listForAuthenticatedUser(req: GithubRequest, ctx: GithubContext) {
  const type = textParam(req.query.type);
  const visibility = textParam(req.query.visibility) ?? 'all';
  const affiliations = (textParam(req.query.affiliation) ?? 'owner,collaborator,organization_member').split(',').map((a) => a.trim());
  const isOwner = (row: RepositoryRow) => row.owner.toLowerCase() === req.user.login.toLowerCase();
  const isCollaborator = (row: RepositoryRow) =>
    ctx.db.prepare('SELECT 1 FROM collaborators WHERE repo_id = ? AND user_id = ?').get(row.id, req.user.id) !== undefined;
  const isOrgMember = (row: RepositoryRow) =>
    isOrganization(ctx.db, row.owner) && roleOf(ctx.db, { ...row, private: 1 }, req.user) !== undefined && !isCollaborator(row);
  const rows = allRows(ctx.db).filter((row) => {
    if (type === 'owner' && !isOwner(row)) return false;
    if (type === 'member' && isOwner(row)) return false;
    if (type === 'public' && row.private === 1) return false;
    if (type === 'private' && row.private === 0) return false;
    if (visibility !== 'all' && (visibility === 'private') !== (row.private === 1)) return false;
    return (
      (affiliations.includes('owner') && isOwner(row)) ||
      (affiliations.includes('collaborator') && isCollaborator(row)) ||
      (affiliations.includes('organization_member') && isOrgMember(row))
    );
  });
  return { status: 200, body: page(sorted(rows, req.query, 'full_name'), req.query).map((row) => repositoryView(ctx, row, req.user, req.operation)) };
}

function listForUser(req: GithubRequest, ctx: GithubContext) {
  const user = ctx.user(req.params.username ?? '');
  const type = textParam(req.query.type) ?? 'owner';
  const rows = allRows(ctx.db).filter((row) => {
    const owned = row.owner.toLowerCase() === user.login.toLowerCase();
    const member = !owned && ctx.db.prepare('SELECT 1 FROM collaborators WHERE repo_id = ? AND user_id = ?').get(row.id, user.id) !== undefined;
    // Another user's list shows what is public (and what the viewer may see anyway).
    return (type === 'owner' ? owned : type === 'member' ? member : owned || member) && roleOf(ctx.db, row, req.user) !== undefined;
  });
  return { status: 200, body: page(sorted(rows, req.query, 'full_name'), req.query).map((row) => repositoryView(ctx, row, req.user, req.operation)) };
}

function listForOrg(req: GithubRequest, ctx: GithubContext) {
  const org = organization(ctx, req.params.org ?? '', req.user);
  const type = textParam(req.query.type) ?? 'all';
  const rows = allRows(ctx.db).filter((row) => {
    if (row.owner.toLowerCase() !== org.login.toLowerCase() || !roleOf(ctx.db, row, req.user)) return false;
    if (type === 'public') return row.visibility === 'public';
    if (type === 'private') return row.private === 1;
    if (type === 'internal') return row.visibility === 'internal';
    if (type === 'forks') return false;
    if (type === 'member') return ctx.db.prepare('SELECT 1 FROM collaborators WHERE repo_id = ? AND user_id = ?').get(row.id, req.user.id) !== undefined;
    return true;
  });
  return { status: 200, body: page(sorted(rows, req.query, 'created'), req.query).map((row) => repositoryView(ctx, row, req.user, req.operation)) };
}

export const repositoryHandlers: Record<string, Handler> = {
  'repos/create-for-authenticated-user': createForUser,
  'repos/create-in-org': createInOrg,
  'repos/create-using-template': createFromTemplate,
  'repos/get': getRepository,
  'repos/update': updateRepository,
  'repos/delete': deleteRepository,
  'repos/list-for-authenticated-user': listForAuthenticatedUser,
  'repos/list-for-user': listForUser,
  'repos/list-for-org': listForOrg,
};
