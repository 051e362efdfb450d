import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  defineToolkit,
  executeTool,
  formatTool,
  functionName,
  localDispatcher,
  qualifiedName,
  UpstreamClient,
  type JsonSchema,
  type Parameter,
  type Tool,
  type ToolContext,
  type ToolData,
} from '../src/index.js';

/** A loopback upstream that records each request and answers with a scripted status and body. */
let received: Array<{ method: string; url: string; headers: Record<string, unknown>; body: string }> = [];
let answer = { status: 200, body: '{"id":"1"}' };
let baseUrl = '';
const upstream = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
  });
});

const param = (name: string, schema: JsonSchema, place: Pick<Parameter, 'in' | 'upstream' | 'explode'>, required = false): Parameter => ({
  name,
  description: name,
  required,
  schema,
  ...place,
});

const tools: ToolData[] = [
  {
    name: 'CreateThing',
    description: 'Creates a thing.',
    parameters: [
      param('owner', { type: 'string' }, { in: 'path', upstream: 'owner' }, true),
      param('tags', { type: 'array', items: { type: 'string' } }, { in: 'query', upstream: 'tag' }),
      param('fields', { type: 'array', items: { type: 'string' } }, { in: 'query', upstream: 'fields', explode: false }),
      param('dry_run', { type: 'boolean' }, { in: 'query', upstream: 'dryRun' }),
      param('trace', { type: 'string' }, { in: 'header', upstream: 'X-Trace' }),
      param('title', { type: 'string' }, { in: 'body', upstream: 'title' }, true),
      param('author_email', { type: 'string' }, { in: 'body', upstream: 'author.email' }),
      param('author_name', { type: 'string' }, { in: 'body', upstream: 'author.name' }),
      param('color', { type: 'string', enum: ['red', 'blue'] }, { in: 'body', upstream: 'color' }),
      param('count', { type: 'integer' }, { in: 'body', upstream: 'count' }),
    ],
    output: { description: 'The thing.' },
    requirements: { oauth2: { provider: 'example', scopes: ['things.write'] } },
    http: { method: 'POST', path: '/owners/{owner}/things', contentType: 'application/json' },
  },
  {
    name: 'RenderText',
    description: 'Renders text.',
    parameters: [param('text', { type: 'string' }, { in: 'body', upstream: 'text' }, true)],
    output: { description: 'Rendered.' },
    requirements: { secrets: [{ key: 'EXAMPLE_KEY' }, { key: 'EXAMPLE_SERVER_URL', optional: true }] },
    http: { method: 'POST', path: '/render', contentType: 'text/plain', baseUrlSecret: 'EXAMPLE_SERVER_URL' },
  },
  {
    name: 'CreateBatch',
    description: 'Creates things in a batch.',
    parameters: [
      { name: 'mode', description: 'mode', required: true, schema: { type: 'string', enum: ['get_request_schema', 'execute'] } },
      param('owner', { type: 'string' }, { in: 'path', upstream: 'owner' }),
      { name: 'request_body', description: 'body', required: false, schema: { type: 'string' } },
    ],
    output: { description: 'Created.' },
    requirements: { oauth2: { provider: 'example', scopes: [] } },
    http: { method: 'POST', path: '/owners/{owner}/batch' },
    requestBody: {
      contentType: 'application/json',
      schema: {
        type: 'object',
        required: ['inputs'],
        additionalProperties: false,
        properties: { inputs: { type: 'array', maxItems: 2, items: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } } },
      },
    },
  },
];
const toolkit = defineToolkit({ name: 'Example', version: '1.2.3', description: 'Example toolkit.', baseUrl: 'unused', tools });
const [createThing, renderText, createBatch] = toolkit.tools as [(typeof toolkit.tools)[0], (typeof toolkit.tools)[0], (typeof toolkit.tools)[0]];

/** The call as every caller makes it: through the dispatcher, which keeps the call's credentials out of its result. */
const dispatched = (tool: Tool, input: Record<string, unknown>, { baseUrl: url, token, secrets, client }: ToolContext) =>
  localDispatcher([{ ...tool.toolkit, baseUrl: url, tools: [tool] }], { client, token, secrets }).call(qualifiedName(tool), input);

