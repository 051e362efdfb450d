import { beforeEach, describe, expect, it } from 'vitest';
import { createOrganizationTables, organization } from '../../src/github/common.js';
import { caller, fakeContext, type Caller, type FakeContext } from './fake-context.helpers.js';
import { createRunnersTables, registerRunner, runnersHandlers, TOKEN_LIFETIME_MS, unregisterRunner } from '../../src/github/runners.js';

let ctx: FakeContext;
let call: Caller;
let repoIds: number[];
const org = { org: 'octo-org' };
const ent = { enterprise: 'octo-corp' };

beforeEach(() => {
  ctx = fakeContext(createRunnersTables);
  repoIds = [ctx.addRepository('octo-org/api').id, ctx.addRepository('octo-org/secret-sauce', { private: true }).id];
  ctx.addRepository('octocat/hello-world');
  call = caller(ctx, runnersHandlers);
});

function register(op: string, params: Record<string, string>, name: string, labels: string[] = []) {
  const { token } = call(op, { params }).body;
  return registerRunner(ctx, token, { name, labels });
}
const orgRunner = (name: string, labels?: string[]) => register('actions/create-registration-token-for-org', org, name, labels);
const labelNames = (body: { labels: Array<{ name: string; type: string }> }) => body.labels.map((l) => `${l.name}:${l.type}`);

describe('registration tokens', () => {
  it('live one hour on the emulator clock', () => {
    const issued = call('actions/create-registration-token-for-org', { params: org });
    expect(issued.status).toBe(201);
    expect(issued.body.expires_at).toBe(new Date(ctx.clock.now() + TOKEN_LIFETIME_MS).toISOString().replace('.000Z', 'Z'));
    ctx.clock.advance(TOKEN_LIFETIME_MS - 1000);
    expect(registerRunner(ctx, issued.body.token, { name: 'in-time' })).toBeGreaterThan(0);
    const late = call('actions/create-registration-token-for-repo', { params: { owner: 'octocat', repo: 'hello-world' } }).body.token;
    ctx.clock.advance(TOKEN_LIFETIME_MS);
    expect(() => registerRunner(ctx, late, { name: 'too-late' })).toThrow(/expired/);
  });

  it('removes a runner with a remove token of its scope', () => {
    const id = orgRunner('builder');
    const { token } = call('actions/create-remove-token-for-org', { params: org }).body;
    unregisterRunner(ctx, token, id);
    expect(call('actions/list-self-hosted-runners-for-org', { params: org }).body.total_count).toBe(0);
  });
});

describe.each([
  ['actions', 'org', org],
  ['actions', 'repo', { owner: 'octocat', repo: 'hello-world' }],
  ['enterprise-admin', 'enterprise', ent],
] as const)('%s runners for %s', (prefix, owner, params) => {
  const op = (name: string) => `${prefix}/${name}-for-${owner}`;

  it('lists, gets and deletes registered runners', () => {
    const id = register(op('create-registration-token'), params, 'builder');
    const listed = call(op('list-self-hosted-runners'), { params }).body;
    expect(listed).toMatchObject({ total_count: 1, runners: [{ id, name: 'builder', os: 'Linux', status: 'online', busy: false }] });
    expect(call(op('get-self-hosted-runner'), { params: { ...params, runner_id: String(id) } }).body.id).toBe(id);
    expect(call(`${prefix}/delete-self-hosted-runner-from-${owner}`, { params: { ...params, runner_id: String(id) } }).status).toBe(204);
    expect(call.fails(op('get-self-hosted-runner'), { params: { ...params, runner_id: String(id) } }).status).toBe(404);
  });

  it('adds, sets and removes custom labels, keeping the read-only ones', () => {
    const id = String(register(op('create-registration-token'), params, 'builder', ['gpu']));
    const at = { ...params, runner_id: id };
    expect(labelNames(call(op('list-labels-for-self-hosted-runner'), { params: at }).body)).toEqual([
      'self-hosted:read-only',
      'Linux:read-only',
      'X64:read-only',
      'gpu:custom',
    ]);
    expect(labelNames(call(op('add-custom-labels-to-self-hosted-runner'), { params: at, body: { labels: ['gpu', 'big'] } }).body)).toContain('big:custom');
    expect(labelNames(call(op('set-custom-labels-for-self-hosted-runner'), { params: at, body: { labels: ['arm'] } }).body)).toEqual([
      'self-hosted:read-only',
      'Linux:read-only',
      'X64:read-only',
      'arm:custom',
    ]);
    expect(call.fails(op('remove-custom-label-from-self-hosted-runner'), { params: { ...at, name: 'Linux' } }).status).toBe(422);
    expect(call.fails(op('remove-custom-label-from-self-hosted-runner'), { params: { ...at, name: 'none' } }).status).toBe(404);
    expect(call(op('remove-custom-label-from-self-hosted-runner'), { params: { ...at, name: 'arm' } }).body.total_count).toBe(3);
    call(op('add-custom-labels-to-self-hosted-runner'), { params: at, body: { labels: ['x', 'y'] } });
    expect(call(op('remove-all-custom-labels-from-self-hosted-runner'), { params: at }).body.total_count).toBe(3);
  });
});

