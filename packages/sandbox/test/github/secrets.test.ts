import { beforeEach, describe, expect, it } from 'vitest';
import { caller, fakeContext, type Caller, type FakeContext } from './fake-context.helpers.js';
import { createSecretsTables, secretsHandlers } from '../../src/github/secrets.js';

let ctx: FakeContext;
let call: Caller;
let repoIds: number[];
const repo = { owner: 'octocat', repo: 'hello-world' };
const org = { org: 'octo-org' };
const sealed = 'c2VjcmV0'; // base64 of "secret"; the emulator never decrypts

beforeEach(() => {
  ctx = fakeContext(createSecretsTables);
  ctx.addRepository('octocat/hello-world');
  repoIds = [ctx.addRepository('octo-org/api').id, ctx.addRepository('octo-org/web', { private: true }).id];
  ctx.addRepository('someone/else');
  call = caller(ctx, secretsHandlers);
});

describe.each(['actions', 'dependabot'])('%s repository secrets', (kind) => {
  it('stores secrets under the public key and never returns values', () => {
    const key = call(`${kind}/get-repo-public-key`, { params: repo }).body;
    expect(key.key_id).toMatch(/^\d{18}$/);
    const put = (body: Record<string, unknown>) => call(`${kind}/create-or-update-repo-secret`, { params: { ...repo, secret_name: 'deploy_token' }, body });
    expect(put({ encrypted_value: sealed, key_id: key.key_id })).toMatchObject({ status: 201, body: {} });
    ctx.clock.advance(60_000);
    expect(put({ encrypted_value: sealed, key_id: key.key_id }).status).toBe(204);

    const listed = call(`${kind}/list-repo-secrets`, { params: repo }).body;
    expect(listed).toEqual({ total_count: 1, secrets: [{ name: 'DEPLOY_TOKEN', created_at: '2025-01-15T12:00:00Z', updated_at: '2025-01-15T12:01:00Z' }] });
    expect(JSON.stringify(listed)).not.toContain(sealed);
    expect(call(`${kind}/get-repo-secret`, { params: { ...repo, secret_name: 'Deploy_Token' } }).body.name).toBe('DEPLOY_TOKEN');
    expect(call(`${kind}/delete-repo-secret`, { params: { ...repo, secret_name: 'DEPLOY_TOKEN' } }).status).toBe(204);
    expect(call.fails(`${kind}/get-repo-secret`, { params: { ...repo, secret_name: 'DEPLOY_TOKEN' } }).status).toBe(404);
  });

  it('refuses a wrong key_id, a missing value and bad names with 422', () => {
    const fails = (name: string, body: Record<string, unknown>) =>
      call.fails(`${kind}/create-or-update-repo-secret`, { params: { ...repo, secret_name: name }, body });
    const { key_id } = call(`${kind}/get-repo-public-key`, { params: repo }).body;
    expect(fails('A', { encrypted_value: sealed, key_id: '1' }).status).toBe(422);
    expect(fails('A', {}).status).toBe(422);
    expect(fails('GITHUB_TOKEN', { encrypted_value: sealed, key_id }).status).toBe(422);
    expect(fails('1ABC', { encrypted_value: sealed, key_id }).status).toBe(422);
    expect(fails('A-B', { encrypted_value: sealed, key_id }).status).toBe(422);
  });
});

