import { describe, expect, it } from 'vitest';
import { createToolIndex, defineToolkit, didYouMean, qualifiedName, suggestToolNames, type ToolData } from '../../src/index.js';
import { terms } from '../../src/search/terms.js';
import { askedTerms, associationOf, associationsOf, buildToolIndex, learnedAssociations, rankingWeights, toolTerms } from '../../src/search/tool-index.js';
import { words } from '../../src/search/words.js';

const tool = (name: string, description: string, parameters: string[] = []): ToolData => ({
  name,
  description,
  parameters: parameters.map((p) => ({ name: p, description: p.replace(/_/g, ' '), required: false, schema: { type: 'string' }, in: 'query' })),
  output: { description: '' },
  requirements: {},
});

const codeHost = defineToolkit({
  name: 'CodeHostApi',
  version: '1.0.0',
  description: 'A code host.',
  baseUrl: 'http://127.0.0.1:9',
  tools: [
    tool('DeleteCodehostRepository', 'Deletes a repository. Needs admin rights.', ['repository_name']),
    tool('CreateCodehostPullRequest', 'Opens a pull request from one branch into another.', ['head_branch', 'base_branch']),
    tool('ListCodehostIssues', 'Lists the issues of a repository.', ['state']),
    tool('GetCodehostIssue', 'Returns one issue.', ['issue_number']),
    tool('ListOrgMembers', 'Lists the members of an organization.', ['org']),
    { ...tool('DeleteCodehostGist', 'Deletes a gist.'), http: { method: 'DELETE', path: '/gists/{gist_id}' } },
    { ...tool('UnpublishCodehostGist', 'Unpublishes a gist.'), http: { method: 'POST', path: '/gists/{gist_id}/unpublish' } },
    { ...tool('StarCodehostRepo', 'Stars a repository.'), http: { method: 'PUT', path: '/user/starred/{owner}/{repo}' } },
    tool('GetCodehostRateLimit', 'Returns the rate limit status.'),
  ],
  phrases: () => ({ GetCodehostRateLimit: ['how many calls have i got left this hour', 'am i being throttled'] }),
});
const helpDesk = defineToolkit({
  name: 'HelpDesk',
  version: '1.0.0',
  description: 'A help desk.',
  baseUrl: 'http://127.0.0.1:9',
  tools: [tool('ListIssues', 'Lists support issues.'), tool('WhoAmI', 'The signed-in agent.')],
});
const index = await createToolIndex([...codeHost.tools, ...helpDesk.tools]);
const names = (query: string, options?: Parameters<typeof index.search>[1]) => index.search(query, options).map((hit) => qualifiedName(hit.tool));

describe('words and terms', () => {
  it('splits identifiers at case changes, acronyms and digits', () => {
    expect(words('CreateRepohostPullRequest')).toEqual(['create', 'repohost', 'pull', 'request']);
    expect(words('GetSSHKey for v2_api')).toEqual(['get', 'ssh', 'key', 'for', 'v', '2', 'api']);
    expect(words('getHTTPResponse')).toEqual(['get', 'http', 'response']);
    expect(words('CreateAPIKey')).toEqual(['create', 'api', 'key']);
  });

  it('reads an acronym with a plural s as one word, its singular', () => {
    expect(words('list the PRs on octo/app')).toEqual(['list', 'the', 'pr', 'on', 'octo', 'app']);
    expect(words('CVEs URLs IDs APIs SSHs')).toEqual(['cve', 'url', 'id', 'api', 'ssh']);
    expect(words('ListPRsForRepo userIDs')).toEqual(['list', 'pr', 'for', 'repo', 'user', 'id']);
    // A capital S starts the next word, and a lower-case word after the run is no plural.
    expect(words('HTTPSettings')).toEqual(['http', 'settings']);
    expect(words('DNSsec ContactUs')).toEqual(['dn', 'ssec', 'contact', 'us']);
    expect(terms(words('merge the PRs'))).toEqual(terms(words('merge the pull request')));
  });

  it('drops stop words, stems, and merges synonyms and phrases', () => {
    expect(terms(words('remove the repositories'))).toEqual(terms(words('delete repo')));
    expect(terms(words('open a pull request'))).toEqual(terms(words('open PR')));
    expect(terms(words('get all tickets'))).toEqual(terms(words('list issues')));
    expect(terms(words('unwatch the repo'))).toEqual(terms(words('unsubscribe from the repo')));
    expect(terms(words('deregister the runner'))).toEqual(terms(words('delete the runner')));
  });
});

