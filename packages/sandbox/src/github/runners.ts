import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import {
  API,
  createOrganizationTables,
  idParam,
  iso,
  minimalRepository,
  organization,
  organizationById,
  organizationRepositories,
  organizationSimple,
  page,
  repositoryById,
  textParam,
  type Organization,
} from './common.js';
import { GithubError, notFound, type GithubContext, type GithubRequest, type Handler } from './context.js';

/**
 * Self-hosted runners of organizations, enterprises and repositories, their labels, and the
 * runner groups of organizations and enterprises.
 *
 * The API has no call that creates a runner: a runner registers itself with a registration token,
 * which lives one hour on the emulator clock. `registerRunner` is that registration, for seeding
 * and tests. A runner gets the read-only labels `self-hosted`, its OS and its architecture, and
 * joins its owner's default group.
 *
 * A group's repository (or organization) access list only exists while its visibility is
 * `selected`; managing it otherwise answers 409, as for organization secrets. Organization groups
 * may also be `private` (private repositories only); enterprise groups are `all` or `selected`.
 * Allowed workflows only count while `restricted_to_workflows` is on, so a group that is not
 * restricted shows none.
 */

export const TOKEN_LIFETIME_MS = 60 * 60 * 1000;

export function createRunnersTables(db: Database.Database): void {
  createOrganizationTables(db);
  db.exec(`
    CREATE TABLE IF NOT EXISTS runners (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      scope TEXT NOT NULL,
      group_id INTEGER,
      name TEXT NOT NULL,
      os TEXT NOT NULL,
      status TEXT NOT NULL,
      busy INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE IF NOT EXISTS runner_labels (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      runner_id INTEGER NOT NULL,
      name TEXT NOT NULL,
      type TEXT NOT NULL,
      UNIQUE (runner_id, name)
    );
    CREATE TABLE IF NOT EXISTS runner_tokens (
      token TEXT PRIMARY KEY,
      scope TEXT NOT NULL,
      purpose TEXT NOT NULL,
      expires_at INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS runner_groups (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      scope TEXT NOT NULL,
      name TEXT NOT NULL,
      visibility TEXT NOT NULL,
      is_default INTEGER NOT NULL,
      allows_public_repositories INTEGER NOT NULL,
      restricted_to_workflows INTEGER NOT NULL,
      selected_workflows TEXT NOT NULL,
      UNIQUE (scope, name)
    );
    CREATE TABLE IF NOT EXISTS runner_group_access (
      group_id INTEGER NOT NULL,
      target_id INTEGER NOT NULL,
      PRIMARY KEY (group_id, target_id)
    );
  `);
}

/** Who owns a runner or group: "org:<id>", "enterprise:<slug>" or "repo:<id>". */
interface Scope {
  key: string;
  /** The API path of the owner's actions, e.g. https://api.github.com/orgs/octo-org/actions. */
  url: string;
  org?: Organization;
}

function scopeOf(req: GithubRequest, ctx: GithubContext): Scope {
  createRunnersTables(ctx.db);
  if (req.params.enterprise !== undefined) {
    const slug = req.params.enterprise.toLowerCase();
    return { key: `enterprise:${slug}`, url: `${API}/enterprises/${slug}/actions` };
  }
  if (req.params.org !== undefined) {
    const org = organization(ctx, req.params.org, req.user);
    return { key: `org:${org.id}`, url: `${API}/orgs/${org.login}/actions`, org };
  }
  const repo = ctx.repository(req.params.owner ?? '', req.params.repo ?? '');
  return { key: `repo:${repo.id}`, url: `${API}/repos/${repo.fullName}/actions` };
}

// ---------------------------------------------------------------------------------------------
// Tokens and registration

function issueToken(ctx: GithubContext, scope: Scope, purpose: 'registration' | 'remove') {
  const token = randomBytes(20)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, '')
    .toUpperCase()
    .slice(0, 29);
  const expiresAt = ctx.clock.now() + TOKEN_LIFETIME_MS;
  ctx.db.prepare('INSERT INTO runner_tokens (token, scope, purpose, expires_at) VALUES (?, ?, ?, ?)').run(token, scope.key, purpose, expiresAt);
  return { status: 201, body: { token, expires_at: iso(expiresAt) } };
}

