import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { linkedPage } from '../emulator/paging.js';
import { GithubError, type GithubContext, type GithubRequest, type GithubUser, type Repository } from './context.js';

/**
 * What the statuses, deployments, git-data, checks, secrets, runners, repo-settings and
 * org-membership modules share: the links GitHub puts in bodies, the account and repository
 * shapes those bodies embed, paging, and the emulator's organizations.
 */

export const API = 'https://api.github.com';
export const WEB = 'https://github.com';

/** GitHub's timestamps carry whole seconds. */
export const iso = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** A stable opaque node id, as GraphQL would hand out for the object. */
export const nodeId = (kind: string, id: number | string): string => Buffer.from(`0:${kind}${id}`).toString('base64');

export const repoUrl = (repo: Repository): string => `${API}/repos/${repo.fullName}`;

/** The `simple-user` every body embeds for a creator, member or owner. */
export function simpleUser(user: GithubUser, type: 'User' | 'Organization' = 'User') {
  const url = `${API}/users/${user.login}`;
  return {
    login: user.login,
    id: user.id,
    node_id: nodeId('User', user.id),
    avatar_url: `https://avatars.githubusercontent.com/u/${user.id}?v=4`,
    gravatar_id: '',
    url,
    html_url: `${WEB}/${user.login}`,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type,
    site_admin: false,
  };
}

/** The `minimal-repository` embedded in check suites, combined statuses and access lists. */
export function minimalRepository(ctx: GithubContext, repo: Repository) {
  const url = repoUrl(repo);
  const owner = ctx.user(repo.owner);
  return {
    id: repo.id,
    node_id: nodeId('Repository', repo.id),
    name: repo.name,
    full_name: repo.fullName,
    owner: simpleUser(owner, isOrganization(ctx.db, repo.owner) ? 'Organization' : 'User'),
    private: repo.private,
    html_url: `${WEB}/${repo.fullName}`,
    description: null,
    fork: false,
    url,
    archive_url: `${url}/{archive_format}{/ref}`,
    assignees_url: `${url}/assignees{/user}`,
    blobs_url: `${url}/git/blobs{/sha}`,
    branches_url: `${url}/branches{/branch}`,
    collaborators_url: `${url}/collaborators{/collaborator}`,
    comments_url: `${url}/comments{/number}`,
    commits_url: `${url}/commits{/sha}`,
    compare_url: `${url}/compare/{base}...{head}`,
    contents_url: `${url}/contents/{+path}`,
    contributors_url: `${url}/contributors`,
    deployments_url: `${url}/deployments`,
    downloads_url: `${url}/downloads`,
    events_url: `${url}/events`,
    forks_url: `${url}/forks`,
    git_commits_url: `${url}/git/commits{/sha}`,
    git_refs_url: `${url}/git/refs{/sha}`,
    git_tags_url: `${url}/git/tags{/sha}`,
    issue_comment_url: `${url}/issues/comments{/number}`,
    issue_events_url: `${url}/issues/events{/number}`,
    issues_url: `${url}/issues{/number}`,
    keys_url: `${url}/keys{/key_id}`,
    labels_url: `${url}/labels{/name}`,
    languages_url: `${url}/languages`,
    merges_url: `${url}/merges`,
    milestones_url: `${url}/milestones{/number}`,
    notifications_url: `${url}/notifications{?since,all,participating}`,
    pulls_url: `${url}/pulls{/number}`,
    releases_url: `${url}/releases{/id}`,
    stargazers_url: `${url}/stargazers`,
    statuses_url: `${url}/statuses/{sha}`,
    subscribers_url: `${url}/subscribers`,
    subscription_url: `${url}/subscription`,
    tags_url: `${url}/tags`,
    teams_url: `${url}/teams`,
    trees_url: `${url}/git/trees{/sha}`,
    hooks_url: `${url}/hooks`,
    default_branch: repo.defaultBranch,
    visibility: repo.private ? 'private' : 'public',
  };
}

// ---------------------------------------------------------------------------------------------
// Paging

/**
 * GitHub pages with `per_page` (default 30, at most 100) and a 1-based `page`; the answer links to the
 * other pages in its `Link` header (the shared layer adds it).
 */
export function page<T>(items: T[], query: GithubRequest['query'], defaultSize = 30): T[] {
  const size = Math.min(Math.max(numberParam(query.per_page) ?? defaultSize, 1), 100);
  const index = Math.max(numberParam(query.page) ?? 1, 1);
  return linkedPage(items, query, index, size);
}

export function numberParam(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text === '' || Number.isNaN(Number(text)) ? undefined : Number(text);
}

