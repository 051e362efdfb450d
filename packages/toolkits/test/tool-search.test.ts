import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { builtinSource, createToolIndex, functionName, qualifiedName, ToolCatalog, UpstreamClient } from '@quiver/core';
import { toolkits } from '@quiver/toolkits';

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