function redeem(ctx: GithubContext, token: string, purpose: 'registration' | 'remove'): string {
  createRunnersTables(ctx.db);
  const row = ctx.db.prepare('SELECT * FROM runner_tokens WHERE token = ? AND purpose = ?').get(token, purpose) as
    | { scope: string; expires_at: number }
    | undefined;
  if (!row || row.expires_at <= ctx.clock.now()) throw new GithubError(401, `The ${purpose} token is invalid or has expired.`);
  return row.scope;
}

export interface RunnerRegistration {
  name: string;
  os?: 'Linux' | 'Windows' | 'macOS';
  architecture?: 'X64' | 'ARM64';
  labels?: string[];
}

/** What `config.sh --token` does: registers a runner in the token's scope. Returns the runner id. */
export function registerRunner(ctx: GithubContext, token: string, runner: RunnerRegistration): number {
  const scope = redeem(ctx, token, 'registration');
  const os = runner.os ?? 'Linux';
  const group = scope.startsWith('repo:') ? null : defaultGroup(ctx.db, scope).id;
  const result = ctx.db.prepare(`INSERT INTO runners (scope, group_id, name, os, status) VALUES (?, ?, ?, ?, 'online')`).run(scope, group, runner.name, os);
  const id = Number(result.lastInsertRowid);
  for (const name of ['self-hosted', os, runner.architecture ?? 'X64']) addLabel(ctx.db, id, name, 'read-only');
  for (const name of runner.labels ?? []) addLabel(ctx.db, id, name, 'custom');
  return id;
}

/** What `config.sh remove --token` does. */
export function unregisterRunner(ctx: GithubContext, token: string, runnerId: number): void {
  const scope = redeem(ctx, token, 'remove');
  if (!ctx.db.prepare('SELECT 1 FROM runners WHERE id = ? AND scope = ?').get(runnerId, scope)) throw notFound();
  deleteRunner(ctx.db, runnerId);
}

function deleteRunner(db: Database.Database, id: number): void {
  db.prepare('DELETE FROM runner_labels WHERE runner_id = ?').run(id);
  db.prepare('DELETE FROM runners WHERE id = ?').run(id);
}

// ---------------------------------------------------------------------------------------------
// Runners and labels

interface Runner {
  id: number;
  scope: string;
  group_id: number | null;
  name: string;
  os: string;
  status: string;
  busy: number;
}

interface Label {
  id: number;
  name: string;
  type: 'read-only' | 'custom';
}

function addLabel(db: Database.Database, runnerId: number, name: string, type: Label['type']): void {
  db.prepare('INSERT OR IGNORE INTO runner_labels (runner_id, name, type) VALUES (?, ?, ?)').run(runnerId, name, type);
}

const labelsOf = (db: Database.Database, runnerId: number) =>
  db.prepare('SELECT id, name, type FROM runner_labels WHERE runner_id = ? ORDER BY id').all(runnerId) as Label[];

function runnerView(db: Database.Database, runner: Runner) {
  return {
    id: runner.id,
    ...(runner.group_id === null ? {} : { runner_group_id: runner.group_id }),
    name: runner.name,
    os: runner.os,
    status: runner.status,
    busy: runner.busy === 1,
    labels: labelsOf(db, runner.id),
  };
}

function runnerIn(db: Database.Database, scope: Scope, id: number): Runner {
  const runner = db.prepare('SELECT * FROM runners WHERE id = ? AND scope = ?').get(id, scope.key) as Runner | undefined;
  if (!runner) throw notFound();
  return runner;
}

function runnerOf(req: GithubRequest, ctx: GithubContext): { scope: Scope; runner: Runner } {
  const scope = scopeOf(req, ctx);
  return { scope, runner: runnerIn(ctx.db, scope, idParam(req, 'runner_id')) };
}

