import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { caller, fakeContext, type Caller, type FakeContext } from './fake-context.helpers.js';
import { createGitDataTables, gitDataHandlers, resolveCommit } from '../../src/github/git-data.js';

let ctx: FakeContext;
let call: Caller;
const repo = { owner: 'octocat', repo: 'hello-world' };

beforeEach(() => {
  ctx = fakeContext(createGitDataTables);
  ctx.addRepository('octocat/Hello-World');
  call = caller(ctx, gitDataHandlers);
});

const gitSha = (type: string, content: Buffer) =>
  createHash('sha1')
    .update(Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content]))
    .digest('hex');

const mainTip = () => call('git/get-ref', { params: { ...repo, ref: 'heads/main' } }).body.object.sha as string;

function commitFiles(files: Record<string, string>, parents: string[]) {
  const tree = call('git/create-tree', {
    params: repo,
    body: { tree: Object.entries(files).map(([path, content]) => ({ path, mode: '100644', type: 'blob', content })) },
  });
  return call('git/create-commit', { params: repo, body: { message: 'Change', tree: tree.body.sha, parents } }).body.sha as string;
}

describe('blobs', () => {
  it('hashes content the git way and reads it back as base64', () => {
    const created = call('git/create-blob', { params: repo, body: { content: 'hello world\n' } });
    expect(created.status).toBe(201);
    // `git hash-object` of "hello world\n".
    expect(created.body.sha).toBe('3b18e512dba79e4c8300dd08aeb37f8e728b8dad');
    expect(created.headers?.Location).toBe(created.body.url);

    const blob = call('git/get-blob', { params: { ...repo, file_sha: created.body.sha } }).body;
    expect(blob).toMatchObject({ encoding: 'base64', size: 12, sha: created.body.sha });
    expect(Buffer.from(blob.content, 'base64').toString()).toBe('hello world\n');
  });

  it('takes base64 content as bytes', () => {
    const bytes = Buffer.from([0, 1, 2, 255]);
    const created = call('git/create-blob', { params: repo, body: { content: bytes.toString('base64'), encoding: 'base64' } });
    expect(created.body.sha).toBe(gitSha('blob', bytes));
    expect(call.fails('git/get-blob', { params: { ...repo, file_sha: '0'.repeat(40) } }).status).toBe(404);
  });
});

describe('the initial history', () => {
  it('gives a repository an initial commit on its default branch on first access', () => {
    const tip = mainTip();
    const commit = call('git/get-commit', { params: { ...repo, commit_sha: tip } }).body;
    expect(commit).toMatchObject({ message: 'Initial commit', parents: [] });
    const tree = call('git/get-tree', { params: { ...repo, tree_sha: 'main' } }).body;
    expect(tree.tree.map((e: { path: string }) => e.path)).toEqual(['README.md']);
    expect(resolveCommit(ctx, ctx.repository('octocat', 'hello-world'), 'main')).toBe(tip);
  });
});

