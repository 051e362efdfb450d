import { describe, expect, it } from 'vitest';
import { createToolIndex, defineToolkit, qualifiedName, type ToolData } from '../../src/index.js';
import { intentOf, inversesOf } from '../../src/search/intent.js';
import { terms } from '../../src/search/terms.js';
import { buildToolIndex, rankingWeights } from '../../src/search/tool-index.js';

const term = (word: string) => terms([word])[0]!;

describe('inverse actions derived from the catalog verbs', () => {
  const inverses = inversesOf(['suspend', 'unsuspend', 'lock', 'unlock', 'associate', 'disassociate', 'enable', 'disable', 'add', 'remove', 'get', 'star']);

  it('pairs a verb with its un- and dis- forms, both ways', () => {
    expect(inverses.get('suspend')).toEqual(['unsuspend']);
    expect(inverses.get('unsuspend')).toEqual(['suspend']);
    expect(inverses.get(term('lock'))).toEqual([term('unlock')]);
    // Disassociate and associate meet the synonyms' terms (unlink, link).
    expect(inverses.get(term('associate'))).toEqual([term('disassociate')]);
  });

  it('pairs antonyms only when the catalog has both verbs', () => {
    expect(inverses.get(term('enable'))).toEqual([term('disable')]);
    // add and remove are create and delete after the synonyms.
    expect(inverses.get(term('remove'))).toEqual([term('add')]);
    expect(inverses.has(term('open'))).toBe(false);
    // "star" has no unstar in this catalog, and "get" has no inverse at all.
    expect(inverses.has(term('star'))).toBe(false);
    expect(inverses.has(term('get'))).toBe(false);
  });
});

describe('negated and reversed actions of a request', () => {
  const actions = new Set(['suspend', 'unsuspend', 'delete', 'get', 'list', 'publish', 'unpublish', 'follow', 'unfollow', 'require', 'mute'].map(term));
  const inverses = inversesOf(['suspend', 'unsuspend', 'publish', 'unpublish', 'follow', 'unfollow', 'delete', 'create']);
  const read = (request: string) => intentOf(request, actions, inverses);

  it('reads the verb a negation governs, and the clause that says what to do instead', () => {
    expect(read("don't delete the invoices, just show them to me")).toEqual({
      negated: [term('delete')],
      reversed: [],
      inverses: [],
      instead: 'just show them to me',
    });
    expect(read('please do not ever remove the labels').negated).toEqual([term('delete')]);
    expect(read('no need to publish it yet').negated).toEqual(['publish']);
    expect(read('tidy the board without deleting any card').negated).toEqual([term('delete')]);
    expect(read('list them instead of deleting them').negated).toEqual([term('delete')]);
    expect(read('stop anyone from deleting the release tags').negated).toEqual([term('delete')]);
  });

  it('negates only verbs of the catalog', () => {
    expect(read('not my public keys, the signing ones').negated).toEqual([]);
    expect(read("don't forget the invoice").negated).toEqual([]);
    expect(read('leave the keys alone, just list them')).toEqual({ negated: [], reversed: [], inverses: [], instead: 'just list them' });
  });

  it('reads a past action the request asks to reverse, and its inverse', () => {
    expect(read('we suspended her by mistake, let her back in')).toMatchObject({ reversed: ['suspend'], inverses: ['unsuspend'] });
    expect(read('I unpublished the post, put it up again')).toMatchObject({ reversed: ['unpublish'], inverses: ['publish'] });
    expect(read('we deleted the page by accident')).toMatchObject({ reversed: [term('delete')], inverses: [term('create')] });
    expect(read('stop following sam')).toMatchObject({ reversed: ['follow'], inverses: ['unfollow'] });
    expect(read('the user should no longer be suspended')).toMatchObject({ reversed: ['suspend'], inverses: ['unsuspend'] });
  });

  it('does not read a past action as reversed without words that ask to reverse it', () => {
    expect(read('who suspended her last week')).toMatchObject({ reversed: [], inverses: [] });
    // "Again" repeats an action that has no inverse; only words of a mistake reverse it.
    expect(read('we required reviews, require them again')).toMatchObject({ reversed: [] });
    expect(read('I muted the thread by mistake')).toMatchObject({ reversed: [term('mute')], inverses: [] });
  });
});

