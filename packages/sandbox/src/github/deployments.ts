import type Database from 'better-sqlite3';
import { idParam, iso, nodeId, page, repoUrl, simpleUser, textParam } from './common.js';
import { GithubError, notFound, type GithubContext, type GithubRequest, type Handler, type Repository } from './context.js';
import { resolveCommit } from './git-data.js';
import { createStatusesTables, latestStatuses } from './statuses.js';

/**
 * Deployments, their statuses, and environments' deployment branch policies.
 *
 * A deployment is "active" while its latest status is `success`. A new `success` status retires
 * earlier deployments the way GitHub's auto_inactive does: every earlier deployment of the same
 * repository and environment that is neither transient nor production and whose latest status is
 * `success` gets an `inactive` status. Only inactive deployments may be deleted, unless the
 * deployment is the repository's only one.
 *
 * Environments themselves belong elsewhere; a branch policy names its environment by name. When an
 * environment has branch policies, only branches matching one of them may be deployed to it.
 * `auto_merge` is not emulated: the ref is deployed as it is.
 */

export function createDeploymentsTables(db: Database.Database): void {
  createStatusesTables(db);
  db.exec(`
    CREATE TABLE IF NOT EXISTS deployments (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      repo_id INTEGER NOT NULL,
      sha TEXT NOT NULL,
      ref TEXT NOT NULL,
      task TEXT NOT NULL,
      payload TEXT NOT NULL,
      original_environment TEXT NOT NULL,
      environment TEXT NOT NULL,
      description TEXT,
      transient INTEGER NOT NULL,
      production INTEGER NOT NULL,
      creator_id INTEGER NOT NULL,
      creator_login TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS deployments_by_repo ON deployments (repo_id, environment);
    CREATE TABLE IF NOT EXISTS deployment_statuses (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      deployment_id INTEGER NOT NULL,
      state TEXT NOT NULL,
      description TEXT NOT NULL,
      environment TEXT NOT NULL,
      target_url TEXT NOT NULL,
      log_url TEXT NOT NULL,
      environment_url TEXT NOT NULL,
      creator_id INTEGER NOT NULL,
      creator_login TEXT NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS deployment_statuses_by_deployment ON deployment_statuses (deployment_id);
    CREATE TABLE IF NOT EXISTS deployment_branch_policies (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      repo_id INTEGER NOT NULL,
      environment TEXT NOT NULL COLLATE NOCASE,
      name TEXT NOT NULL,
      UNIQUE (repo_id, environment, name)
    );
  `);
}

interface Deployment {
  id: number;
  repo_id: number;
  sha: string;
  ref: string;
  task: string;
  payload: string;
  original_environment: string;
  environment: string;
  description: string | null;
  transient: number;
  production: number;
  creator_id: number;
  creator_login: string;
  created_at: number;
  updated_at: number;
}

type DeploymentState = 'error' | 'failure' | 'inactive' | 'in_progress' | 'queued' | 'pending' | 'success';

interface DeploymentStatus {
  id: number;
  deployment_id: number;
  state: DeploymentState;
  description: string;
  environment: string;
  target_url: string;
  log_url: string;
  environment_url: string;
  creator_id: number;
  creator_login: string;
  created_at: number;
}

function repositoryOf(req: GithubRequest, ctx: GithubContext): Repository {
  const repo = ctx.repository(req.params.owner ?? '', req.params.repo ?? '');
  createDeploymentsTables(ctx.db);
  return repo;
}

function deploymentOf(req: GithubRequest, ctx: GithubContext): { repo: Repository; deployment: Deployment } {
  const repo = repositoryOf(req, ctx);
  const deployment = ctx.db.prepare('SELECT * FROM deployments WHERE id = ? AND repo_id = ?').get(idParam(req, 'deployment_id'), repo.id) as
    | Deployment
    | undefined;
  if (!deployment) throw notFound();
  return { repo, deployment };
}

function latestStatus(db: Database.Database, deploymentId: number): DeploymentStatus | undefined {
  return db.prepare('SELECT * FROM deployment_statuses WHERE deployment_id = ? ORDER BY id DESC LIMIT 1').get(deploymentId) as DeploymentStatus | undefined;
}

const isActive = (db: Database.Database, deployment: Deployment) => latestStatus(db, deployment.id)?.state === 'success';

const deploymentUrl = (repo: Repository, id: number) => `${repoUrl(repo)}/deployments/${id}`;

