import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineToolkit, executeTool, nextPageArguments, nextPageNote, UpstreamClient, withPagingKeys, type ToolData } from '../src/index.js';

const query = (name: string, upstream: string, type: string) => ({
  name,
  description: name,
  required: false,
  schema: { type },
  in: 'query' as const,
  upstream,
});

const data: ToolData = {
  name: 'ListThings',
  description: 'Lists things.',
  parameters: [query('results_page', 'page', 'integer'), query('results_per_page', 'per_page', 'integer'), query('cursor_after', 'after', 'string')],
  output: { description: 'Things.' },
  requirements: {},
  http: { method: 'GET', path: '/things' },
};
const [tool] = defineToolkit({ name: 'Things', version: '1.0.0', description: 'Things.', baseUrl: 'http://127.0.0.1:9', tools: [data] }).tools;

let link: string | undefined;
let baseUrl = '';
const upstream = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', ...(link && { link: link.replace(/BASE/g, baseUrl) }) }).end('[{"id":1}]');
});
beforeAll(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => upstream.close(resolve)));

describe('next page from the Link header', () => {
  it('names the next page in the tool’s own parameters, typed as they are declared', () => {
    const headers = { link: '<https://api.example/things?page=3&per_page=50>; rel="next", <https://api.example/things?page=9&per_page=50>; rel="last"' };
    expect(nextPageArguments(tool!, headers, { results_page: 2, results_per_page: 50 })).toEqual({ results_page: 3 });
    expect(nextPageArguments(tool!, { link: '<https://api.example/things?after=abc%3D>; rel="next"' }, {})).toEqual({ cursor_after: 'abc=' });
  });

  it('gives nothing without a next link or when the link uses none of the tool’s parameters', () => {
    expect(nextPageArguments(tool!, {}, {})).toBeUndefined();
    expect(nextPageArguments(tool!, { link: '<https://api.example/things?page=1>; rel="prev"' }, {})).toBeUndefined();
    expect(nextPageArguments(tool!, { link: '<https://api.example/things?since=5>; rel="next"' }, {})).toBeUndefined();
  });

  it('reaches the result of a call, with a note the model can follow', async () => {
    const context = { client: new UpstreamClient({ maxRetries: 0 }), baseUrl, secrets: {} };
    link = '<BASE/things?page=2&per_page=1>; rel="next"';
    const result = await executeTool(tool!, { results_per_page: 1 }, context);
    expect(result).toEqual({ value: [{ id: 1 }], next_page: { results_page: 2 }, note: nextPageNote({ results_page: 2 }) });
    expect(nextPageNote({ results_page: 2 })).toBe('[More results: call this tool again with the same arguments and results_page: 2 for the next page.]');
    link = undefined;
    expect(await executeTool(tool!, {}, context)).toEqual({ value: [{ id: 1 }] });
    await context.client.close();
  });
});

describe('paging keys', () => {
  it('puts back the top-level paging keys a selection dropped, and nothing else', () => {
    const original = { data: [{ id: 1, name: 'a' }], pagination: { cursor: 'x', has_next_page: true }, has_more: true, other: 1 };
    expect(withPagingKeys({ data: [{ id: 1 }] }, original)).toEqual({ data: [{ id: 1 }], pagination: { cursor: 'x', has_next_page: true }, has_more: true });
    expect(withPagingKeys([{ id: 1 }], original)).toEqual([{ id: 1 }]);
  });
});