describe('createToolIndex', () => {
  it('finds a tool by what it does, in words the tool does not use', () => {
    expect(names('remove a repo')[0]).toBe('CodeHostApi.DeleteCodehostRepository');
    expect(names('make a new PR')[0]).toBe('CodeHostApi.CreateCodehostPullRequest');
    expect(names('show all the people in the organisation')[0]).toBe('CodeHostApi.ListOrgMembers');
  });

  it('matches word forms through stemming', () => {
    expect(names('listing issues')).toContain('CodeHostApi.ListCodehostIssues');
    expect(names('deleted repositories')[0]).toBe('CodeHostApi.DeleteCodehostRepository');
  });

  it('ranks best first with scores that fall', () => {
    const hits = index.search('list issues');
    expect(hits.length).toBeGreaterThan(1);
    expect(hits.map((hit) => hit.score)).toEqual([...hits.map((hit) => hit.score)].sort((a, b) => b - a));
  });

  it('keeps to one toolkit, whatever its letter case', () => {
    expect(names('list issues', { toolkit: 'helpdesk' })).toEqual(['HelpDesk.ListIssues']);
    expect(names('list issues', { toolkit: 'Nope' })).toEqual([]);
  });

  it('returns at most limit hits', () => {
    expect(index.search('issues', { limit: 1 })).toHaveLength(1);
    expect(index.search('issues').length).toBeGreaterThan(1);
  });

  it('reads only the first 500 characters of a query, however long it is', () => {
    const request = 'remove a repo';
    expect(names(request + ' '.repeat(500 - request.length) + ' gist'.repeat(200_000))).toEqual(names(request));
  });

  it('finds nothing for a query without a useful word', () => {
    expect(index.search('')).toEqual([]);
    expect(index.search('the of and')).toEqual([]);
  });
});

describe('everyday words', () => {
  it('finds a tool from the words people use for its objects', () => {
    expect(names('bookmark that project')[0]).toBe('CodeHostApi.StarCodehostRepo');
    expect(names('people in the company')[0]).toBe('CodeHostApi.ListOrgMembers');
  });

  it('keeps the typed word: an everyday word adds API words without replacing it', () => {
    expect(names('take my snippet offline')[0]).toBe('CodeHostApi.UnpublishCodehostGist');
    expect(names('gist')).toEqual(expect.arrayContaining(['CodeHostApi.DeleteCodehostGist', 'CodeHostApi.UnpublishCodehostGist']));
  });

  it('reads a longer everyday phrase before its first word: a promo code is a discount code, not a campaign', () => {
    expect(askedTerms('any promo codes right now?').sort()).toEqual(terms(words('any discount codes right now')).sort());
    expect(askedTerms('the spring promo')).toEqual(expect.arrayContaining(terms(words('marketing campaign'))));
  });

  it('reads everyday verbs and idioms (deleting, unassigning, answering, cancelling, looping in) as the API words they stand for', () => {
    for (const verb of ['axe', 'zap', 'nuke', 'tear down'])
      expect(askedTerms(`${verb} the staging environment`)).toEqual(expect.arrayContaining(terms(words('delete'))));
    expect(askedTerms('unassign dave from issue 30')).toEqual(expect.arrayContaining(terms(words('remove assignees'))));
    expect(askedTerms('answer the mail with thanks')).toEqual(expect.arrayContaining(terms(words('reply'))));
    expect(askedTerms('pull the plug on run 88')).toEqual(expect.arrayContaining(terms(words('cancel'))));
    expect(askedTerms('loop in priya on pr 19')).toEqual(expect.arrayContaining(terms(words('request reviewers'))));
    expect(askedTerms('give kim a heads-up that the offsite moved')).toEqual(expect.arrayContaining(terms(words('send email'))));
    expect(askedTerms("what's landed in junk")).toEqual(expect.arrayContaining(terms(words('emails folder'))));
  });

  it('reads names the request gives (quoted, or after called or named) as values, not as what to do', () => {
    expect(names('open a new PR called remove-old-repo')[0]).toBe('CodeHostApi.CreateCodehostPullRequest');
    expect(names("make a new PR named 'delete repository'")[0]).toBe('CodeHostApi.CreateCodehostPullRequest');
    expect(names('delete the repository')[0]).toBe('CodeHostApi.DeleteCodehostRepository');
  });

  it('never ranks a destructive tool above a harmless one that fits as well, unless asked to delete', () => {
    const harmless = names('the gist');
    expect(harmless.indexOf('CodeHostApi.UnpublishCodehostGist')).toBeLessThan(harmless.indexOf('CodeHostApi.DeleteCodehostGist'));
    expect(names('delete the gist')[0]).toBe('CodeHostApi.DeleteCodehostGist');
  });
});

