import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import {
  API,
  createOrganizationTables,
  iso,
  minimalRepository,
  organization,
  organizationRepositories,
  page,
  repositoryById,
  type Organization,
} from './common.js';
import { GithubError, notFound, type GithubContext, type GithubRequest, type Handler, type Repository } from './context.js';

/**
 * Actions and Dependabot secrets of repositories and organizations, and organization variables.
 *
 * Values are stored as sent, encrypted against the scope's public key, and never returned: lists
 * and gets show names and dates only. Names are upper-cased as GitHub does, so lookups ignore case.
 *
 * Organization secrets and variables have a visibility: all, private (private repositories only)
 * or selected. Only a `selected` one has a repository list; managing that list otherwise answers
 * 409, as GitHub does.
 */

type Kind = 'actions' | 'dependabot';

export function createSecretsTables(db: Database.Database): void {
  createOrganizationTables(db);
  db.exec(`
    CREATE TABLE IF NOT EXISTS repo_secrets (
      kind TEXT NOT NULL,
      repo_id INTEGER NOT NULL,
      name TEXT NOT NULL,
      encrypted_value TEXT NOT NULL,
      key_id TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (kind, repo_id, name)
    );
    CREATE TABLE IF NOT EXISTS org_secrets (
      kind TEXT NOT NULL,
      org_id INTEGER NOT NULL,
      name TEXT NOT NULL,
      encrypted_value TEXT NOT NULL,
      key_id TEXT NOT NULL,
      visibility TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (kind, org_id, name)
    );
    CREATE TABLE IF NOT EXISTS org_variables (
      org_id INTEGER NOT NULL,
      name TEXT NOT NULL,
      value TEXT NOT NULL,
      visibility TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (org_id, name)
    );
    CREATE TABLE IF NOT EXISTS org_selected_repositories (
      owner_kind TEXT NOT NULL,
      org_id INTEGER NOT NULL,
      name TEXT NOT NULL,
      repo_id INTEGER NOT NULL,
      PRIMARY KEY (owner_kind, org_id, name, repo_id)
    );
  `);
}

type Visibility = 'all' | 'private' | 'selected';

// ---------------------------------------------------------------------------------------------
// Public keys

/** A stable key per scope: tools encrypt against it and send its key_id back. */
function publicKey(scope: string) {
  const digest = createHash('sha256').update(`quiver public key ${scope}`).digest();
  const key_id = BigInt(`0x${digest.subarray(0, 8).toString('hex')}`)
    .toString()
    .padStart(18, '0')
    .slice(0, 18);
  return { key_id, key: digest.toString('base64') };
}

const repoScope = (kind: Kind, repo: Repository) => `${kind}:repo:${repo.id}`;
const orgScope = (kind: Kind, org: Organization) => `${kind}:org:${org.id}`;

// ---------------------------------------------------------------------------------------------
// Shared rules

function checkedName(given: string | undefined, noun: 'Secret' | 'Variable' = 'Secret'): string {
  const name = (given ?? '').toUpperCase();
  const problem = !/^[A-Z0-9_]+$/.test(name)
    ? `${noun} names can only contain alphanumeric characters ([a-z], [A-Z], [0-9]) or underscores (_).`
    : /^[0-9]/.test(name)
      ? `${noun} names cannot start with a number.`
      : name.startsWith('GITHUB_')
        ? `${noun} names must not start with the GITHUB_ prefix.`
        : undefined;
  if (problem) throw new GithubError(422, problem, [{ resource: noun, field: 'name', code: 'invalid', message: problem }]);
  return name;
}

interface SecretInput {
  encrypted_value?: string;
  key_id?: string;
  visibility?: Visibility;
  selected_repository_ids?: number[];
}

/** The value and key to store: a new secret needs both; an update may leave them as they are. */
function sealedValue(input: SecretInput, scope: string, existing: { encrypted_value: string; key_id: string } | undefined) {
  if (input.encrypted_value === undefined) {
    if (existing) return existing;
    throw new GithubError(422, 'encrypted_value is required to create a secret', [{ resource: 'Secret', field: 'encrypted_value', code: 'missing_field' }]);
  }
  if (input.key_id !== publicKey(scope).key_id) {
    throw new GithubError(422, 'key_id does not match the public key of this scope; fetch the public key again', [
      { resource: 'Secret', field: 'key_id', code: 'invalid' },
    ]);
  }
  return { encrypted_value: input.encrypted_value, key_id: input.key_id };
}

