// How search reads requests as people write them: told in the past, narrowed, sent to someone, named by a path
// or a repository, misspelt.
import { describe, expect, it } from 'vitest';
import { intentOf, inversesOf } from '../../src/search/intent.js';
import { terms } from '../../src/search/terms.js';
import { buildToolIndex, deletionsAllPast, rankingWeights } from '../../src/search/tool-index.js';
import { destructive, forum, forumTool, readOnly } from './forum.js';

const term = (word: string) => terms([word])[0]!;
const first = (toolkit: ReturnType<typeof forum>, query: string, weights = rankingWeights) =>
  buildToolIndex(toolkit.tools, weights).search(query)[0]!.tool.name;

describe('an earlier action told in other words', () => {
  const actions = new Set(['enable', 'disable', 'delete', 'create', 'mute', 'get', 'update'].map(term));
  const inverses = inversesOf(['enable', 'disable', 'delete', 'create']);
  const read = (request: string) => intentOf(request, actions, inverses);

  it('reads a phrasal verb in the past tense as the API verb its present form stands for', () => {
    // "turn off" stands for disabling.
    expect(read('we turned off the wiki by mistake, switch it back on')).toMatchObject({ reversed: [term('disable')], inverses: [term('enable')] });
    // But not one whose past tense is its present: "set it up again" asks for what is to be done.
    expect(read('set it up again')).toMatchObject({ reversed: [], inverses: [] });
  });

  it('reads a change of mind ("but now ... again") as reversing what was done, though nothing undoes it by name', () => {
    expect(read('I muted thread 9981 but now I want updates on it again')).toMatchObject({ reversed: [term('mute')] });
    expect(read('I muted thread 9981 and want updates on it again')).toMatchObject({ reversed: [] });
  });

  it('reads "only" or "just" and a thing after a negation as narrowing the action, not declining it', () => {
    const reruns = intentOf("don't rerun the whole workflow, only job 7781", new Set([term('rerun')]), inversesOf([]));
    expect(reruns).toMatchObject({ negated: [], negates: false });
    expect(read("don't delete the release, just fix its title")).toMatchObject({ negated: [term('delete')] });
    expect(read("don't delete all the branches, just the stale ones")).toMatchObject({ negated: [] });
  });
});

describe('a reversal that names no action of its own', () => {
  const stars = forum(
    [
      forumTool('UnstarForumRepo', 'Unstars a repository.', destructive),
      forumTool('StarForumRepo', 'Stars a repository.'),
      forumTool('UpdateForumRepo', 'Updates a repository.'),
    ],
    { UpdateForumRepo: ['take the description back to what it was', 'put the old name back'] },
  );

  it('asks for the inverse: the words that ask to undo ("take that back") say nothing more', () => {
    expect(first(stars, 'I starred acme/tools by accident, take that back')).toBe('UnstarForumRepo');
  });

  it("asks a destructive tool for its own action where a repository's name names what it acts on", () => {
    const fixes = forum(stars.tools, { UpdateForumRepo: ['fix what I changed on acme/tools by accident'] });
    expect(first(fixes, 'I starred acme/tools by accident, unstar it')).toBe('UnstarForumRepo');
  });
});

describe('a message without "that"', () => {
  const posts = forum([
    forumTool('CreateForumRelease', 'Creates a release of the forum software.'),
    forumTool('CreateForumComment', 'Adds a comment to a thread.'),
    forumTool('DeleteForumBranch', 'Deletes a branch.', destructive),
    forumTool('CreateForumNote', 'Adds a private note to a thread that only the staff see.'),
  ]);

  it('begins after those told and the numbered thing they are told on', () => {
    expect(first(posts, 'tell the folks on acme/web thread 12 the release shipped')).toBe('CreateForumComment');
    // What they are told, alone, asks for the release.
    expect(first(posts, 'the release shipped')).toBe('CreateForumRelease');
  });

  it('is what someone is asked to do, theirs to do', () => {
    expect(first(posts, 'mention @sam on thread 200 asking him to delete the stale branch')).toBe('CreateForumComment');
  });

  it('may be jotted down, and may be quoted with apostrophes in it', () => {
    expect(first(posts, 'jot down privately on thread 7731 that the customer wants to delete the branch')).toBe('CreateForumNote');
    expect(first(posts, "comment on thread 311: 'I'd rather we delete the branch'")).toBe('CreateForumComment');
    expect(first(posts, 'comment on thread 220: "don\'t delete the branch yet"')).toBe('CreateForumComment');
  });
});