let context: ToolContext;
beforeAll(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/api/`;
  context = { baseUrl, token: 'tok-secret-123', secrets: { EXAMPLE_KEY: 'key-value-456', OTHER: 'x' }, client: new UpstreamClient({ maxRetries: 0 }) };
});
afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));
beforeEach(() => {
  received = [];
  answer = { status: 200, body: '{"id":"1"}' };
});

describe('request building', () => {
  it('places path, repeated query, header, and nested body fields', async () => {
    const result = await executeTool(
      createThing,
      { owner: 'a b', tags: ['x', 'y'], fields: ['id', 'name'], dry_run: false, trace: 't-1', title: 'Hi', author_email: 'e@x.io', author_name: 'E', count: 3 },
      context,
    );
    expect(result).toEqual({ value: { id: '1' } });
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe('/api/owners/a%20b/things?tag=x&tag=y&fields=id%2Cname&dryRun=false');
    expect(request!.headers['x-trace']).toBe('t-1');
    expect(request!.headers.authorization).toBe('Bearer tok-secret-123');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request!.body)).toEqual({ title: 'Hi', author: { email: 'e@x.io', name: 'E' }, count: 3 });
  });

  it('sends an empty body where the upstream requires one and no body field is given', async () => {
    const [tool] = defineToolkit({
      name: 'B',
      version: '1',
      description: '',
      baseUrl,
      tools: [{ ...tools[0]!, parameters: tools[0]!.parameters.filter((p) => p.in !== 'body'), http: { ...tools[0]!.http!, bodyRequired: true } }],
    }).tools;
    await executeTool(tool!, { owner: 'o' }, context);
    expect(received[0]!.body).toBe('{}');
    expect(received[0]!.headers['content-type']).toBe('application/json');
  });

  it('sends a raw body with its content type', async () => {
    await executeTool(renderText, { text: '# Title' }, context);
    expect(received[0]!.headers['content-type']).toBe('text/plain');
    expect(received[0]!.body).toBe('# Title');
  });

  it('answers a handler that throws, even before it returns a promise, with a rejected promise', async () => {
    const [throwing] = defineToolkit(
      {
        name: 'T',
        version: '1',
        description: '',
        baseUrl,
        tools: [{ name: 'Boom', description: 'Throws.', parameters: [], output: { description: 'Nothing.' }, requirements: {} }],
      },
      {
        Boom: () => {
          throw new Error('boom');
        },
      },
    ).tools;
    let called: Promise<unknown> | undefined;
    expect(() => {
      called = executeTool(throwing!, {}, context);
    }).not.toThrow();
    await expect(called).rejects.toThrow('boom');
  });

  it('describes an empty success instead of returning nothing', async () => {
    answer = { status: 204, body: '' };
    expect(await executeTool(createThing, { owner: 'o', title: 't' }, context)).toEqual({ value: { success: true, status: 204 } });
  });
});

describe('input validation', () => {
  it.each([
    [{ title: 't' }, "parameter 'owner' is required"],
    [{ owner: 'o', title: 5 }, "parameter 'title' must be a string"],
    [{ owner: 'o', title: 't', count: 1.5 }, "parameter 'count' must be an integer"],
    [{ owner: 'o', title: 't', color: 'green' }, "parameter 'color' must be one of: 'red', 'blue'"],
    [{ owner: 'o', title: 't', tags: 'x' }, "parameter 'tags' must be an array"],
    [{ owner: 'o', title: 't', tags: [1] }, "parameter 'tags[0]' must be a string"],
    [{ owner: 'o', title: 't', colour: 'red' }, "parameter 'colour' is not a known field (did you mean 'color'?)"],
    [{ owner: 'o', title: 't', email: 'a@b.c' }, "parameter 'email' is not a known field (did you mean 'author_email'?)"],
    [
      { owner: 'o', title: 't', shade: 'red' },
      "parameter 'shade' is not a known field (the parameters are owner, tags, fields, dry_run, trace, title, author_email, author_name, color, count)",
    ],
  ])('rejects %j naming the parameter, and sends nothing', async (input, message) => {
    const result = await executeTool(createThing, input, context);
    expect(result).toMatchObject({ error: { kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE', can_retry: false } });
    expect('error' in result && result.error.message).toContain(message);
    expect(received).toHaveLength(0);
  });

  it('names no parameter for an unknown one longer than any parameter name can be', async () => {
    const result = await executeTool(createThing, { owner: 'o', title: 't', [`colour${'r'.repeat(200)}`]: 'red' }, context);
    expect('error' in result && result.error.message).toMatch(/is not a known field\.$/);
    expect(received).toHaveLength(0);
  });

  it('rejects a non-object input', async () => {
    expect(await executeTool(createThing, [], context)).toMatchObject({ error: { kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE' } });
  });
});

describe('requirements and secrets', () => {
  it('refuses to call without a token', async () => {
    const result = await executeTool(createThing, { owner: 'o', title: 't' }, { ...context, token: undefined });
    expect(result).toMatchObject({ error: { kind: 'TOOL_REQUIREMENTS_NOT_MET' } });
    expect('error' in result && result.error.message).toContain('example OAuth token');
    expect(received).toHaveLength(0);
  });

  it('names the scopes a missing token needs, or that it needs none in particular', async () => {
    const scoped = await executeTool(createThing, { owner: 'o', title: 't' }, { ...context, token: undefined });
    expect('error' in scoped && scoped.error.message).toBe('Example.CreateThing needs a example OAuth token with scopes: things.write.');
    const unscoped = await executeTool(createBatch, { mode: 'execute', owner: 'o', request_body: '{"inputs":[]}' }, { ...context, token: undefined });
    expect('error' in unscoped && unscoped.error.message).toBe('Example.CreateBatch needs a example OAuth token (no particular scopes).');
  });

  it('says how to supply a missing token where the credentials know it, before anything is sent', async () => {
    const dispatcher = localDispatcher([toolkit], { client: context.client, tokenHint: (provider) => `Set TOKEN_${provider.toUpperCase()}.` });
    const result = await dispatcher.call('Example.CreateBatch', { mode: 'execute', owner: 'o', request_body: '{"inputs":[]}' });
    expect(result).toMatchObject({
      error: { kind: 'TOOL_REQUIREMENTS_NOT_MET', message: 'Example.CreateBatch needs a example OAuth token (no particular scopes). Set TOKEN_EXAMPLE.' },
    });
    expect(received).toHaveLength(0);
  });

  it('names a missing secret', async () => {
    const result = await executeTool(renderText, { text: 'x' }, { ...context, secrets: {} });
    expect('error' in result && result.error).toMatchObject({ kind: 'TOOL_REQUIREMENTS_NOT_MET', message: expect.stringContaining('EXAMPLE_KEY') });
  });

  it('hands a handler only the secrets the tool declares', async () => {
    let seen: Record<string, string> = {};
    const [tool] = defineToolkit(
      { name: 'H', version: '1', description: '', baseUrl, tools: [tools[1]!] },
      {
        RenderText: async (_input, ctx) => {
          seen = ctx.secrets;
          return { value: 'ok' };
        },
      },
    ).tools;
    await executeTool(tool!, { text: 'x' }, context);
    expect(seen).toEqual({ EXAMPLE_KEY: 'key-value-456' });
  });

  it('sends to the base URL a declared secret names, when it is set', async () => {
    const server = baseUrl.replace('/api/', '/enterprise/api/v3');
    await executeTool(renderText, { text: 'x' }, { ...context, secrets: { EXAMPLE_KEY: 'k', EXAMPLE_SERVER_URL: server } });
    expect(received[0]!.url).toBe('/enterprise/api/v3/render');
    await executeTool(renderText, { text: 'x' }, { ...context, secrets: { EXAMPLE_KEY: 'k' } });
    expect(received[1]!.url).toBe('/api/render');
  });

  it('sends the secret a binding names as the Authorization credential', async () => {
    const keyed = (scheme?: string) => {
      const tool: ToolData = {
        name: 'GetKeyed',
        description: 'Reads with an API key.',
        parameters: [param('jwt', { type: 'string' }, { in: 'header', upstream: 'Authorization' })],
        output: { description: 'Read.' },
        requirements: { secrets: [{ key: 'EXAMPLE_KEY' }] },
        http: { method: 'GET', path: '/keyed', auth: { secret: 'EXAMPLE_KEY', ...(scheme && { scheme }) } },
      };
      return defineToolkit({ name: 'K', version: '1', description: '', baseUrl, tools: [tool] }).tools[0]!;
    };
    const keyOnly = { ...context, token: undefined };
    await executeTool(keyed(), {}, keyOnly);
    await executeTool(keyed('Token'), {}, keyOnly);
    // A credential passed as a header parameter is the one that counts.
    await executeTool(keyed(), { jwt: 'Bearer user-jwt' }, keyOnly);
    expect(received.map((request) => request.headers.authorization)).toEqual(['Bearer key-value-456', 'Token key-value-456', 'Bearer user-jwt']);

    answer = { status: 401, body: JSON.stringify({ message: 'unknown key key-value-456' }) };
    const result = await dispatched(keyed(), {}, keyOnly);
    expect(result).toMatchObject({ error: { kind: 'UPSTREAM_RUNTIME_AUTH_ERROR', message: expect.stringContaining('[redacted]') } });
    expect(JSON.stringify(result)).not.toContain('key-value-456');
  });

  it('sends two declared secrets as a Basic credential, and redacts them and their encoding', async () => {
    const tool = defineToolkit({
      name: 'B',
      version: '1',
      description: '',
      baseUrl,
      tools: [
        {
          name: 'GetBasic',
          description: 'Reads with a user name and password.',
          parameters: [],
          output: { description: 'Read.' },
          requirements: { secrets: [{ key: 'EXAMPLE_USER' }, { key: 'EXAMPLE_PASSWORD' }] },
          http: { method: 'GET', path: '/basic', auth: { scheme: 'Basic', secrets: ['EXAMPLE_USER', 'EXAMPLE_PASSWORD'] } },
        },
      ],
    }).tools[0]!;
    const basic = { ...context, token: undefined, secrets: { EXAMPLE_USER: 'site-7788', EXAMPLE_PASSWORD: 'pass:word-99' } };
    const encoded = Buffer.from('site-7788:pass:word-99').toString('base64');
    expect(await executeTool(tool, {}, basic)).toEqual({ value: { id: '1' } });
    expect(received[0]!.headers.authorization).toBe(`Basic ${encoded}`);

    const missing = await executeTool(tool, {}, { ...basic, secrets: { EXAMPLE_USER: 'site-7788' } });
    expect(missing).toMatchObject({ error: { kind: 'TOOL_REQUIREMENTS_NOT_MET', message: expect.stringContaining('EXAMPLE_PASSWORD') } });
    expect(received).toHaveLength(1);

    answer = { status: 401, body: JSON.stringify({ message: `bad credentials site-7788 / pass:word-99 (Basic ${encoded})` }) };
    const refused = await dispatched(tool, {}, basic);
    expect(refused).toMatchObject({ error: { kind: 'UPSTREAM_RUNTIME_AUTH_ERROR' } });
    const text = JSON.stringify(refused);
    for (const secret of ['site-7788', 'pass:word-99', encoded]) expect(text).not.toContain(secret);
  });

  it('never lets a token or secret value reach an error', async () => {
    answer = { status: 401, body: JSON.stringify({ message: 'bad token tok-secret-123' }) };
    const result = await dispatched(createThing, { owner: 'o', title: 't' }, context);
    const text = JSON.stringify(result);
    expect(text).not.toContain('tok-secret-123');
    expect(text).toContain('[redacted]');
    expect(result).toMatchObject({ error: { kind: 'UPSTREAM_RUNTIME_AUTH_ERROR', status_code: 401 } });
  });
});

describe('mode-driven tools', () => {
  it('get_request_schema returns the schema and calls nothing, even without credentials', async () => {
    const result = await executeTool(createBatch, { mode: 'get_request_schema' }, { ...context, token: undefined });
    expect(result).toMatchObject({ value: { request_body_schema: createBatch.requestBody!.schema, instructions: expect.stringContaining('owner') } });
    expect(received).toHaveLength(0);
  });

  it('execute sends the parsed body', async () => {
    const body = { inputs: [{ id: 'a' }] };
    await executeTool(createBatch, { mode: 'execute', owner: 'o', request_body: JSON.stringify(body) }, context);
    expect(received[0]!.url).toBe('/api/owners/o/batch');
    expect(JSON.parse(received[0]!.body)).toEqual(body);
  });

  it.each([
    [{ mode: 'execute', request_body: '{"inputs":[]}' }, 'Missing owner'],
    [{ mode: 'execute', owner: 'o' }, 'request_body is required'],
    [{ mode: 'execute', owner: 'o', request_body: '  ' }, 'request_body is required'],
    [{ mode: 'execute', owner: 'o', request_body: '{"inputs": [' }, 'not valid JSON'],
    [{ mode: 'execute', owner: 'o', request_body: '{"inputs":[{}]}' }, '/inputs/0/id (inputs[0].id) is required'],
    [{ mode: 'execute', owner: 'o', request_body: '{"inputs":[{"id":"1"},{"id":"2"},{"id":"3"}]}' }, '/inputs (inputs) must NOT have more than 2 items'],
    [{ mode: 'execute', owner: 'o', request_body: '{"inputs":[],"extra":1}' }, '/extra (extra) is not a known field'],
  ])('execute %j gives a RETRY error and sends nothing', async (input, message) => {
    const result = await executeTool(createBatch, input, context);
    expect(result).toMatchObject({ error: { kind: 'TOOL_RUNTIME_RETRY', can_retry: true } });
    expect('error' in result && result.error.message).toContain(message);
    expect(received).toHaveLength(0);
  });

  it('tells the model the schema when the body is wrong', async () => {
    const result = await executeTool(createBatch, { mode: 'execute', owner: 'o', request_body: '[]' }, context);
    expect('error' in result && result.error.additional_prompt_content).toContain('"required":["inputs"]');
  });
});

describe('formats', () => {
  it('derives annotations from the method and names from toolkit and tool', () => {
    expect(formatTool(createThing, 'mcp')).toMatchObject({
      name: 'Example_CreateThing',
      // Only the hints that say something, no MCP defaults (readOnlyHint false is one); no title, since the data
      // gives none (none is made from the name).
      annotations: { destructiveHint: false },
      inputSchema: { type: 'object', required: ['owner', 'title'], additionalProperties: false },
    });
    const served = formatTool(createThing, 'mcp') as { title?: string; annotations: object };
    expect(served.title).toBeUndefined();
    expect(served.annotations).toEqual({ destructiveHint: false });
    expect(formatTool(createThing, 'openai')).toMatchObject({ type: 'function', function: { name: 'Example_CreateThing', parameters: { type: 'object' } } });
    expect(formatTool(createThing, 'anthropic')).toMatchObject({ name: 'Example_CreateThing', input_schema: { type: 'object' } });
  });

  it("leaves out of a parameter's served description the sentences that only say its name again", () => {
    const described = (name: string, description: string): ToolData => ({
      ...tools[1]!,
      parameters: [{ name, description, required: true, schema: { type: 'string' }, in: 'body', upstream: name }],
    });
    const servedDescription = (tool: ToolData) => {
      const [only] = defineToolkit({ name: 'Example', version: '1', description: 'Example.', baseUrl: 'unused', tools: [tool] }).tools;
      const { inputSchema } = formatTool(only!, 'mcp') as { inputSchema: { properties: Record<string, { description?: string }> } };
      return Object.values(inputSchema.properties)[0]!.description;
    };
    expect(servedDescription(described('repository_owner', 'Owner of the repository.'))).toBeUndefined();
    expect(servedDescription(described('comment_id', 'The unique identifier of the comment.'))).toBeUndefined();
    expect(servedDescription(described('pull_request_number', 'The number that identifies the pull request.'))).toBeUndefined();
    expect(servedDescription(described('branch_name', 'The name of the branch. Cannot contain wildcard characters.'))).toBe(
      'Cannot contain wildcard characters.',
    );
    // A word the name lacks is news: a secret's name is not its value.
    expect(servedDescription(described('secret', 'The name of the secret.'))).toBe('The name of the secret.');
    expect(servedDescription(described('owner', 'Owner of the repository.'))).toBe('Owner of the repository.');
  });

  it('builds the engine ToolDefinition with requirements evaluated', () => {
    const definition = formatTool(renderText, 'arcade', { secrets: new Set(['EXAMPLE_KEY']) });
    expect(definition).toMatchObject({
      fully_qualified_name: 'Example.RenderText@1.2.3',
      qualified_name: 'Example.RenderText',
      toolkit: { name: 'Example', version: '1.2.3' },
      input: { parameters: [{ name: 'text', required: true, value_schema: { val_type: 'string' } }] },
      requirements: {
        met: true,
        secrets: [
          { key: 'EXAMPLE_KEY', met: true },
          { key: 'EXAMPLE_SERVER_URL', met: true },
        ],
      },
    });
    expect(formatTool(createThing, 'arcade')).toMatchObject({
      input: {
        parameters: expect.arrayContaining([
          { name: 'tags', required: false, description: 'tags', inferrable: true, value_schema: { val_type: 'array', inner_val_type: 'string' } },
        ]),
      },
      requirements: { met: false, authorization: { provider_id: 'example', provider_type: 'oauth2', oauth2: { scopes: ['things.write'] } } },
    });
  });

  it('keeps function names within 64 characters', () => {
    const long = defineToolkit({
      name: 'AVeryLongToolkitNameIndeed',
      version: '1',
      description: '',
      baseUrl,
      tools: [{ ...tools[1]!, name: 'AndAnEvenLongerToolNameThatGoesOnAndOn' }],
    });
    expect(functionName(long.tools[0]!).length).toBeLessThanOrEqual(64);
  });
});

describe('path segments', () => {
  it.each(['', '.', '..'])('refuses %j as a path value, which would call another operation', async (owner) => {
    const result = await executeTool(createThing, { owner, title: 't' }, context);
    expect('error' in result && result.error).toMatchObject({
      kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE',
      message: expect.stringContaining("parameter 'owner' must not be empty, '.' or '..'"),
    });
    expect(received).toHaveLength(0);
  });

  it('refuses to leave an optional path parameter unfilled', async () => {
    const [tool] = defineToolkit({
      name: 'P',
      version: '1',
      description: '',
      baseUrl,
      tools: [{ ...tools[0]!, parameters: tools[0]!.parameters.map((p) => (p.name === 'owner' ? { ...p, required: false } : p)) }],
    }).tools;
    const result = await executeTool(tool!, { title: 't' }, context);
    expect('error' in result && result.error.message).toContain("parameter 'owner' is required: it fills {owner} in the URL path");
    expect(received).toHaveLength(0);
  });

  it('encodes reserved characters within one segment', async () => {
    await executeTool(createThing, { owner: 'a/../b?c#d%', title: 't' }, context);
    expect(received[0]!.url).toBe('/api/owners/a%2F..%2Fb%3Fc%23d%25/things');
  });
});

describe('values that are easy to lose', () => {
  const fieldsTool = defineToolkit({
    name: 'Edge',
    version: '1.0.0',
    description: 'Edge values.',
    baseUrl: 'unused',
    tools: [
      {
        name: 'Save',
        description: 'Saves.',
        parameters: [
          param('ids', { type: 'array', items: { type: 'string' } }, { in: 'query', upstream: 'id' }),
          param('names', { type: 'array', items: { type: 'string' } }, { in: 'query', upstream: 'names', explode: false }),
          param('draft', { type: 'boolean' }, { in: 'body', upstream: 'draft' }),
          param('count', { type: 'integer' }, { in: 'body', upstream: 'count' }),
          param('note', { type: 'string' }, { in: 'body', upstream: 'meta.note' }),
        ],
        output: { description: 'Saved.' },
        requirements: {},
        http: { method: 'POST', path: '/save' },
      },
    ],
  }).tools[0]!;

  it('sends false, 0 and the empty string in the body, nested ones included', async () => {
    expect(await executeTool(fieldsTool, { draft: false, count: 0, note: '' }, context)).toEqual({ value: { id: '1' } });
    expect(JSON.parse(received[0]!.body)).toEqual({ draft: false, count: 0, meta: { note: '' } });
  });

  it('repeats the key for each item of an exploded query array, joins them with commas otherwise, and sends no empty list', async () => {
    await executeTool(fieldsTool, { ids: ['a,b', 'c'], names: ['x', 'y'] }, context);
    await executeTool(fieldsTool, { ids: ['only'], names: [] }, context);
    const [first, second] = received.map((request) => new URL(request.url, 'http://upstream').searchParams);
    // A comma inside one item stays inside that item: the upstream sees two values, not three.
    expect(first!.getAll('id')).toEqual(['a,b', 'c']);
    expect(first!.getAll('names')).toEqual(['x,y']);
    expect(second!.getAll('id')).toEqual(['only']);
    expect(second!.getAll('names')).toEqual([]);
  });
});