describe('what a request asks for', () => {
  // Three tools that fit "follow sam" equally well in words, one that changes something and two that read;
  // two more whose phrases show that "which" asks to read and "start" to change.
  const following = defineToolkit({
    ...codeHost,
    tools: [
      { ...tool('FollowingCodehost', 'Following a person.'), http: { method: 'PUT', path: '/user/following/{username}' } },
      { ...tool('FollowingsCodehost', 'Following a person.'), http: { method: 'GET', path: '/user/following' } },
      { ...tool('CheckFollowingCodehost', 'Following a person.'), http: { method: 'GET', path: '/user/following/{username}' } },
      { ...tool('ListWidgets', 'Lists widgets.'), http: { method: 'GET', path: '/widgets' } },
      { ...tool('CreateWidget', 'Creates a widget.'), http: { method: 'POST', path: '/widgets' } },
    ],
    phrases: () => ({
      ListWidgets: [
        'which widgets exist',
        'which widgets are mine',
        'which widgets are blue',
        'which widgets are new',
        'which widget sizes',
        'which widgets broke',
        'which widgets sold',
        'which widgets ship',
      ],
      CreateWidget: [
        'start a widget',
        'start a blue widget',
        'start a new widget',
        'start widget x',
        'start my widget',
        'start a big widget',
        'start two widgets',
        'start a widget now',
      ],
    }),
  });
  const ranked = async (query: string) => (await createToolIndex(following.tools)).search(query).map((hit) => hit.tool.name);

  it('reads from how the phrases begin whether a request asks to read or to change something', async () => {
    const asked = await ranked('which people am I following');
    expect(asked.indexOf('FollowingsCodehost')).toBeLessThan(asked.indexOf('FollowingCodehost'));
    const told = await ranked('please start following sam');
    expect(told.indexOf('FollowingCodehost')).toBeLessThan(told.indexOf('FollowingsCodehost'));
  });

  it('reads a first word too rare in the phrases as the API word it stands for', async () => {
    // "bookmark" begins no phrase; it stands for "star", which begins only phrases of a tool that changes.
    const starring = defineToolkit({
      ...codeHost,
      tools: [
        { ...tool('StarredWidgets', 'Starred blue widgets.'), http: { method: 'GET', path: '/widgets/starred' } },
        { ...tool('StarWidget', 'Starred widgets.'), http: { method: 'PUT', path: '/widgets/starred/{widget}' } },
      ],
      phrases: () => ({
        StarredWidgets: ['which widgets did I star', 'which widgets have stars', 'which stars', 'which starred ones'],
        StarWidget: ['star widget x', 'star my widget', 'star a widget', 'star the new widget', 'star it', 'star that', 'star one', 'star widget y'],
      }),
    });
    const index = await createToolIndex(starring.tools);
    expect(index.search('bookmark the blue widget')[0]!.tool.name).toBe('StarWidget');
  });

  it('reads a yes/no question as asking whether, and a request worded as a question as a request', async () => {
    expect((await ranked('am I following sam'))[0]).toBe('CheckFollowingCodehost');
    expect((await ranked('can you follow sam'))[0]).toBe('FollowingCodehost');
  });

  it('favours a tool that checks whether only when the question is about what it checks', async () => {
    const shop = defineToolkit({
      ...codeHost,
      tools: [
        {
          ...tool('CheckFollowingCodehost', 'Whether you follow a person, such as the seller of something you ordered.'),
          http: { method: 'GET', path: '/user/following/{username}' },
        },
        { ...tool('GetPurchase', 'A purchase order of yours: what you ordered, and its items.'), http: { method: 'GET', path: '/purchases/{purchase}' } },
      ],
    });
    const index = await createToolIndex(shop.tools);
    expect(index.search('did my order go through?')[0]!.tool.name).toBe('GetPurchase');
    expect(index.search('do I follow the seller of my order?')[0]!.tool.name).toBe('CheckFollowingCodehost');
  });
});

