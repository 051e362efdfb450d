import { beforeEach, describe, expect, it } from 'vitest';
import { branchMatches, createDeploymentsTables, deploymentsHandlers } from '../../src/github/deployments.js';
import { caller, fakeContext, type Caller, type FakeContext } from './fake-context.helpers.js';
import { gitDataHandlers } from '../../src/github/git-data.js';
import { statusesHandlers } from '../../src/github/statuses.js';

let ctx: FakeContext;
let call: Caller;
let sha: string;
const repo = { owner: 'octocat', repo: 'hello-world' };

beforeEach(() => {
  ctx = fakeContext(createDeploymentsTables);
  ctx.addRepository('octocat/hello-world');
  call = caller(ctx, { ...deploymentsHandlers, ...statusesHandlers, ...gitDataHandlers });
  sha = call('git/get-ref', { params: { ...repo, ref: 'heads/main' } }).body.object.sha;
});

const deploy = (body: Record<string, unknown> = {}) => call('repos/create-deployment', { params: repo, body: { ref: 'main', ...body } }).body;
const setState = (deployment: { id: number }, state: string, extra: Record<string, unknown> = {}) =>
  call('repos/create-deployment-status', { params: { ...repo, deployment_id: String(deployment.id) }, body: { state, ...extra } }).body;
const states = (deployment: { id: number }) =>
  call('repos/list-deployment-statuses', { params: { ...repo, deployment_id: String(deployment.id) } }).body.map((s: { state: string }) => s.state);

describe('deployments', () => {
  it('deploys a ref with GitHub defaults', () => {
    const deployment = deploy();
    expect(deployment).toMatchObject({
      sha,
      ref: 'main',
      task: 'deploy',
      environment: 'production',
      original_environment: 'production',
      payload: '',
      production_environment: true,
      transient_environment: false,
    });
    expect(deploy({ environment: 'staging', payload: { a: 1 } })).toMatchObject({ production_environment: false, payload: { a: 1 } });
    expect(call.fails('repos/create-deployment', { params: repo, body: { ref: 'nope' } }).status).toBe(422);
  });

  it('lists newest first with filters, and gets one', () => {
    const first = deploy({ environment: 'staging' });
    const second = deploy({ environment: 'qa', task: 'deploy:migrations' });
    const list = (query: Record<string, string>) => call('repos/list-deployments', { params: repo, query }).body.map((d: { id: number }) => d.id);
    expect(list({})).toEqual([second.id, first.id]);
    expect(list({ environment: 'staging' })).toEqual([first.id]);
    expect(list({ task: 'deploy:migrations', sha })).toEqual([second.id]);
    expect(list({ ref: 'other' })).toEqual([]);
    expect(call('repos/get-deployment', { params: { ...repo, deployment_id: String(first.id) } }).body.id).toBe(first.id);
    expect(call.fails('repos/get-deployment', { params: { ...repo, deployment_id: '999' } }).status).toBe(404);
  });

  it('refuses with 409 when required contexts have not succeeded', () => {
    call('repos/create-commit-status', { params: { ...repo, sha }, body: { state: 'pending', context: 'ci' } });
    expect(call.fails('repos/create-deployment', { params: repo, body: { ref: 'main' } }).status).toBe(409);
    expect(call.fails('repos/create-deployment', { params: repo, body: { ref: 'main', required_contexts: ['security'] } }).status).toBe(409);
    expect(deploy({ required_contexts: [] }).sha).toBe(sha);
    call('repos/create-commit-status', { params: { ...repo, sha }, body: { state: 'success', context: 'ci' } });
    expect(deploy().sha).toBe(sha);
  });

  it('deletes only inactive deployments, unless it is the only one', () => {
    const only = deploy();
    setState(only, 'success');
    expect(call('repos/delete-deployment', { params: { ...repo, deployment_id: String(only.id) } }).status).toBe(204);

    const a = deploy();
    const b = deploy();
    setState(a, 'success');
    expect(call.fails('repos/delete-deployment', { params: { ...repo, deployment_id: String(a.id) } }).status).toBe(422);
    setState(a, 'failure');
    expect(call('repos/delete-deployment', { params: { ...repo, deployment_id: String(a.id) } }).status).toBe(204);
    expect(call('repos/list-deployments', { params: repo }).body.map((d: { id: number }) => d.id)).toEqual([b.id]);
  });
});

