import { describe, expect, it } from 'vitest';
import { checkInput, defineToolkit, executeTool, ServingPolicy, withoutNulls, type ToolData, type UpstreamClient } from '../src/index.js';
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