describe('an idiom with the one it is for in the middle', () => {
  const members = forum([
    forumTool('RemoveForumMember', 'Removes a member from the forum.', destructive),
    forumTool('GetForumMember', 'Gets a member.', readOnly),
  ]);

  it('reads "show someone the door" as removing them', () => {
    expect(first(members, 'show @sam the door, he is out of the forum')).toBe('RemoveForumMember');
  });
});

describe('a deletion told in the past tense', () => {
  it('is what happened, not what is asked', () => {
    expect(deletionsAllPast("send an 'account_deleted' event for customer 991, they only deleted a saved card")).toBe(true);
    expect(deletionsAllPast('the card was removed')).toBe(true);
    // "Get rid of" deletes, in any tense of its own; so does a deletion asked beside one told.
    expect(deletionsAllPast('get rid of customer 991')).toBe(false);
    expect(deletionsAllPast('delete the files we deleted from the index')).toBe(false);
  });
});

describe('names that are values', () => {
  it("reads a repository's name as no word of the request, though phrases name the same repository", () => {
    const repos = forum(
      [forumTool('DeleteForumRepo', 'Deletes a repository.', destructive), forumTool('DeleteForumWebhook', 'Deletes a webhook of a repository.', destructive)],
      {
        DeleteForumWebhook: ['remove the webhook of acme/web', 'drop the hook on acme/web', 'acme/web webhook delete'],
      },
    );
    expect(first(repos, 'delete the acme/web repository')).toBe('DeleteForumRepo');
    expect(first(repos, 'delete the acme/web repository', { ...rankingWeights, repositoryName: 1 })).toBe('DeleteForumWebhook');
  });

  it('reads a path from the root as a folder or a file, its words as values', () => {
    const store = forum([
      forumTool('ListForumFolderItems', 'Lists what is in a folder.', readOnly),
      forumTool('GetForumFile', 'Gets a file.', readOnly),
      forumTool('ListForumCampaigns', 'Lists marketing campaigns.', readOnly),
    ]);
    expect(first(store, 'show me the first 50 things in /Marketing/Campaigns')).toBe('ListForumFolderItems');
    expect(first(store, 'grab /Invoices/inv-2291.pdf for me')).toBe('GetForumFile');
    expect(first(store, 'show me the first 50 things in /Marketing/Campaigns', { ...rankingWeights, repositoryName: 1 })).toBe('ListForumCampaigns');
  });
});

describe('a word no tool has', () => {
  const issues = forum([forumTool('AssignForumIssue', 'Assigns an issue to someone.'), forumTool('ListForumSigningKeys', 'Lists signing keys.', readOnly)]);

  it('is read as the typo of a term one edit away, preferring a letter left out to one added', () => {
    expect(first(issues, 'asign isue 1207 to jparker')).toBe('AssignForumIssue');
    expect(buildToolIndex(issues.tools, { ...rankingWeights, typos: false }).search('asign isue 1207 to jparker')).toEqual([]);
  });

  it('is read so for the first four such words only, so that pasted text costs no more', () => {
    const verbs = ['assign', 'label', 'merge', 'deploy', 'archive', 'rename'];
    const named = forum(verbs.map((verb) => forumTool(`${verb[0]!.toUpperCase()}${verb.slice(1)}ForumThing`, `${verb}s a thing.`, readOnly)));
    const found = buildToolIndex(named.tools)
      .search('asign merrge deplooy archve renamme labbel')
      .map((hit) => hit.tool.name)
      .sort();
    expect(found).toEqual(['ArchiveForumThing', 'AssignForumThing', 'DeployForumThing', 'MergeForumThing']);
  });

  it('is left as typed where it is short, as names are', () => {
    // "dana" is one edit from "data", and a name.
    const data = forum([forumTool('ListForumData', 'Lists data.', readOnly)]);
    expect(buildToolIndex(data.tools).search('dana')).toEqual([]);
    expect(first(data, 'dataa')).toBe('ListForumData');
  });
});