describe('search phrases', () => {
  it('finds a tool from a request its phrases word, though neither its name nor its description does', () => {
    expect(names('how many calls are left')[0]).toBe('CodeHostApi.GetCodehostRateLimit');
    expect(names('throttled?')[0]).toBe('CodeHostApi.GetCodehostRateLimit');
  });

  it('reads the phrases as it reads a query, so an everyday word in both meets on one term', async () => {
    const starred = defineToolkit({
      ...codeHost,
      tools: [tool('StarCodehostRepo', 'Stars it.')],
      phrases: () => ({ StarCodehostRepo: ['bookmark this project'] }),
    });
    const phrased = await createToolIndex(starred.tools);
    expect(phrased.search('bookmark my project').map((hit) => hit.tool.name)).toEqual(['StarCodehostRepo']);
  });
});

describe('learned associations', () => {
  // Two tools that fit "give issue 3 a zorp" equally well in words; only an association tells them apart.
  const issues = defineToolkit({
    ...codeHost,
    tools: [
      { ...tool('AddIssueReaction', 'Adds one to an issue.'), http: { method: 'POST', path: '/issues/{number}/reactions' } },
      { ...tool('AddIssueLabel', 'Adds one to an issue.'), http: { method: 'POST', path: '/issues/{number}/labels' } },
    ],
    phrases: undefined,
  });
  const zorp = terms(['zorp'])[0]!;
  const [reaction, label] = terms(['reactions', 'labels']).map((term) => `r:${term}`) as [string, string];
  const first = (associations: Parameters<typeof associationsOf>[0], weights = rankingWeights) =>
    buildToolIndex(issues.tools, weights, associationsOf(associations)).search('give issue 3 a zorp')[0]?.tool.name;

  it('ranks by how the terms of a request go with the terms a tool is named by', () => {
    expect(first({ [zorp]: { [reaction]: 1 } })).toBe('AddIssueReaction');
    expect(first({ [zorp]: { [label]: 1 } })).toBe('AddIssueLabel');
    expect(first({ [zorp]: { [reaction]: -1 } })).toBe('AddIssueLabel');
  });

  it('counts them as much as their weight says, and not at all at 0', () => {
    const ignored = { ...rankingWeights, associations: 0 };
    expect(first({ [zorp]: { [reaction]: 1 } }, ignored)).toBe(first({ [zorp]: { [label]: 1 } }, ignored));
  });

  it('knows a tool by its toolkit, name, route and summary terms, and sums over every pair', () => {
    const side = toolTerms(issues.tools[0]!);
    const [adds, issue, reactions] = terms(['adds', 'issue', 'reactions']);
    expect(side).toEqual(expect.arrayContaining(['@CodeHostApi', adds, issue, `r:${issue}`, `r:${reactions}`, `s:${adds}`]));
    expect(new Set(side).size).toBe(side.length);
    const associations = associationsOf({ [zorp]: { [`r:${reactions}`]: 0.5, [`s:${adds}`]: 0.25, 'r:label': 9 }, give: { '@CodeHostApi': 1 } });
    expect(associationOf(associations, [zorp, 'give', 'other'], side)).toBe(1.75);
  });

  it('ships thousands, each between a request term and a tool term, none too weak to matter', () => {
    const pairs = [...learnedAssociations()].flatMap(([term, sides]) => [...sides].map(([side, weight]) => ({ term, side, weight })));
    expect(pairs.length).toBeGreaterThan(1000);
    for (const { term, side, weight } of pairs) {
      expect(term).toMatch(/^[^\s|]+$/);
      expect(side).toMatch(/^(@[A-Za-z]+|[rs]:[^\s|]+|[^\s|:@]+)$/);
      expect(Math.abs(weight)).toBeGreaterThan(0.01);
    }
  });
});

