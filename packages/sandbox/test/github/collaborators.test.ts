import { beforeEach, describe, expect, it } from 'vitest';
import { useGithub } from './github.helpers.js';

const hub = useGithub(Date.UTC(2025, 0, 15));
const repo = '/repos/octocat/hello-world';

beforeEach(async () => {
  await hub.call('POST', '/user/repos', { body: { name: 'hello-world' } });
});

describe('collaborators and invitations (AddOrUpdateRepohostCollaborator, AcceptRepohostRepoInvitation)', () => {
  it('invites a user who is not a collaborator: 201 with the invitation, and nobody joins yet', async () => {
    const invited = await hub.call('PUT', `${repo}/collaborators/mona`);
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ permissions: 'write', expired: false, repository: { full_name: 'octocat/hello-world' } });
    expect(invited.body.invitee.login).toBe('mona');
    expect(invited.body.inviter.login).toBe('octocat');
    expect((await hub.call('GET', `${repo}/collaborators/mona`)).status).toBe(404);
    const pending = await hub.call('GET', `${repo}/invitations`);
    expect(pending.body.map((invitation: any) => invitation.id)).toEqual([invited.body.id]);
  });

  it('lets only the invitee accept (others get 404); the invitee then becomes a collaborator', async () => {
    const { id } = (await hub.call('PUT', `${repo}/collaborators/mona`)).body;
    expect((await hub.as('hubot')('PATCH', `/user/repository_invitations/${id}`)).status).toBe(404);
    expect((await hub.call('PATCH', `/user/repository_invitations/${id}`)).status).toBe(404);
    const mona = hub.as('mona');
    expect((await mona('GET', '/user/repository_invitations')).body).toHaveLength(1);
    expect((await mona('PATCH', `/user/repository_invitations/${id}`)).status).toBe(204);
    expect((await hub.call('GET', `${repo}/collaborators/mona`)).status).toBe(204);
    expect((await hub.call('GET', `${repo}/invitations`)).body).toEqual([]);
    expect((await mona('PATCH', `/user/repository_invitations/${id}`)).status).toBe(404);
    const listed = await hub.call('GET', `${repo}/collaborators`);
    expect(listed.body.map((user: any) => [user.login, user.role_name])).toEqual([
      ['octocat', 'admin'],
      ['mona', 'write'],
    ]);
  });

  it('updates an existing collaborator at once with 204 (on an organization repository, to the role given)', async () => {
    await hub.call('POST', '/orgs/acme/repos', { body: { name: 'tools' } });
    const { id } = (await hub.call('PUT', '/repos/acme/tools/collaborators/mona', { body: { permission: 'triage' } })).body;
    await hub.as('mona')('PATCH', `/user/repository_invitations/${id}`);
    expect((await hub.call('GET', '/repos/acme/tools/collaborators/mona/permission')).body).toMatchObject({ permission: 'read', role_name: 'triage' });
    const updated = await hub.call('PUT', '/repos/acme/tools/collaborators/mona', { body: { permission: 'maintain' } });
    expect(updated.status).toBe(204);
    expect(updated.body).toBeUndefined();
    expect((await hub.call('GET', '/repos/acme/tools/collaborators/mona/permission')).body).toMatchObject({ permission: 'write', role_name: 'maintain' });
  });

  it('re-inviting a pending invitee updates the same invitation', async () => {
    await hub.call('POST', '/orgs/acme/repos', { body: { name: 'tools' } });
    const first = await hub.call('PUT', '/repos/acme/tools/collaborators/mona', { body: { permission: 'pull' } });
    const second = await hub.call('PUT', '/repos/acme/tools/collaborators/mona', { body: { permission: 'admin' } });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ id: first.body.id, permissions: 'admin' });
  });

  it('needs admin rights to add collaborators, and refuses the owner', async () => {
    const refused = await hub.as('mona')('PUT', `${repo}/collaborators/hubot`);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('Must have admin rights to Repository.');
    expect((await hub.call('PUT', `${repo}/collaborators/octocat`)).status).toBe(422);
  });

  it('updates, declines and deletes invitations', async () => {
    const { id } = (await hub.call('PUT', `${repo}/collaborators/mona`)).body;
    const updated = await hub.call('PATCH', `${repo}/invitations/${id}`, { body: { permissions: 'admin' } });
    expect(updated.body.permissions).toBe('admin');
    expect((await hub.as('mona')('DELETE', `/user/repository_invitations/${id}`)).status).toBe(204);
    expect((await hub.call('GET', `${repo}/invitations`)).body).toEqual([]);
    const again = (await hub.call('PUT', `${repo}/collaborators/mona`)).body;
    expect((await hub.call('DELETE', `${repo}/invitations/${again.id}`)).status).toBe(204);
    expect((await hub.as('mona')('GET', '/user/repository_invitations')).body).toEqual([]);
  });

  it('removes a collaborator', async () => {
    const { id } = (await hub.call('PUT', `${repo}/collaborators/mona`)).body;
    await hub.as('mona')('PATCH', `/user/repository_invitations/${id}`);
    expect((await hub.call('DELETE', `${repo}/collaborators/mona`)).status).toBe(204);
    expect((await hub.call('GET', `${repo}/collaborators/mona`)).status).toBe(404);
    expect((await hub.call('GET', `${repo}/collaborators/mona/permission`)).body).toMatchObject({ permission: 'read', role_name: 'read' });
  });
});
