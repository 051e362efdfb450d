/** The one redaction every result passes through (the dispatcher applies it, whatever source ran the tool). */
import { describe, expect, it } from 'vitest';
import {
  credentialForms,
  defineToolkit,
  localDispatcher,
  REDACTED,
  redactInput,
  redactResult,
  UpstreamClient,
  type CallData,
  type CallRecord,
  type ToolResult,
} from '../src/index.js';

const noAuth = { http: undefined };

describe('credential forms', () => {
  it('covers a token and secrets as they are and URL-encoded, and a Basic pair joined and in base64', () => {
    const tool = { http: { method: 'GET' as const, path: '/', auth: { scheme: 'Basic' as const, secrets: ['U', 'P'] as [string, string] } } };
    const forms = credentialForms(tool, { token: 'tok/en+1', secrets: { U: 'site-1', P: 'pa:ss' } });
    const pair = Buffer.from('site-1:pa:ss').toString('base64');
    for (const form of ['tok/en+1', 'tok%2Fen%2B1', 'site-1', 'pa:ss', 'pa%3Ass', 'site-1:pa:ss', pair]) expect(forms, form).toContain(form);
  });

  it('takes the user information of a secret that is an address, not the address itself', () => {
    const forms = credentialForms(noAuth, { secrets: { GIT_SERVER_URL: 'http://ghuser:S3cret%21PW99@git.example:8080/api/v3' } });
    expect(forms).toEqual(expect.arrayContaining(['S3cret%21PW99', 'S3cret!PW99', 'ghuser:S3cret%21PW99']));
    expect(forms.some((form) => form.includes('git.example'))).toBe(false);
    // A user name alone stands for a token.
    expect(credentialForms(noAuth, { secrets: { URL: 'https://ghp_token1234@github.example/' } })).toContain('ghp_token1234');
    // An address without user information is a setting.
    expect(credentialForms(noAuth, { secrets: { URL: 'https://github.example/api/v3' } })).toEqual([]);
  });

  it("are worked out once for a tool's calls with the same credentials, and again for any other", () => {
    const tool = { http: undefined };
    const first = credentialForms(tool, { token: 'first-token', secrets: { S: 'first-secret' } });
    expect(credentialForms(tool, { token: 'first-token', secrets: { S: 'first-secret' } })).toBe(first);
    expect(credentialForms(tool, { token: 'other-token', secrets: { S: 'first-secret' } })).toEqual([
      'other-token',
      'other-token',
      'first-secret',
      'first-secret',
    ]);
    expect(credentialForms(tool, { token: 'other-token', secrets: { S: 'other-secret' } })).toContain('other-secret');
    expect(credentialForms(tool, { token: 'other-token', secrets: { T: 'other-secret', S: 'third-secret' } })).toContain('third-secret');
    expect(credentialForms(tool, { token: 'other-token', secrets: {} })).toEqual(['other-token', 'other-token']);
  });
});

describe('redactResult', () => {
  const forms = credentialForms(noAuth, { token: 'tok-secret-123', secrets: { GIT_SERVER_URL: 'http://ghuser:S3cretPW99@127.0.0.1:1/' } });

  it('scrubs every text of an error, the stack included', () => {
    const result: ToolResult = {
      error: {
        kind: 'UPSTREAM_RUNTIME_NOT_FOUND',
        message: 'no tok-secret-123 here',
        can_retry: false,
        developer_message: 'GET http://ghuser:S3cretPW99@127.0.0.1:1/repos/o/r -> 404',
        additional_prompt_content: 'retry with tok-secret-123',
        stacktrace: 'Error: tok-secret-123\n    at x',
      },
    };
    const text = JSON.stringify(redactResult(result, forms));
    for (const secret of ['tok-secret-123', 'S3cretPW99']) expect(text).not.toContain(secret);
    expect(text).toContain(`http://${REDACTED}@127.0.0.1:1/repos`);
  });

  it('scrubs values and keys at any depth, without recursion, keeping key order and odd keys', () => {
    let deep: unknown = 'tok-secret-123';
    for (let i = 0; i < 50_000; i++) deep = [deep];
    const value = JSON.parse('{"b":"tok-secret-123","a":{"tok-secret-123":1},"__proto__":{"x":"tok-secret-123"}}') as Record<string, unknown>;
    const scrubbed = redactResult({ value: { ...value, deep } }, forms) as { value: Record<string, unknown> };
    expect(Object.keys(scrubbed.value)).toEqual(['b', 'a', '__proto__', 'deep']);
    const { deep: scrubbedDeep, ...shallow } = scrubbed.value;
    expect(JSON.stringify(shallow).includes('tok-secret-123')).toBe(false);
    let leaf = scrubbedDeep;
    while (Array.isArray(leaf)) leaf = leaf[0];
    expect(leaf).toBe(REDACTED);
    expect(Object.getPrototypeOf(scrubbed.value)).toBe(Object.prototype);
    expect(scrubbed.value.a).toEqual({ [REDACTED]: 1 });
  });

  it('scrubs the note and the next page, which come from the upstream too', () => {
    const scrubbed = redactResult(
      { value: [], note: 'more at tok-secret-123', next_page: { page: 'tok-secret-123', cursor: { at: 'tok-secret-123' } } },
      forms,
    );
    expect(JSON.stringify(scrubbed)).not.toContain('tok-secret-123');
    expect(scrubbed).toMatchObject({ next_page: { page: REDACTED, cursor: { at: REDACTED } } });
  });

  it('scrubs every string of a value, even one its JSON would not show', () => {
    // A handler's object may write itself as something else (toJSON), while a field selection still reads the
    // property itself: a credential is looked for in the value, not in what its JSON shows.
    const hidden = { toJSON: () => 'nothing to see', token: 'tok-secret-123' };
    const scrubbed = redactResult({ value: { hidden } }, forms) as { value: { hidden: { token: string } } };
    expect(scrubbed.value.hidden.token).toBe(REDACTED);
    const quoted = credentialForms(noAuth, { token: 'tok"en\\12\n34', secrets: {} });
    expect(redactResult({ value: { a: ['x tok"en\\12\n34 y'], 'tok"en\\12\n34': 1 } }, quoted)).toEqual({ value: { a: [`x ${REDACTED} y`], [REDACTED]: 1 } });
  });

  it('answers a result that holds no credential as it came, without a copy', () => {
    const result: ToolResult = { value: { id: 'abc', items: [{ name: 'tok-secret' }], nested: [[1, null, true]] }, note: 'page 1', next_page: { page: 2 } };
    expect(redactResult(result, forms)).toBe(result);
    // One credential anywhere, a key included, and the result is a scrubbed copy.
    const keyed: ToolResult = { value: { items: [{ 'tok-secret-123': 1 }] } };
    expect(redactResult(keyed, forms)).toEqual({ value: { items: [{ [REDACTED]: 1 }] } });
    expect(keyed).toEqual({ value: { items: [{ 'tok-secret-123': 1 }] } });
  });

  it('leaves a result alone when the call had no credential worth the name', () => {
    const result = { value: { id: 'abc' } };
    expect(redactResult(result, ['abc'])).toBe(result);
  });
});