function labelsView(labels: Label[]) {
  return { status: 200, body: { total_count: labels.length, labels } };
}

function setCustomLabels(db: Database.Database, runnerId: number, names: string[]): void {
  db.prepare(`DELETE FROM runner_labels WHERE runner_id = ? AND type = 'custom'`).run(runnerId);
  for (const name of names) addLabel(db, runnerId, name, 'custom');
}

function checkLabelNames(names: string[]): void {
  const bad = names.find((name) => name.trim() === '' || name.length > 256);
  if (bad !== undefined) throw new GithubError(422, `Invalid label name ${JSON.stringify(bad)}`, [{ resource: 'Label', field: 'labels', code: 'invalid' }]);
}

const runnerHandlers = {
  list: (req, ctx) => {
    const scope = scopeOf(req, ctx);
    const runners = ctx.db.prepare('SELECT * FROM runners WHERE scope = ? ORDER BY id').all(scope.key) as Runner[];
    return { status: 200, body: { total_count: runners.length, runners: page(runners, req.query).map((r) => runnerView(ctx.db, r)) } };
  },
  get: (req, ctx) => ({ status: 200, body: runnerView(ctx.db, runnerOf(req, ctx).runner) }),
  delete: (req, ctx) => {
    deleteRunner(ctx.db, runnerOf(req, ctx).runner.id);
    return { status: 204 };
  },
  registrationToken: (req, ctx) => issueToken(ctx, scopeOf(req, ctx), 'registration'),
  removeToken: (req, ctx) => issueToken(ctx, scopeOf(req, ctx), 'remove'),
  listLabels: (req, ctx) => labelsView(labelsOf(ctx.db, runnerOf(req, ctx).runner.id)),
  addLabels: (req, ctx) => {
    const { runner } = runnerOf(req, ctx);
    const names = (req.body as { labels: string[] }).labels;
    checkLabelNames(names);
    for (const name of names) addLabel(ctx.db, runner.id, name, 'custom');
    return labelsView(labelsOf(ctx.db, runner.id));
  },
  setLabels: (req, ctx) => {
    const { runner } = runnerOf(req, ctx);
    const names = (req.body as { labels: string[] }).labels;
    checkLabelNames(names);
    setCustomLabels(ctx.db, runner.id, names);
    return labelsView(labelsOf(ctx.db, runner.id));
  },
  removeAllLabels: (req, ctx) => {
    const { runner } = runnerOf(req, ctx);
    setCustomLabels(ctx.db, runner.id, []);
    return labelsView(labelsOf(ctx.db, runner.id));
  },
  removeLabel: (req, ctx) => {
    const { runner } = runnerOf(req, ctx);
    const label = labelsOf(ctx.db, runner.id).find((l) => l.name === req.params.name);
    if (!label) throw notFound();
    if (label.type === 'read-only') throw new GithubError(422, `${label.name} is a read-only label and cannot be removed`);
    ctx.db.prepare('DELETE FROM runner_labels WHERE id = ?').run(label.id);
    return labelsView(labelsOf(ctx.db, runner.id));
  },
} satisfies Record<string, Handler>;

// ---------------------------------------------------------------------------------------------
// Runner groups

interface Group {
  id: number;
  scope: string;
  name: string;
  visibility: 'all' | 'selected' | 'private';
  is_default: number;
  allows_public_repositories: number;
  restricted_to_workflows: number;
  selected_workflows: string;
}

/** Every organization and enterprise has a default group, made on first need. */
function defaultGroup(db: Database.Database, scope: string): Group {
  db.prepare(
    `INSERT OR IGNORE INTO runner_groups (scope, name, visibility, is_default, allows_public_repositories, restricted_to_workflows, selected_workflows)
     VALUES (?, 'Default', 'all', 1, 1, 0, '[]')`,
  ).run(scope);
  return db.prepare('SELECT * FROM runner_groups WHERE scope = ? AND is_default = 1').get(scope) as Group;
}