function checkSelection(visibility: Visibility, ids: number[] | undefined): void {
  if (ids !== undefined && visibility !== 'selected') {
    throw new GithubError(422, 'You can only provide a list of repository ids when the visibility is set to selected.', [
      { resource: 'Secret', field: 'selected_repository_ids', code: 'invalid' },
    ]);
  }
}

const notSelected = (what: string) => new GithubError(409, `The visibility of ${what} is not set to selected.`);

// ---------------------------------------------------------------------------------------------
// Repository secrets

interface RepoSecret {
  name: string;
  encrypted_value: string;
  key_id: string;
  created_at: number;
  updated_at: number;
}

const secretView = (s: { name: string; created_at: number; updated_at: number }) => ({
  name: s.name,
  created_at: iso(s.created_at),
  updated_at: iso(s.updated_at),
});

function repositoryOf(req: GithubRequest, ctx: GithubContext): Repository {
  const repo = ctx.repository(req.params.owner ?? '', req.params.repo ?? '');
  createSecretsTables(ctx.db);
  return repo;
}

function findRepoSecret(db: Database.Database, kind: Kind, repo: Repository, name: string): RepoSecret | undefined {
  return db.prepare('SELECT * FROM repo_secrets WHERE kind = ? AND repo_id = ? AND name = ?').get(kind, repo.id, name.toUpperCase()) as RepoSecret | undefined;
}

