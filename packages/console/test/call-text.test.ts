/** The playground's body skeletons and the call written for curl, Arcade's client and MCP. */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { skeleton } from '../src/skeleton.js';
import { asArcadeJs, asCurl, asMcpCall, type PlaygroundCall } from '../src/snippets.js';
import type { JsonSchema } from '../src/tool.js';
import { validate } from '../src/validate.js';

describe('skeleton', () => {
  it('fills in what is required, with defaults, first choices and empty values of each type, and passes the type checks', () => {
    const schema: JsonSchema = {
      type: 'object',
      required: ['title', 'count', 'state', 'labels', 'meta', 'draft'],
      properties: {
        title: { type: 'string' },
        count: { type: 'integer', minimum: 1 },
        state: { type: 'string', enum: ['open', 'closed'] },
        labels: { type: 'array', items: { type: 'string' }, minItems: 1 },
        meta: { type: 'object', required: ['lang'], properties: { lang: { type: 'string', default: 'en' }, note: { type: 'string' } } },
        draft: { type: 'boolean' },
        body: { type: 'string' },
      },
    };
    const body = skeleton(schema);
    expect(body).toEqual({ title: '', count: 1, state: 'open', labels: [''], meta: { lang: 'en' }, draft: false });
    expect(validate(schema, body)).toEqual([]);
  });

  it('lists every top-level property of a body that requires none, so it never starts as a bare {}', () => {
    expect(skeleton({ type: 'object', properties: { properties: { type: 'object', properties: { hs_name: { type: 'string' } } } } })).toEqual({
      properties: {},
    });
  });

  it('stops at a depth, for schemas that nest without end', () => {
    const deep: JsonSchema = { type: 'object', required: ['next'], properties: {} };
    deep.properties!.next = deep;
    expect(JSON.stringify(skeleton(deep))).toBe(`${'{"next":'.repeat(8)}{}${'}'.repeat(8)}`);
  });
});

describe('the call as text', () => {
  const call: PlaygroundCall = {
    tool_name: 'RepoHostApi.CreateIssue',
    input: { title: 'Ada\'s bug: `rm -rf $HOME` && "quotes"', labels: ['bug'] },
    user_id: 'ada@example.com',
  };

  it('curl: a shell reads back exactly the JSON body, and the key comes from the environment', () => {
    const text = asCurl(call, 'http://127.0.0.1:9099');
    // A shell function in place of curl prints the arguments the shell made of the command.
    const args = execFileSync('bash', ['-c', `curl() { printf '%s\\0' "$@"; }\n${text}`], { env: { QUIVER_API_KEY: 'qk_from_env' } })
      .toString()
      .split('\0');
    expect(args).toContain('http://127.0.0.1:9099/v1/tools/execute');
    expect(args).toContain('Authorization: Bearer qk_from_env');
    expect(JSON.parse(args[args.indexOf('--data') + 1]!)).toEqual(call);
  });

  it('arcadejs: the call object as TypeScript, against the engine', () => {
    const text = asArcadeJs(call, 'http://127.0.0.1:9099');
    expect(text).toContain('baseURL: "http://127.0.0.1:9099"');
    expect(text).toContain('apiKey: process.env.QUIVER_API_KEY');
    expect(JSON.parse(/client\.tools\.execute\((.*?)\);\n/s.exec(text)![1]!)).toEqual(call);
  });

  it('MCP: a tools/call request with the MCP name and the input as arguments', () => {
    expect(JSON.parse(asMcpCall(call, 'RepoHostApi_CreateIssue'))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'RepoHostApi_CreateIssue', arguments: call.input },
    });
  });
});