function groupOf(req: GithubRequest, ctx: GithubContext): { scope: Scope; group: Group } {
  const scope = scopeOf(req, ctx);
  defaultGroup(ctx.db, scope.key);
  const group = ctx.db.prepare('SELECT * FROM runner_groups WHERE id = ? AND scope = ?').get(idParam(req, 'runner_group_id'), scope.key) as Group | undefined;
  if (!group) throw notFound();
  return { scope, group };
}

const accessIds = (db: Database.Database, group: Group) =>
  (db.prepare('SELECT target_id FROM runner_group_access WHERE group_id = ? ORDER BY target_id').all(group.id) as Array<{ target_id: number }>).map(
    (r) => r.target_id,
  );

function groupView(scope: Scope, group: Group) {
  const url = `${scope.url}/runner-groups/${group.id}`;
  const selected = group.visibility === 'selected';
  const restricted = group.restricted_to_workflows === 1;
  const common = {
    id: group.id,
    name: group.name,
    visibility: group.visibility,
    default: group.is_default === 1,
    runners_url: `${url}/runners`,
    allows_public_repositories: group.allows_public_repositories === 1,
    restricted_to_workflows: restricted,
    selected_workflows: restricted ? (JSON.parse(group.selected_workflows) as string[]) : [],
    workflow_restrictions_read_only: false,
  };
  if (scope.org) return { ...common, ...(selected ? { selected_repositories_url: `${url}/repositories` } : {}), inherited: false };
  return { ...common, ...(selected ? { selected_organizations_url: `${url}/organizations` } : {}) };
}

/** The ids an access list may hold: the organization's repositories, or existing organizations. */
function accessTargets(ctx: GithubContext, scope: Scope, ids: number[], field: string): number[] {
  if (scope.org) return organizationRepositories(ctx, scope.org, ids, field).map((r) => r.id);
  for (const id of ids) {
    if (!organizationById(ctx.db, id)) throw new GithubError(422, `Organization ${id} does not exist`, [{ resource: 'RunnerGroup', field, code: 'invalid' }]);
  }
  return [...new Set(ids)];
}

function setAccess(db: Database.Database, group: Group, ids: number[]): void {
  db.prepare('DELETE FROM runner_group_access WHERE group_id = ?').run(group.id);
  const insert = db.prepare('INSERT OR IGNORE INTO runner_group_access (group_id, target_id) VALUES (?, ?)');
  for (const id of ids) insert.run(group.id, id);
}

function moveRunners(ctx: GithubContext, scope: Scope, group: Group, runnerIds: number[]): void {
  const runners = runnerIds.map((id) => runnerIn(ctx.db, scope, id));
  const move = ctx.db.prepare('UPDATE runners SET group_id = ? WHERE id = ?');
  for (const runner of runners) move.run(group.id, runner.id);
}

interface GroupInput {
  name?: string;
  visibility?: Group['visibility'];
  selected_repository_ids?: number[];
  selected_organization_ids?: number[];
  runners?: number[];
  allows_public_repositories?: boolean;
  restricted_to_workflows?: boolean;
  selected_workflows?: string[];
}

function checkName(db: Database.Database, scope: Scope, name: string, except?: number): void {
  const clash = db.prepare('SELECT id FROM runner_groups WHERE scope = ? AND lower(name) = lower(?)').get(scope.key, name) as { id: number } | undefined;
  if (clash && clash.id !== except) {
    throw new GithubError(422, 'Validation Failed', [
      { resource: 'RunnerGroup', field: 'name', code: 'already_exists', message: `A runner group named ${name} already exists` },
    ]);
  }
}

function visibleTo(ctx: GithubContext, scope: Scope, group: Group, query: GithubRequest['query']): boolean {
  if (scope.org) {
    const repoName = textParam(query.visible_to_repository);
    if (repoName === undefined) return true;
    const repo = ctx.repository(scope.org.login, repoName);
    if (group.visibility === 'private') return repo.private;
    return group.visibility === 'all' || accessIds(ctx.db, group).includes(repo.id);
  }
  const orgName = textParam(query.visible_to_organization);
  if (orgName === undefined) return true;
  const org = organization(ctx, orgName, ctx.user(orgName));
  return group.visibility === 'all' || accessIds(ctx.db, group).includes(org.id);
}