function repoSecretHandlers(kind: Kind): Record<string, Handler> {
  return {
    [`${kind}/get-repo-public-key`]: (req, ctx) => ({ status: 200, body: publicKey(repoScope(kind, repositoryOf(req, ctx))) }),

    [`${kind}/create-or-update-repo-secret`]: (req, ctx) => {
      const repo = repositoryOf(req, ctx);
      const name = checkedName(req.params.secret_name);
      const existing = findRepoSecret(ctx.db, kind, repo, name);
      const sealed = sealedValue(req.body ?? {}, repoScope(kind, repo), existing);
      const now = ctx.clock.now();
      ctx.db
        .prepare('INSERT OR REPLACE INTO repo_secrets (kind, repo_id, name, encrypted_value, key_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(kind, repo.id, name, sealed.encrypted_value, sealed.key_id, existing?.created_at ?? now, now);
      return existing ? { status: 204 } : { status: 201, body: {} };
    },

    [`${kind}/list-repo-secrets`]: (req, ctx) => {
      const repo = repositoryOf(req, ctx);
      const secrets = ctx.db.prepare('SELECT * FROM repo_secrets WHERE kind = ? AND repo_id = ? ORDER BY name').all(kind, repo.id) as RepoSecret[];
      return { status: 200, body: { total_count: secrets.length, secrets: page(secrets, req.query).map(secretView) } };
    },

    [`${kind}/get-repo-secret`]: (req, ctx) => {
      const secret = findRepoSecret(ctx.db, kind, repositoryOf(req, ctx), req.params.secret_name ?? '');
      if (!secret) throw notFound();
      return { status: 200, body: secretView(secret) };
    },

    [`${kind}/delete-repo-secret`]: (req, ctx) => {
      const repo = repositoryOf(req, ctx);
      const result = ctx.db
        .prepare('DELETE FROM repo_secrets WHERE kind = ? AND repo_id = ? AND name = ?')
        .run(kind, repo.id, (req.params.secret_name ?? '').toUpperCase());
      if (result.changes === 0) throw notFound();
      return { status: 204 };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Organization secrets and variables: what they share is a visibility and a repository list.

interface Shared {
  name: string;
  visibility: Visibility;
}

/** Where an organization-level secret or variable lives, and how its repository list is found. */
interface Owner<T extends Shared> {
  /** Tells the repository lists of the three families apart. */
  tag: string;
  find(db: Database.Database, org: Organization, name: string): T | undefined;
  /** The API path of its repository list. */
  repositoriesUrl(org: Organization, name: string): string;
}

function orgOf(req: GithubRequest, ctx: GithubContext): Organization {
  createSecretsTables(ctx.db);
  return organization(ctx, req.params.org ?? '', req.user);
}

function selectedIds(db: Database.Database, tag: string, org: Organization, name: string): number[] {
  const rows = db
    .prepare('SELECT repo_id FROM org_selected_repositories WHERE owner_kind = ? AND org_id = ? AND name = ? ORDER BY repo_id')
    .all(tag, org.id, name) as Array<{
    repo_id: number;
  }>;
  return rows.map((r) => r.repo_id);
}

function setSelected(ctx: GithubContext, tag: string, org: Organization, name: string, ids: number[]): void {
  const repos = organizationRepositories(ctx, org, ids);
  ctx.db.prepare('DELETE FROM org_selected_repositories WHERE owner_kind = ? AND org_id = ? AND name = ?').run(tag, org.id, name);
  const insert = ctx.db.prepare('INSERT INTO org_selected_repositories (owner_kind, org_id, name, repo_id) VALUES (?, ?, ?, ?)');
  for (const repo of repos) insert.run(tag, org.id, name, repo.id);
}

function dropSelected(db: Database.Database, tag: string, org: Organization, name: string): void {
  db.prepare('DELETE FROM org_selected_repositories WHERE owner_kind = ? AND org_id = ? AND name = ?').run(tag, org.id, name);
}

function selectionHandlers<T extends Shared>(
  owner: Owner<T>,
  operations: { list: string; set: string; add: string; remove: string },
  param: string,
  listRefusesUnselected: boolean,
): Record<string, Handler> {
  const target = (req: GithubRequest, ctx: GithubContext) => {
    const org = orgOf(req, ctx);
    const item = owner.find(ctx.db, org, req.params[param] ?? '');
    if (!item) throw notFound();
    return { org, item };
  };
  const selectedTarget = (req: GithubRequest, ctx: GithubContext) => {
    const found = target(req, ctx);
    if (found.item.visibility !== 'selected') throw notSelected(found.item.name);
    return found;
  };
  return {
    [operations.list]: (req, ctx) => {
      const { org, item } = listRefusesUnselected ? selectedTarget(req, ctx) : target(req, ctx);
      const repos = selectedIds(ctx.db, owner.tag, org, item.name).flatMap((id) => repositoryById(ctx, id) ?? []);
      return { status: 200, body: { total_count: repos.length, repositories: page(repos, req.query).map((r) => minimalRepository(ctx, r)) } };
    },
    [operations.set]: (req, ctx) => {
      const { org, item } = selectedTarget(req, ctx);
      setSelected(ctx, owner.tag, org, item.name, (req.body as { selected_repository_ids: number[] }).selected_repository_ids);
      return { status: 204 };
    },
    [operations.add]: (req, ctx) => {
      const { org, item } = selectedTarget(req, ctx);
      const [repo] = organizationRepositories(ctx, org, [Number(req.params.repository_id)], 'repository_id');
      ctx.db
        .prepare('INSERT OR IGNORE INTO org_selected_repositories (owner_kind, org_id, name, repo_id) VALUES (?, ?, ?, ?)')
        .run(owner.tag, org.id, item.name, repo!.id);
      return { status: 204 };
    },
    [operations.remove]: (req, ctx) => {
      const { org, item } = selectedTarget(req, ctx);
      ctx.db
        .prepare('DELETE FROM org_selected_repositories WHERE owner_kind = ? AND org_id = ? AND name = ? AND repo_id = ?')
        .run(owner.tag, org.id, item.name, Number(req.params.repository_id));
      return { status: 204 };
    },
  };
}

interface OrgSecret extends Shared {
  kind: Kind;
  org_id: number;
  encrypted_value: string;
  key_id: string;
  created_at: number;
  updated_at: number;
}

function orgSecretHandlers(kind: Kind): Record<string, Handler> {
  const owner: Owner<OrgSecret> = {
    tag: `${kind}-secret`,
    find: (db, org, name) =>
      db.prepare('SELECT * FROM org_secrets WHERE kind = ? AND org_id = ? AND name = ?').get(kind, org.id, name.toUpperCase()) as OrgSecret | undefined,
    repositoriesUrl: (org, name) => `${API}/orgs/${org.login}/${kind}/secrets/${name}/repositories`,
  };
  const view = (org: Organization, s: OrgSecret) => ({
    ...secretView(s),
    visibility: s.visibility,
    ...(s.visibility === 'selected' ? { selected_repositories_url: owner.repositoriesUrl(org, s.name) } : {}),
  });

  return {
    [`${kind}/get-org-public-key`]: (req, ctx) => ({ status: 200, body: publicKey(orgScope(kind, orgOf(req, ctx))) }),

    [`${kind}/create-or-update-org-secret`]: (req, ctx) => {
      const org = orgOf(req, ctx);
      const name = checkedName(req.params.secret_name);
      const input = (req.body ?? {}) as SecretInput;
      const existing = owner.find(ctx.db, org, name);
      const visibility = input.visibility ?? existing?.visibility ?? 'all';
      checkSelection(visibility, input.selected_repository_ids);
      const sealed = sealedValue(input, orgScope(kind, org), existing);
      const now = ctx.clock.now();
      ctx.db.transaction(() => {
        ctx.db
          .prepare(
            `INSERT OR REPLACE INTO org_secrets (kind, org_id, name, encrypted_value, key_id, visibility, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(kind, org.id, name, sealed.encrypted_value, sealed.key_id, visibility, existing?.created_at ?? now, now);
        if (visibility !== 'selected') dropSelected(ctx.db, owner.tag, org, name);
        else if (input.selected_repository_ids) setSelected(ctx, owner.tag, org, name, input.selected_repository_ids);
      })();
      return existing ? { status: 204 } : { status: 201, body: {} };
    },

    [`${kind}/list-org-secrets`]: (req, ctx) => {
      const org = orgOf(req, ctx);
      const secrets = ctx.db.prepare('SELECT * FROM org_secrets WHERE kind = ? AND org_id = ? ORDER BY name').all(kind, org.id) as OrgSecret[];
      return { status: 200, body: { total_count: secrets.length, secrets: page(secrets, req.query).map((s) => view(org, s)) } };
    },

    [`${kind}/get-org-secret`]: (req, ctx) => {
      const org = orgOf(req, ctx);
      const secret = owner.find(ctx.db, org, req.params.secret_name ?? '');
      if (!secret) throw notFound();
      return { status: 200, body: view(org, secret) };
    },

    [`${kind}/delete-org-secret`]: (req, ctx) => {
      const org = orgOf(req, ctx);
      const secret = owner.find(ctx.db, org, req.params.secret_name ?? '');
      if (!secret) throw notFound();
      ctx.db.prepare('DELETE FROM org_secrets WHERE kind = ? AND org_id = ? AND name = ?').run(kind, org.id, secret.name);
      dropSelected(ctx.db, owner.tag, org, secret.name);
      return { status: 204 };
    },

    ...selectionHandlers(
      owner,
      {
        list: `${kind}/list-selected-repos-for-org-secret`,
        set: `${kind}/set-selected-repos-for-org-secret`,
        add: `${kind}/add-selected-repo-to-org-secret`,
        remove: `${kind}/remove-selected-repo-from-org-secret`,
      },
      'secret_name',
      false,
    ),
  };
}

interface OrgVariable extends Shared {
  org_id: number;
  value: string;
  created_at: number;
  updated_at: number;
}

const variables: Owner<OrgVariable> = {
  tag: 'actions-variable',
  find: (db, org, name) => db.prepare('SELECT * FROM org_variables WHERE org_id = ? AND name = ?').get(org.id, name.toUpperCase()) as OrgVariable | undefined,
  repositoriesUrl: (org, name) => `${API}/orgs/${org.login}/actions/variables/${name}/repositories`,
};

const variableView = (org: Organization, v: OrgVariable) => ({
  name: v.name,
  value: v.value,
  created_at: iso(v.created_at),
  updated_at: iso(v.updated_at),
  visibility: v.visibility,
  ...(v.visibility === 'selected' ? { selected_repositories_url: variables.repositoriesUrl(org, v.name) } : {}),
});

function variableOf(req: GithubRequest, ctx: GithubContext): { org: Organization; variable: OrgVariable } {
  const org = orgOf(req, ctx);
  const variable = variables.find(ctx.db, org, req.params.name ?? '');
  if (!variable) throw notFound();
  return { org, variable };
}

interface VariableInput {
  name?: string;
  value?: string;
  visibility?: Visibility;
  selected_repository_ids?: number[];
}

const variableHandlers: Record<string, Handler> = {
  'actions/create-org-variable': (req, ctx) => {
    const org = orgOf(req, ctx);
    const input = req.body as Required<Pick<VariableInput, 'name' | 'value' | 'visibility'>> & VariableInput;
    const name = checkedName(input.name, 'Variable');
    if (variables.find(ctx.db, org, name)) throw new GithubError(409, `Variable ${name} already exists`);
    checkSelection(input.visibility, input.selected_repository_ids);
    const now = ctx.clock.now();
    ctx.db.transaction(() => {
      ctx.db
        .prepare('INSERT INTO org_variables (org_id, name, value, visibility, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(org.id, name, input.value, input.visibility, now, now);
      if (input.selected_repository_ids) setSelected(ctx, variables.tag, org, name, input.selected_repository_ids);
    })();
    return { status: 201, body: {} };
  },

  'actions/list-org-variables': (req, ctx) => {
    const org = orgOf(req, ctx);
    const all = ctx.db.prepare('SELECT * FROM org_variables WHERE org_id = ? ORDER BY name').all(org.id) as OrgVariable[];
    return { status: 200, body: { total_count: all.length, variables: page(all, req.query, 10).map((v) => variableView(org, v)) } };
  },

  'actions/get-org-variable': (req, ctx) => {
    const { org, variable } = variableOf(req, ctx);
    return { status: 200, body: variableView(org, variable) };
  },

  'actions/update-org-variable': (req, ctx) => {
    const { org, variable } = variableOf(req, ctx);
    const input = req.body as VariableInput;
    const name = input.name === undefined ? variable.name : checkedName(input.name, 'Variable');
    if (name !== variable.name && variables.find(ctx.db, org, name)) throw new GithubError(409, `Variable ${name} already exists`);
    const visibility = input.visibility ?? variable.visibility;
    checkSelection(visibility, input.selected_repository_ids);
    ctx.db.transaction(() => {
      ctx.db
        .prepare('UPDATE org_variables SET name = ?, value = ?, visibility = ?, updated_at = ? WHERE org_id = ? AND name = ?')
        .run(name, input.value ?? variable.value, visibility, ctx.clock.now(), org.id, variable.name);
      ctx.db
        .prepare('UPDATE org_selected_repositories SET name = ? WHERE owner_kind = ? AND org_id = ? AND name = ?')
        .run(name, variables.tag, org.id, variable.name);
      if (visibility !== 'selected') dropSelected(ctx.db, variables.tag, org, name);
      else if (input.selected_repository_ids) setSelected(ctx, variables.tag, org, name, input.selected_repository_ids);
    })();
    return { status: 204 };
  },

  'actions/delete-org-variable': (req, ctx) => {
    const { org, variable } = variableOf(req, ctx);
    ctx.db.prepare('DELETE FROM org_variables WHERE org_id = ? AND name = ?').run(org.id, variable.name);
    dropSelected(ctx.db, variables.tag, org, variable.name);
    return { status: 204 };
  },

  ...selectionHandlers(
    variables,
    {
      list: 'actions/list-selected-repos-for-org-variable',
      set: 'actions/set-selected-repos-for-org-variable',
      add: 'actions/add-selected-repo-to-org-variable',
      remove: 'actions/remove-selected-repo-from-org-variable',
    },
    'name',
    // Unlike the secrets' list, the variables' list documents 409 for an unselected variable.
    true,
  ),
};

export const secretsHandlers: Record<string, Handler> = {
  ...repoSecretHandlers('actions'),
  ...repoSecretHandlers('dependabot'),
  ...orgSecretHandlers('actions'),
  ...orgSecretHandlers('dependabot'),
  ...variableHandlers,
};
