import { describe, expect, it } from 'vitest';
import { createToolIndex, qualifiedName, type ToolData } from '../../src/index.js';
import { destructive, forum, forumTool, readOnly } from './forum.js';
import { intentOf, inversesOf } from '../../src/search/intent.js';
import { terms } from '../../src/search/terms.js';
import { words } from '../../src/search/words.js';
import { asStopping, associationsOf, buildToolIndex, rankingWeights } from '../../src/search/tool-index.js';

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
      restores: false,
      negates: true,
    });
    expect(read('please do not ever remove the labels').negated).toEqual([term('delete')]);
    expect(read('no need to publish it yet').negated).toEqual(['publish']);
    expect(read('tidy the board without deleting any card').negated).toEqual([term('delete')]);
    expect(read('list them instead of deleting them').negated).toEqual([term('delete')]);
    expect(read('stop anyone from deleting the release tags').negated).toEqual([term('delete')]);
  });

  it('reads an action called a mistake by its gerund as reversed, where the catalog has its inverse', () => {
    expect(read('publishing the notes was a mistake, undo it')).toMatchObject({ reversed: ['publish'], inverses: ['unpublish'] });
    expect(read('listing the notes was a mistake, undo it').reversed).toEqual([]);
  });

  it('negates only verbs of the catalog', () => {
    expect(read('not my public keys, the signing ones').negated).toEqual([]);
    expect(read("don't forget the invoice").negated).toEqual([]);
    // What is declined, where the instead clause names what it wants in words of its own.
    expect(read("don't open any files, list the projects of team 9")).toMatchObject({
      declined: "don't open any files, ",
      instead: 'list the projects of team 9',
    });
    expect(read("don't delete the invoices, just show them to me").declined).toBeUndefined();
    // After "alone", "and" begins what to do instead; a repository may be named in what is left alone.
    expect(read('leave the keys on acme/app alone and list the hooks')).toMatchObject({ negated: [], instead: 'list the hooks' });
    expect(read('leave the keys alone, just list them')).toEqual({
      negated: [],
      reversed: [],
      inverses: [],
      instead: 'just list them',
      restores: false,
      negates: false,
    });
  });

  it('does not negate an action the request asks for in another clause, on something else', () => {
    expect(read('without deleting the campaign, remove its spend line').negated).toEqual([]);
    expect(read("don't delete the tag, delete the release").negated).toEqual([]);
    // Asked for in the everyday words the search reads: "take ... off" removes.
    const asks = (text: string) => (/\btake\b.*\boff\b/.test(text) ? [term('delete')] : terms(words(text)));
    expect(intentOf('without removing the team, take sam off it', actions, inverses, undefined, asks).negated).toEqual([]);
    expect(read('without removing the team, take sam off it').negated).toEqual([term('delete')]);
    expect(read("don't delete the invoices, just show them to me").negated).toEqual([term('delete')]);
  });

  it('says whether a request negates a verb at all, of the catalog or not', () => {
    expect(read('stop the webhook from firing for a while')).toMatchObject({ negated: [], negates: true });
    expect(read("don't forget the invoice").negates).toBe(true);
    expect(read('not my public keys, the signing ones').negates).toBe(false);
    expect(read('list the invoices').negates).toBe(false);
  });

  it('reads a verb whose inverting prefix is written apart as asking for the inverse', () => {
    expect(read('un-suspend carlos')).toMatchObject({ reversed: ['suspend'], inverses: ['unsuspend'] });
    expect(read('Un-publish the post')).toMatchObject({ reversed: ['publish'], inverses: ['unpublish'] });
    // A verb without an inverse in the catalog is left as it is.
    expect(read('un-snooze ticket 310')).toMatchObject({ reversed: [], inverses: [] });
  });

  it('reads a past action the request asks to reverse, and its inverse', () => {
    expect(read('we suspended her by mistake, let her back in')).toMatchObject({ reversed: ['suspend'], inverses: ['unsuspend'] });
    expect(read('I unpublished the post, put it up again')).toMatchObject({ reversed: ['unpublish'], inverses: ['publish'] });
    expect(read('we deleted the page by accident')).toMatchObject({ reversed: [term('delete')], inverses: [term('create')] });
    expect(read('stop following sam')).toMatchObject({ reversed: ['follow'], inverses: ['unfollow'] });
    expect(read('the user should no longer be suspended')).toMatchObject({ reversed: ['suspend'], inverses: ['unsuspend'] });
    // The stemmer cuts "added" to "ad": the verb's own form is read.
    expect(read('I added jo to the repo by mistake, take her back out')).toMatchObject({ reversed: [term('add')], inverses: [term('delete')] });
    // Done too early is a mistake too.
    expect(read('we published it too early, take it down')).toMatchObject({ reversed: ['publish'], inverses: ['unpublish'] });
  });

  it('reads the clause that tells a mistake apart from the request it comes with', () => {
    expect(read('sam was made a moderator by mistake, make him a plain member again').mistaken).toBe('sam was made a moderator by mistake');
    expect(read('accidentally unfollowed priya this morning - follow her again').mistaken).toBe('accidentally unfollowed priya this morning');
    expect(read('the post went out too early so take it down').mistaken).toBe('the post went out too early');
    expect(read('my approval on post 7 was a mistake, dismiss it').mistaken).toBe('my approval on post 7 was a mistake');
    // "The wrong ..." tells a mistake as well.
    expect(read('we suspended the wrong user, let him back in')).toMatchObject({
      mistaken: 'we suspended the wrong user',
      reversed: ['suspend'],
      inverses: ['unsuspend'],
    });
    expect(read('I unpinned the thread without meaning to; pin it again')).toMatchObject({
      mistaken: 'i unpinned the thread without meaning to',
      restores: true,
    });
    // A request that only tells the mistake has no other clause: all of it is read.
    expect(read('we deleted the page by accident').mistaken).toBeUndefined();
    expect(read('undo the merge, it was wrong').mistaken).toBeUndefined();
  });

  it('does not read a past action as reversed without words that ask to reverse it', () => {
    expect(read('who suspended her last week')).toMatchObject({ reversed: [], inverses: [] });
    // "Again" repeats an action that has no inverse; only words of a mistake reverse it.
    expect(read('we required reviews, require them again')).toMatchObject({ reversed: [] });
    expect(read('I muted the thread by mistake')).toMatchObject({ reversed: [term('mute')], inverses: [] });
  });
});