function selectedGroupOf(req: GithubRequest, ctx: GithubContext) {
  const found = groupOf(req, ctx);
  if (found.group.visibility !== 'selected') throw new GithubError(409, `The visibility of runner group ${found.group.name} is not set to selected.`);
  return found;
}

const groupHandlers = {
  list: (req, ctx) => {
    const scope = scopeOf(req, ctx);
    defaultGroup(ctx.db, scope.key);
    const groups = (ctx.db.prepare('SELECT * FROM runner_groups WHERE scope = ? ORDER BY id').all(scope.key) as Group[]).filter((g) =>
      visibleTo(ctx, scope, g, req.query),
    );
    return { status: 200, body: { total_count: groups.length, runner_groups: page(groups, req.query).map((g) => groupView(scope, g)) } };
  },

  create: (req, ctx) => {
    const scope = scopeOf(req, ctx);
    defaultGroup(ctx.db, scope.key);
    const input = req.body as GroupInput & { name: string };
    const visibility = input.visibility ?? 'all';
    const ids = scope.org ? input.selected_repository_ids : input.selected_organization_ids;
    const field = scope.org ? 'selected_repository_ids' : 'selected_organization_ids';
    if (ids !== undefined && visibility !== 'selected') {
      throw new GithubError(422, `${field} can only be given when visibility is selected`, [{ resource: 'RunnerGroup', field, code: 'invalid' }]);
    }
    checkName(ctx.db, scope, input.name);
    const group = ctx.db.transaction(() => {
      const result = ctx.db
        .prepare(
          `INSERT INTO runner_groups (scope, name, visibility, is_default, allows_public_repositories, restricted_to_workflows, selected_workflows)
           VALUES (?, ?, ?, 0, ?, ?, ?)`,
        )
        .run(
          scope.key,
          input.name,
          visibility,
          input.allows_public_repositories ? 1 : 0,
          input.restricted_to_workflows ? 1 : 0,
          JSON.stringify(input.selected_workflows ?? []),
        );
      const created = ctx.db.prepare('SELECT * FROM runner_groups WHERE id = ?').get(result.lastInsertRowid) as Group;
      setAccess(ctx.db, created, accessTargets(ctx, scope, ids ?? [], field));
      moveRunners(ctx, scope, created, input.runners ?? []);
      return created;
    })();
    return { status: 201, body: groupView(scope, group) };
  },

  get: (req, ctx) => {
    const { scope, group } = groupOf(req, ctx);
    return { status: 200, body: groupView(scope, group) };
  },

  update: (req, ctx) => {
    const { scope, group } = groupOf(req, ctx);
    const input = (req.body ?? {}) as GroupInput;
    if (input.name !== undefined) checkName(ctx.db, scope, input.name, group.id);
    const next: Group = {
      ...group,
      name: input.name ?? group.name,
      visibility: input.visibility ?? group.visibility,
      allows_public_repositories: input.allows_public_repositories === undefined ? group.allows_public_repositories : Number(input.allows_public_repositories),
      restricted_to_workflows: input.restricted_to_workflows === undefined ? group.restricted_to_workflows : Number(input.restricted_to_workflows),
      selected_workflows: input.selected_workflows === undefined ? group.selected_workflows : JSON.stringify(input.selected_workflows),
    };
    ctx.db.transaction(() => {
      ctx.db
        .prepare(
          'UPDATE runner_groups SET name = ?, visibility = ?, allows_public_repositories = ?, restricted_to_workflows = ?, selected_workflows = ? WHERE id = ?',
        )
        .run(next.name, next.visibility, next.allows_public_repositories, next.restricted_to_workflows, next.selected_workflows, group.id);
      // Leaving `selected` ends the access list.
      if (next.visibility !== 'selected') setAccess(ctx.db, group, []);
    })();
    return { status: 200, body: groupView(scope, next) };
  },

  delete: (req, ctx) => {
    const { scope, group } = groupOf(req, ctx);
    if (group.is_default === 1) throw new GithubError(422, 'The default runner group cannot be deleted.');
    ctx.db.transaction(() => {
      // Its runners fall back to the default group rather than vanishing.
      ctx.db.prepare('UPDATE runners SET group_id = ? WHERE group_id = ?').run(defaultGroup(ctx.db, scope.key).id, group.id);
      ctx.db.prepare('DELETE FROM runner_group_access WHERE group_id = ?').run(group.id);
      ctx.db.prepare('DELETE FROM runner_groups WHERE id = ?').run(group.id);
    })();
    return { status: 204 };
  },

  listAccess: (req, ctx) => {
    const { scope, group } = groupOf(req, ctx);
    const ids = group.visibility === 'selected' ? accessIds(ctx.db, group) : [];
    if (scope.org) {
      const repos = ids.flatMap((id) => repositoryById(ctx, id) ?? []);
      return { status: 200, body: { total_count: repos.length, repositories: page(repos, req.query).map((r) => minimalRepository(ctx, r)) } };
    }
    const orgs = ids.flatMap((id) => organizationById(ctx.db, id) ?? []);
    return { status: 200, body: { total_count: orgs.length, organizations: page(orgs, req.query).map(organizationSimple) } };
  },

  setAccess: (req, ctx) => {
    const { scope, group } = selectedGroupOf(req, ctx);
    const field = scope.org ? 'selected_repository_ids' : 'selected_organization_ids';
    setAccess(ctx.db, group, accessTargets(ctx, scope, (req.body as Record<string, number[]>)[field] ?? [], field));
    return { status: 204 };
  },

  addAccess: (req, ctx) => {
    const { scope, group } = selectedGroupOf(req, ctx);
    const field = scope.org ? 'repository_id' : 'org_id';
    const [id] = accessTargets(ctx, scope, [Number(req.params[field])], field);
    ctx.db.prepare('INSERT OR IGNORE INTO runner_group_access (group_id, target_id) VALUES (?, ?)').run(group.id, id);
    return { status: 204 };
  },

  removeAccess: (req, ctx) => {
    const { scope, group } = selectedGroupOf(req, ctx);
    const id = Number(req.params[scope.org ? 'repository_id' : 'org_id']);
    ctx.db.prepare('DELETE FROM runner_group_access WHERE group_id = ? AND target_id = ?').run(group.id, id);
    return { status: 204 };
  },

  listRunners: (req, ctx) => {
    const { group } = groupOf(req, ctx);
    const runners = ctx.db.prepare('SELECT * FROM runners WHERE group_id = ? ORDER BY id').all(group.id) as Runner[];
    return { status: 200, body: { total_count: runners.length, runners: page(runners, req.query).map((r) => runnerView(ctx.db, r)) } };
  },

  /** Runners taken out of the group go back to the default group. */
  setRunners: (req, ctx) => {
    const { scope, group } = groupOf(req, ctx);
    const ids = (req.body as { runners: number[] }).runners;
    for (const id of ids) runnerIn(ctx.db, scope, id);
    ctx.db.transaction(() => {
      ctx.db.prepare('UPDATE runners SET group_id = ? WHERE group_id = ?').run(defaultGroup(ctx.db, scope.key).id, group.id);
      moveRunners(ctx, scope, group, ids);
    })();
    return { status: 204 };
  },

  addRunner: (req, ctx) => {
    const { scope, group } = groupOf(req, ctx);
    moveRunners(ctx, scope, group, [idParam(req, 'runner_id')]);
    return { status: 204 };
  },

  removeRunner: (req, ctx) => {
    const { scope, group } = groupOf(req, ctx);
    const runner = runnerIn(ctx.db, scope, idParam(req, 'runner_id'));
    if (runner.group_id === group.id) ctx.db.prepare('UPDATE runners SET group_id = ? WHERE id = ?').run(defaultGroup(ctx.db, scope.key).id, runner.id);
    return { status: 204 };
  },
} satisfies Record<string, Handler>;