const tool = (name: string, description: string, destructive = false): ToolData => ({
  name,
  description,
  parameters: [],
  output: { description: '' },
  requirements: {},
  ...(destructive ? { annotations: { destructiveHint: true, readOnlyHint: false } } : {}),
});
const forum = defineToolkit({
  name: 'ForumApi',
  version: '1.0.0',
  description: 'A forum.',
  baseUrl: 'http://127.0.0.1:9',
  tools: [
    tool('SuspendForumUser', 'Suspends a user, who can no longer sign in.', true),
    tool('UnsuspendForumUser', 'Unsuspends a user, who can sign in again.'),
    tool('GetForumUser', 'Returns one user.'),
    tool('DeleteForumPost', 'Deletes a post.', true),
    tool('ListForumPosts', 'Lists the posts of a thread.'),
  ],
});

describe('search with negated and reversed actions', async () => {
  const index = await createToolIndex(forum.tools);
  const first = (query: string) => qualifiedName(index.search(query)[0]!.tool);

  it('puts the inverse of a reversed action first', () => {
    expect(first('we suspended kim by mistake, she needs to sign in again')).toBe('ForumApi.UnsuspendForumUser');
    expect(first('suspend kim')).toBe('ForumApi.SuspendForumUser');
  });

  it('does not put a tool for a negated action first', () => {
    expect(first("don't delete the posts, just show them")).toBe('ForumApi.ListForumPosts');
    expect(first('delete the post')).toBe('ForumApi.DeleteForumPost');
  });
});

describe('a request that asks to change nothing', () => {
  // The destructive tool fits these words a little better than the one that lists: only the rule for
  // requests that change nothing puts the listing first.
  const groups = defineToolkit({
    name: 'ForumApi',
    version: '1.0.0',
    description: 'A forum.',
    baseUrl: 'http://127.0.0.1:9',
    tools: [
      tool('RemoveForumGroupMembership', 'Removes your membership of a group of the forum.', true),
      tool('ListForumGroupMemberships', 'Lists the memberships of your groups.'),
      tool('CreateForumGroup', 'Creates a group.'),
    ],
  });
  const first = (query: string, weights = rankingWeights) => qualifiedName(buildToolIndex(groups.tools, weights).search(query)[0]!.tool);

  it('puts a destructive tool further down, unless the request asks to change or end something', () => {
    expect(first('my group memberships on the forum')).toBe('ForumApi.ListForumGroupMemberships');
    expect(first('my group memberships on the forum', { ...rankingWeights, destructiveInRead: rankingWeights.destructive })).toBe(
      'ForumApi.RemoveForumGroupMembership',
    );
    expect(first('drop my group membership')).toBe('ForumApi.RemoveForumGroupMembership');
  });
});

describe('everyday verbs in a reversal', () => {
  const actions = new Set(['suspend', 'unsuspend', 'suppress', 'unsuppress', 'get'].map(term));
  const inverses = inversesOf(['suspend', 'unsuspend', 'suppress', 'unsuppress']);

  it('reads the API verbs an everyday verb stands for, in the past tense', () => {
    expect(intentOf('we blocked her by mistake, let her in again', actions, inverses)).toMatchObject({ reversed: ['suspend'], inverses: ['unsuspend'] });
    expect(intentOf('jo@x.io got banned by accident, allow it again', actions, inverses)).toMatchObject({
      reversed: ['suspend', 'suppress'],
      inverses: ['unsuspend', 'unsuppress'],
    });
    expect(intentOf('who banned jo last week', actions, inverses)).toMatchObject({ reversed: [] });
  });
});
