import { describe, expect, it } from 'vitest';
import { useGithub } from './github.helpers.js';

const hub = useGithub(Date.UTC(2025, 0, 15));

describe('repositories', () => {
  it('creates one for the caller and reads it back with any casing of owner and name', async () => {
    const created = await hub.call('POST', '/user/repos', { body: { name: 'Hello-World', description: 'First', private: false, has_wiki: false } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Hello-World',
      full_name: 'octocat/Hello-World',
      private: false,
      visibility: 'public',
      description: 'First',
      has_wiki: false,
    });
    expect(created.body.owner).toMatchObject({ login: 'octocat', type: 'User' });
    expect(created.body.permissions).toEqual({ admin: true, maintain: true, push: true, triage: true, pull: true });
    const read = await hub.call('GET', '/repos/OCTOCAT/hello-world');
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: created.body.id, full_name: 'octocat/Hello-World', default_branch: 'main', template_repository: null });
  });

  it('refuses a name already taken on the account, whatever its casing', async () => {
    await hub.call('POST', '/user/repos', { body: { name: 'dup' } });
    const again = await hub.call('POST', '/user/repos', { body: { name: 'DUP' } });
    expect(again.status).toBe(422);
    expect(again.body.errors[0]).toMatchObject({ resource: 'Repository', field: 'name', code: 'custom' });
  });

  it('hides a private repository from those without access (404) and shows it to collaborators', async () => {
    await hub.call('POST', '/user/repos', { body: { name: 'secret', private: true } });
    const mona = hub.as('mona');
    expect((await mona('GET', '/repos/octocat/secret')).status).toBe(404);
    expect((await mona('GET', '/users/octocat/repos')).body).toEqual([]);
    await hub.call('PUT', '/repos/octocat/secret/collaborators/mona');
    const [invitation] = (await mona('GET', '/user/repository_invitations')).body;
    await mona('PATCH', `/user/repository_invitations/${invitation.id}`);
    const seen = await mona('GET', '/repos/octocat/secret');
    expect(seen.status).toBe(200);
    expect(seen.body.permissions).toMatchObject({ admin: false, push: true, pull: true });
  });

  it('creates in an organization: the first to name it owns it, others must be members', async () => {
    const created = await hub.call('POST', '/orgs/acme/repos', { body: { name: 'tools', visibility: 'internal' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ full_name: 'acme/tools', private: true, visibility: 'internal' });
    expect(created.body.owner).toMatchObject({ login: 'acme', type: 'Organization' });
    const outsider = await hub.as('mona')('POST', '/orgs/acme/repos', { body: { name: 'mine' } });
    expect(outsider.status).toBe(403);
    const listed = await hub.call('GET', '/orgs/acme/repos');
    expect(listed.body.map((repo: any) => repo.full_name)).toEqual(['acme/tools']);
  });

  it('creates from a template only when the template is marked as one', async () => {
    await hub.call('POST', '/user/repos', { body: { name: 'plain' } });
    const refused = await hub.call('POST', '/repos/octocat/plain/generate', { body: { name: 'copy' } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].message).toMatch(/not a template/);

    await hub.call('POST', '/user/repos', { body: { name: 'starter', is_template: true, description: 'Starter kit' } });
    await hub.call('POST', '/repos/octocat/starter/labels', { body: { name: 'starter-label', color: '00ff00' } });
    const made = await hub.call('POST', '/repos/octocat/starter/generate', { body: { name: 'project', private: true, include_all_branches: true } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ full_name: 'octocat/project', private: true, description: 'Starter kit', is_template: false });
    expect(made.body.template_repository).toMatchObject({ full_name: 'octocat/starter', is_template: true });
    const full = await hub.call('GET', '/repos/octocat/project');
    expect(full.body.template_repository).toMatchObject({ full_name: 'octocat/starter' });
    // The new repository gets the template's labels rather than the defaults.
    const labels = await hub.call('GET', '/repos/octocat/project/labels');
    expect(labels.body.map((label: any) => label.name)).toContain('starter-label');
  });

  it('creates from a template into an organization the caller belongs to', async () => {
    await hub.call('POST', '/orgs/acme/repos', { body: { name: 'seed' } });
    await hub.call('POST', '/user/repos', { body: { name: 'starter', is_template: true } });
    const made = await hub.call('POST', '/repos/octocat/starter/generate', { body: { owner: 'acme', name: 'service' } });
    expect(made.status).toBe(201);
    expect(made.body.full_name).toBe('acme/service');
  });

  it('updates (renaming included) for admins only, and deletes', async () => {
    await hub.call('POST', '/user/repos', { body: { name: 'old-name' } });
    expect((await hub.as('mona')('PATCH', '/repos/octocat/old-name', { body: { description: 'mine now' } })).status).toBe(403);
    const updated = await hub.call('PATCH', '/repos/octocat/old-name', {
      body: { name: 'new-name', description: 'Renamed', private: true, allow_squash_merge: false },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'new-name', full_name: 'octocat/new-name', description: 'Renamed', private: true, allow_squash_merge: false });
    expect((await hub.call('GET', '/repos/octocat/old-name')).status).toBe(404);
    expect((await hub.call('DELETE', '/repos/octocat/new-name')).status).toBe(204);
    expect((await hub.call('GET', '/repos/octocat/new-name')).status).toBe(404);
  });

  it("lists the caller's repositories by affiliation, visibility and name", async () => {
    await hub.call('POST', '/user/repos', { body: { name: 'b-public' } });
    await hub.call('POST', '/user/repos', { body: { name: 'a-private', private: true } });
    await hub.as('mona')('POST', '/user/repos', { body: { name: 'monas' } });
    const all = await hub.call('GET', '/user/repos');
    expect(all.body.map((repo: any) => repo.full_name)).toEqual(['octocat/a-private', 'octocat/b-public']);
    const publicOnly = await hub.call('GET', '/user/repos', { query: { visibility: 'public' } });
    expect(publicOnly.body.map((repo: any) => repo.name)).toEqual(['b-public']);
    const paged = await hub.call('GET', '/user/repos', { query: { per_page: 1, page: 2 } });
    expect(paged.body.map((repo: any) => repo.name)).toEqual(['b-public']);
    const others = await hub.call('GET', '/users/mona/repos');
    expect(others.body.map((repo: any) => repo.full_name)).toEqual(['mona/monas']);
  });
});

describe('users', () => {
  it('shows the caller and anyone else by login', async () => {
    const me = await hub.call('GET', '/user');
    expect(me.body).toMatchObject({ login: 'octocat', type: 'User', created_at: '2025-01-15T00:00:00Z' });
    const other = await hub.call('GET', '/users/hubot');
    expect(other.body).toMatchObject({ login: 'hubot', type: 'User' });
    expect(other.body.id).not.toBe(me.body.id);
  });
});