// ---------------------------------------------------------------------------------------------
// Operation ids

/** The ten runner operations, named alike for organizations, repositories and enterprises. */
function runnerOperations(prefix: string, owner: 'org' | 'repo' | 'enterprise'): Record<string, Handler> {
  const h = runnerHandlers;
  return {
    [`${prefix}/list-self-hosted-runners-for-${owner}`]: h.list,
    [`${prefix}/get-self-hosted-runner-for-${owner}`]: h.get,
    [`${prefix}/delete-self-hosted-runner-from-${owner}`]: h.delete,
    [`${prefix}/create-registration-token-for-${owner}`]: h.registrationToken,
    [`${prefix}/create-remove-token-for-${owner}`]: h.removeToken,
    [`${prefix}/list-labels-for-self-hosted-runner-for-${owner}`]: h.listLabels,
    [`${prefix}/add-custom-labels-to-self-hosted-runner-for-${owner}`]: h.addLabels,
    [`${prefix}/set-custom-labels-for-self-hosted-runner-for-${owner}`]: h.setLabels,
    [`${prefix}/remove-all-custom-labels-from-self-hosted-runner-for-${owner}`]: h.removeAllLabels,
    [`${prefix}/remove-custom-label-from-self-hosted-runner-for-${owner}`]: h.removeLabel,
  };
}