export function textParam(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A path id: the HTTP layer checked it is an integer. */
export const idParam = (req: GithubRequest, name: string): number => Number(req.params[name]);

// ---------------------------------------------------------------------------------------------
// Organizations

/**
 * Organizations come into being on first mention, as users do. An organization is an account, so
 * its id comes from the same account space as users (ctx.user); this table only marks which
 * accounts are organizations and when they appeared. Whoever mentions an organization first
 * becomes its owner (see org-membership.ts), so an emulated organization always has one.
 */
export interface Organization {
  id: number;
  login: string;
  createdAt: number;
}

export function createOrganizationTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS organizations (
      id INTEGER PRIMARY KEY,
      login TEXT NOT NULL UNIQUE COLLATE NOCASE,
      created_at INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS org_memberships (
      org_id INTEGER NOT NULL,
      user_id INTEGER NOT NULL,
      login TEXT NOT NULL,
      role TEXT NOT NULL,
      state TEXT NOT NULL,
      public INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (org_id, user_id)
    );
  `);
}

interface OrganizationRow {
  id: number;
  login: string;
  created_at: number;
}

export function isOrganization(db: Database.Database, login: string): boolean {
  createOrganizationTables(db);
  return db.prepare('SELECT 1 FROM organizations WHERE login = ?').get(login) !== undefined;
}

export function findOrganization(db: Database.Database, login: string): Organization | undefined {
  const row = db.prepare('SELECT * FROM organizations WHERE login = ?').get(login) as OrganizationRow | undefined;
  return row && { id: row.id, login: row.login, createdAt: row.created_at };
}

export function organizationById(db: Database.Database, id: number): Organization | undefined {
  const row = db.prepare('SELECT * FROM organizations WHERE id = ?').get(id) as OrganizationRow | undefined;
  return row && { id: row.id, login: row.login, createdAt: row.created_at };
}

/** The organization, created on first mention with `founder` as its active owner. */
export function organization(ctx: GithubContext, login: string, founder: GithubUser): Organization {
  createOrganizationTables(ctx.db);
  const existing = findOrganization(ctx.db, login);
  if (existing) return existing;
  const account = ctx.user(login);
  const now = ctx.clock.now();
  ctx.db.prepare('INSERT INTO organizations (id, login, created_at) VALUES (?, ?, ?)').run(account.id, account.login, now);
  if (founder.id !== account.id) {
    ctx.db
      .prepare(`INSERT INTO org_memberships (org_id, user_id, login, role, state, created_at) VALUES (?, ?, ?, 'admin', 'active', ?)`)
      .run(account.id, founder.id, founder.login, now);
  }
  return findOrganization(ctx.db, login)!;
}

/** The `organization-simple` shape. */
export function organizationSimple(org: Organization) {
  const url = `${API}/orgs/${org.login}`;
  return {
    login: org.login,
    id: org.id,
    node_id: nodeId('Organization', org.id),
    url,
    repos_url: `${url}/repos`,
    events_url: `${url}/events`,
    hooks_url: `${url}/hooks`,
    issues_url: `${url}/issues`,
    members_url: `${url}/members{/member}`,
    public_members_url: `${url}/public_members{/member}`,
    avatar_url: `https://avatars.githubusercontent.com/u/${org.id}?v=4`,
    description: null,
  };
}

// ---------------------------------------------------------------------------------------------
// Repositories by id

/**
 * Secrets, variables and runner groups name repositories by id; the repos table belongs to the
 * repositories module, so ids are resolved through the `repos` table's owner and name and then
 * through ctx.repository, which stays the one authority on what a repository is.
 */
export function repositoryById(ctx: GithubContext, id: number): Repository | undefined {
  const row = ctx.db.prepare('SELECT * FROM repos WHERE id = ?').get(id) as Record<string, unknown> | undefined;
  if (!row) return undefined;
  const fullName = typeof row.full_name === 'string' ? row.full_name : `${String(row.owner)}/${String(row.name)}`;
  const [owner = '', name = ''] = fullName.split('/');
  try {
    return ctx.repository(owner, name);
  } catch (error) {
    if (error instanceof GithubError && error.status === 404) return undefined;
    throw error;
  }
}

/** Every id must name a repository of the organization; GitHub answers 422 otherwise. */
export function organizationRepositories(ctx: GithubContext, org: Organization, ids: number[], field = 'selected_repository_ids'): Repository[] {
  return [...new Set(ids)].map((id) => {
    const repo = repositoryById(ctx, id);
    if (!repo || repo.owner.toLowerCase() !== org.login.toLowerCase()) {
      throw new GithubError(422, `Repository ${id} is not a repository of ${org.login}`, [{ resource: 'Repository', field, code: 'invalid' }]);
    }
    return repo;
  });
}

/** The SHA-1 of `text`, hex. */
export const sha1 = (data: string | Buffer): string => createHash('sha1').update(data).digest('hex');
