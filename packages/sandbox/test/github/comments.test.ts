/** Commit comments, pull requests and review comments (replies included), and reactions on all that can take them. */
import { beforeEach, describe, expect, it } from 'vitest';
import { useGithub } from './github.helpers.js';

const hub = useGithub(Date.UTC(2025, 0, 15));
const repo = '/repos/octocat/hello-world';
let sha: string;

beforeEach(async () => {
  await hub.call('POST', '/user/repos', { body: { name: 'hello-world' } });
  sha = (await hub.call('GET', `${repo}/git/ref/heads/main`)).body.object.sha;
  await hub.call('POST', `${repo}/git/refs`, { body: { ref: 'refs/heads/feature', sha } });
});

const openPull = () => hub.call('POST', `${repo}/pulls`, { body: { title: 'Add feature', head: 'feature', base: 'main', body: 'Please' } });
const reviewComment = (pull = 1) => hub.call('POST', `${repo}/pulls/${pull}/comments`, { body: { body: 'Nit', commit_id: sha, path: 'README.md', line: 1 } });

describe('commit comments', () => {
  it('hang on a commit of the repository, and are read, listed, edited and deleted', async () => {
    const created = await hub.call('POST', `${repo}/commits/${sha}/comments`, { body: { body: 'Nice commit', path: 'README.md', line: 1 } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ body: 'Nice commit', commit_id: sha, path: 'README.md', line: 1, position: null, author_association: 'OWNER' });
    const id = created.body.id;
    expect((await hub.call('GET', `${repo}/commits/main/comments`)).body.map((c: any) => c.id)).toEqual([id]);
    expect((await hub.call('GET', `${repo}/comments`)).body.map((c: any) => c.id)).toEqual([id]);
    expect((await hub.call('PATCH', `${repo}/comments/${id}`, { body: { body: 'Nicer' } })).body.body).toBe('Nicer');
    expect((await hub.call('DELETE', `${repo}/comments/${id}`)).status).toBe(204);
    expect((await hub.call('GET', `${repo}/comments/${id}`)).status).toBe(404);
  });

  it('are refused on an unknown commit', async () => {
    const reply = await hub.call('POST', `${repo}/commits/${'0'.repeat(40)}/comments`, { body: { body: 'Where?' } });
    expect(reply.status).toBe(422);
    expect(reply.body.message).toMatch(/No commit found/);
  });
});

describe('pull requests', () => {
  it('open between two branches, take the next issue number and show as issues too', async () => {
    await hub.call('POST', `${repo}/issues`, { body: { title: 'An issue first' } });
    const pull = await openPull();
    expect(pull.status).toBe(201);
    expect(pull.body).toMatchObject({
      number: 2,
      title: 'Add feature',
      state: 'open',
      merged: false,
      head: { ref: 'feature', sha, label: 'octocat:feature' },
      base: { ref: 'main', sha },
    });
    expect(pull.body.head.repo.full_name).toBe('octocat/hello-world');
    expect((await hub.call('GET', `${repo}/pulls/2`)).body.id).toBe(pull.body.id);
    const asIssue = await hub.call('GET', `${repo}/issues/2`);
    expect(asIssue.body.pull_request.url).toMatch(/\/pulls\/2$/);
    expect((await hub.call('GET', `${repo}/pulls`)).body.map((p: any) => p.number)).toEqual([2]);
    expect((await hub.call('GET', `${repo}/pulls/1`)).status).toBe(404);
  });

  it('are refused for a branch that does not exist, a second open one for the same branches, and without write access', async () => {
    expect((await hub.call('POST', `${repo}/pulls`, { body: { title: 'x', head: 'nowhere', base: 'main' } })).body.errors[0]).toMatchObject({
      field: 'head',
      code: 'invalid',
    });
    await openPull();
    expect((await openPull()).status).toBe(422);
    expect((await hub.as('mona')('POST', `${repo}/pulls`, { body: { title: 'x', head: 'feature', base: 'main' } })).status).toBe(403);
  });

  it('are edited and closed', async () => {
    await openPull();
    const closed = await hub.call('PATCH', `${repo}/pulls/1`, { body: { title: 'Renamed', state: 'closed' } });
    expect(closed.body).toMatchObject({ title: 'Renamed', state: 'closed' });
    expect(closed.body.closed_at).not.toBeNull();
    expect((await hub.call('GET', `${repo}/pulls`, { query: { state: 'closed' } })).body).toHaveLength(1);
  });
});