describe('organization runner groups', () => {
  const group = (id: number) => ({ ...org, runner_group_id: String(id) });

  it('has a default group that takes new runners and cannot be deleted', () => {
    const id = orgRunner('builder');
    const [def] = call('actions/list-self-hosted-runner-groups-for-org', { params: org }).body.runner_groups;
    expect(def).toMatchObject({ name: 'Default', default: true, visibility: 'all' });
    expect(call('actions/get-self-hosted-runner-for-org', { params: { ...org, runner_id: String(id) } }).body.runner_group_id).toBe(def.id);
    expect(call.fails('actions/delete-self-hosted-runner-group-from-org', { params: group(def.id) }).status).toBe(422);
  });

  it('creates groups with runners, and returns runners to the default group on delete', () => {
    const runner = orgRunner('builder');
    const created = call('actions/create-self-hosted-runner-group-for-org', { params: org, body: { name: 'Build', runners: [runner] } });
    expect(created).toMatchObject({ status: 201, body: { name: 'Build', visibility: 'all', default: false, inherited: false } });
    const inGroup = () =>
      call('actions/list-self-hosted-runners-in-group-for-org', { params: group(created.body.id) }).body.runners.map((r: { id: number }) => r.id);
    expect(inGroup()).toEqual([runner]);
    expect(call.fails('actions/create-self-hosted-runner-group-for-org', { params: org, body: { name: 'build' } }).status).toBe(422);
    call('actions/remove-self-hosted-runner-from-group-for-org', { params: { ...group(created.body.id), runner_id: String(runner) } });
    expect(inGroup()).toEqual([]);
    call('actions/add-self-hosted-runner-to-group-for-org', { params: { ...group(created.body.id), runner_id: String(runner) } });
    call('actions/set-self-hosted-runners-in-group-for-org', { params: group(created.body.id), body: { runners: [runner] } });
    expect(inGroup()).toEqual([runner]);
    expect(call('actions/delete-self-hosted-runner-group-from-org', { params: group(created.body.id) }).status).toBe(204);
    expect(call('actions/get-self-hosted-runner-for-org', { params: { ...org, runner_id: String(runner) } }).body.runner_group_id).not.toBe(created.body.id);
  });

  it('keeps a repository access list only while visibility is selected', () => {
    expect(
      call.fails('actions/create-self-hosted-runner-group-for-org', {
        params: org,
        body: { name: 'G', visibility: 'all', selected_repository_ids: [repoIds[0]] },
      }).status,
    ).toBe(422);
    const id = call('actions/create-self-hosted-runner-group-for-org', {
      params: org,
      body: { name: 'G', visibility: 'selected', selected_repository_ids: [repoIds[0]] },
    }).body.id;
    const access = () =>
      call('actions/list-repo-access-to-self-hosted-runner-group-in-org', { params: group(id) }).body.repositories.map((r: { name: string }) => r.name);
    expect(access()).toEqual(['api']);
    expect(call('actions/get-self-hosted-runner-group-for-org', { params: group(id) }).body.selected_repositories_url).toContain(
      `/runner-groups/${id}/repositories`,
    );
    call('actions/add-repo-access-to-self-hosted-runner-group-in-org', { params: { ...group(id), repository_id: String(repoIds[1]) } });
    expect(access()).toEqual(['api', 'secret-sauce']);
    call('actions/remove-repo-access-to-self-hosted-runner-group-in-org', { params: { ...group(id), repository_id: String(repoIds[0]) } });
    call('actions/set-repo-access-to-self-hosted-runner-group-in-org', { params: group(id), body: { selected_repository_ids: repoIds } });
    expect(access()).toEqual(['api', 'secret-sauce']);

    call('actions/update-self-hosted-runner-group-for-org', { params: group(id), body: { name: 'G', visibility: 'private' } });
    expect(access()).toEqual([]);
    expect(
      call.fails('actions/add-repo-access-to-self-hosted-runner-group-in-org', { params: { ...group(id), repository_id: String(repoIds[0]) } }).status,
    ).toBe(409);
    expect(
      call.fails('actions/set-repo-access-to-self-hosted-runner-group-in-org', { params: group(id), body: { selected_repository_ids: repoIds } }).status,
    ).toBe(409);
  });

  it('filters groups visible to a repository: all, private for private repositories, selected by list', () => {
    call('actions/create-self-hosted-runner-group-for-org', { params: org, body: { name: 'Private', visibility: 'private' } });
    call('actions/create-self-hosted-runner-group-for-org', {
      params: org,
      body: { name: 'ApiOnly', visibility: 'selected', selected_repository_ids: [repoIds[0]] },
    });
    const visible = (repo: string) =>
      call('actions/list-self-hosted-runner-groups-for-org', { params: org, query: { visible_to_repository: repo } }).body.runner_groups.map(
        (g: { name: string }) => g.name,
      );
    expect(visible('api')).toEqual(['Default', 'ApiOnly']);
    expect(visible('secret-sauce')).toEqual(['Default', 'Private']);
  });

  it('shows allowed workflows only while restricted to workflows', () => {
    const workflows = ['octo-org/api/.github/workflows/deploy.yaml@main'];
    const id = call('actions/create-self-hosted-runner-group-for-org', { params: org, body: { name: 'W', selected_workflows: workflows } }).body.id;
    expect(call('actions/get-self-hosted-runner-group-for-org', { params: group(id) }).body).toMatchObject({
      restricted_to_workflows: false,
      selected_workflows: [],
    });
    const updated = call('actions/update-self-hosted-runner-group-for-org', { params: group(id), body: { name: 'W', restricted_to_workflows: true } }).body;
    expect(updated).toMatchObject({ restricted_to_workflows: true, selected_workflows: workflows });
  });
});