describe('redactInput', () => {
  const forms = credentialForms(noAuth, { token: 'tok-secret-123', secrets: {} });

  it("replaces the call's credentials anywhere, and the values of properties named as credentials, at any depth", () => {
    const input = {
      query: 'find tok-secret-123 please',
      password: 'hunter2',
      clientSecret: 'cs-1',
      'X-API-Key': 'k-1',
      apikey: 'k-2',
      private_key: { pem: '-----BEGIN' },
      nested: [{ access_token: 'at-1', Authorization: 'Bearer at-1', auth: 'basic' }],
      pin_number: 1234,
    };
    expect(redactInput(input, forms)).toEqual({
      query: `find ${REDACTED} please`,
      password: REDACTED,
      clientSecret: REDACTED,
      'X-API-Key': REDACTED,
      apikey: REDACTED,
      private_key: REDACTED,
      nested: [{ access_token: REDACTED, Authorization: REDACTED, auth: REDACTED }],
      pin_number: 1234,
    });
  });

  it('matches whole words of a name only, and leaves booleans and nulls, which hold no secret', () => {
    const input = {
      author: 'ada',
      max_tokens: 100,
      tokenizer: 'bpe',
      keyboard: 'qwerty',
      secretary: 'grace',
      use_token: true,
      password: null,
      // Places in a listing, not credentials: the record says which page was asked for.
      pagination_token: '2',
      pageToken: 'CAEQAA',
    };
    expect(redactInput(input, [])).toEqual(input);
    expect(redactInput('tok-secret-123', forms)).toBe(REDACTED);
    expect(redactInput(undefined, forms)).toBeUndefined();
  });

  it("reaches the recorder beside the call's record, which is logged and holds neither input nor result", async () => {
    const toolkit = defineToolkit(
      {
        name: 'Sign',
        version: '1',
        description: 'Signs in.',
        baseUrl: 'http://127.0.0.1:9',
        tools: [
          {
            name: 'In',
            description: 'Answers what it was given and the token.',
            parameters: [
              { name: 'user', description: 'Who.', required: true, schema: { type: 'string' } },
              { name: 'password', description: 'Theirs.', required: true, schema: { type: 'string' } },
            ],
            output: { description: 'Who, and the token.' },
            requirements: { oauth2: { provider: 'sign', scopes: [] } },
          },
        ],
      },
      { In: async (input, context) => ({ value: { user: input.user, token: context.token } }) },
    );
    const recorded: Array<[CallRecord, CallData]> = [];
    const dispatcher = localDispatcher([toolkit], {
      client: new UpstreamClient(),
      token: 'tok-secret-123',
      record: (record, data) => recorded.push([record, data]),
    });
    // Words that no execution id can hold: "ada", hexadecimal, was found in one.
    await dispatcher.call('Sign.In', { user: 'grace tok-secret-123', password: 'hunter2' });
    const [[record, data]] = recorded as [[CallRecord, CallData]];
    expect({ input: data.input, result: data.result }).toEqual({
      input: { user: `grace ${REDACTED}`, password: REDACTED },
      result: { value: { user: `grace ${REDACTED}`, token: REDACTED } },
    });
    expect(JSON.stringify(record)).not.toMatch(/grace|hunter2|tok-secret-123/);
  });
});
