import { beforeEach, describe, expect, it } from 'vitest';
import { caller, fakeContext, type Caller, type FakeContext } from './fake-context.helpers.js';
import { gitDataHandlers } from '../../src/github/git-data.js';
import { createStatusesTables, STATUS_LIMIT, statusesHandlers } from '../../src/github/statuses.js';

let ctx: FakeContext;
let call: Caller;
let sha: string;
const repo = { owner: 'octocat', repo: 'hello-world' };

beforeEach(() => {
  ctx = fakeContext(createStatusesTables);
  ctx.addRepository('octocat/hello-world');
  call = caller(ctx, { ...statusesHandlers, ...gitDataHandlers });
  sha = call('git/get-ref', { params: { ...repo, ref: 'heads/main' } }).body.object.sha;
});

const post = (state: string, context?: string) => call('repos/create-commit-status', { params: { ...repo, sha }, body: { state, context } });
const combined = (ref = sha) => call('repos/get-combined-status-for-ref', { params: { ...repo, ref } }).body;

describe('commit statuses', () => {
  it('creates statuses and lists them newest first for a SHA or a branch', () => {
    const created = post('pending', 'ci/build');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ state: 'pending', context: 'ci/build', creator: { login: 'octocat' } });
    post('success', 'ci/build');
    const listed = call('repos/list-commit-statuses-for-ref', { params: { ...repo, ref: 'main' } }).body;
    expect(listed.map((s: { state: string }) => s.state)).toEqual(['success', 'pending']);
    expect(post('success').body.context).toBe('default');
  });

  it('needs an existing commit', () => {
    const error = call.fails('repos/create-commit-status', { params: { ...repo, sha: 'a'.repeat(40) }, body: { state: 'success' } });
    expect(error.status).toBe(422);
  });

  it('allows at most 1000 statuses per SHA and context, contexts compared case-insensitively', () => {
    const insert = ctx.db.prepare(
      `INSERT INTO commit_statuses (repo_id, sha, context, state, creator_id, creator_login, created_at) VALUES (?, ?, 'ci', 'pending', 1, 'octocat', 0)`,
    );
    const repoId = ctx.repository('octocat', 'hello-world').id;
    for (let i = 0; i < STATUS_LIMIT - 1; i += 1) insert.run(repoId, sha);
    expect(post('success', 'CI').status).toBe(201);
    const refused = call.fails('repos/create-commit-status', { params: { ...repo, sha }, body: { state: 'success', context: 'ci' } });
    expect(refused.status).toBe(422);
    expect(refused.errors[0]).toMatchObject({
      resource: 'Status',
      field: 'context',
      message: 'This SHA and context has reached the maximum number of statuses.',
    });
    // Another context of the same SHA is unaffected.
    expect(post('success', 'lint').status).toBe(201);
  });
});

describe('combined status', () => {
  it('is pending with no statuses', () => {
    expect(combined()).toMatchObject({ state: 'pending', total_count: 0, statuses: [], sha });
  });

  it('takes the latest status per context: failure or error beats pending beats success', () => {
    post('success', 'build');
    post('pending', 'lint');
    expect(combined().state).toBe('pending');
    post('success', 'LINT');
    expect(combined()).toMatchObject({ state: 'success', total_count: 2 });
    post('error', 'deploy');
    expect(combined().state).toBe('failure');
    post('success', 'deploy');
    post('failure', 'build');
    post('pending', 'lint');
    expect(combined('main').state).toBe('failure');
    expect(combined().statuses.map((s: { context: string; state: string }) => `${s.context}:${s.state}`)).toEqual([
      'deploy:success',
      'build:failure',
      'lint:pending',
    ]);
  });

  it('answers 404 for a ref that names no commit', () => {
    expect(call.fails('repos/get-combined-status-for-ref', { params: { ...repo, ref: 'nope' } }).status).toBe(404);
  });
});