describe('trees and commits', () => {
  it('builds nested trees, keeps base_tree entries, and deletes with a null sha', () => {
    const first = call('git/create-tree', {
      params: repo,
      body: {
        tree: [
          { path: 'src/a.ts', mode: '100644', type: 'blob', content: 'a' },
          { path: 'b.md', mode: '100644', type: 'blob', content: 'b' },
        ],
      },
    }).body;
    const recursive = call('git/get-tree', { params: { ...repo, tree_sha: first.sha }, query: { recursive: '1' } }).body;
    expect(recursive.tree.map((e: { path: string; type: string }) => `${e.type} ${e.path}`)).toEqual(['blob b.md', 'tree src', 'blob src/a.ts']);
    expect(call('git/get-tree', { params: { ...repo, tree_sha: first.sha } }).body.tree).toHaveLength(2);

    const second = call('git/create-tree', {
      params: repo,
      body: {
        base_tree: first.sha,
        tree: [
          { path: 'src/c.ts', mode: '100644', type: 'blob', content: 'c' },
          { path: 'b.md', mode: '100644', type: 'blob', sha: null },
        ],
      },
    }).body;
    const paths = call('git/get-tree', { params: { ...repo, tree_sha: second.sha }, query: { recursive: 'false' } }).body.tree.map(
      (e: { path: string }) => e.path,
    );
    expect(paths).toEqual(['src', 'src/a.ts', 'src/c.ts']);
  });

  it('computes the tree SHA git computes', () => {
    const blob = call('git/create-blob', { params: repo, body: { content: 'hello world\n' } }).body.sha;
    const tree = call('git/create-tree', { params: repo, body: { tree: [{ path: 'hello.txt', mode: '100644', type: 'blob', sha: blob }] } }).body;
    const expected = gitSha('tree', Buffer.concat([Buffer.from('100644 hello.txt\0'), Buffer.from(blob, 'hex')]));
    expect(tree.sha).toBe(expected);
  });

  it('computes the commit SHA git computes, keeping the author offset', () => {
    const tree = call('git/create-tree', { params: repo, body: { tree: [{ path: 'x', mode: '100644', type: 'blob', content: 'x' }] } }).body.sha;
    const author = { name: 'Mona', email: 'mona@example.com', date: '2025-01-01T12:00:00+02:00' };
    const commit = call('git/create-commit', { params: repo, body: { message: 'Add x', tree, parents: [mainTip()], author } });
    expect(commit.status).toBe(201);
    const text = `tree ${tree}\nparent ${mainTip()}\nauthor Mona <mona@example.com> 1735725600 +0200\ncommitter Mona <mona@example.com> 1735725600 +0200\n\nAdd x`;
    expect(commit.body.sha).toBe(gitSha('commit', Buffer.from(text)));
    expect(commit.body.author.date).toBe('2025-01-01T10:00:00Z');
    expect(commit.body.verification.verified).toBe(false);
  });

  it('refuses dangling SHAs with 422', () => {
    const missing = 'f'.repeat(40);
    expect(call.fails('git/create-tree', { params: repo, body: { tree: [{ path: 'a', mode: '100644', type: 'blob', sha: missing }] } }).status).toBe(422);
    expect(call.fails('git/create-tree', { params: repo, body: { base_tree: missing, tree: [] } }).status).toBe(422);
    expect(
      call.fails('git/create-tree', { params: repo, body: { tree: [{ path: 'a', mode: '100644', type: 'blob', sha: missing, content: 'x' }] } }).status,
    ).toBe(422);
    expect(call.fails('git/create-commit', { params: repo, body: { message: 'm', tree: missing } }).status).toBe(422);
    const tree = call('git/create-tree', { params: repo, body: { tree: [{ path: 'a', mode: '100644', type: 'blob', content: 'a' }] } }).body.sha;
    expect(call.fails('git/create-commit', { params: repo, body: { message: 'm', tree, parents: [missing] } }).status).toBe(422);
    expect(call.fails('git/create-commit', { params: repo, body: { message: 'm', tree, parents: [tree] } }).status).toBe(422);
  });

  it('publishes a new tree only once a commit is made and the branch ref updated', () => {
    const before = mainTip();
    const tree = call('git/create-tree', { params: repo, body: { tree: [{ path: 'new.txt', mode: '100644', type: 'blob', content: 'new' }] } }).body.sha;
    expect(mainTip()).toBe(before);
    const commit = call('git/create-commit', { params: repo, body: { message: 'Publish', tree, parents: [before] } }).body.sha;
    expect(mainTip()).toBe(before);
    call('git/update-ref', { params: { ...repo, ref: 'heads/main' }, body: { sha: commit } });
    expect(mainTip()).toBe(commit);
    expect(call('git/get-tree', { params: { ...repo, tree_sha: 'main' } }).body.sha).toBe(tree);
  });
});