describe('deployment statuses', () => {
  it('records each of the seven states and keeps log_url and target_url equal', () => {
    const deployment = deploy({ environment: 'staging' });
    for (const state of ['queued', 'pending', 'in_progress', 'error', 'failure', 'inactive', 'success']) setState(deployment, state);
    expect(states(deployment)).toEqual(['success', 'inactive', 'failure', 'error', 'in_progress', 'pending', 'queued']);
    const status = setState(deployment, 'success', { log_url: 'https://ci.example.com/1', environment_url: 'https://staging.example.com' });
    expect(status).toMatchObject({
      target_url: 'https://ci.example.com/1',
      log_url: 'https://ci.example.com/1',
      environment_url: 'https://staging.example.com',
      environment: 'staging',
    });
    const got = call('repos/get-deployment-status', { params: { ...repo, deployment_id: String(deployment.id), status_id: String(status.id) } }).body;
    expect(got.id).toBe(status.id);
    expect(call.fails('repos/get-deployment-status', { params: { ...repo, deployment_id: String(deployment.id), status_id: '999' } }).status).toBe(404);
  });

  it('moves the deployment to the environment a status names', () => {
    const deployment = deploy({ environment: 'staging' });
    setState(deployment, 'success', { environment: 'qa' });
    expect(call('repos/get-deployment', { params: { ...repo, deployment_id: String(deployment.id) } }).body).toMatchObject({
      environment: 'qa',
      original_environment: 'staging',
    });
  });

  it('marks earlier successful non-transient, non-production deployments of the environment inactive on success', () => {
    const earlier = deploy({ environment: 'staging' });
    const transient = deploy({ environment: 'staging', transient_environment: true });
    const production = deploy({ environment: 'staging', production_environment: true });
    const failed = deploy({ environment: 'staging' });
    const elsewhere = deploy({ environment: 'qa' });
    // Earlier last: its success must not be retired by the others' own successes.
    for (const d of [transient, production, elsewhere, earlier]) setState(d, 'success');
    setState(failed, 'failure');
    const latest = deploy({ environment: 'staging' });

    setState(latest, 'in_progress');
    expect(states(earlier)).toEqual(['success']);
    setState(latest, 'success');
    expect(states(earlier)).toEqual(['inactive', 'success']);
    expect(states(transient)).toEqual(['success']);
    expect(states(production)).toEqual(['success']);
    expect(states(failed)).toEqual(['failure']);
    expect(states(elsewhere)).toEqual(['success']);
    expect(states(latest)).toEqual(['success', 'in_progress']);
  });

  it('leaves earlier deployments alone when auto_inactive is false', () => {
    const earlier = deploy({ environment: 'staging' });
    setState(earlier, 'success');
    setState(deploy({ environment: 'staging' }), 'success', { auto_inactive: false });
    expect(states(earlier)).toEqual(['success']);
  });

  it('refuses descriptions longer than 140 characters', () => {
    const deployment = deploy();
    expect(
      call.fails('repos/create-deployment-status', {
        params: { ...repo, deployment_id: String(deployment.id) },
        body: { state: 'success', description: 'x'.repeat(141) },
      }).status,
    ).toBe(422);
  });
});

describe('deployment branch policies', () => {
  const env = { ...repo, environment_name: 'production' };

  it('matches wildcards that never cross a slash', () => {
    expect(branchMatches('release/*', 'release/1.0')).toBe(true);
    expect(branchMatches('release/*', 'release/1.0/hotfix')).toBe(false);
    expect(branchMatches('release/*/*', 'release/1.0/hotfix')).toBe(true);
    expect(branchMatches('v?', 'v1')).toBe(true);
    expect(branchMatches('v[0-9]', 'v7')).toBe(true);
    expect(branchMatches('v[!0-9]', 'v7')).toBe(false);
    expect(branchMatches('main', 'main2')).toBe(false);
    expect(branchMatches('feat.x', 'featyx')).toBe(false);
  });

  it('creates, lists, gets, updates and deletes policies; a repeated pattern answers 303', () => {
    const created = call('repos/create-deployment-branch-policy', { params: env, body: { name: 'release/*' } });
    expect(created).toMatchObject({ status: 200, body: { name: 'release/*' } });
    const repeated = deploymentsHandlers['repos/create-deployment-branch-policy']!(
      {
        operation: 'repos/create-deployment-branch-policy',
        path: '',
        params: env,
        query: {},
        headers: {},
        body: { name: 'release/*' },
        user: ctx.user('octocat'),
      },
      ctx,
    );
    expect(repeated.status).toBe(303);
    expect(repeated.headers?.Location).toContain(`/deployment-branch-policies/${created.body.id}`);
    call('repos/create-deployment-branch-policy', { params: env, body: { name: 'main' } });
    expect(call('repos/list-deployment-branch-policies', { params: env }).body).toMatchObject({
      total_count: 2,
      branch_policies: [{ name: 'release/*' }, { name: 'main' }],
    });
    const id = String(created.body.id);
    expect(call('repos/update-deployment-branch-policy', { params: { ...env, branch_policy_id: id }, body: { name: 'releases/*' } }).body.name).toBe(
      'releases/*',
    );
    expect(call('repos/get-deployment-branch-policy', { params: { ...env, branch_policy_id: id } }).body.name).toBe('releases/*');
    expect(call('repos/delete-deployment-branch-policy', { params: { ...env, branch_policy_id: id } }).status).toBe(204);
    expect(call.fails('repos/get-deployment-branch-policy', { params: { ...env, branch_policy_id: id } }).status).toBe(404);
  });

  it('lets only matching branches deploy to an environment with policies', () => {
    call('git/create-ref', { params: repo, body: { ref: 'refs/heads/release/1.0', sha } });
    call('git/create-ref', { params: repo, body: { ref: 'refs/heads/release/1.0/hotfix', sha } });
    call('repos/create-deployment-branch-policy', { params: env, body: { name: 'release/*' } });
    expect(deploy({ ref: 'release/1.0' }).ref).toBe('release/1.0');
    expect(call.fails('repos/create-deployment', { params: repo, body: { ref: 'release/1.0/hotfix' } }).status).toBe(422);
    expect(call.fails('repos/create-deployment', { params: repo, body: { ref: 'main' } }).status).toBe(422);
    expect(deploy({ ref: 'main', environment: 'staging' }).environment).toBe('staging');
  });
});