describe('review comments', () => {
  beforeEach(async () => {
    await openPull();
  });

  it('are created on a commit of the pull request, read, listed, edited and deleted', async () => {
    const created = await reviewComment();
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ body: 'Nit', commit_id: sha, path: 'README.md', line: 1, side: 'RIGHT' });
    expect(created.body.in_reply_to_id).toBeUndefined();
    const id = created.body.id;
    expect((await hub.call('GET', `${repo}/pulls/1/comments`)).body.map((c: any) => c.id)).toEqual([id]);
    expect((await hub.call('GET', `${repo}/pulls/comments`)).body.map((c: any) => c.id)).toEqual([id]);
    expect((await hub.call('GET', `${repo}/pulls/1`)).body.review_comments).toBe(1);
    expect((await hub.call('PATCH', `${repo}/pulls/comments/${id}`, { body: { body: 'Fixed?' } })).body.body).toBe('Fixed?');
    expect((await hub.call('DELETE', `${repo}/pulls/comments/${id}`)).status).toBe(204);
    expect((await hub.call('GET', `${repo}/pulls/comments/${id}`)).status).toBe(404);
  });

  it('take replies to a top-level comment, but not replies to a reply', async () => {
    const top = (await reviewComment()).body;
    const reply = await hub.as('mona')('POST', `${repo}/pulls/1/comments/${top.id}/replies`, { body: { body: 'Agreed' } });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ in_reply_to_id: top.id, path: 'README.md', line: 1, body: 'Agreed' });
    const nested = await hub.call('POST', `${repo}/pulls/1/comments/${reply.body.id}/replies`, { body: { body: 'Deeper' } });
    expect(nested.status).toBe(404);
    expect(nested.body.message).toMatch(/replies to replies are not supported/);
    const viaInReplyTo = await hub.call('POST', `${repo}/pulls/1/comments`, {
      body: { body: 'Deeper', commit_id: sha, path: 'README.md', in_reply_to: reply.body.id },
    });
    expect(viaInReplyTo.status).toBe(422);
    const topViaInReplyTo = await hub.call('POST', `${repo}/pulls/1/comments`, {
      body: { body: 'Also', commit_id: sha, path: 'README.md', in_reply_to: top.id },
    });
    expect(topViaInReplyTo.body.in_reply_to_id).toBe(top.id);
    expect((await hub.call('POST', `${repo}/pulls/1/comments/999/replies`, { body: { body: 'x' } })).status).toBe(404);
  });
});

describe('reactions', () => {
  it('answer 201 for a new reaction and 200 with the existing one when the same user repeats it', async () => {
    await hub.call('POST', `${repo}/issues`, { body: { title: 'React to me' } });
    const first = await hub.call('POST', `${repo}/issues/1/reactions`, { body: { content: '+1' } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ content: '+1', user: { login: 'octocat' } });
    const repeat = await hub.call('POST', `${repo}/issues/1/reactions`, { body: { content: '+1' } });
    expect(repeat.status).toBe(200);
    expect(repeat.body.id).toBe(first.body.id);
    const other = await hub.as('mona')('POST', `${repo}/issues/1/reactions`, { body: { content: '+1' } });
    expect(other.status).toBe(201);
    expect((await hub.call('POST', `${repo}/issues/1/reactions`, { body: { content: 'rocket' } })).status).toBe(201);
    const issue = (await hub.call('GET', `${repo}/issues/1`)).body;
    expect(issue.reactions).toMatchObject({ total_count: 3, '+1': 2, rocket: 1, heart: 0 });
    const listed = await hub.call('GET', `${repo}/issues/1/reactions`, { query: { content: '+1' } });
    expect(listed.body.map((r: any) => r.user.login)).toEqual(['octocat', 'mona']);
  });

  it('work on issue comments, commit comments, review comments, releases and team discussions', async () => {
    await hub.call('POST', `${repo}/issues`, { body: { title: 'Talk' } });
    const issueComment = (await hub.call('POST', `${repo}/issues/1/comments`, { body: { body: 'hi' } })).body.id;
    const commitComment = (await hub.call('POST', `${repo}/commits/${sha}/comments`, { body: { body: 'hi' } })).body.id;
    await openPull();
    const review = (await reviewComment(2)).body.id;
    const subjects = [
      `${repo}/issues/comments/${issueComment}/reactions`,
      `${repo}/comments/${commitComment}/reactions`,
      `${repo}/pulls/comments/${review}/reactions`,
      `${repo}/releases/7/reactions`,
      '/orgs/acme/teams/core/discussions/1/reactions',
      '/orgs/acme/teams/core/discussions/1/comments/2/reactions',
    ];
    for (const path of subjects) {
      expect((await hub.call('POST', path, { body: { content: 'heart' } })).status, path).toBe(201);
      expect((await hub.call('POST', path, { body: { content: 'heart' } })).status, path).toBe(200);
      expect((await hub.call('GET', path)).body, path).toHaveLength(1);
    }
    expect((await hub.call('GET', `${repo}/issues/comments/${issueComment}`)).body.reactions.heart).toBe(1);
    expect((await hub.call('GET', `${repo}/pulls/comments/${review}`)).body.reactions.heart).toBe(1);
  });

  it('on releases allow only +1, laugh, heart, hooray, rocket and eyes', async () => {
    const refused = await hub.call('POST', `${repo}/releases/7/reactions`, { body: { content: 'confused' } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0]).toMatchObject({ field: 'content', code: 'invalid' });
    expect((await hub.call('POST', `${repo}/issues/comments/1/reactions`, { body: { content: 'sparkles' } })).body.errors[0].field).toBe('content');
    for (const content of ['+1', 'laugh', 'heart', 'hooray', 'rocket', 'eyes']) {
      expect((await hub.call('POST', `${repo}/releases/7/reactions`, { body: { content } })).status).toBe(201);
    }
  });

  it('answer 404 for a subject that does not exist, and are deleted only by whoever reacted', async () => {
    expect((await hub.call('POST', `${repo}/issues/9/reactions`, { body: { content: 'eyes' } })).status).toBe(404);
    await hub.call('POST', `${repo}/issues`, { body: { title: 'x' } });
    const { id } = (await hub.call('POST', `${repo}/issues/1/reactions`, { body: { content: 'eyes' } })).body;
    expect((await hub.as('mona')('DELETE', `${repo}/issues/1/reactions/${id}`)).status).toBe(403);
    expect((await hub.call('DELETE', `${repo}/issues/1/reactions/${id}`)).status).toBe(204);
    expect((await hub.call('GET', `${repo}/issues/1/reactions`)).body).toEqual([]);
  });
});
