/**
 * Every RepoHostApi tool (818) called end to end: the core Runtime builds the request from an input
 * generated from the tool's own schema (required parameters, plus optional ones where the upstream
 * needs them; mode-driven tools in mode execute with a body built from their request-body schema),
 * and the GitHub emulator, which validates every request against its ghes-3.8 operation, answers.
 *
 * The emulator keeps state for repositories, issues, git data, deployments, checks, secrets,
 * runners and more, so the suite first seeds that state through the tools (a repository
 * `octocat/hello-world` with an issue, comments, a pull request, reactions, a deployment, ...) and
 * names it in the generated inputs. Calls run one at a time, deletions last (deepest paths first).
 */
import { createClock, startGithubEmulator, type GithubEmulator, type RecordedRequest } from '@quiver/sandbox';
import type { ToolResult } from '@quiver/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog, inputFor, matchesTemplate, recording, RepoHostClient, type CatalogTool, type Known } from './repo-host.helpers.js';

const START = Date.UTC(2025, 0, 15, 9);
const ORG = 'octo-org';
const ENTERPRISE = 'octo-enterprise';

let emulator: GithubEmulator;
const clients: Record<string, RepoHostClient> = {};
const as = (login: string): RepoHostClient => (clients[login] ??= new RepoHostClient(emulator, emulator.tokenFor(login)));

/** What the seeding made, by name. */
interface Seeded {
  helloId: number;
  templateId: number;
  orgRepoId: number;
  orgId: number;
  commitSha: string;
  treeSha: string;
  blobSha: string;
  tagSha: string;
  featureSha: string;
  checkRunId: number;
  checkSuiteId: number;
  deploymentId: number;
  deploymentStatusId: number;
  autolinkId: number;
  tagProtectionId: number;
  keyId: string;
  dependabotKeyId: string;
  orgKeyId: string;
  orgGroupId: number;
  enterpriseGroupId: number;
  runners: { repo: number; org: number; enterprise: number };
  invitations: { accept: number; decline: number; repo: number };
  reactions: Record<'issue' | 'issueComment' | 'commitComment' | 'reviewComment' | 'release' | 'discussion' | 'discussionComment', number>;
  branchPolicyId: number;
}

let seeded: Seeded;

/** A self-hosted runner, as `config.sh` would register it: the API has no call that creates one. */
function registerRunner(scope: string, name: string, groupId: number | null): number {
  const { lastInsertRowid } = emulator.db
    .prepare(`INSERT INTO runners (scope, group_id, name, os, status) VALUES (?, ?, ?, 'Linux', 'online')`)
    .run(scope, groupId, name);
  const id = Number(lastInsertRowid);
  for (const [label, type] of [
    ['self-hosted', 'read-only'],
    ['Linux', 'read-only'],
    ['X64', 'read-only'],
    ['gpu', 'custom'],
  ]) {
    emulator.db.prepare('INSERT INTO runner_labels (runner_id, name, type) VALUES (?, ?, ?)').run(id, label, type);
  }
  return id;
}

