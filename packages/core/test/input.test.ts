import { describe, expect, it } from 'vitest';
import {
  answerOfShape,
  buildRequest,
  checkInput,
  defineToolkit,
  executeTool,
  ServingPolicy,
  withoutNulls,
  type HttpBinding,
  type ToolData,
  type UpstreamClient,
} from '../src/index.js';
import type { UpstreamRequest } from '../src/request.js';

const data: ToolData = {
  name: 'UpdateThing',
  description: 'Updates a thing.',
  parameters: [
    { name: 'id', description: 'Id of the thing.', required: true, schema: { type: 'integer' }, in: 'path', upstream: 'id' },
    { name: 'title', description: 'New title of the thing.', required: false, schema: { type: 'string' }, in: 'body', upstream: 'title' },
    { name: 'due', description: 'Due date, or null to clear it.', required: false, schema: { type: ['string', 'null'] }, in: 'body', upstream: 'due' },
    {
      name: 'owner',
      description: 'Owner of the thing.',
      required: false,
      schema: { type: 'object', properties: { login: { type: 'string' }, team: { type: 'string' } } },
      in: 'body',
      upstream: 'owner',
    },
  ],
  output: { description: 'The thing.' },
  requirements: {},
  http: { method: 'PATCH', path: '/things/{id}' },
};
const [tool] = defineToolkit({ name: 'Things', version: '1.0.0', description: 'Things.', baseUrl: 'http://127.0.0.1:9', tools: [data] }).tools;

describe('null as absent (OpenAI strict mode sends null for optional parameters)', () => {
  it('drops nulls the schema does not allow, at any depth, and keeps those it allows', () => {
    const schema = { type: 'object', properties: Object.fromEntries(data.parameters.map((p) => [p.name, p.schema])) };
    expect(withoutNulls(schema, { id: 1, title: null, due: null, owner: { login: 'mona', team: null } })).toEqual({
      id: 1,
      due: null,
      owner: { login: 'mona' },
    });
  });

  it('runs a strict-mode call as if the nulls were left out, and still names a missing required parameter', async () => {
    const sent: unknown[] = [];
    const policy = new ServingPolicy();
    const call = async (args: Record<string, unknown>) => {
      sent.push(args);
      return { value: { ok: true } };
    };
    expect(await policy.run(tool!, { id: 1, title: null, due: null, owner: null, fields: null }, call)).toEqual({ value: { ok: true } });
    expect(sent).toEqual([{ id: 1, title: null, due: null, owner: null }]);
    const requests: UpstreamRequest[] = [];
    const client = { send: async (request: UpstreamRequest) => (requests.push(request), { response: { status: 200, headers: {}, body: { ok: true } } }) };
    const context = { baseUrl: 'http://127.0.0.1:9', secrets: {}, client: client as unknown as UpstreamClient };
    expect(await executeTool(tool!, { id: 1, title: null, due: null, owner: { login: 'mona', team: null } }, context)).toEqual({ value: { ok: true } });
    expect(JSON.parse(requests[0]!.body as string)).toEqual({ owner: { login: 'mona' } });
    expect(checkInput(tool!, withoutNulls({ type: 'object', properties: { id: { type: 'integer' } } }, { id: null }))).toMatchObject({
      error: { kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE', message: expect.stringContaining("'id'") },
    });
  });
});

describe('text no request can carry', () => {
  const bound = {
    ...data,
    parameters: [
      ...data.parameters,
      { name: 'note', description: 'A header.', required: false, schema: { type: 'string' }, in: 'header' as const, upstream: 'X-Note' },
    ],
    http: data.http!,
  } as ToolData & { http: HttpBinding };
  const refusal = (input: Record<string, unknown>, requestBody?: unknown) => {
    const built = buildRequest(bound, input, 'http://127.0.0.1:9', requestBody);
    return 'error' in built ? built.error.message : `sent ${built.url}`;
  };

  it('refuses a lone surrogate that handler code puts in a path, a body or a request body, naming where, instead of throwing', () => {
    expect(refusal({ id: 'a\ud800' })).toContain("parameter 'id' contains a lone surrogate (an unpaired UTF-16 code unit)");
    expect(refusal({ id: 1, owner: { login: ['x', '\udc00'] } })).toContain("parameter 'owner.login[1]' contains a lone surrogate");
    expect(refusal({ id: 1 }, { items: [{ 'key\ud83d': 1 }] })).toContain("parameter 'request_body.items[0]' contains a lone surrogate");
    expect(refusal({ id: 1, title: 'a pair is text: \u{1F600}' })).toBe('sent http://127.0.0.1:9/things/1');
  });

  it('refuses a header value beyond printable ASCII, and keeps a tab', () => {
    expect(refusal({ id: 1, note: 'caf\u00e9' })).toContain(
      "parameter 'note' must be printable ASCII (it is sent as an HTTP header), not 'é' (U+00E9), which is not ASCII",
    );
    expect(refusal({ id: 1, note: 'a\u001bb' })).toContain('not a control character (U+001B)');
    expect(refusal({ id: 1, note: 'a\tb' })).toBe('sent http://127.0.0.1:9/things/1');
  });

  it('percent-encodes control characters in a path value', () => {
    expect(refusal({ id: 'a\u0001\u007f\nb' })).toBe('sent http://127.0.0.1:9/things/a%01%7F%0Ab');
  });

  it('names the parameter and the place of a lone surrogate in the input, before anything runs', () => {
    expect(checkInput(tool!, { id: 1, owner: { login: 'x\udfff' } })?.error.message).toContain("parameter 'owner.login' contains a lone surrogate");
  });
});

describe('upstream answers of the wrong shape', () => {
  const shape = { type: 'object', required: ['items'], properties: { items: { type: 'array', items: { type: 'object', required: ['id'] } } } };

  it.each([
    [{ items: [] }, undefined],
    [{}, 'expected items to be present, got nothing'],
    [{ items: { id: 1 } }, 'expected items to be an array, got an object with the field id'],
    [{ items: [{ id: 1 }, {}] }, 'expected items[1].id to be present, got nothing'],
    [null, 'expected the answer to be an object, got null'],
    ['<html>', 'expected the answer to be an object, got text of 6 characters'],
    [[1, 2], 'expected the answer to be an object, got a list of 2 items'],
  ])('%j: %s', (answer, problem) => {
    const checked = answerOfShape(tool!, answer, shape);
    if (problem === undefined) return void expect(checked).toEqual({ value: answer });
    expect(checked).toEqual({
      error: {
        kind: 'UPSTREAM_RUNTIME_UNEXPECTED_RESPONSE',
        can_retry: false,
        message: `The upstream service's answer to UpdateThing is not what that operation answers: ${problem}. The answer was not used; calling again will most likely get the same.`,
        developer_message: `PATCH /things/{id}: answer of an unexpected shape: ${problem}.`,
      },
    });
  });
});