const tool = (name: string, description: string, isDestructive = false): ToolData => forumTool(name, description, isDestructive ? destructive : undefined);
const users = forum([
  tool('SuspendForumUser', 'Suspends a user, who can no longer sign in.', true),
  tool('UnsuspendForumUser', 'Unsuspends a user, who can sign in again.'),
  tool('GetForumUser', 'Returns one user.'),
  tool('DeleteForumPost', 'Deletes a post.', true),
  tool('ListForumPosts', 'Lists the posts of a thread.'),
]);

describe('search with negated and reversed actions', async () => {
  const index = await createToolIndex(users.tools);
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
  const groups = forum([
    tool('RemoveForumGroupMembership', 'Removes your membership of a group of the forum.', true),
    tool('ListForumGroupMemberships', 'Lists the memberships of your groups.'),
    tool('CreateForumGroup', 'Creates a group.'),
  ]);
  const first = (query: string, weights = rankingWeights) => qualifiedName(buildToolIndex(groups.tools, weights).search(query)[0]!.tool);

  it('puts a destructive tool further down, unless the request asks to change or end something', () => {
    expect(first('my group memberships on the forum')).toBe('ForumApi.ListForumGroupMemberships');
    // The rules for requests that only name things would put the listing first too: they are left out here.
    const withoutRule = { ...rankingWeights, destructiveInRead: rankingWeights.destructive, namesOnly: 1, several: 1 };
    expect(first('my group memberships on the forum', withoutRule)).toBe('ForumApi.RemoveForumGroupMembership');
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

describe('more ways a request negates or reverses', () => {
  const actions = new Set(['approve', 'dismiss', 'delete', 'create', 'publish', 'unpublish'].map(term));
  const inverses = inversesOf(['approve', 'dismiss', 'delete', 'create', 'publish', 'unpublish']);
  const read = (request: string) => intentOf(request, actions, inverses);

  it('reads "never mind" as one negation, not "never" negating "mind"', () => {
    expect(read('never mind deleting the invoices, just list them').negated).toEqual([term('delete')]);
  });

  it('reads a verb of undoing as reversing the action it governs, named as a verb or a noun', () => {
    expect(read('withdraw the approving review I left')).toMatchObject({ reversed: [term('approve')], inverses: [term('dismiss')] });
    expect(read('retract my approval')).toMatchObject({ reversed: [term('approve')], inverses: [term('dismiss')] });
    expect(read('withdraw the invoice')).toMatchObject({ reversed: [], inverses: [] });
  });

  it('says whether a request asks to put something back', () => {
    expect(read('the post we published is wrong, turn it back into a draft').restores).toBe(true);
    expect(read('we deleted the page by accident').restores).toBe(true);
    expect(read('publish the post').restores).toBe(false);
  });
});

describe('when a destructive tool is asked for', () => {
  const first = (toolkit: ReturnType<typeof forum>, query: string, weights = rankingWeights) =>
    qualifiedName(buildToolIndex(toolkit.tools, weights).search(query)[0]!.tool);

  it('weighs the words only a negation declines less, where the request names what it wants', () => {
    const teams = forum([tool('GetForumFiles', 'Lists the files of a team.'), tool('ListForumTeamProjects', 'Lists the projects of a team.')]);
    const request = "don't open any files, list the projects of team 9";
    expect(first(teams, request)).toBe('ForumApi.ListForumTeamProjects');
    expect(first(teams, request, { ...rankingWeights, declined: 1 })).toBe('ForumApi.GetForumFiles');
  });

  it('weighs the words only the mistake names less than what the request asks for', () => {
    const members = forum([
      tool('ConvertForumMemberToModerator', 'Converts a member into a moderator of the forum, made by an admin.'),
      tool('UpdateForumMembership', 'Updates the membership of a user.'),
    ]);
    const request = 'sam was made a moderator by mistake, make him a member again';
    expect(first(members, request)).toBe('ForumApi.UpdateForumMembership');
    expect(first(members, request, { ...rankingWeights, mistaken: 1 })).toBe('ForumApi.ConvertForumMemberToModerator');
  });

  it('puts a destructive tool it does not ask for further down where a request tells a mistake', () => {
    const members = forum(
      [
        tool('ConvertForumMemberToGuest', 'Converts a member of the forum into a guest, who loses the membership.', true),
        tool('UpdateForumMembership', 'Sets the role someone has in the forum: member or moderator.'),
        tool('ListForumGuests', 'Lists the guests of the forum.'),
      ],
      { ConvertForumMemberToGuest: ['make a member a guest', 'make her a guest instead of a member', 'a member made a guest'] },
    );
    const request = 'jo was made a guest by mistake, make her a member again';
    expect(first(members, request)).toBe('ForumApi.UpdateForumMembership');
    expect(first(members, request, { ...rankingWeights, destructiveAfterMistake: 1 })).toBe('ForumApi.ConvertForumMemberToGuest');
  });

  it('reads dropping a note or a comment as writing one, and dropping anything else as deleting it', () => {
    const comments = forum([tool('DeleteForumComment', 'Deletes a comment.', true), tool('CreateForumComment', 'Adds a comment to a thread.')]);
    expect(first(comments, 'drop a note on thread 7 that I am on it')).toBe('ForumApi.CreateForumComment');
    expect(first(comments, 'drop a comment on thread 7')).toBe('ForumApi.CreateForumComment');
    expect(first(comments, 'drop the comments on thread 7')).toBe('ForumApi.DeleteForumComment');
    // The one written to may come between: "drop sam a note".
    expect(first(comments, 'drop sam a note on thread 7')).toBe('ForumApi.CreateForumComment');
  });

  it('reads a request that opens by emailing someone as asking to send a mail', () => {
    const mail = forum([
      tool('CreateForumForm', 'Creates a form that asks for an updated quote or any other answer.'),
      tool('SendForumMail', 'Sends a mail.'),
      tool('ListForumMails', 'Lists the mails in the inbox.'),
    ]);
    expect(first(mail, 'email the vendor and ask for an updated quote')).toBe('ForumApi.SendForumMail');
    expect(first(mail, 'please email jo@example.com asking for an updated quote')).toBe('ForumApi.SendForumMail');
    // Or by telling something to someone who is an address.
    expect(first(mail, 'let ops@example.com know the quote form is updated')).toBe('ForumApi.SendForumMail');
    expect(first(mail, 'email updates about the quote')).not.toBe('ForumApi.SendForumMail');
  });

  it('reads a request that opens by pinging someone by their handle as asking to comment, and what they are told as content', () => {
    const threads = forum([
      tool('CreateForumComment', 'Adds a comment to a thread.'),
      tool('UpdateForumThread', 'Updates a thread: fixes a typo in its title or text.'),
      tool('DeleteForumThread', 'Deletes a thread.', true),
    ]);
    expect(first(threads, 'ping @jo on thread 7 that the typo in the title is fixed')).toBe('ForumApi.CreateForumComment');
    expect(first(threads, 'tell @jo on thread 7 that the typo in the title is fixed')).toBe('ForumApi.CreateForumComment');
    expect(first(threads, 'fix the typo in the title of thread 7')).toBe('ForumApi.UpdateForumThread');
  });

  it('reads a verb of undoing by the action it reverses, not by the everyday verb it also stands for', () => {
    // "withdraw" stands for deleting, but withdrawing an approval dismisses it.
    const reviews = forum([
      tool('DeleteForumReview', 'Deletes a pending review.', true),
      tool('DismissForumReview', 'Dismisses a review.'),
      tool('ApproveForumReview', 'Approves a pull request with a review.'),
    ]);
    expect(first(reviews, 'withdraw the approving review I left')).toBe('ForumApi.DismissForumReview');
    expect(first(reviews, 'withdraw my pending review')).toBe('ForumApi.DeleteForumReview');
  });

  it('takes a request for a destructive action as asking for a tool only where it names what that tool acts on', () => {
    const settings = forum([
      tool('DisableForumLfsForRepo', 'Turns off large file storage for a repository.', true),
      tool('UpdateForumRepo', 'Turns issues, wikis and projects on or off for a repository.'),
    ]);
    expect(first(settings, 'only turn off the issues of the repo')).toBe('ForumApi.UpdateForumRepo');
    expect(first(settings, 'turn off lfs for the repo')).toBe('ForumApi.DisableForumLfsForRepo');
  });

  it('reads no everyday word in part of a hyphenated name', () => {
    // "installer" alone stands for a release asset; in octo/app-installer it is part of a name.
    const runs = forum([tool('ListForumRuns', 'Lists the runs of a workflow.'), tool('ListForumReleaseAssets', 'Lists the assets of a release.')]);
    expect(first(runs, 'octo/app-installer: which runs failed today')).toBe('ForumApi.ListForumRuns');
    expect(first(runs, 'the installer files')).toBe('ForumApi.ListForumReleaseAssets');
  });

  it('reads archiving as keeping something read-only, not as deleting it', () => {
    const repos = forum([tool('DeleteForumRepo', 'Deletes a repository.', true), tool('UpdateForumRepo', 'Updates a repository, such as archiving it.')]);
    expect(first(repos, 'archive the old repo')).toBe('ForumApi.UpdateForumRepo');
  });

  it('reads a phrasal verb whose particle follows its object as the whole verb', () => {
    const labels = forum([tool('RemoveForumPostLabel', 'Removes a label from a post.', true), tool('AddForumPostLabel', 'Adds a label to a post.')]);
    expect(first(labels, 'take the spam label off post 4')).toBe('ForumApi.RemoveForumPostLabel');
    // Clearing removes, as an everyday verb.
    expect(first(labels, 'clear the labels of post 4')).toBe('ForumApi.RemoveForumPostLabel');
  });

  it('reads "make it ..." as changing what exists, and "make a ..." as creating', () => {
    const groups = forum([tool('UpdateForumGroup', 'Updates a group, such as whether it is private.'), tool('CreateForumGroup', 'Creates a group.')]);
    expect(first(groups, 'make it private')).toBe('ForumApi.UpdateForumGroup');
    expect(first(groups, 'make a private group')).toBe('ForumApi.CreateForumGroup');
  });

  it('counts a list that ends a request after a colon as values, less than what the request asks', () => {
    const tasks = forum([tool('CreateForumChecklist', 'Creates a checklist on a task.'), tool('PublishForumDraft', 'Publishes a draft for review.')]);
    expect(first(tasks, 'checklist on task 5: draft, review, publish')).toBe('ForumApi.CreateForumChecklist');
    expect(first(tasks, 'checklist on task 5: draft, review, publish', { ...rankingWeights, listed: 1 })).toBe('ForumApi.PublishForumDraft');
  });

  it('counts the message a request carries as content, less than what the request asks', () => {
    const posts = forum([tool('PublishForumRelease', 'Publishes a release of the forum software.'), tool('CreateForumComment', 'Adds a comment to a thread.')]);
    const told = 'tell thread 12 that the new release is published';
    const known = 'let everyone on thread 44 know the new release is published';
    expect(first(posts, told)).toBe('ForumApi.CreateForumComment');
    expect(first(posts, known)).toBe('ForumApi.CreateForumComment');
    expect(first(posts, told, { ...rankingWeights, message: 1 })).toBe('ForumApi.PublishForumRelease');
    // Letting people on a numbered thread know something asks to comment there, whatever it tells them.
    expect(first(posts, known, { ...rankingWeights, message: 1 })).toBe('ForumApi.CreateForumComment');
    // "That" after a noun begins no message: the release is what is asked for.
    expect(first(posts, 'publish the release that fixes the comments')).toBe('ForumApi.PublishForumRelease');
  });

  it('counts what follows "with:", "to:", "saying:" and the like as content', () => {
    const snippets = forum([tool('CreateForumSnippet', 'Creates a snippet of text to share.'), tool('DeleteForumBranch', 'Deletes a branch.', true)]);
    for (const request of [
      'make a private snippet with: git push --force && git branch --delete release',
      'change my snippet 4 to: git branch --delete release',
    ]) {
      expect(first(snippets, request)).toBe('ForumApi.CreateForumSnippet');
      expect(first(snippets, request, { ...rankingWeights, message: 1 })).toBe('ForumApi.DeleteForumBranch');
    }
  });

  it('counts quoted text as content: it tells tools apart that the request alone does not', () => {
    // Listed first, the thread wins a tie.
    const threads = forum([tool('CreateForumThread', 'Creates a thread.'), tool('CreateForumPoll', 'Creates a poll.')]);
    expect(first(threads, "start 'the weekly poll'")).toBe('ForumApi.CreateForumPoll');
    expect(first(threads, "start 'the weekly poll'", { ...rankingWeights, message: 1 })).toBe('ForumApi.CreateForumThread');
    expect(first(threads, "new thread 'weekly poll results'")).toBe('ForumApi.CreateForumThread');
  });

  it('puts a destructive tool further down in a request that puts something back', () => {
    // Publishing has an inverse here, so the request reverses it and asks for a change.
    const posts = forum([
      tool('ResetForumDraftToLive', 'Resets the draft of a post to its live version.', true),
      tool('UpdateForumPost', 'Updates a post.'),
      tool('PublishForumPoll', 'Publishes a poll.'),
      tool('UnpublishForumPoll', 'Unpublishes a poll.'),
    ]);
    const order = (weights = rankingWeights) =>
      buildToolIndex(posts.tools, weights)
        .search('the post we published is wrong, turn it back into a draft')
        .map((hit) => hit.tool.name)
        .filter((name) => name === 'UpdateForumPost' || name === 'ResetForumDraftToLive');
    expect(order()).toEqual(['UpdateForumPost', 'ResetForumDraftToLive']);
    expect(order({ ...rankingWeights, destructiveInRead: rankingWeights.destructive })).toEqual(['ResetForumDraftToLive', 'UpdateForumPost']);
  });
});

describe('whether a request asks to change, as a destructive tool is weighed', () => {
  const eight = (lead: string) => ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((word) => `${lead} ${word}`);
  // Phrases of a tool that changes begin with "our" and "link", those of one that reads with "download".
  const groups = forum(
    [
      tool('RemoveForumGroupMembership', 'Removes your membership of a group of the forum.', true),
      forumTool('ListForumGroupMemberships', 'Lists the memberships of your groups.', readOnly),
      tool('CreateForumGroup', 'Creates a group.'),
      forumTool('DownloadForumExport', 'Downloads an export.', readOnly),
    ],
    { CreateForumGroup: [...eight('our'), ...eight('link')], DownloadForumExport: eight('download') },
  );
  // The destructive tool's score is the same whatever the factor for requests that change: it is weighed as in a read.
  const weighedAsRead = (query: string) => {
    const scoreWith = (destructive: number) =>
      buildToolIndex(groups.tools, { ...rankingWeights, destructive })
        .search(query)
        .find((hit) => hit.tool.name === 'RemoveForumGroupMembership')!.score;
    return scoreWith(rankingWeights.destructive) === scoreWith(1);
  };

  it('reads nothing of a change from a first word that begins a noun ("our", "the")', () => {
    expect(weighedAsRead('our group memberships on the forum')).toBe(true);
    expect(weighedAsRead('link my group memberships')).toBe(false);
  });

  it('reads a noun followed by "to" and a verb by that verb ("link to download")', () => {
    expect(weighedAsRead('link to download my group memberships')).toBe(true);
  });

  it('reads a request that reverses an action as asking for a change, whatever its first word', () => {
    const threads = forum([
      tool('MuteForumThread', 'Mutes a thread.'),
      tool('SetForumThreadNotifications', 'Sets whether a thread sends you notifications.'),
      forumTool('CheckForumThreadNotifications', 'Checks whether a thread sends you notifications.', readOnly),
    ]);
    const [first] = buildToolIndex(threads.tools).search('I muted the thread by mistake, I want its notifications again');
    expect(first!.tool.name).toBe('SetForumThreadNotifications');
  });

  it('reads a request that tells a mistake and asks for something else as asking for a change, though no tool undoes it by name', () => {
    const tickets = forum([
      forumTool('ListForumTicketEvents', 'Lists what happened to a ticket, such as who reopened it.', readOnly),
      tool('UpdateForumTicket', 'Updates a ticket: its title, its body, or its state, open or closed.'),
    ]);
    const [first] = buildToolIndex(tickets.tools).search('I closed ticket 19 by mistake, can you reopen it');
    expect(first!.tool.name).toBe('UpdateForumTicket');
  });
});

describe('a negated verb that begins no tool name', () => {
  const actions = new Set(['update', 'create', 'delete', 'list'].map(term));
  const inverses = inversesOf(['create', 'delete']);
  // "Close" begins no name here; what it goes with says it changes an issue (an update).
  const meaning = (word: string) => (word === term('close') ? [term('update')] : []);
  const read = (request: string) => intentOf(request, actions, inverses, meaning);

  it('negates the catalog action it is read as', () => {
    expect(read('do not close the ticket, only comment on it').negated).toEqual([term('update')]);
    expect(intentOf('do not close the ticket, only comment on it', actions, inverses).negated).toEqual([]);
  });

  it('negates no noun, and not the action the request asks for instead', () => {
    expect(read('comment on the ticket without closing it').negated).toEqual([term('update')]);
    expect(read('update the ticket without closing it').negated).toEqual([]);
    expect(read('list the tickets without close dates').negated).toEqual([]);
    expect(read("don't close it, just update the title").negated).toEqual([]);
  });

  it('puts no destructive tool above the one for what the request asks instead', () => {
    // Deleting a ticket's comment fits the words better than posting one; only the negation tells them apart.
    const tickets = forum([
      tool('UpdateForumTicket', 'Updates a ticket, such as its state.'),
      tool('CreateForumTicket', 'Creates a ticket.'),
      tool('PostForumComment', 'Posts a comment.'),
      tool('DeleteForumTicketComment', 'Deletes a comment of a ticket.', true),
    ]);
    const order = (associations: Parameters<typeof associationsOf>[0], weights = rankingWeights) =>
      buildToolIndex(tickets.tools, weights, associationsOf(associations))
        .search('do not close ticket 12, only add a comment')
        .map((hit) => hit.tool.name)
        .filter((name) => name === 'PostForumComment' || name === 'DeleteForumTicketComment');
    expect(order({ [term('close')]: { [term('update')]: 0.3 } })).toEqual(['PostForumComment', 'DeleteForumTicketComment']);
    // Read as no catalog verb, the negation still says what not to do: the destructive tool weighs as in a read.
    expect(order({})).toEqual(['PostForumComment', 'DeleteForumTicketComment']);
    expect(order({}, { ...rankingWeights, destructiveInRead: rankingWeights.destructive })).toEqual(['DeleteForumTicketComment', 'PostForumComment']);
  });
});

describe('a request that no longer wants to do something', () => {
  it('is read as asking to stop it', () => {
    expect(asStopping("I don't want to watch octo/app anymore")).toBe('stop watching octo/app anymore');
    expect(asStopping('we no longer need to run the nightly job')).toBe('stop running the nightly job');
    expect(asStopping('I do not want to get these emails any more')).toBe('stop getting these emails any more');
    expect(asStopping('I no longer wish to receive the digest')).toBe('stop receiving the digest');
    // Without "anymore" it is a negation of its own ("don't want to delete it, just archive it").
    expect(asStopping("I don't want to delete it, just archive it")).toBe("I don't want to delete it, just archive it");
  });

  it('asks for the inverse of what it stops', () => {
    const tools = forum([forumTool('FollowForumUser', 'Follows a user.'), forumTool('UnfollowForumUser', 'Unfollows a user.')]);
    const first = (weights = rankingWeights) => buildToolIndex(tools.tools, weights).search("I don't want to follow sam anymore")[0]?.tool.name;
    expect(first()).toBe('UnfollowForumUser');
    // Read as a negation alone, it asks for nothing the forum has.
    expect(first({ ...rankingWeights, stopping: false })).toBeUndefined();
  });
});