/** A request straight to the emulator as octocat, for state no tool can create. */
async function rawRequest(method: string, path: string, body: unknown): Promise<any> {
  const response = await fetch(emulator.url + path, {
    method,
    headers: { authorization: `Bearer ${emulator.tokenFor('octocat')}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
  return response.json();
}

async function seed(): Promise<Seeded> {
  const me = as('octocat');
  const hello = await me.execute('CreateRepohostRepoForUser', {}, { name: 'hello-world', auto_init: true, description: 'Seeded by the tests' });
  const template = await me.execute('CreateRepohostRepoForUser', {}, { name: 'template-repo', is_template: true });
  const orgRepo = await me.execute('CreateRepohostOrganizationRepo', { organization_name: ORG }, { name: 'org-repo' });
  const repo = { repository_owner: 'octocat', repository_name: 'hello-world' };

  // Git data: the initial commit, a blob, an annotated tag, and a branch `feature` one commit ahead.
  const main = await me.call('GetGitReference', { ...repo, git_reference: 'heads/main' });
  const commitSha: string = main.object.sha;
  const commit = await me.call('FetchCommitInfo', { ...repo, commit_sha: commitSha });
  const blob = await me.call('CreateRepohostBlob', { ...repo, blob_content: 'hello' });
  const tag = await me.call('CreateGitTag', { ...repo, tag_name: 'v0.1.0', tag_message: 'First', git_object_sha: commitSha, tag_object_type: 'commit' });
  const tree = await me.execute('CreateGitTree', repo, {
    base_tree: commit.tree.sha,
    tree: [{ path: 'notes.txt', mode: '100644', type: 'blob', content: 'notes' }],
  });
  const feature = await me.execute('CreateGitCommit', repo, { message: 'Add notes', tree: tree.sha, parents: [commitSha] });
  for (const ref of ['feature', 'feature-two', 'to-delete']) {
    await me.call('CreateGitReference', { ...repo, full_reference_name: `refs/heads/${ref}`, reference_sha: feature.sha });
  }

  // Issues, comments, a pull request and a review comment: each is number or id 1 (the pull request is issue 2).
  await me.execute('CreateRepohostIssue', repo, { title: 'Found a bug', labels: ['bug'] });
  await me.call('RepohostCreateIssueComment', { ...repo, issue_identifier: 1, comment_content: 'Me too' });
  await me.call('CreateRepohostCommitComment', { ...repo, commit_sha: commitSha, comment_content: 'Nice commit' });
  await me.call('CreateRepohostPullRequest', { ...repo, source_branch: 'feature', target_branch: 'main', pull_request_title: 'Add notes' });
  await me.execute(
    'CreatePullRequestReviewComment',
    { ...repo, pull_request_number: 2 },
    { body: 'Typo?', commit_id: feature.sha, path: 'notes.txt', line: 1 },
  );

  // Reactions by octocat, one per kind of subject (ids 1..7 in this order).
  const react = async (tool: string, input: Record<string, unknown>) => (await me.call(tool, input)).id as number;
  const reactions = {
    issue: await react('AddReactionToRepohostIssue', { ...repo, repohost_issue_number: 1, reaction_type_to_add: 'heart' }),
    issueComment: await react('AddReactionToRepohostComment', { ...repo, comment_unique_identifier: 1, reaction_type: 'heart' }),
    commitComment: await react('AddReactionToCommitComment', { ...repo, comment_id: 1, reaction_type: 'heart' }),
    reviewComment: await react('AddReactionToPrComment', { ...repo, comment_unique_id: 1, reaction_type_for_pr_comment: 'heart' }),
    release: await react('AddRepohostReleaseReaction', { ...repo, release_identifier: 1, reaction_type: 'heart' }),
    discussion: await react('AddReactionToRepohostTeamDiscussion', { organization_name: ORG, team_slug: 'quiver', discussion_id: 1, reaction_type: 'heart' }),
    discussionComment: await react('AddReactionToTeamDiscussionComment', {
      organization_name: ORG,
      team_slug: 'quiver',
      discussion_identifier: 1,
      comment_identifier: 1,
      reaction_type: 'heart',
    }),
  };

  // A commit status, a deployment with a status, a branch policy, a check run (and its suite).
  await me.call('CreateRepohostCommitStatus', { ...repo, commit_sha: commitSha, status_state: 'success', status_label: 'ci' });
  const deployment = await me.execute('CreateRepohostDeployment', repo, { ref: 'main', environment: 'staging', required_contexts: [] });
  const deploymentStatus = await me.call('CreateRepohostDeploymentStatus', { ...repo, deployment_id: deployment.id, deployment_status_state: 'queued' });
  const policy = await me.call('CreateRepohostDeploymentBranchPolicy', {
    repository_owner: 'octocat',
    repository_name: 'hello-world',
    environment_name: 'qa',
    branch_name_pattern: 'main',
  });
  // CreateRepohostCheckRun cannot create one (its catalog body schema accepts no body GitHub takes; see the
  // behaviour suite), so the check run the other check tools need is posted directly.
  const checkRun = await rawRequest('POST', '/repos/octocat/hello-world/check-runs', { name: 'build', head_sha: commitSha });

  // Repository settings.
  const autolink = await me.call('CreateRepositoryAutolink', {
    repository_owner_account: 'octocat',
    repository_name: 'hello-world',
    autolink_key_prefix: 'TICKET-',
    url_template_for_autolink: 'https://example.com/TICKET?query=<num>',
  });
  const tagProtection = await me.call('CreateRepositoryTagProtection', { ...repo, tag_protection_pattern: 'v*' });

  // Secrets and a variable, against the scopes' public keys.
  const { key_id: keyId } = await me.call('GetRepoPublicKey', repo);
  const { key_id: dependabotKeyId } = await me.call('GetRepohostRepoPublicKey', repo);
  const { key_id: orgKeyId } = await me.call('GetOrganizationPublicKey', { organization_name: ORG });
  const { key_id: orgDependabotKeyId } = await me.call('GetOrgPublicKey', { organization_name: ORG });
  const sealed = 'c2VjcmV0';
  await me.call('CreateOrUpdateRepohostRepoSecret', { ...repo, secret_name: 'QUIVER_SECRET', encrypted_secret_value: sealed, encryption_key_id: keyId });
  await me.call('ManageRepohostRepoSecret', { ...repo, secret_name: 'QUIVER_SECRET', encrypted_secret_value: sealed, encryption_key_id: dependabotKeyId });
  await me.call('CreateOrUpdateOrgSecret', {
    organization_name: ORG,
    secret_name: 'QUIVER_SECRET',
    repository_visibility: 'selected',
    encrypted_secret_value: sealed,
    encryption_key_id: orgKeyId,
    repository_ids_for_secret_access: [orgRepo.id],
  });
  await me.call('UpdateRepohostOrgSecret', {
    organization_name: ORG,
    secret_name: 'QUIVER_SECRET',
    repository_access_type: 'selected',
    encrypted_secret_value: sealed,
    encryption_key_id: orgDependabotKeyId,
    selected_repository_ids_to_include: [orgRepo.id],
  });
  await me.call('CreateRepohostOrgVariable', {
    organization_name: ORG,
    variable_name: 'QUIVER_VAR',
    variable_value: 'one',
    repository_access_visibility: 'selected',
    repository_ids_with_variable_access: [orgRepo.id],
  });

  // Runner groups that take access lists, and one runner in each scope.
  const orgGroup = await me.call('CreateRunnerGroupForOrg', { organization_name: ORG, runner_group_name: 'builders', runner_group_visibility: 'selected' });
  const enterpriseGroup = await me.call('CreateSelfHostedRunnerGroup', {
    enterprise_name_or_id: ENTERPRISE,
    runner_group_name: 'builders',
    runner_group_visibility: 'selected',
  });
  const orgId = (emulator.db.prepare('SELECT id FROM organizations WHERE login = ?').get(ORG) as { id: number }).id;
  const runners = {
    repo: registerRunner(`repo:${hello.id}`, 'repo-runner', null),
    org: registerRunner(`org:${orgId}`, 'org-runner', orgGroup.id),
    enterprise: registerRunner(`enterprise:${ENTERPRISE}`, 'enterprise-runner', enterpriseGroup.id),
  };

  // Collaborators: hubot is one (invited and accepted); monalisa has two open invitations, octo-guest one.
  const invite = async (repository: string, login: string) =>
    (await me.call('AddOrUpdateRepohostCollaborator', { repository_owner: 'octocat', repository_name: repository, repohost_user_handle: login })).id as number;
  await as('hubot').call('AcceptRepohostRepoInvitation', { invitation_id: await invite('hello-world', 'hubot') });
  const invitations = {
    accept: await invite('hello-world', 'monalisa'),
    decline: await invite('template-repo', 'monalisa'),
    repo: await invite('hello-world', 'octo-guest'),
  };

  // Organization members: hubot (public) and mona-member, both active.
  for (const login of ['hubot', 'mona-member']) {
    await me.call('UpdateOrgMembership', { organization_name: ORG, repohost_user_handle: login });
    await as(login).call('UpdateRepohostOrgMembership', { organization_name: ORG, membership_state: 'active' });
  }
  await as('hubot').call('SetOwnRepohostPublicMembership', { organization_name: ORG, repohost_user_handle: 'hubot' });

  return {
    helloId: hello.id,
    templateId: template.id,
    orgRepoId: orgRepo.id,
    orgId,
    commitSha,
    treeSha: commit.tree.sha,
    blobSha: blob.sha,
    tagSha: tag.sha,
    featureSha: feature.sha,
    checkRunId: checkRun.id,
    checkSuiteId: checkRun.check_suite.id,
    deploymentId: deployment.id,
    deploymentStatusId: deploymentStatus.id,
    autolinkId: autolink.id,
    tagProtectionId: tagProtection.id,
    keyId,
    dependabotKeyId,
    orgKeyId,
    orgGroupId: orgGroup.id,
    enterpriseGroupId: enterpriseGroup.id,
    runners,
    invitations,
    reactions,
    branchPolicyId: policy.id,
  };
}

// ------------------------------------------------------------------------------------------------
// The plan: which values name the seeded state, and the few tools that need more than their required parameters.

/** Values by upstream name; the path of the operation decides between same-named values of different resources. */
function reactionFor(path: string): number {
  const r = seeded.reactions;
  if (path.includes('/issues/comments/')) return r.issueComment;
  if (path.includes('/issues/')) return r.issue;
  if (path.includes('/pulls/comments/')) return r.reviewComment;
  if (path.includes('/comments/{comment_id}')) return r.commitComment;
  if (path.includes('/releases/')) return r.release;
  if (path.includes('/discussions/') && path.includes('/comments/')) return r.discussionComment;
  return r.discussion;
}

function knownFor(tool: CatalogTool): Known {
  const path = tool.http.path;
  const s = seeded;
  const scope = path.startsWith('/enterprises/') ? 'enterprise' : path.startsWith('/orgs/') ? 'org' : 'repo';
  return {
    owner: 'octocat',
    repo: 'hello-world',
    org: ORG,
    enterprise: ENTERPRISE,
    username: 'hubot',
    branch: 'main',
    template_owner: 'octocat',
    template_repo: 'template-repo',
    issue_number: 1,
    pull_number: 2,
    comment_id: 1,
    discussion_number: 1,
    comment_number: 1,
    release_id: 1,
    deployment_id: s.deploymentId,
    status_id: s.deploymentStatusId,
    check_run_id: s.checkRunId,
    check_suite_id: s.checkSuiteId,
    autolink_id: s.autolinkId,
    tag_protection_id: s.tagProtectionId,
    branch_policy_id: s.branchPolicyId,
    environment_name: path.includes('deployment-branch-policies') ? 'qa' : 'staging',
    secret_name: 'QUIVER_SECRET',
    // `name` is also a body field of many operations; only these paths name something seeded with it.
    ...(path.includes('/variables/{name}') && { name: 'QUIVER_VAR' }),
    ...(path.includes('/labels/{name}') && { name: path.includes('/runners/') ? 'gpu' : 'bug' }),
    reaction_id: reactionFor(path),
    invitation_id: s.invitations.repo,
    selected_organization_ids: [s.orgId],
    tree: s.treeSha,
    labels: path.includes('/runners/') ? ['gpu'] : ['bug'],
    repository_id: path.includes('/runner-groups/') || path.includes('/secrets/') || path.includes('/variables/') ? s.orgRepoId : s.helloId,
    selected_repository_ids: [s.orgRepoId],
    org_id: s.orgId,
    runner_group_id: scope === 'enterprise' ? s.enterpriseGroupId : s.orgGroupId,
    runner_id: s.runners[scope],
    runners: [s.runners[scope]],
    commit_sha: s.commitSha,
    sha: path.includes('/git/refs/') ? s.featureSha : s.commitSha,
    head_sha: s.commitSha,
    commit_id: s.featureSha,
    tree_sha: s.treeSha,
    file_sha: s.blobSha,
    tag_sha: s.tagSha,
    ref: path.includes('/git/') ? 'heads/feature' : 'main',
    base: 'main',
    head: 'feature-two',
    key_id: path.includes('/secrets/') ? (scope === 'org' ? s.orgKeyId : s.keyId) : 1,
  };
}

interface Plan {
  /** Parameters added to or replacing the generated ones, by tool parameter name. */
  input?: Record<string, unknown>;
  /** Fields replacing those of the generated request body (mode-driven tools). */
  body?: Record<string, unknown>;
  /** The user who calls. Default octocat. */
  as?: string;
}

const SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGq2Z1yQ0rJ0n1VJ1k0d6m1zM2vQ4j3m8kN4mF0b5hQq quiver@example.com';

/** Built once the seeding is done (some values are the seeded ids). */
function plans(): Record<string, Plan> {
  const s = seeded;
  return {
    // Optional upstream, needed here: operations whose request body is required yet has no required field.
    ConfigureRepohostTokenPermissions: { input: { default_workflow_permissions: 'read' } },
    SetEnterpriseWorkflowPermissions: { input: { default_workflow_permissions: 'read' } },
    SetRepohostActionsCachePolicy: { input: { default_repo_cache_size_limit_gb: 1 } },
    UpdateGlobalWebhook: { input: { send_notifications_on_trigger: true } },
    UpdateRepohostActionsEnvVar: { input: { environment_variable_value: 'two' } },
    UpdateRepohostOrgActionVariable: { input: { variable_value: 'two' } },
    UpdateRepohostRepoVariable: { input: { repository_variable_value: 'two' } },
    UpdateRepohostRequiredWorkflow: { input: { workflow_file_path: '.github/workflows/ci.yml' } },
    RemoveIssueAssignees: { input: { assignees_to_remove: ['hubot'] } },
    CreateRepohostPagesDeployment: { input: { build_version_identifier: s.commitSha, artifact_url: 'https://example.com/artifact.zip' } },
    // Secrets: a new secret needs a value sealed with the scope's key.
    CreateOrUpdateRepohostRepoSecret: { input: { encrypted_secret_value: 'c2VjcmV0', encryption_key_id: s.keyId } },
    ManageRepohostRepoSecret: { input: { encrypted_secret_value: 'c2VjcmV0', encryption_key_id: s.dependabotKeyId } },
    CreateOrUpdateOrgSecret: { input: { secret_name: 'QUIVER_SECRET', repository_visibility: 'selected' } },
    UpdateRepohostOrgSecret: { input: { secret_name: 'QUIVER_SECRET', repository_access_type: 'selected' } },
    ManageRepohostEnvironmentSecret: { input: { encrypted_secret_value: 'c2VjcmV0' } },
    // Values with a shape the schema states only in words.
    AddSshKeyToRepohostAccount: { input: { public_ssh_key: SSH_KEY } },
    CreateSshSigningKeyRepohost: { input: { public_ssh_key: SSH_KEY } },
    MoveProjectCard: { input: { card_position: 'top' } },
    MoveRepohostProjectColumn: { input: { column_position: 'first' } },
    UploadSarifCodeScanningResults: { input: { commit_sha: s.commitSha, git_reference: 'refs/heads/main' } },
    CreateRepositoryAutolink: { input: { url_template_for_autolink: 'https://example.com/JIRA?query=<num>', autolink_key_prefix: 'JIRA-' } },
    // Names that must be new.
    UpdateRunnerGroupSettings: { input: { runner_group_name: 'renamed-builders' } },
    CreateGitReference: { input: { full_reference_name: 'refs/heads/from-e2e' } },
    CreateRepohostPullRequest: { input: { source_branch: 'feature-two', target_branch: 'main', pull_request_title: 'Second' } },
    CreatePullRequestReviewComment: { body: { path: 'notes.txt', line: 1 } },
    CreateGitTree: { body: { tree: [{ path: 'e2e.txt', mode: '100644', type: 'blob', content: 'e2e' }] } },
    CreateGitTag: { input: { git_object_sha: s.commitSha } },
    CreateRepohostLabel: { input: { label_name: 'e2e-label' } },
    CreateRepohostRepoForUser: { body: { name: 'e2e-repo' } },
    CreateRepohostDeployment: { body: { required_contexts: [] } },
    // Invitations are their invitee's.
    AcceptRepohostRepoInvitation: { as: 'monalisa', input: { invitation_id: s.invitations.accept } },
    DeclineRepoInvitation: { as: 'monalisa', input: { invitation_id: s.invitations.decline } },
    // Public membership is one's own; conversion takes a member who is not needed afterwards.
    SetOwnRepohostPublicMembership: { input: { repohost_user_handle: 'octocat' } },
    RemovePublicOrgMembership: { input: { repohost_user_handle: 'octocat' } },
    ConvertMemberToOutsideCollaborator: { input: { repohost_user_handle: 'mona-member' } },
    // Deletions of seeded things that other deletions do not need.
    DeleteGitReference: { input: { git_reference_to_delete: 'heads/to-delete' } },
    DeleteRunnerGroupFromOrganization: { input: { runner_group_id: s.orgGroupId } },
  };
}

/** Deletions last, deepest paths first (a reaction before its comment), the repository itself at the very end. */
function order(tools: CatalogTool[]): CatalogTool[] {
  const rank = (tool: CatalogTool) => (tool.http.method !== 'DELETE' ? 0 : tool.http.path === '/repos/{owner}/{repo}' ? 2 : 1);
  const depth = (tool: CatalogTool) => tool.http.path.split('/').length;
  return [...tools].sort((a, b) => rank(a) - rank(b) || (rank(a) === 1 ? depth(b) - depth(a) : 0));
}

// ------------------------------------------------------------------------------------------------

interface Outcome {
  tool: CatalogTool;
  input: Record<string, unknown>;
  result: ToolResult;
  requests: RecordedRequest[];
}

const outcomes: Outcome[] = [];

beforeAll(async () => {
  emulator = await startGithubEmulator({ clock: createClock(START) });
  seeded = await seed();
  const plan = plans();
  for (const tool of order(catalog.tools)) {
    const { input: extra, body, as: login = 'octocat' } = plan[tool.name] ?? {};
    const input = inputFor(tool, knownFor(tool), extra, body);
    const { result, requests } = await recording(emulator, () => as(login).attempt(tool.name, input));
    outcomes.push({ tool, input, result, requests });
  }
}, 120_000);

afterAll(async () => {
  for (const client of Object.values(clients)) await client.close();
  await emulator?.close();
});

const describeOutcome = ({ tool, input, result }: Outcome) =>
  'error' in result
    ? `${tool.name}: ${result.error.kind} ${result.error.status_code ?? ''} ${result.error.message} | input ${JSON.stringify(input)}`
    : `${tool.name}: ok`;

describe('RepoHostApi end to end: all 818 tools', () => {
  it('calls every catalog tool once', () => {
    expect(catalog.tools).toHaveLength(818);
    expect(outcomes.map((o) => o.tool.name).sort()).toEqual(catalog.tools.map((t) => t.name).sort());
  });

  it('sends each call to the emulator exactly once, with the method and path template of its operation', () => {
    const wrong = outcomes
      .filter(({ tool, requests }) => requests.length !== 1 || requests[0]!.method !== tool.http.method || !matchesTemplate(tool.http.path, requests[0]!.path))
      .map(
        ({ tool, requests }) =>
          `${tool.name}: expected ${tool.http.method} ${tool.http.path}, received ${requests.map((r) => `${r.method} ${r.path}`).join(', ') || 'nothing'}`,
      );
    expect(wrong).toEqual([]);
  });

  it('has no call refused as invalid, by the runtime (TOOL_RUNTIME_*) or by the emulator (400/422)', () => {
    const refused = outcomes
      .filter(
        ({ result }) =>
          'error' in result &&
          (/^TOOL_/.test(result.error.kind) || ['UPSTREAM_RUNTIME_VALIDATION_ERROR', 'UPSTREAM_RUNTIME_BAD_REQUEST'].includes(result.error.kind)),
      )
      .map(describeOutcome);
    expect(refused).toEqual([]);
  });

  it('has every call succeed: no 404 for seeded state, no auth, server or transport failure', () => {
    const failed = outcomes
      .filter(
        ({ result }) =>
          'error' in result &&
          !(/^TOOL_/.test(result.error.kind) || ['UPSTREAM_RUNTIME_VALIDATION_ERROR', 'UPSTREAM_RUNTIME_BAD_REQUEST'].includes(result.error.kind)),
      )
      .map(describeOutcome);
    expect(failed).toEqual([]);
  });
});

describe('RepoHostApi base URL', () => {
  /** A loopback port nothing listens on: a request that goes to the context's base URL cannot arrive. */
  const UNREACHABLE = 'http://127.0.0.1:9';

  it('sends to the GIT_SERVER_URL secret rather than the context base URL', async () => {
    const token = emulator.tokenFor('octocat');
    const viaSecret = new RepoHostClient(emulator, token, { baseUrl: UNREACHABLE, secrets: { GIT_SERVER_URL: emulator.url } });
    const viaContext = new RepoHostClient(emulator, token, { baseUrl: UNREACHABLE });
    try {
      await viaSecret.execute('CreateRepohostRepoForUser', {}, { name: 'server-url' });
      const { result, requests } = await recording(emulator, () =>
        viaSecret.attempt('GetRepohostRepositoryDetails', { repository_owner: 'octocat', repository_name: 'server-url' }),
      );
      expect(result).toMatchObject({ value: { full_name: 'octocat/server-url' } });
      expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /repos/octocat/server-url']);

      // Without the secret the same call goes to the context's base URL, which nothing answers.
      const { result: unreachable, requests: none } = await recording(emulator, () =>
        viaContext.attempt('GetRepohostRepositoryDetails', { repository_owner: 'octocat', repository_name: 'server-url' }),
      );
      expect(unreachable).toMatchObject({ error: { kind: 'NETWORK_TRANSPORT_RUNTIME_UNREACHABLE', can_retry: true } });
      expect(none).toEqual([]);
    } finally {
      await viaSecret.close();
      await viaContext.close();
    }
  });

  it('keeps the path of a GIT_SERVER_URL such as https://HOST/api/v3 (the emulator serves no such prefix, so it answers 404)', async () => {
    const client = new RepoHostClient(emulator, emulator.tokenFor('octocat'), { baseUrl: UNREACHABLE, secrets: { GIT_SERVER_URL: `${emulator.url}/api/v3/` } });
    try {
      const { result, requests } = await recording(emulator, () =>
        client.attempt('GetRepohostRepositoryDetails', { repository_owner: 'octocat', repository_name: 'server-url' }),
      );
      expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/v3/repos/octocat/server-url']);
      expect(result).toMatchObject({ error: { kind: 'UPSTREAM_RUNTIME_NOT_FOUND', status_code: 404 } });
    } finally {
      await client.close();
    }
  });
});