const g = groupHandlers;

export const runnersHandlers: Record<string, Handler> = {
  ...runnerOperations('actions', 'org'),
  ...runnerOperations('actions', 'repo'),
  ...runnerOperations('enterprise-admin', 'enterprise'),

  'actions/list-self-hosted-runner-groups-for-org': g.list,
  'actions/create-self-hosted-runner-group-for-org': g.create,
  'actions/get-self-hosted-runner-group-for-org': g.get,
  'actions/update-self-hosted-runner-group-for-org': g.update,
  'actions/delete-self-hosted-runner-group-from-org': g.delete,
  'actions/list-repo-access-to-self-hosted-runner-group-in-org': g.listAccess,
  'actions/set-repo-access-to-self-hosted-runner-group-in-org': g.setAccess,
  'actions/add-repo-access-to-self-hosted-runner-group-in-org': g.addAccess,
  'actions/remove-repo-access-to-self-hosted-runner-group-in-org': g.removeAccess,
  'actions/list-self-hosted-runners-in-group-for-org': g.listRunners,
  'actions/set-self-hosted-runners-in-group-for-org': g.setRunners,
  'actions/add-self-hosted-runner-to-group-for-org': g.addRunner,
  'actions/remove-self-hosted-runner-from-group-for-org': g.removeRunner,

  'enterprise-admin/list-self-hosted-runner-groups-for-enterprise': g.list,
  'enterprise-admin/create-self-hosted-runner-group-for-enterprise': g.create,
  'enterprise-admin/get-self-hosted-runner-group-for-enterprise': g.get,
  'enterprise-admin/update-self-hosted-runner-group-for-enterprise': g.update,
  'enterprise-admin/delete-self-hosted-runner-group-from-enterprise': g.delete,
  'enterprise-admin/list-org-access-to-self-hosted-runner-group-in-enterprise': g.listAccess,
  'enterprise-admin/set-org-access-to-self-hosted-runner-group-in-enterprise': g.setAccess,
  'enterprise-admin/add-org-access-to-self-hosted-runner-group-in-enterprise': g.addAccess,
  'enterprise-admin/remove-org-access-to-self-hosted-runner-group-in-enterprise': g.removeAccess,
  'enterprise-admin/list-self-hosted-runners-in-group-for-enterprise': g.listRunners,
  'enterprise-admin/set-self-hosted-runners-in-group-for-enterprise': g.setRunners,
  'enterprise-admin/add-self-hosted-runner-to-group-for-enterprise': g.addRunner,
  'enterprise-admin/remove-self-hosted-runner-from-group-for-enterprise': g.removeRunner,
};
