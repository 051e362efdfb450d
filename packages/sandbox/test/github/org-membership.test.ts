import { beforeEach, describe, expect, it } from 'vitest';
import { caller, fakeContext, type Caller, type FakeContext } from './fake-context.helpers.js';
import { createOrgMembershipTables, orgMembershipHandlers } from '../../src/github/org-membership.js';

let ctx: FakeContext;
let owner: Caller;
const org = { org: 'octo-org' };

beforeEach(() => {
  ctx = fakeContext(createOrgMembershipTables);
  owner = caller(ctx, orgMembershipHandlers, 'octocat');
});

/** Invites `login` and has them accept. */
function join(login: string, role = 'member') {
  owner('orgs/set-membership-for-user', { params: { ...org, username: login }, body: { role } });
  return owner.as(login)('orgs/update-membership-for-authenticated-user', { params: org, body: { state: 'active' } }).body;
}

const members = (as = owner) => as('orgs/list-members', { params: org }).body.map((u: { login: string }) => u.login);

describe('organization membership', () => {
  it('makes whoever mentions an organization first its owner', () => {
    expect(members()).toEqual(['octocat']);
    expect(owner('orgs/get-membership-for-user', { params: { ...org, username: 'octocat' } }).body).toMatchObject({ state: 'active', role: 'admin' });
  });

  it('invites as pending until the user accepts', () => {
    const invited = owner('orgs/set-membership-for-user', { params: { ...org, username: 'mona' }, body: {} }).body;
    expect(invited).toMatchObject({ state: 'pending', role: 'member', user: { login: 'mona' }, organization: { login: 'octo-org' } });
    expect(owner.fails('orgs/check-membership-for-user', { params: { ...org, username: 'mona' } }).status).toBe(404);
    const mona = owner.as('mona');
    expect(mona('orgs/list-memberships-for-authenticated-user', { query: { state: 'pending' } }).body).toHaveLength(1);
    expect(mona('orgs/update-membership-for-authenticated-user', { params: org, body: { state: 'active' } }).body.state).toBe('active');
    expect(owner('orgs/check-membership-for-user', { params: { ...org, username: 'mona' } }).status).toBe(204);
    expect(members()).toEqual(['mona', 'octocat']);
    expect(owner('orgs/list-members', { params: org, query: { role: 'admin' } }).body.map((u: { login: string }) => u.login)).toEqual(['octocat']);
  });

  it('lets only owners manage members, and keeps the last owner', () => {
    join('mona');
    const mona = owner.as('mona');
    expect(mona.fails('orgs/set-membership-for-user', { params: { ...org, username: 'hubot' }, body: {} }).status).toBe(403);
    expect(owner.fails('orgs/remove-membership-for-user', { params: { ...org, username: 'octocat' } }).status).toBe(403);
    expect(owner.fails('orgs/remove-membership-for-user', { params: { ...org, username: 'nobody' } }).status).toBe(404);
    expect(owner('orgs/set-membership-for-user', { params: { ...org, username: 'mona' }, body: { role: 'admin' } }).body.role).toBe('admin');
    expect(owner('orgs/remove-membership-for-user', { params: { ...org, username: 'octocat' } }).status).toBe(204);
    expect(members(mona)).toEqual(['mona']);
  });

  it('shows outsiders public members only, with a 302 for membership checks', () => {
    join('mona');
    const stranger = owner.as('stranger');
    expect(members(stranger)).toEqual([]);
    expect(stranger('orgs/check-membership-for-user', { params: { ...org, username: 'mona' } }).status).toBe(302);
    expect(owner.as('mona')('orgs/set-public-membership-for-authenticated-user', { params: { ...org, username: 'mona' } }).status).toBe(204);
    expect(members(stranger)).toEqual(['mona']);
    expect(stranger('orgs/list-public-members', { params: org }).body.map((u: { login: string }) => u.login)).toEqual(['mona']);
    expect(stranger('orgs/check-public-membership-for-user', { params: { ...org, username: 'mona' } }).status).toBe(204);
    expect(stranger.fails('orgs/check-public-membership-for-user', { params: { ...org, username: 'octocat' } }).status).toBe(404);
    expect(stranger.fails('orgs/set-public-membership-for-authenticated-user', { params: { ...org, username: 'stranger' } }).status).toBe(403);
  });
});

describe('converting members to outside collaborators', () => {
  it('converts a member, who then loses membership (204)', () => {
    join('mona');
    const converted = owner('orgs/convert-member-to-outside-collaborator', { params: { ...org, username: 'mona' }, body: {} });
    expect(converted.status).toBe(204);
    expect(members()).toEqual(['octocat']);
    expect(owner.fails('orgs/get-membership-for-user', { params: { ...org, username: 'mona' } }).status).toBe(404);
    expect(owner('orgs/list-outside-collaborators', { params: org }).body.map((u: { login: string }) => u.login)).toEqual(['mona']);
  });

  it('answers 202 and queues the job with async: true; the next read sees it done', () => {
    join('mona');
    const queued = owner('orgs/convert-member-to-outside-collaborator', { params: { ...org, username: 'mona' }, body: { async: true } });
    expect(queued).toMatchObject({ status: 202, body: {} });
    expect(members()).toEqual(['octocat']);
    expect(owner('orgs/list-outside-collaborators', { params: org }).body).toHaveLength(1);
  });

  it('refuses non-members and the last owner with 403', () => {
    owner('orgs/set-membership-for-user', { params: { ...org, username: 'pending' }, body: {} });
    expect(owner.fails('orgs/convert-member-to-outside-collaborator', { params: { ...org, username: 'stranger' }, body: {} }).status).toBe(403);
    expect(owner.fails('orgs/convert-member-to-outside-collaborator', { params: { ...org, username: 'pending' }, body: {} }).status).toBe(403);
    const last = owner.fails('orgs/convert-member-to-outside-collaborator', { params: { ...org, username: 'octocat' }, body: {} });
    expect(last).toMatchObject({ status: 403, message: 'Cannot convert the last owner to an outside collaborator' });
  });

  it('removes outside collaborators but not members (422), and rejoining ends outside collaboration', () => {
    join('mona');
    join('hubot');
    owner('orgs/convert-member-to-outside-collaborator', { params: { ...org, username: 'mona' }, body: {} });
    owner('orgs/convert-member-to-outside-collaborator', { params: { ...org, username: 'hubot' }, body: {} });
    expect(owner.fails('orgs/remove-outside-collaborator', { params: { ...org, username: 'octocat' } }).status).toBe(422);
    expect(owner('orgs/remove-outside-collaborator', { params: { ...org, username: 'hubot' } }).status).toBe(204);
    join('mona');
    expect(owner('orgs/list-outside-collaborators', { params: org }).body).toEqual([]);
  });
});
