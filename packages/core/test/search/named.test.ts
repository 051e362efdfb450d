import { describe, expect, it } from 'vitest';
import { buildToolIndex, namedNumber, rankingWeights } from '../../src/search/tool-index.js';
import { forum, forumTool, readOnly } from './forum.js';

describe('a request that only names things', () => {
  const verbs = new Set(['delete', 'show', 'email']);
  const number = (request: string) => namedNumber(request, (word) => verbs.has(word));

  it('reads the number of the noun phrase it opens with', () => {
    expect(number('the deploy keys of octo/app')).toBe('several');
    expect(number('email addresses')).toBeUndefined();
    expect(number('files attached to the 2.0 version')).toBe('several');
    expect(number('server-wide callbacks our admins set up')).toBe('several');
    expect(number('starter ignore file for a node project')).toBe('one');
    expect(number('the status of build 5')).toBe('one');
  });

  it('reads nothing from a request that opens with a verb or a question word', () => {
    expect(number('delete the deploy keys')).toBeUndefined();
    expect(number('please show the deploy keys')).toBeUndefined();
    expect(number('which deploy keys does octo/app have')).toBeUndefined();
  });

  const keys = forum([
    forumTool('AddForumSigningKey', 'Adds a signing key to your account, one of the signing keys of your account that your commits are verified with.'),
    forumTool('GetForumSigningKey', 'Gets a key by its id.', readOnly),
    forumTool('ListForumSigningKeys', 'Lists the signing keys of your account.', readOnly),
  ]);
  const first = (request: string, weights = rankingWeights) => buildToolIndex(keys.tools, weights).search(request)[0]!.tool.name;

  it('asks to change nothing, and for a list where it names several', () => {
    expect(first('signing keys on my account')).toBe('ListForumSigningKeys');
    expect(first('signing keys on my account', { ...rankingWeights, namesOnly: 1, several: 1 })).toBe('AddForumSigningKey');
    // A request that opens with a verb is left as it was.
    expect(first('add signing keys to my account')).toBe('AddForumSigningKey');
  });
});

describe('the number a request says a thing in', () => {
  // Listed first, the tool for one component wins a tie.
  const tools = forum([
    forumTool('GetForumComponent', 'Returns a component of a file.', readOnly),
    forumTool('GetForumComponents', 'Returns the components of a file.', readOnly),
  ]);
  const first = (request: string, weights = rankingWeights) => buildToolIndex(tools.tools, weights).search(request)[0]!.tool.name;

  it('favours the tool whose name says it in the same number', () => {
    expect(first('show me the components of file 9')).toBe('GetForumComponents');
    expect(first('show me the components of file 9', { ...rankingWeights, number: 1 })).toBe('GetForumComponent');
    expect(first('show me component 4 of file 9')).toBe('GetForumComponent');
  });
});
