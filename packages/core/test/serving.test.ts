import { describe, expect, it } from 'vitest';
import {
  capResult,
  confirmationMessage,
  estimateTokens,
  defineToolkit,
  selectFields,
  ServingPolicy,
  type HttpMethod,
  type Tool,
  type ToolData,
  type ToolResult,
} from '../src/index.js';

const tool = (name: string, method: HttpMethod, parameters: ToolData['parameters'] = []): ToolData => ({
  name,
  description: `${name}.`,
  parameters,
  output: { description: 'JSON.' },
  requirements: {},
  http: { method, path: `/${name}` },
});

const paging: ToolData['parameters'] = [
  { name: 'results_per_page', description: 'Page size.', required: false, schema: { type: 'integer' }, in: 'query', upstream: 'per_page' },
  { name: 'results_page_number', description: 'Page.', required: false, schema: { type: 'integer' }, in: 'query', upstream: 'page' },
];

const things = defineToolkit({
  name: 'Things',
  version: '1.0.0',
  description: 'Things.',
  baseUrl: 'http://127.0.0.1:1',
  tools: [tool('ListThings', 'GET', paging), tool('CreateThing', 'POST'), tool('DeleteThing', 'DELETE'), tool('GetThing', 'GET')],
});
const other = defineToolkit({ name: 'Other', version: '1.0.0', description: 'Other.', baseUrl: 'http://127.0.0.1:1', tools: [tool('GetOther', 'GET')] });
const [list, create, remove, get] = things.tools as [Tool, Tool, Tool, Tool];
const getOther = other.tools[0]!;

/** A call that records the arguments it got and answers with `value`. */
function recorder(value: unknown) {
  const calls: Array<Record<string, unknown>> = [];
  return { calls, call: async (args: Record<string, unknown>): Promise<ToolResult> => (calls.push(args), { value }) };
}

