import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defineToolkit,
  executeTool,
  nextPageArguments,
  nextPageNote,
  ServingPolicy,
  UpstreamClient,
  withPagingKeys,
  type ToolData,
  type ToolResult,
} from '../src/index.js';

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

describe('a page cut to the response budget', () => {
  /** 100 items, each larger than the one before, so that pages are cut at ever other places. */
  const all = Array.from({ length: 100 }, (_, id) => ({ id, text: 'word '.repeat(20 + id * 3) }));
  const policy = new ServingPolicy({ maxResponseTokens: 1200 });
  const param = (name: string, upstream: string, type: string, extra: Record<string, unknown> = {}) => ({
    ...query(name, upstream, type),
    schema: { type, ...extra },
  });
  const toolOf = (name: string, parameters: ToolData['parameters']) =>
    defineToolkit({ name: 'Pages', version: '1.0.0', description: 'Pages.', baseUrl: 'http://127.0.0.1:9', tools: [{ ...data, name, parameters }] }).tools[0]!;
  const idsOf = (items: unknown) => (items as Array<{ id: number }>).map((item) => item.id);

  it('resumes a page-numbered list at the first item left out: following next_page skips and repeats nothing', async () => {
    const tool = toolOf('ListByPage', [param('results_page', 'page', 'integer'), param('results_per_page', 'per_page', 'integer')]);
    // GitHub: pages of per_page (default 30) from page 1, the next one told in the Link header (here, next_page).
    const call = async (args: Record<string, unknown>): Promise<ToolResult> => {
      const page = (args.results_page as number | undefined) ?? 1;
      const size = (args.results_per_page as number | undefined) ?? 30;
      const next = page * size < all.length ? { results_page: page + 1 } : undefined;
      return { value: all.slice((page - 1) * size, page * size), ...(next && { next_page: next, note: nextPageNote(next) }) };
    };
    const seen: number[] = [];
    let args: Record<string, unknown> = {};
    let cuts = 0;
    for (let calls = 0; calls < 200; calls++) {
      const result = await policy.run(tool, args, call);
      if ('error' in result) throw new Error(result.error.message);
      seen.push(...idsOf(result.value));
      if (result.note?.startsWith('[Result cut')) {
        cuts++;
        expect(result.note).toContain(
          `The next page starts at the first item left out: call this tool again with the same arguments and ${argumentsText(result.next_page!)}.`,
        );
      }
      if (!result.next_page) break;
      args = { ...args, ...result.next_page };
    }
    // Cut on the first page and past it (where the page size must divide the items before the resume point).
    expect(cuts).toBeGreaterThanOrEqual(2);
    expect(seen).toEqual(all.map((item) => item.id));
  });

  it('resumes an offset token in the body (MailClient’s pagination_token) at the first item left out', async () => {
    const tool = toolOf('ListByOffset', [param('limit', '$top', 'integer'), param('pagination_token', '$skip', 'string')]);
    const call = async (args: Record<string, unknown>): Promise<ToolResult> => {
      const skip = Number(args.pagination_token ?? 0);
      const top = (args.limit as number | undefined) ?? 10;
      const messages = all.slice(skip, skip + top);
      return { value: { messages, count: messages.length, ...(skip + top < all.length && { pagination_token: String(skip + top) }) } };
    };
    const first = await policy.run(tool, { limit: 20 }, call);
    if ('error' in first) throw new Error(first.error.message);
    const kept = idsOf((first.value as { messages: unknown }).messages).length;
    expect(kept).toBeLessThan(20);
    // The body's token and next_page both resume where the cut stopped, not at the page the upstream named.
    expect(first.next_page).toEqual({ pagination_token: String(kept) });
    expect((first.value as { pagination_token: string }).pagination_token).toBe(String(kept));

    const seen: number[] = [];
    let args: Record<string, unknown> = { limit: 20 };
    for (let calls = 0; calls < 200; calls++) {
      const result = await policy.run(tool, args, call);
      if ('error' in result) throw new Error(result.error.message);
      const value = result.value as { messages: unknown; pagination_token?: string };
      seen.push(...idsOf(value.messages));
      if (value.pagination_token === undefined) break;
      args = { ...args, pagination_token: value.pagination_token };
    }
    expect(seen).toEqual(all.map((item) => item.id));
  });

  it('drops an opaque cursor that would skip items, and says how to get them with the page size named', async () => {
    const tool = toolOf('ListByCursor', [param('max_results', 'limit', 'integer'), param('after_cursor', 'after', 'string')]);
    const cursor = (offset: number) => Buffer.from(`offset:${offset}`).toString('base64');
    const call = async (args: Record<string, unknown>): Promise<ToolResult> => {
      const start =
        args.after_cursor === undefined
          ? 0
          : Number(
              Buffer.from(args.after_cursor as string, 'base64')
                .toString()
                .split(':')[1],
            );
      const limit = (args.max_results as number | undefined) ?? 10;
      const results = all.slice(start, start + limit);
      const more = start + limit < all.length;
      return { value: { total: all.length, results, ...(more && { paging: { next: { after: cursor(start + limit) } } }) } };
    };
    const result = await policy.run(tool, { max_results: 50 }, call);
    if ('error' in result) throw new Error(result.error.message);
    const value = result.value as { total: number; results: unknown; paging?: unknown };
    const kept = idsOf(value.results).length;
    expect(kept).toBeLessThan(50);
    expect(result.next_page).toBeUndefined();
    expect(value.paging).toBeUndefined();
    expect(value.total).toBe(100);
    expect(result.note).toContain(
      `Its next page is not given: following it would skip the ${50 - kept} items cut here. To get them, call this tool again with the same arguments and max_results: ${kept}, then follow that answer's next page.`,
    );
    // Doing so: the same first items again, and a cursor that starts at the first item left out.
    const again = await policy.run(tool, { max_results: kept }, call);
    if ('error' in again) throw new Error(again.error.message);
    const next = (again.value as { paging: { next: { after: string } } }).paging.next.after;
    const rest = await policy.run(tool, { max_results: kept, after_cursor: next }, call);
    if ('error' in rest) throw new Error(rest.error.message);
    expect(idsOf((rest.value as { results: unknown }).results)[0]).toBe(kept);
  });

  it('leaves the next page alone when no item was left out', async () => {
    const tool = toolOf('ListByPage', [param('results_page', 'page', 'integer'), param('results_per_page', 'per_page', 'integer')]);
    const call = async (): Promise<ToolResult> => ({ value: all.slice(0, 2), next_page: { results_page: 2 }, note: nextPageNote({ results_page: 2 }) });
    expect(await policy.run(tool, { results_per_page: 2 }, call)).toEqual({
      value: all.slice(0, 2),
      next_page: { results_page: 2 },
      note: nextPageNote({ results_page: 2 }),
    });
  });
});

const argumentsText = (args: Record<string, unknown>) =>
  Object.entries(args)
    .map(([name, value]) => `${name}: ${JSON.stringify(value)}`)
    .join(', ');
