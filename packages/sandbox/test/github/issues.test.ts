import { beforeEach, describe, expect, it } from 'vitest';
import { useGithub } from './github.helpers.js';

const hub = useGithub(Date.UTC(2025, 0, 15));
const repo = '/repos/octocat/hello-world';
const names = (labels: Array<{ name: string }>) => labels.map((label) => label.name);

beforeEach(async () => {
  await hub.call('POST', '/user/repos', { body: { name: 'hello-world' } });
});

describe('labels', () => {
  it("start with GitHub's defaults, and are created, read (any casing), renamed and deleted", async () => {
    expect(names((await hub.call('GET', `${repo}/labels`, { query: { per_page: 100 } })).body)).toContain('good first issue');
    const created = await hub.call('POST', `${repo}/labels`, { body: { name: 'Needs Review', color: '#FBCA04', description: 'Waiting' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Needs Review', color: 'fbca04', description: 'Waiting', default: false });
    expect((await hub.call('GET', `${repo}/labels/needs%20review`)).body.id).toBe(created.body.id);
    expect((await hub.call('POST', `${repo}/labels`, { body: { name: 'needs review' } })).body.errors[0].code).toBe('already_exists');
    expect((await hub.call('POST', `${repo}/labels`, { body: { name: 'bad', color: 'blue' } })).body.errors[0]).toMatchObject({
      field: 'color',
      code: 'invalid',
    });
    const renamed = await hub.call('PATCH', `${repo}/labels/Needs%20Review`, { body: { new_name: 'reviewing', color: '000000' } });
    expect(renamed.body).toMatchObject({ name: 'reviewing', color: '000000', description: 'Waiting' });
    expect((await hub.call('DELETE', `${repo}/labels/reviewing`)).status).toBe(204);
    expect((await hub.call('GET', `${repo}/labels/reviewing`)).status).toBe(404);
  });

  it('need write access to change', async () => {
    expect((await hub.as('mona')('POST', `${repo}/labels`, { body: { name: 'x' } })).status).toBe(403);
  });
});

describe('issues', () => {
  it('are created with labels (missing ones created, grey) and assignees, and read back', async () => {
    const created = await hub.call('POST', `${repo}/issues`, {
      body: { title: 'Found a bug', body: 'It breaks', labels: ['bug', 'brand-new'], assignees: ['octocat'] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ number: 1, title: 'Found a bug', body: 'It breaks', state: 'open', comments: 0, author_association: 'OWNER' });
    expect(names(created.body.labels)).toEqual(['brand-new', 'bug']);
    expect(created.body.labels[0].color).toBe('ededed');
    expect(created.body.assignee.login).toBe('octocat');
    expect(created.body.pull_request).toBeUndefined();
    expect((await hub.call('GET', `${repo}/labels/brand-new`)).status).toBe(200);
    expect((await hub.call('GET', `${repo}/issues/1`)).body).toMatchObject({ id: created.body.id, title: 'Found a bug' });
    expect((await hub.call('GET', `${repo}/issues/2`)).status).toBe(404);
    expect((await hub.call('GET', '/repos/octocat/elsewhere/issues/1')).status).toBe(404);
  });

  it('silently drop labels and assignees from someone without triage access, as GitHub does', async () => {
    const created = await hub.as('mona')('POST', `${repo}/issues`, { body: { title: 'From outside', labels: ['bug'], assignees: ['octocat'] } });
    expect(created.status).toBe(201);
    expect(created.body.labels).toEqual([]);
    expect(created.body.assignees).toEqual([]);
    expect(created.body.author_association).toBe('NONE');
  });

  it('refuse assignees who cannot work on the repository, and milestones (there are none)', async () => {
    const assignee = await hub.call('POST', `${repo}/issues`, { body: { title: 'x', assignees: ['stranger'] } });
    expect(assignee.status).toBe(422);
    expect(assignee.body.errors[0]).toMatchObject({ field: 'assignees', code: 'invalid' });
    expect((await hub.call('POST', `${repo}/issues`, { body: { title: 'x', milestone: 3 } })).status).toBe(422);
  });

  it('are updated: closing records who and why, reopening says reopened', async () => {
    await hub.call('POST', `${repo}/issues`, { body: { title: 'Old' } });
    hub.emulator.clock.advance(60_000);
    const closed = await hub.call('PATCH', `${repo}/issues/1`, { body: { title: 'New', state: 'closed', state_reason: 'not_planned', labels: ['wontfix'] } });
    expect(closed.body).toMatchObject({ title: 'New', state: 'closed', state_reason: 'not_planned', closed_at: '2025-01-15T00:01:00Z' });
    expect(closed.body.closed_by.login).toBe('octocat');
    expect(names(closed.body.labels)).toEqual(['wontfix']);
    const reopened = await hub.call('PATCH', `${repo}/issues/1`, { body: { state: 'open' } });
    expect(reopened.body).toMatchObject({ state: 'open', state_reason: 'reopened', closed_at: null, closed_by: null });
    expect((await hub.as('mona')('PATCH', `${repo}/issues/1`, { body: { title: 'Mine' } })).status).toBe(403);
  });

  it('are listed by state, labels, creator and assignee, newest first', async () => {
    await hub.call('POST', `${repo}/issues`, { body: { title: 'one', labels: ['bug'] } });
    hub.emulator.clock.advance(1000);
    await hub.call('POST', `${repo}/issues`, { body: { title: 'two', labels: ['bug', 'question'], assignees: ['octocat'] } });
    hub.emulator.clock.advance(1000);
    await hub.as('mona')('POST', `${repo}/issues`, { body: { title: 'three' } });
    await hub.call('PATCH', `${repo}/issues/3`, { body: { state: 'closed' } });
    const titles = async (query: Record<string, string> = {}) => (await hub.call('GET', `${repo}/issues`, { query })).body.map((issue: any) => issue.title);
    expect(await titles()).toEqual(['two', 'one']);
    expect(await titles({ state: 'all' })).toEqual(['three', 'two', 'one']);
    expect(await titles({ labels: 'bug,question' })).toEqual(['two']);
    expect(await titles({ state: 'all', creator: 'mona' })).toEqual(['three']);
    expect(await titles({ assignee: 'none' })).toEqual(['one']);
    expect(await titles({ direction: 'asc' })).toEqual(['one', 'two']);
  });

  it('are refused on a repository whose issues are turned off (410)', async () => {
    await hub.call('PATCH', repo, { body: { has_issues: false } });
    expect((await hub.call('POST', `${repo}/issues`, { body: { title: 'x' } })).status).toBe(410);
  });
});

describe('labels on issues', () => {
  beforeEach(async () => {
    await hub.call('POST', `${repo}/issues`, { body: { title: 'Labelled', labels: ['bug'] } });
  });

  it('are added (creating missing ones), replaced, removed one by one and all at once', async () => {
    const added = await hub.call('POST', `${repo}/issues/1/labels`, { body: { labels: ['enhancement', 'later'] } });
    expect(added.status).toBe(200);
    expect(names(added.body)).toEqual(['bug', 'enhancement', 'later']);
    const byObject = await hub.call('POST', `${repo}/issues/1/labels`, { body: { labels: [{ name: 'question' }] } });
    expect(names(byObject.body)).toEqual(['bug', 'enhancement', 'later', 'question']);
    const replaced = await hub.call('PUT', `${repo}/issues/1/labels`, { body: { labels: ['documentation'] } });
    expect(names(replaced.body)).toEqual(['documentation']);
    const removed = await hub.call('DELETE', `${repo}/issues/1/labels/DOCUMENTATION`);
    expect(removed.body).toEqual([]);
    const missing = await hub.call('DELETE', `${repo}/issues/1/labels/documentation`);
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('Label does not exist');
    await hub.call('POST', `${repo}/issues/1/labels`, { body: { labels: ['bug'] } });
    expect((await hub.call('DELETE', `${repo}/issues/1/labels`)).status).toBe(204);
    expect((await hub.call('GET', `${repo}/issues/1/labels`)).body).toEqual([]);
  });

  it('need triage access', async () => {
    expect((await hub.as('mona')('POST', `${repo}/issues/1/labels`, { body: { labels: ['x'] } })).status).toBe(403);
  });

  it('go when the label is deleted', async () => {
    await hub.call('DELETE', `${repo}/labels/bug`);
    expect((await hub.call('GET', `${repo}/issues/1`)).body.labels).toEqual([]);
  });
});

describe('issue comments', () => {
  beforeEach(async () => {
    await hub.call('POST', `${repo}/issues`, { body: { title: 'Talk' } });
  });

  it('are created by anyone who can see the repository, counted on the issue, edited and deleted by their author', async () => {
    const mona = hub.as('mona');
    const created = await mona('POST', `${repo}/issues/1/comments`, { body: { body: 'Me too' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ body: 'Me too', user: { login: 'mona' }, author_association: 'NONE' });
    expect(created.body.issue_url).toMatch(/\/repos\/octocat\/hello-world\/issues\/1$/);
    expect((await hub.call('GET', `${repo}/issues/1`)).body.comments).toBe(1);
    const id = created.body.id;
    expect((await hub.as('hubot')('PATCH', `${repo}/issues/comments/${id}`, { body: { body: 'Hijack' } })).status).toBe(403);
    expect((await mona('PATCH', `${repo}/issues/comments/${id}`, { body: { body: 'Me three' } })).body.body).toBe('Me three');
    expect((await hub.call('GET', `${repo}/issues/comments/${id}`)).body.body).toBe('Me three');
    expect((await hub.call('DELETE', `${repo}/issues/comments/${id}`)).status).toBe(204);
    expect((await hub.call('GET', `${repo}/issues/comments/${id}`)).status).toBe(404);
  });

  it('are listed per issue and per repository', async () => {
    await hub.call('POST', `${repo}/issues`, { body: { title: 'Other' } });
    await hub.call('POST', `${repo}/issues/1/comments`, { body: { body: 'a' } });
    await hub.call('POST', `${repo}/issues/2/comments`, { body: { body: 'b' } });
    expect((await hub.call('GET', `${repo}/issues/1/comments`)).body.map((c: any) => c.body)).toEqual(['a']);
    expect((await hub.call('GET', `${repo}/issues/comments`)).body.map((c: any) => c.body)).toEqual(['a', 'b']);
    expect((await hub.call('GET', `${repo}/issues/comments`, { query: { direction: 'desc' } })).body.map((c: any) => c.body)).toEqual(['b', 'a']);
  });
});