describe('refs', () => {
  it('requires names that start with refs and have two slashes, and existing objects', () => {
    const sha = mainTip();
    expect(call.fails('git/create-ref', { params: repo, body: { ref: 'heads/feature', sha } }).status).toBe(422);
    expect(call.fails('git/create-ref', { params: repo, body: { ref: 'refs/feature', sha } }).status).toBe(422);
    expect(call.fails('git/create-ref', { params: repo, body: { ref: 'refs/heads/feature', sha: 'a'.repeat(40) } }).status).toBe(422);
    const created = call('git/create-ref', { params: repo, body: { ref: 'refs/heads/feature', sha } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ref: 'refs/heads/feature', object: { type: 'commit', sha } });
    expect(call.fails('git/create-ref', { params: repo, body: { ref: 'refs/heads/feature', sha } }).message).toBe('Reference already exists');
  });

  it('lists refs by prefix, gets one, and deletes it', () => {
    const sha = mainTip();
    for (const ref of ['refs/heads/feature-a', 'refs/heads/feature-b', 'refs/tags/v1']) call('git/create-ref', { params: repo, body: { ref, sha } });
    const matching = call('git/list-matching-refs', { params: { ...repo, ref: 'heads/feature' } }).body;
    expect(matching.map((r: { ref: string }) => r.ref)).toEqual(['refs/heads/feature-a', 'refs/heads/feature-b']);
    expect(call('git/list-matching-refs', { params: { ...repo, ref: 'heads/nope' } }).body).toEqual([]);
    expect(call('git/get-ref', { params: { ...repo, ref: 'tags/v1' } }).body.ref).toBe('refs/tags/v1');
    expect(call('git/delete-ref', { params: { ...repo, ref: 'tags/v1' } }).status).toBe(204);
    expect(call.fails('git/get-ref', { params: { ...repo, ref: 'tags/v1' } }).status).toBe(404);
    expect(call.fails('git/delete-ref', { params: { ...repo, ref: 'tags/v1' } }).status).toBe(422);
  });

  it('refuses a non-fast-forward update unless forced', () => {
    const base = mainTip();
    const ahead = commitFiles({ 'a.txt': 'a' }, [base]);
    const sideways = commitFiles({ 'b.txt': 'b' }, [base]);
    call('git/update-ref', { params: { ...repo, ref: 'heads/main' }, body: { sha: ahead } });
    const refused = call.fails('git/update-ref', { params: { ...repo, ref: 'heads/main' }, body: { sha: sideways } });
    expect(refused.status).toBe(422);
    expect(refused.message).toBe('Update is not a fast forward');
    expect(call.fails('git/update-ref', { params: { ...repo, ref: 'heads/main' }, body: { sha: 'c'.repeat(40), force: true } }).status).toBe(422);
    expect(call('git/update-ref', { params: { ...repo, ref: 'heads/main' }, body: { sha: sideways, force: true } }).body.object.sha).toBe(sideways);
  });
});

describe('tag objects', () => {
  it('creates a tag object but no ref; a separate create-ref publishes it', () => {
    const commit = mainTip();
    const tagger = { name: 'Mona', email: 'mona@example.com', date: '2025-01-02T00:00:00Z' };
    const created = call('git/create-tag', { params: repo, body: { tag: 'v1.0.0', message: 'First release\n', object: commit, type: 'commit', tagger } });
    expect(created.status).toBe(201);
    const text = `object ${commit}\ntype commit\ntag v1.0.0\ntagger Mona <mona@example.com> 1735776000 +0000\n\nFirst release\n`;
    expect(created.body.sha).toBe(gitSha('tag', Buffer.from(text)));
    expect(created.body).toMatchObject({ tag: 'v1.0.0', object: { sha: commit, type: 'commit' } });

    expect(call('git/list-matching-refs', { params: { ...repo, ref: 'tags' } }).body).toEqual([]);
    expect(call('git/get-tag', { params: { ...repo, tag_sha: created.body.sha } }).body.message).toBe('First release\n');

    const ref = call('git/create-ref', { params: repo, body: { ref: 'refs/tags/v1.0.0', sha: created.body.sha } }).body;
    expect(ref.object).toMatchObject({ type: 'tag', sha: created.body.sha });
    // Statuses and deployments see through the tag to the commit.
    expect(resolveCommit(ctx, ctx.repository('octocat', 'hello-world'), 'v1.0.0')).toBe(commit);
  });

  it('needs the tagged object to exist with the stated type', () => {
    const commit = mainTip();
    expect(call.fails('git/create-tag', { params: repo, body: { tag: 'v1', message: 'm', object: 'd'.repeat(40), type: 'commit' } }).status).toBe(422);
    expect(call.fails('git/create-tag', { params: repo, body: { tag: 'v1', message: 'm', object: commit, type: 'blob' } }).status).toBe(422);
    expect(call.fails('git/get-tag', { params: { ...repo, tag_sha: commit } }).status).toBe(404);
  });
});