describe.each(['actions', 'dependabot'])('%s organization secrets', (kind) => {
  const put = (name: string, body: Record<string, unknown>) => {
    const { key_id } = call(`${kind}/get-org-public-key`, { params: org }).body;
    return call(`${kind}/create-or-update-org-secret`, { params: { ...org, secret_name: name }, body: { encrypted_value: sealed, key_id, ...body } });
  };
  const selected = (name: string) =>
    call(`${kind}/list-selected-repos-for-org-secret`, { params: { ...org, secret_name: name } }).body.repositories.map((r: { name: string }) => r.name);

  it('creates secrets with a visibility and lists them without values', () => {
    expect(put('ALL', { visibility: 'all' }).status).toBe(201);
    put('PRIV', { visibility: 'private' });
    put('SEL', { visibility: 'selected', selected_repository_ids: [repoIds[0]] });
    const listed = call(`${kind}/list-org-secrets`, { params: org }).body;
    expect(listed.secrets.map((s: { name: string; visibility: string }) => `${s.name}:${s.visibility}`)).toEqual(['ALL:all', 'PRIV:private', 'SEL:selected']);
    expect(listed.secrets[2].selected_repositories_url).toContain(`/orgs/octo-org/${kind}/secrets/SEL/repositories`);
    expect(selected('SEL')).toEqual(['api']);
  });

  it('takes selected_repository_ids only with visibility selected', () => {
    expect(
      call.fails(`${kind}/create-or-update-org-secret`, {
        params: { ...org, secret_name: 'X' },
        body: { visibility: 'all', selected_repository_ids: [repoIds[0]] },
      }).status,
    ).toBe(422);
    const other = ctx.repository('someone', 'else').id;
    expect(
      call.fails(`${kind}/create-or-update-org-secret`, {
        params: { ...org, secret_name: 'X' },
        body: { visibility: 'selected', selected_repository_ids: [other] },
      }).status,
    ).toBe(422);
  });

  it('manages the repository list of a selected secret, and answers 409 for any other visibility', () => {
    put('SEL', { visibility: 'selected' });
    const params = { ...org, secret_name: 'SEL' };
    expect(call(`${kind}/set-selected-repos-for-org-secret`, { params, body: { selected_repository_ids: repoIds } }).status).toBe(204);
    expect(selected('SEL')).toEqual(['api', 'web']);
    expect(call(`${kind}/remove-selected-repo-from-org-secret`, { params: { ...params, repository_id: String(repoIds[0]) } }).status).toBe(204);
    expect(selected('SEL')).toEqual(['web']);
    expect(call(`${kind}/add-selected-repo-to-org-secret`, { params: { ...params, repository_id: String(repoIds[0]) } }).status).toBe(204);
    expect(selected('SEL')).toEqual(['api', 'web']);

    // Widening the visibility drops the list.
    expect(put('SEL', { visibility: 'all' }).status).toBe(204);
    expect(selected('SEL')).toEqual([]);
    const all = { ...org, secret_name: 'SEL' };
    expect(call.fails(`${kind}/set-selected-repos-for-org-secret`, { params: all, body: { selected_repository_ids: repoIds } }).status).toBe(409);
    expect(call.fails(`${kind}/add-selected-repo-to-org-secret`, { params: { ...all, repository_id: String(repoIds[0]) } }).status).toBe(409);
    expect(call.fails(`${kind}/remove-selected-repo-from-org-secret`, { params: { ...all, repository_id: String(repoIds[0]) } }).status).toBe(409);
  });

  it('updates visibility alone, and deletes', () => {
    put('S', { visibility: 'all' });
    expect(call(`${kind}/create-or-update-org-secret`, { params: { ...org, secret_name: 'S' }, body: { visibility: 'private' } }).status).toBe(204);
    expect(call(`${kind}/get-org-secret`, { params: { ...org, secret_name: 'S' } }).body.visibility).toBe('private');
    expect(call(`${kind}/delete-org-secret`, { params: { ...org, secret_name: 'S' } }).status).toBe(204);
    expect(call.fails(`${kind}/get-org-secret`, { params: { ...org, secret_name: 'S' } }).status).toBe(404);
  });
});

describe('organization variables', () => {
  it('creates, reads, renames and deletes variables', () => {
    expect(call('actions/create-org-variable', { params: org, body: { name: 'region', value: 'eu', visibility: 'all' } }).status).toBe(201);
    expect(call.fails('actions/create-org-variable', { params: org, body: { name: 'REGION', value: 'us', visibility: 'all' } }).status).toBe(409);
    expect(call('actions/get-org-variable', { params: { ...org, name: 'region' } }).body).toMatchObject({ name: 'REGION', value: 'eu', visibility: 'all' });
    expect(call('actions/update-org-variable', { params: { ...org, name: 'REGION' }, body: { name: 'ZONE', value: 'eu-1' } }).status).toBe(204);
    expect(call('actions/list-org-variables', { params: org }).body).toMatchObject({ total_count: 1, variables: [{ name: 'ZONE', value: 'eu-1' }] });
    expect(call('actions/delete-org-variable', { params: { ...org, name: 'ZONE' } }).status).toBe(204);
    expect(call.fails('actions/get-org-variable', { params: { ...org, name: 'ZONE' } }).status).toBe(404);
  });

  it('shares the selected-repository rules, with 409 also for listing an unselected variable', () => {
    call('actions/create-org-variable', { params: org, body: { name: 'V', value: '1', visibility: 'selected', selected_repository_ids: [repoIds[1]] } });
    const list = () =>
      call('actions/list-selected-repos-for-org-variable', { params: { ...org, name: 'V' } }).body.repositories.map((r: { name: string }) => r.name);
    expect(list()).toEqual(['web']);
    call('actions/add-selected-repo-to-org-variable', { params: { ...org, name: 'V', repository_id: String(repoIds[0]) } });
    expect(list()).toEqual(['api', 'web']);
    call('actions/update-org-variable', { params: { ...org, name: 'V' }, body: { visibility: 'private' } });
    expect(call.fails('actions/list-selected-repos-for-org-variable', { params: { ...org, name: 'V' } }).status).toBe(409);
    expect(call.fails('actions/add-selected-repo-to-org-variable', { params: { ...org, name: 'V', repository_id: String(repoIds[0]) } }).status).toBe(409);
    expect(call.fails('actions/update-org-variable', { params: { ...org, name: 'V' }, body: { selected_repository_ids: repoIds } }).status).toBe(422);
  });
});