describe('word order', () => {
  it('tells requests with the same words apart by their order', async () => {
    const people = defineToolkit({
      ...codeHost,
      tools: [tool('ListFollowing', 'People of an account.'), tool('ListFollowers', 'People of an account.')],
      phrases: () => ({ ListFollowing: ['who do i follow', 'people i follow'], ListFollowers: ['who follows me', 'people following me'] }),
    });
    const index = await createToolIndex(people.tools);
    expect(index.search('who follows me')[0]!.tool.name).toBe('ListFollowers');
    expect(index.search('who do I follow')[0]!.tool.name).toBe('ListFollowing');
  });
});

describe('suggestToolNames', () => {
  const tools = [...codeHost.tools, ...helpDesk.tools];
  const search = (query: string, options: Parameters<typeof index.search>[1]) => index.search(query, options);

  it('finds a bare name in its toolkit and close spellings, closest first', async () => {
    expect((await suggestToolNames('DeleteCodehostRepository', tools))[0]).toBe('CodeHostApi.DeleteCodehostRepository');
    expect((await suggestToolNames('codehostapi.listcodehostissue', tools))[0]).toBe('CodeHostApi.ListCodehostIssues');
    expect((await suggestToolNames('CodeHostApi_GetCodehostIssu', tools, { nameOf: (tool) => tool.name }))[0]).toBe('GetCodehostIssue');
  });

  it('finds a name in other words by searching for them, within the toolkit it names', async () => {
    // Nothing is spelt like these: only the search over their words finds the tools.
    expect(await suggestToolNames('HelpDesk.ListTickets', tools)).toEqual([]);
    expect(await suggestToolNames('HelpDesk.ListTickets', tools, { search })).toEqual(['HelpDesk.ListIssues']);
    expect((await suggestToolNames('CodeHostApi.RemoveRepository', tools, { search }))[0]).toBe('CodeHostApi.DeleteCodehostRepository');
    expect((await suggestToolNames('CodeHostApi.OpenPullRequest', tools, { search }))[0]).toBe('CodeHostApi.CreateCodehostPullRequest');
  });

  it('spells its names as the unknown one is: as MCP lists them where it has an underscore and no dot', async () => {
    expect((await suggestToolNames('CodeHostApi_OpenPullRequest', tools, { search }))[0]).toBe('CodeHostApi_CreateCodehostPullRequest');
    expect((await suggestToolNames('CodeHostApi.OpenPullRequest', tools, { search }))[0]).toBe('CodeHostApi.CreateCodehostPullRequest');
    expect((await suggestToolNames('DeleteCodehostRepository', tools))[0]).toBe('CodeHostApi.DeleteCodehostRepository');
  });

  it('puts close spellings first, then what the search finds, each once', async () => {
    expect(await suggestToolNames('ListIssue', tools, { search })).toEqual([
      'HelpDesk.ListIssues',
      'CodeHostApi.ListCodehostIssues',
      'CodeHostApi.GetCodehostIssue',
    ]);
    expect(await suggestToolNames('ListIssue', tools, { search, limit: 1 })).toEqual(['HelpDesk.ListIssues']);
  });

  it('gives at most the limit, and nothing for a name like no tool', async () => {
    expect((await suggestToolNames('ListIssue', tools)).length).toBeLessThanOrEqual(3);
    expect(await suggestToolNames('ListIssue', tools, { limit: 1 })).toEqual(['HelpDesk.ListIssues']);
    expect(await suggestToolNames('SendAFaxToGrandma', tools, { search })).toEqual([]);
    // The search finds tools for one word of three ("list"), and for the action alone: not enough to suggest them.
    expect(names('list fax grandmas', { toolkit: 'CodeHostApi' }).length).toBeGreaterThan(0);
    expect(await suggestToolNames('CodeHostApi.ListFaxGrandmas', tools, { search })).toEqual([]);
    expect(await suggestToolNames('CodeHostApi.ListGrandmas', tools, { search })).toEqual([]);
    expect(await suggestToolNames('CodeHostApi.Foo', tools, { search })).toEqual([]);
  });

  it('words the suggestions for an error message', () => {
    expect(didYouMean([])).toBe('');
    expect(didYouMean(['A.B'])).toBe(' Did you mean A.B?');
    expect(didYouMean(['A.B', 'A.C', 'A.D'])).toBe(' Did you mean A.B, A.C or A.D?');
  });
});
