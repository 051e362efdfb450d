import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  annotationsOf,
  builtinSource,
  createToolIndex,
  functionName,
  qualifiedName,
  toMcpTool,
  toOpenAiFunction,
  toToolDefinition,
  suggestToolNames,
  ToolCatalog,
  UpstreamClient,
} from '@quiver/core';
import { toolkits } from '@quiver/toolkits';
import { readCatalog } from '../src/read-catalog.js';

/** The evaluation set bench/search.mjs measures the index on; here only its names are checked. */
const { items } = JSON.parse(readFileSync(new URL('../../../bench/search-eval.json', import.meta.url), 'utf8')) as {
  items: Array<{ query: string; expected: string[] }>;
};
const catalog = new ToolCatalog([builtinSource(toolkits, new UpstreamClient())]);
const index = await createToolIndex(await catalog.tools());
const known = new Set((await catalog.entries()).flatMap(({ tool }) => [qualifiedName(tool), functionName(tool)]));

describe('the search evaluation set', () => {
  it('names only tools that exist', () => {
    const named = items.flatMap((item) => item.expected);
    expect(named.length).toBeGreaterThan(400);
    expect(named.filter((name) => !known.has(name))).toEqual([]);
  });

  it('asks each request once, with at least one expected tool', () => {
    expect(new Set(items.map((item) => item.query)).size).toBe(items.length);
    expect(items.every((item) => item.expected.length > 0)).toBe(true);
  });
});

describe('search over the built-in tools', () => {
  // A sample of the evaluation set across toolkits, each with the tool it must rank among the first five.
  it.each([
    ['merge PR 55', 'RepoHostApi.MergeRepohostPullRequest'],
    ['take the wontfix label off issue 3', 'RepoHostApi.RemoveIssueLabel'],
    ['list my repositories', 'RepoHostApi.ListUserRepositories'],
    ['re-run only the failed jobs of run 123', 'RepoHostApi.RerunFailedRepohostWorkflowJobs'],
    ['add a $500 budget line for ads to the campaign', 'CrmMarketingApi.AddCampaignBudgetItem'],
    ['register a new worker at http://10.0.0.5:8002', 'ToolEngineApi.CreateWorker'],
  ])('finds the tool for "%s"', (query, expected) => {
    const top = index.search(query, { limit: 5 }).map((hit) => qualifiedName(hit.tool));
    expect(top).toContain(expected);
  });

  // Requests reported misranked before the phrases (316th, 25th, and 9th in discovery mode). Three more of
  // that report sit in the everyday set's held-out half: the benchmark counts them, and no test reads them.
  it.each([
    ['give bob write access to my repository', 'RepoHostApi.AddOrUpdateRepohostCollaborator', 1],
    ['tag issue 12 as a bug', 'RepoHostApi.AddLabelsToRepohostIssue', 1],
    ['open an issue on a repo', 'RepoHostApi.CreateRepohostIssue', 3],
  ])('"%s" ranks %s among the first %i', (query, expected, within) => {
    expect(index.search(query, { limit: within as number }).map((hit) => qualifiedName(hit.tool))).toContain(expected);
  });

  // An acronym's plural is one word: "PRs" was searched for as "p" and "rs" (the right tool 16th), "CVEs" as "c" and "ves".
  it.each([
    ['list the PRs on octo/app', 'list the prs on octo/app', 'RepoHostApi.ListPullRequests'],
    ['which CVEs affect octo/app', 'which cves affect octo/app', 'RepoHostApi.ListDependabotAlertsForRepo'],
  ])('"%s" ranks as "%s" does', (query, lower, expected) => {
    const top = (text: string) => index.search(text, { limit: 5 }).map((hit) => qualifiedName(hit.tool));
    expect(top(query)).toEqual(top(lower));
    expect(top(query)).toContain(expected);
  });

  // A request that names an earlier action to undo it asks for the inverse, which the catalog's verbs pair up.
  it.each([
    ['let mallory log in again, we suspended her by mistake', 'RepoHostApi.UnsuspendRepohostUser'],
    ['we locked issue 40 by accident, open the conversation again', 'RepoHostApi.UnlockRepohostIssue'],
    ['stop following octocat', 'RepoHostApi.UnfollowRepohostUser'],
  ])('"%s" puts %s first', (query, expected) => {
    expect(qualifiedName(index.search(query)[0]!.tool)).toBe(expected);
  });

  // A negated action is not asked for: no tool that does it comes above the one for what the request wants instead.
  it.each([
    ["don't delete the deploy keys, just show them to me", 'RepoHostApi.ListRepohostDeployKeys'],
    ['without deleting anything, list the repo webhooks', 'RepoHostApi.ListRepositoryWebhooks'],
  ])('"%s" puts no destructive tool above %s', (query, expected) => {
    const ranked = index.search(query).map((hit) => hit.tool);
    const at = ranked.findIndex((tool) => qualifiedName(tool) === expected);
    expect(at).toBeGreaterThanOrEqual(0);
    expect(at).toBeLessThan(3);
    expect(ranked.slice(0, at).filter((tool) => annotationsOf(tool).destructiveHint)).toEqual([]);
  });

  // Every toolkit is built: a sample whose tool was renamed fails here instead of being skipped.
  it.each([
    ['who am I logged in as on the support desk', 'SupportDesk.WhoAmI'],
    ['log 2 hours of time on that task', 'TaskboardApi.TrackTimeEntry'],
    ['send the draft I wrote earlier', 'MailClient.SendDraftEmail'],
    ['how much is shipping to Canada', 'CommerceTools.GetShippingRates'],
  ])('finds the tool of the smaller toolkits for "%s"', (query, expected) => {
    expect(known.has(expected)).toBe(true);
    expect(index.search(query, { limit: 5 }).map((hit) => qualifiedName(hit.tool))).toContain(expected);
  });
});