describe('tool selection', () => {
  it('offers the chosen toolkits and tools, minus exclusions, in either name form', () => {
    const policy = new ServingPolicy({ toolkits: ['things'], tools: ['Other_GetOther'], excludeTools: ['Things.CreateThing'] });
    expect([list, create, remove, get, getOther].map((t) => policy.offers(t))).toEqual([true, false, true, true, true]);
    expect(new ServingPolicy({ tools: ['Other.GetOther'] }).offers(list)).toBe(false);
  });

  it('refuses a tool left out, at dispatch, without calling it', async () => {
    const { calls, call } = recorder({});
    const result = await new ServingPolicy({ toolkits: ['Other'] }).run(list, {}, call);
    expect(result).toMatchObject({ error: { kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE', message: expect.stringContaining('not offered by this server') } });
    expect(calls).toEqual([]);
  });

  it('read-only offers and runs only tools that read', async () => {
    const policy = new ServingPolicy({ readOnly: true });
    expect([list, create, remove].map((t) => policy.offers(t))).toEqual([true, false, false]);
    const { calls, call } = recorder({});
    const refused = await policy.run(create, {}, call);
    expect(refused).toMatchObject({
      error: { kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE', can_retry: false, message: expect.stringContaining('this server is read-only') },
    });
    expect(calls).toEqual([]);
    expect(await policy.run(get, {}, call)).toEqual({ value: {} });
  });

  it('narrows to a policy that keeps the other options, the same one for the same change', () => {
    const policy = new ServingPolicy({ excludeTools: ['Things.GetThing'], maxResponseTokens: 500 });
    const readOnly = policy.narrowed({ readOnly: true });
    expect([list, create, get].map((t) => readOnly.offers(t))).toEqual([true, false, false]);
    expect(readOnly.maxResponseTokens).toBe(500);
    expect(policy.narrowed({ readOnly: true })).toBe(readOnly);
    expect(policy.narrowed({ excludeToolkits: ['Other'] })).not.toBe(readOnly);
    expect(policy.offers(create)).toBe(true);
  });
});

describe('confirmation of destructive tools', () => {
  const policy = new ServingPolicy({ confirmDestructive: true });

  it('lists confirm as a required parameter of destructive tools only', () => {
    expect(policy.inputSchema(remove)).toMatchObject({ properties: { confirm: { type: 'boolean' } }, required: ['confirm'] });
    expect(policy.inputSchema(create).properties).not.toHaveProperty('confirm');
    expect(new ServingPolicy().inputSchema(remove).properties).not.toHaveProperty('confirm');
  });

  it('refuses without confirm: true and strips confirm before the call', async () => {
    const { calls, call } = recorder({ deleted: true });
    for (const input of [{}, { confirm: false }, { confirm: 'yes' }]) {
      const refused = await policy.run(remove, input, call);
      expect(refused).toMatchObject({ error: { kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE', additional_prompt_content: expect.stringContaining('Ask the user') } });
    }
    expect(calls).toEqual([]);
    expect(await policy.run(remove, { confirm: true }, call)).toEqual({ value: { deleted: true } });
    expect(calls).toEqual([{}]);
  });

  it("asks the person, where the caller can, and follows their answer; the model's confirm: true needs no asking", async () => {
    const { calls, call } = recorder({ deleted: true });
    const asked: Record<string, unknown>[] = [];
    const answering = (answer: boolean | undefined) => async (_tool: Tool, args: Record<string, unknown>) => {
      asked.push(args);
      return answer;
    };
    expect(await policy.run(remove, { confirm: false, fields: ['id'] }, call, answering(false))).toMatchObject({
      error: { kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE', message: expect.stringContaining('the user declined it') },
    });
    expect(await policy.run(remove, {}, call, answering(undefined))).toMatchObject({
      error: { additional_prompt_content: expect.stringContaining('Ask the user') },
    });
    expect(calls).toEqual([]);
    expect(await policy.run(remove, {}, call, answering(true))).toEqual({ value: { deleted: true } });
    expect(await policy.run(remove, { confirm: true }, call, answering(false))).toEqual({ value: { deleted: true } });
    expect(calls).toEqual([{}, {}]);
    // The person is shown the tool's own arguments, without the server's.
    expect(asked).toEqual([{}, {}, {}]);
  });

  it('shows the person the arguments with secret-looking values left out', () => {
    const message = confirmationMessage(remove, {
      id: '7c9e6679-7425-40de-944b-e07cc1e46999',
      name: 'Quarterly report',
      api_key: 'short',
      nested: { password: 'hunter2', note: 'Bearer abc', list: ['ghp_0123456789abcdef', 'kept'] },
      opaque: 'a8F3kLq9ZmN2xR7vT4bW1cY6dE0s',
      address: 'https://user:pa55@host.example/x',
    });
    expect(message).toContain('Things.DeleteThing');
    for (const shown of ['7c9e6679-7425-40de-944b-e07cc1e46999', 'Quarterly report', 'kept']) expect(message).toContain(shown);
    for (const hidden of ['short', 'hunter2', 'Bearer', 'ghp_', 'a8F3k', 'pa55']) expect(message).not.toContain(hidden);
  });
});

describe('field selection', () => {
  const repos = {
    total_count: 2,
    items: [
      { id: 1, name: 'a', owner: { login: 'x', id: 9 } },
      { id: 2, name: 'b', owner: { login: 'y', id: 8 } },
    ],
  };

  it('projects dotted paths through arrays', () => {
    expect(selectFields(repos, ['total_count', 'items.owner.login'])).toEqual({
      total_count: 2,
      items: [{ owner: { login: 'x' } }, { owner: { login: 'y' } }],
    });
    expect(selectFields(repos.items, ['id', 'owner', 'owner.id'])).toEqual([
      { id: 1, owner: { login: 'x', id: 9 } },
      { id: 2, owner: { login: 'y', id: 8 } },
    ]);
  });

  it('is listed on every tool, applied to the result and never sent upstream', async () => {
    const policy = new ServingPolicy();
    expect(policy.inputSchema(create).properties).toHaveProperty('fields');
    const { calls, call } = recorder(repos);
    expect(await policy.run(list, { results_per_page: 2, fields: ['items.id'] }, call)).toEqual({ value: { items: [{ id: 1 }, { id: 2 }], total_count: 2 } });
    expect(calls).toEqual([{ results_per_page: 2 }]);
  });

  it('is not offered where the result is text, and is not taken there', async () => {
    const text = { ...create, output: { description: 'JSON text.', schema: { type: 'string' } } };
    const policy = new ServingPolicy();
    expect(policy.inputSchema(text).properties).not.toHaveProperty('fields');
    const { calls, call } = recorder('{"id":1}');
    await policy.run(text, { fields: ['id'] }, call);
    expect(calls).toEqual([{ fields: ['id'] }]);
  });

  it('rejects a malformed selection and says when nothing matched', async () => {
    const policy = new ServingPolicy();
    expect(await policy.run(list, { fields: 'id' }, recorder(repos).call)).toMatchObject({ error: { kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE' } });
    const none = await policy.run(list, { fields: ['nope'] }, recorder(repos).call);
    // The paging keys stay, and the note names the dotted paths that would match, through the list.
    expect(none).toEqual({
      value: { total_count: 2 },
      note: 'None of the fields nope is in the result. Paths it has include: total_count, items, items.id, items.name, items.owner, items.owner.login, items.owner.id.',
    });
  });

  it('keeps the next page and its note when a selection matches nothing, and bounds the paths it suggests', async () => {
    const policy = new ServingPolicy();
    const call = async () => ({ value: { issues: [{ title: 'a' }], next_cursor: 'c2' }, next_page: { results_page_number: 2 }, note: '[More results]' });
    expect(await policy.run(list, { fields: ['title'] }, call)).toEqual({
      value: { next_cursor: 'c2' },
      next_page: { results_page_number: 2 },
      note: 'None of the fields title is in the result. Did you mean issues.title? Paths it has include: issues, next_cursor, issues.title.\n[More results]',
    });
    const wide = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`field_${i}`, { inner: i }]));
    const many = await policy.run(list, { fields: ['nope'] }, recorder(wide).call);
    const paths = ('note' in many && many.note!.split('include: ')[1]!.replace(/\.$/, '').split(', ')) || [];
    expect(paths).toHaveLength(40);
    expect(paths.at(-1)).toBe('field_39');
  });
});

describe('response budget', () => {
  const items = Array.from({ length: 200 }, (_, i) => ({ id: i, name: `repository-${i}`, description: 'x'.repeat(200) }));

  it('leaves a result within the budget as it is', () => {
    expect(capResult({ items: items.slice(0, 3) }, list, 1000, true)).toEqual({ value: { items: items.slice(0, 3) } });
  });

  it('cuts the largest list to the items that fit and names the paging parameters', () => {
    const { value, note } = capResult({ total_count: 200, items }, list, 2000, true);
    const kept = (value as { items: unknown[] }).items;
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(200);
    expect(kept).toEqual(items.slice(0, kept.length));
    expect((value as { total_count: number }).total_count).toBe(200);
    expect(estimateTokens(JSON.stringify(value))).toBeLessThanOrEqual(2000);
    expect(note).toContain(`Showing the first ${kept.length} of 200 items of "items"`);
    expect(note).toContain(
      `The next page starts at the first item left out: call this tool again with the same arguments and results_page_number: 2, results_per_page: ${kept.length}.`,
    );
    expect(note).toContain('"fields"');
  });

  it('keeps an oversized single item whole JSON: its plain fields, the nested ones named', () => {
    const big = { id: 7, name: 'big', owner: { login: 'octocat', bio: 'z'.repeat(20_000) }, files: ['y'.repeat(50_000)] };
    const { value, note } = capResult(big, get, 1000, true);
    expect(value).toEqual({ id: 7, name: 'big' });
    expect(note).toContain('Showing only its plain (not nested) fields. Left out, as too large: owner, files.');
    expect(note).toContain('pass "fields" with the paths you need, e.g. ["owner"]');
    expect(capResult(big, get, 0, true)).toEqual({ value: big });
  });

  it('gives list items their plain fields when not one item fits, then cuts the list', () => {
    const heavy = Array.from({ length: 50 }, (_, i) => ({ id: i, body: { text: 'w '.repeat(5_000) } }));
    const { value, note } = capResult({ total_count: 50, items: heavy }, list, 1000, true);
    expect(value).toEqual({ total_count: 50, items: heavy.map(({ id }) => ({ id })) });
    expect(note).toContain('Left out, as too large: items.body.');
  });

  // Cutting the object that holds the list would drop the list, and say "the first 0 of its 0 plain fields".
  it("keeps the list with its first item's leading plain fields when not even one item's plain fields fit", () => {
    const wide = (id: number) => ({ id, ...Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`field_${i}`, 'v '.repeat(200)])), user: { login: 'x' } });
    const { value, note, leftOut } = capResult({ total_count: 3, items: [wide(1), wide(2), wide(3)] }, list, 400, true);
    const [first, ...others] = (value as { items: Array<Record<string, unknown>> }).items;
    expect(others).toEqual([]);
    expect(first!.id).toBe(1);
    expect(Object.keys(first!).length).toBeGreaterThan(1);
    expect(Object.keys(first!).length).toBeLessThan(41);
    expect((value as { total_count: number }).total_count).toBe(3);
    expect(estimateTokens(JSON.stringify(value))).toBeLessThanOrEqual(400);
    expect(note).toMatch(
      /Showing only the first \d+ of 41 plain fields of the first of the 3 items of "items", long texts shortened\. Left out, as too large: items\.user\./,
    );
    // The next page starts after the item shown, as after any cut list.
    expect(leftOut).toEqual({ next_page: { results_page_number: 2, results_per_page: 1 } });
    const alone = capResult([wide(9)], list, 400, true);
    expect((alone.value as unknown[]).length).toBe(1);
    expect(alone.note).toContain('plain fields of the only item of the list');
    expect(alone.leftOut).toBeUndefined();
  });

  it('shortens the texts of one huge plain object, and cuts a text result as text', () => {
    const flat = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`field_${i}`, 'v '.repeat(2_000)]));
    const { value, note } = capResult(flat, get, 1000, false);
    expect(estimateTokens(JSON.stringify(value))).toBeLessThanOrEqual(1000);
    expect(Object.keys(value as object).length).toBeGreaterThan(0);
    expect(note).toMatch(/Showing only the first \d+ of its 40 plain fields, long texts shortened/);
    const text = capResult('word '.repeat(10_000), get, 1000, false);
    expect(typeof text.value).toBe('string');
    expect(estimateTokens(text.value as string)).toBeLessThanOrEqual(1000);
    expect(text.note).toMatch(/characters of the text/);
  });

  it('keeps every paging key through a field selection and passes a next page on', async () => {
    const page = { results: [{ id: 1, name: 'a' }], has_more: true, cursor: 'c2', paging: { next: { after: '2' } } };
    const policy = new ServingPolicy();
    const call = async () => ({ value: page, next_page: { page: 2 }, note: 'more' });
    expect(await policy.run(list, { fields: ['results.id'] }, call)).toEqual({
      value: { results: [{ id: 1 }], has_more: true, cursor: 'c2', paging: { next: { after: '2' } } },
      next_page: { page: 2 },
      note: 'more',
    });
  });

  it('applies the server budget after the field selection', async () => {
    const policy = new ServingPolicy({ maxResponseTokens: 1000 });
    const result = await policy.run(list, {}, recorder(items).call);
    expect(result).toMatchObject({ note: expect.stringContaining('of 200 items of the list') });
    const selected = await policy.run(list, { fields: ['id'] }, recorder(items).call);
    expect(selected).toEqual({ value: items.map(({ id }) => ({ id })) });
  });
});