function deploymentView(repo: Repository, d: Deployment) {
  return {
    url: deploymentUrl(repo, d.id),
    id: d.id,
    node_id: nodeId('Deployment', d.id),
    sha: d.sha,
    ref: d.ref,
    task: d.task,
    payload: JSON.parse(d.payload) as unknown,
    original_environment: d.original_environment,
    environment: d.environment,
    description: d.description,
    creator: simpleUser({ login: d.creator_login, id: d.creator_id }),
    created_at: iso(d.created_at),
    updated_at: iso(d.updated_at),
    statuses_url: `${deploymentUrl(repo, d.id)}/statuses`,
    repository_url: repoUrl(repo),
    transient_environment: d.transient === 1,
    production_environment: d.production === 1,
  };
}

function statusView(repo: Repository, s: DeploymentStatus) {
  return {
    url: `${deploymentUrl(repo, s.deployment_id)}/statuses/${s.id}`,
    id: s.id,
    node_id: nodeId('DeploymentStatus', s.id),
    state: s.state,
    creator: simpleUser({ login: s.creator_login, id: s.creator_id }),
    description: s.description,
    environment: s.environment,
    // GitHub sends "" for a status without a URL, which the description's `uri` format refuses;
    // the deployment's own URL stands in so the body stays valid.
    target_url: s.target_url || deploymentUrl(repo, s.deployment_id),
    created_at: iso(s.created_at),
    updated_at: iso(s.created_at),
    deployment_url: deploymentUrl(repo, s.deployment_id),
    repository_url: repoUrl(repo),
    ...(s.environment_url ? { environment_url: s.environment_url } : {}),
    ...(s.log_url ? { log_url: s.log_url } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Deployments

interface DeploymentInput {
  ref: string;
  task?: string;
  auto_merge?: boolean;
  required_contexts?: string[];
  payload?: Record<string, unknown> | string;
  environment?: string;
  description?: string | null;
  transient_environment?: boolean;
  production_environment?: boolean;
}

/** Every required context (by default every context reported) must have `success` as its latest status. */
function checkRequiredContexts(db: Database.Database, repo: Repository, sha: string, input: DeploymentInput): void {
  const latest = latestStatuses(db, repo, sha);
  const required = input.required_contexts ?? latest.map((s) => s.context);
  const failing = required.filter((context) => latest.find((s) => s.context.toLowerCase() === context.toLowerCase())?.state !== 'success');
  if (failing.length > 0) {
    throw new GithubError(409, `Conflict: Commit status checks failed for ${input.ref}.`, [
      { resource: 'Deployment', field: 'required_contexts', code: 'invalid', message: `${failing.join(', ')} did not succeed` },
    ]);
  }
}

function checkBranchPolicies(ctx: GithubContext, repo: Repository, ref: string, environment: string): void {
  const patterns = policiesOf(ctx.db, repo, environment).map((p) => p.name);
  const branch = ref.replace(/^refs\/heads\//, '');
  const isBranch = ctx.db.prepare('SELECT 1 FROM git_refs WHERE repo_id = ? AND name = ?').get(repo.id, `refs/heads/${branch}`) !== undefined;
  if (patterns.length === 0 || !isBranch || patterns.some((pattern) => branchMatches(pattern, branch))) return;
  throw new GithubError(422, `Branch "${branch}" is not allowed to deploy to ${environment} due to environment protection rules.`);
}

function createDeployment(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const input = req.body as DeploymentInput;
  const sha = resolveCommit(ctx, repo, input.ref);
  if (!sha) throw new GithubError(422, `No ref found for: ${input.ref}`, [{ resource: 'Deployment', field: 'ref', code: 'invalid' }]);
  const environment = input.environment ?? 'production';
  checkBranchPolicies(ctx, repo, input.ref, environment);
  checkRequiredContexts(ctx.db, repo, sha, input);
  const now = ctx.clock.now();
  const result = ctx.db
    .prepare(
      `INSERT INTO deployments (repo_id, sha, ref, task, payload, original_environment, environment, description, transient, production,
         creator_id, creator_login, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      repo.id,
      sha,
      input.ref,
      input.task ?? 'deploy',
      JSON.stringify(input.payload ?? ''),
      environment,
      environment,
      input.description === undefined ? '' : input.description,
      input.transient_environment ? 1 : 0,
      (input.production_environment ?? environment === 'production') ? 1 : 0,
      req.user.id,
      req.user.login,
      now,
      now,
    );
  const deployment = ctx.db.prepare('SELECT * FROM deployments WHERE id = ?').get(result.lastInsertRowid) as Deployment;
  return { status: 201, body: deploymentView(repo, deployment) };
}

function listDeployments(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const filters: Array<[string, string | undefined]> = [
    ['sha', textParam(req.query.sha)],
    ['ref', textParam(req.query.ref)],
    ['task', textParam(req.query.task)],
    ['environment', textParam(req.query.environment)],
  ];
  const all = ctx.db.prepare('SELECT * FROM deployments WHERE repo_id = ? ORDER BY id DESC').all(repo.id) as Deployment[];
  const matching = all.filter((d) => filters.every(([field, value]) => value === undefined || d[field as keyof Deployment] === value));
  return { status: 200, body: page(matching, req.query).map((d) => deploymentView(repo, d)) };
}

function getDeployment(req: GithubRequest, ctx: GithubContext) {
  const { repo, deployment } = deploymentOf(req, ctx);
  return { status: 200, body: deploymentView(repo, deployment) };
}

function deleteDeployment(req: GithubRequest, ctx: GithubContext) {
  const { repo, deployment } = deploymentOf(req, ctx);
  const { n } = ctx.db.prepare('SELECT COUNT(*) AS n FROM deployments WHERE repo_id = ?').get(repo.id) as { n: number };
  if (n > 1 && isActive(ctx.db, deployment)) {
    throw new GithubError(422, 'We cannot delete an active deployment unless it is the only deployment in this repository.');
  }
  ctx.db.prepare('DELETE FROM deployment_statuses WHERE deployment_id = ?').run(deployment.id);
  ctx.db.prepare('DELETE FROM deployments WHERE id = ?').run(deployment.id);
  return { status: 204 };
}

// ---------------------------------------------------------------------------------------------
// Deployment statuses

interface StatusInput {
  state: DeploymentState;
  target_url?: string;
  log_url?: string;
  description?: string;
  environment?: string;
  environment_url?: string;
  auto_inactive?: boolean;
}

function insertStatus(ctx: GithubContext, deployment: Deployment, creator: { id: number; login: string }, input: StatusInput): DeploymentStatus {
  // log_url replaced target_url; GitHub keeps the two equal whichever is given.
  const url = input.log_url || input.target_url || '';
  const result = ctx.db
    .prepare(
      `INSERT INTO deployment_statuses (deployment_id, state, description, environment, target_url, log_url, environment_url,
         creator_id, creator_login, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      deployment.id,
      input.state,
      input.description ?? '',
      deployment.environment,
      url,
      url,
      input.environment_url ?? '',
      creator.id,
      creator.login,
      ctx.clock.now(),
    );
  ctx.db.prepare('UPDATE deployments SET updated_at = ? WHERE id = ?').run(ctx.clock.now(), deployment.id);
  return ctx.db.prepare('SELECT * FROM deployment_statuses WHERE id = ?').get(result.lastInsertRowid) as DeploymentStatus;
}

/** Earlier deployments to the same environment that a success supersedes. */
function supersededBy(db: Database.Database, deployment: Deployment): Deployment[] {
  const earlier = db
    .prepare('SELECT * FROM deployments WHERE repo_id = ? AND environment = ? AND id < ? AND transient = 0 AND production = 0')
    .all(deployment.repo_id, deployment.environment, deployment.id) as Deployment[];
  return earlier.filter((d) => isActive(db, d));
}

function createStatus(req: GithubRequest, ctx: GithubContext) {
  const { repo, deployment } = deploymentOf(req, ctx);
  const input = req.body as StatusInput;
  if ((input.description ?? '').length > 140) {
    throw new GithubError(422, 'Validation Failed', [
      { resource: 'DeploymentStatus', field: 'description', code: 'custom', message: 'description is too long (maximum is 140 characters)' },
    ]);
  }
  const status = ctx.db.transaction(() => {
    if (input.environment !== undefined && input.environment !== deployment.environment) {
      ctx.db.prepare('UPDATE deployments SET environment = ? WHERE id = ?').run(input.environment, deployment.id);
      deployment.environment = input.environment;
    }
    const created = insertStatus(ctx, deployment, req.user, input);
    if (input.state === 'success' && input.auto_inactive !== false) {
      for (const previous of supersededBy(ctx.db, deployment)) insertStatus(ctx, previous, req.user, { state: 'inactive' });
    }
    return created;
  })();
  const view = statusView(repo, status);
  return { status: 201, body: view, headers: { Location: view.url } };
}

function listStatuses(req: GithubRequest, ctx: GithubContext) {
  const { repo, deployment } = deploymentOf(req, ctx);
  const statuses = ctx.db.prepare('SELECT * FROM deployment_statuses WHERE deployment_id = ? ORDER BY id DESC').all(deployment.id) as DeploymentStatus[];
  return { status: 200, body: page(statuses, req.query).map((s) => statusView(repo, s)) };
}

function getStatus(req: GithubRequest, ctx: GithubContext) {
  const { repo, deployment } = deploymentOf(req, ctx);
  const status = ctx.db.prepare('SELECT * FROM deployment_statuses WHERE id = ? AND deployment_id = ?').get(idParam(req, 'status_id'), deployment.id) as
    | DeploymentStatus
    | undefined;
  if (!status) throw notFound();
  return { status: 200, body: statusView(repo, status) };
}

// ---------------------------------------------------------------------------------------------
// Branch policies

interface BranchPolicy {
  id: number;
  repo_id: number;
  environment: string;
  name: string;
}

/**
 * Ruby's File.fnmatch with FNM_PATHNAME, as GitHub documents: `*` and `?` never match "/",
 * `[...]` is a class (`[!...]` or `[^...]` negated), and a backslash escapes.
 */
export function branchMatches(pattern: string, branch: string): boolean {
  let source = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i]!;
    if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else if (c === '\\' && i + 1 < pattern.length) source += escapeRegExp(pattern[++i]!);
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end === -1) source += '\\[';
      else {
        const body = pattern
          .slice(i + 1, end)
          .replace(/^[!^]/, '^')
          .replace(/\\/g, '\\\\');
        source += `(?!/)[${body}]`;
        i = end;
      }
    } else source += escapeRegExp(c);
  }
  return new RegExp(`^${source}$`).test(branch);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

function policiesOf(db: Database.Database, repo: Repository, environment: string): BranchPolicy[] {
  return db.prepare('SELECT * FROM deployment_branch_policies WHERE repo_id = ? AND environment = ? ORDER BY id').all(repo.id, environment) as BranchPolicy[];
}

const policyView = (p: BranchPolicy) => ({ id: p.id, node_id: nodeId('GateBranchPolicy', p.id), name: p.name });

function policyOf(req: GithubRequest, ctx: GithubContext): { repo: Repository; policy: BranchPolicy } {
  const repo = repositoryOf(req, ctx);
  const policy = ctx.db
    .prepare('SELECT * FROM deployment_branch_policies WHERE id = ? AND repo_id = ? AND environment = ?')
    .get(idParam(req, 'branch_policy_id'), repo.id, req.params.environment_name ?? '') as BranchPolicy | undefined;
  if (!policy) throw notFound();
  return { repo, policy };
}

function samePattern(db: Database.Database, repo: Repository, environment: string, name: string): BranchPolicy | undefined {
  return policiesOf(db, repo, environment).find((p) => p.name === name);
}

/** A pattern the environment already has answers 303, pointing at the existing policy. */
function seeOther(repo: Repository, policy: BranchPolicy) {
  const url = `${repoUrl(repo)}/environments/${encodeURIComponent(policy.environment)}/deployment-branch-policies/${policy.id}`;
  return { status: 303, headers: { Location: url } };
}

function createPolicy(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const environment = req.params.environment_name ?? '';
  const { name } = req.body as { name: string };
  const existing = samePattern(ctx.db, repo, environment, name);
  if (existing) return seeOther(repo, existing);
  const result = ctx.db.prepare('INSERT INTO deployment_branch_policies (repo_id, environment, name) VALUES (?, ?, ?)').run(repo.id, environment, name);
  const policy = ctx.db.prepare('SELECT * FROM deployment_branch_policies WHERE id = ?').get(result.lastInsertRowid) as BranchPolicy;
  return { status: 200, body: policyView(policy) };
}

function listPolicies(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const policies = policiesOf(ctx.db, repo, req.params.environment_name ?? '');
  return { status: 200, body: { total_count: policies.length, branch_policies: page(policies, req.query).map(policyView) } };
}

function getPolicy(req: GithubRequest, ctx: GithubContext) {
  return { status: 200, body: policyView(policyOf(req, ctx).policy) };
}

function updatePolicy(req: GithubRequest, ctx: GithubContext) {
  const { repo, policy } = policyOf(req, ctx);
  const { name } = req.body as { name: string };
  const clash = samePattern(ctx.db, repo, policy.environment, name);
  if (clash && clash.id !== policy.id) return seeOther(repo, clash);
  ctx.db.prepare('UPDATE deployment_branch_policies SET name = ? WHERE id = ?').run(name, policy.id);
  return { status: 200, body: policyView({ ...policy, name }) };
}

function deletePolicy(req: GithubRequest, ctx: GithubContext) {
  const { policy } = policyOf(req, ctx);
  ctx.db.prepare('DELETE FROM deployment_branch_policies WHERE id = ?').run(policy.id);
  return { status: 204 };
}

export const deploymentsHandlers: Record<string, Handler> = {
  'repos/create-deployment': createDeployment,
  'repos/list-deployments': listDeployments,
  'repos/get-deployment': getDeployment,
  'repos/delete-deployment': deleteDeployment,
  'repos/create-deployment-status': createStatus,
  'repos/list-deployment-statuses': listStatuses,
  'repos/get-deployment-status': getStatus,
  'repos/create-deployment-branch-policy': createPolicy,
  'repos/list-deployment-branch-policies': listPolicies,
  'repos/get-deployment-branch-policy': getPolicy,
  'repos/update-deployment-branch-policy': updatePolicy,
  'repos/delete-deployment-branch-policy': deletePolicy,
};