describe('enterprise runner groups', () => {
  const group = (id: number) => ({ ...ent, runner_group_id: String(id) });

  it('grants organizations access only while visibility is selected', () => {
    createOrganizationTables(ctx.db);
    const orgId = organization(ctx, 'octo-org', ctx.user('octocat')).id;
    const created = call('enterprise-admin/create-self-hosted-runner-group-for-enterprise', {
      params: ent,
      body: { name: 'E', visibility: 'selected', selected_organization_ids: [orgId] },
    }).body;
    expect(created.selected_organizations_url).toContain(`/enterprises/octo-corp/actions/runner-groups/${created.id}/organizations`);
    const orgs = () =>
      call('enterprise-admin/list-org-access-to-self-hosted-runner-group-in-enterprise', { params: group(created.id) }).body.organizations.map(
        (o: { login: string }) => o.login,
      );
    expect(orgs()).toEqual(['octo-org']);
    expect(
      call.fails('enterprise-admin/add-org-access-to-self-hosted-runner-group-in-enterprise', { params: { ...group(created.id), org_id: '424242' } }).status,
    ).toBe(422);
    call('enterprise-admin/remove-org-access-to-self-hosted-runner-group-in-enterprise', { params: { ...group(created.id), org_id: String(orgId) } });
    expect(orgs()).toEqual([]);
    call('enterprise-admin/update-self-hosted-runner-group-for-enterprise', { params: group(created.id), body: { visibility: 'all' } });
    expect(
      call.fails('enterprise-admin/set-org-access-to-self-hosted-runner-group-in-enterprise', {
        params: group(created.id),
        body: { selected_organization_ids: [orgId] },
      }).status,
    ).toBe(409);
    const runner = register('enterprise-admin/create-registration-token-for-enterprise', ent, 'e1');
    call('enterprise-admin/add-self-hosted-runner-to-group-for-enterprise', { params: { ...group(created.id), runner_id: String(runner) } });
    expect(call('enterprise-admin/list-self-hosted-runners-in-group-for-enterprise', { params: group(created.id) }).body.total_count).toBe(1);
  });
});
