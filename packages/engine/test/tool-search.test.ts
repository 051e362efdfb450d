/** GET /v1/tools/search: a page of hits over every listed tool, built-in and workers'. */
import { defineToolkit, type ToolSource } from '@quiver/core';
import { startTestEngine, type TestEngine } from '@quiver/test-support/harness';
import { crmMarketing, repoHost } from '@quiver/toolkits';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const weather = defineToolkit({
  name: 'WeatherApi',
  version: '1.0.0',
  description: 'Forecasts.',
  baseUrl: 'http://127.0.0.1:9',
  tools: [{ name: 'GetForecast', description: 'Returns the weather forecast for a city.', parameters: [], output: { description: '' }, requirements: {} }],
});
const workerSource: ToolSource = {
  id: 'weather-worker',
  label: 'worker weather-worker',
  tools: async () => weather.tools,
  invoke: async () => ({ value: null }),
};

let engine: TestEngine;
beforeAll(async () => {
  engine = await startTestEngine('sqlite', { toolkits: [crmMarketing, repoHost] });
});
afterAll(() => engine?.close());

describe('GET /v1/tools/search', () => {
  it('answers a page of hits, best first, each a brief tool and its score', async () => {
    const { status, body } = await engine.api('GET', '/v1/tools/search?q=merge%20a%20pull%20request&limit=3');
    expect(status).toBe(200);
    expect(body).toMatchObject({ limit: 3, offset: 0, page_count: 3 });
    expect(body.total_count).toBeGreaterThan(3);
    expect(body.items[0]).toEqual({
      tool: {
        fully_qualified_name: `RepoHostApi.MergeRepohostPullRequest@${repoHost.version}`,
        qualified_name: 'RepoHostApi.MergeRepohostPullRequest',
        name: 'MergeRepohostPullRequest',
        description: expect.stringContaining('Merges a pull request'),
        toolkit: { name: 'RepoHostApi', description: repoHost.description, version: repoHost.version },
      },
      score: expect.any(Number),
    });
    const scores = body.items.map((item: { score: number }) => item.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('pages with offset and keeps to a toolkit', async () => {
    const first = await engine.api('GET', '/v1/tools/search?q=delete%20campaign&toolkit=crmmarketingapi&limit=2');
    const second = await engine.api('GET', '/v1/tools/search?q=delete%20campaign&toolkit=crmmarketingapi&limit=2&offset=2');
    const names = [...first.body.items, ...second.body.items].map((item: { tool: { qualified_name: string } }) => item.tool.qualified_name);
    expect(names).toHaveLength(4);
    expect(new Set(names).size).toBe(4);
    expect(names.every((name) => name.startsWith('CrmMarketingApi.'))).toBe(true);
  });

  it('refuses a request without a query', async () => {
    expect((await engine.api('GET', '/v1/tools/search')).status).toBe(400);
    expect((await engine.api('GET', '/v1/tools/search?q=')).status).toBe(400);
  });

  it("indexes a worker's tools once it is added, and forgets them once it is removed", async () => {
    const search = async () => (await engine.api('GET', '/v1/tools/search?q=weather%20forecast&limit=1')).body.items[0]?.tool.qualified_name;
    expect(await search()).not.toBe('WeatherApi.GetForecast');
    const { catalog } = engine.engine.dispatcher;
    const before = catalog.sourceList;
    catalog.setSources([workerSource, ...before]);
    expect(await search()).toBe('WeatherApi.GetForecast');
    catalog.setSources(before);
    expect(await search()).not.toBe('WeatherApi.GetForecast');
  });
});