describe('did you mean, over the built-in tools', () => {
  const tools = toolkits.flatMap((toolkit) => toolkit.tools);
  const suggest = (name: string) => suggestToolNames(name, tools, { search: (query, options) => index.search(query, options) });

  it('suggests the tool a name means in other words, where no spelling is close', async () => {
    expect(await suggestToolNames('RepoHostApi_CreateIssue', tools)).toEqual([]);
    expect((await suggest('RepoHostApi_CreateIssue'))[0]).toBe('RepoHostApi_CreateRepohostIssue');
    expect(await suggest('MailClient.SendEmail')).toContain('MailClient.CreateAndSendEmail');
    expect((await suggest('RepoHostApi.RemoveRepo'))[0]).toBe('RepoHostApi.DeleteRepohostRepository');
  });

  // The search ranks the tools that name one pull request (`ListPullRequestCommits`) above `ListPullRequests` for "list prs".
  it('puts first the tool whose name has the same words, an acronym read as its phrase and a plural as its singular', async () => {
    expect((await suggest('RepoHostApi.ListPRs'))[0]).toBe('RepoHostApi.ListPullRequests');
    expect((await suggest('RepoHostApi_ListPRs'))[0]).toBe('RepoHostApi_ListPullRequests');
    expect((await suggest('ListPRs'))[0]).toBe('RepoHostApi.ListPullRequests');
  });

  // Spelling is compared in time that grows with the name's length: a megabyte held the process for minutes.
  it('suggests nothing, at once, for a name longer than any tool name can be', async () => {
    expect(await suggest(`RepoHostApi.${'ListPullRequests'.repeat(65_536)}`)).toEqual([]);
  });

  it('still puts a typo right first, and suggests nothing for a name like no tool', async () => {
    expect(await suggest('RepoHostApi.CreateRepohostIsue')).toEqual(['RepoHostApi.CreateRepohostIssue']);
    expect((await suggest('CreateRepohostIssue'))[0]).toBe('RepoHostApi.CreateRepohostIssue');
    expect(await suggest('SendAFaxToGrandma')).toEqual([]);
    expect(await suggest('RepoHostApi.Frobnicate')).toEqual([]);
    expect(await suggest('ToolEngineApi_ListKeys')).toEqual([]);
  });
});

describe('search phrases', () => {
  const tools = toolkits.flatMap((toolkit) => toolkit.tools);
  const phrasesOf = (tool: (typeof tools)[number]) => tool.toolkit.phrases?.()[tool.name] ?? [];

  it('every built-in tool has at least six, each a short request in lower case', () => {
    expect(tools.filter((tool) => phrasesOf(tool).length < 6).map(qualifiedName)).toEqual([]);
    const phrases = tools.flatMap(phrasesOf);
    expect(phrases.filter((phrase) => phrase !== phrase.toLowerCase() || phrase.split(' ').length > 14)).toEqual([]);
  });

  it('are indexed, never served', () => {
    const served = tools.map((tool) => JSON.stringify([toMcpTool(tool), toOpenAiFunction(tool), toToolDefinition(tool)]));
    const phrase = phrasesOf(tools[0]!)[0]!;
    expect(served.some((definition) => definition.includes(phrase) || definition.includes('"phrases"'))).toBe(false);
  });

  it('are read only when an index asks for them, and refused for a tool the catalog does not have', () => {
    const dir = mkdtempSync(join(tmpdir(), 'quiver-phrases-'));
    try {
      const catalog = {
        name: 'Demo',
        version: '1.0.0',
        description: '',
        baseUrl: 'http://127.0.0.1:9',
        tools: [{ name: 'ListThings', description: '', parameters: [], output: { description: '' }, requirements: {} }],
      };
      writeFileSync(join(dir, 'catalog.json'), JSON.stringify(catalog));
      writeFileSync(join(dir, 'phrases.json'), '{ not yet json');
      const early = readCatalog(pathToFileURL(join(dir, 'catalog.json')));
      writeFileSync(join(dir, 'phrases.json'), JSON.stringify({ ListThings: ['show my things'] }));
      expect(early.phrases?.()).toEqual({ ListThings: ['show my things'] });
      expect(readCatalog(pathToFileURL(join(dir, 'catalog.json'))).phrases?.()).toEqual({ ListThings: ['show my things'] });
      writeFileSync(join(dir, 'phrases.json'), JSON.stringify({ ListThings: ['show my things'], ListThigns: ['typo'] }));
      const misspelt = readCatalog(pathToFileURL(join(dir, 'catalog.json')));
      expect(() => misspelt.phrases?.()).toThrow('Demo: search phrases for unknown tools: ListThigns');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
