/**
 * A call's data costs its answer nothing: the dispatcher hands the recorder the input unredacted, to be
 * redacted only if the recorder reads it, with the credentials that call ran with.
 */
import { describe, expect, it, vi } from 'vitest';
import * as redaction from '../src/redaction.js';
import { defineToolkit, localDispatcher, REDACTED, UpstreamClient, type CallData, type CallRecord, type CredentialResolver } from '../src/index.js';

vi.mock('../src/redaction.js', async (original) => {
  const actual = await original<typeof import('../src/redaction.js')>();
  return { ...actual, redactInput: vi.fn(actual.redactInput) };
});

const toolkit = defineToolkit(
  {
    name: 'Sign',
    version: '1',
    description: 'Signs in.',
    baseUrl: 'http://127.0.0.1:9',
    tools: [
      {
        name: 'In',
        description: 'Answers who signed in.',
        parameters: [{ name: 'user', description: 'Who.', required: true, schema: { type: 'string' } }],
        output: { description: 'Who.' },
        requirements: { oauth2: { provider: 'sign', scopes: [] } },
      },
    ],
  },
  { In: async (input) => ({ value: { user: input.user } }) },
);

/** A dispatcher whose calls run with the token `token()` gives at the time, and whose recorder keeps the data unread. */
function recording(token: () => string) {
  const kept: CallData[] = [];
  const credentials: CredentialResolver = { resolve: async () => ({ token: token(), secrets: {} }) };
  const dispatcher = localDispatcher([toolkit], { client: new UpstreamClient(), record: (_record, data) => kept.push(data) });
  return { kept, call: (input: unknown) => dispatcher.call('Sign.In', input, { credentials }) };
}

describe("a call's data", () => {
  it('is not redacted for a recorder that does not read it', async () => {
    vi.mocked(redaction.redactInput).mockClear();
    const { kept, call } = recording(() => 'tok-first-123');
    await call({ user: 'ada' });
    await call({ user: 'grace' });
    expect(kept).toHaveLength(2);
    expect(redaction.redactInput).not.toHaveBeenCalled();
  });

  it('is redacted once, when first read, with the credentials of its own call', async () => {
    vi.mocked(redaction.redactInput).mockClear();
    let token = 'tok-first-123';
    const { kept, call } = recording(() => token);
    await call({ user: 'ada tok-first-123' });
    token = 'tok-second-456';
    await call({ user: 'grace tok-second-456' });
    const [first, second] = kept as [CallData, CallData];
    expect(first.input).toEqual({ user: `ada ${REDACTED}` });
    expect(first.input).toBe(first.input);
    expect(first.result).toEqual({ value: { user: `ada ${REDACTED}` } });
    expect(second.input).toEqual({ user: `grace ${REDACTED}` });
    expect(redaction.redactInput).toHaveBeenCalledTimes(2);
  });

  it('shows only the redacted input to whatever walks or serializes it', async () => {
    const { kept, call } = recording(() => 'tok-third-789');
    await call({ user: 'ada tok-third-789' });
    const [data] = kept as [CallData];
    expect(JSON.parse(JSON.stringify(data))).toEqual({ input: { user: `ada ${REDACTED}` }, result: { value: { user: `ada ${REDACTED}` } } });
    expect(JSON.stringify({ ...data })).not.toContain('tok-third-789');
    expect(Object.values(data).flat().join()).not.toContain('tok-third-789');
  });

  it('comes with a record of names and outcome, its fields in a fixed order and none left undefined', async () => {
    const records: CallRecord[] = [];
    const credentials: CredentialResolver = { resolve: async () => ({ token: 'tok-fourth', secrets: {} }) };
    const dispatcher = localDispatcher([toolkit], { client: new UpstreamClient(), record: (record) => records.push(record) });
    await dispatcher.call('Sign.In', { user: 'ada' }, { credentials, userId: 'u1', requestId: 'req-1', keyId: 'k1' });
    await dispatcher.call('Sign.Out', {}, { credentials });
    const [done, unknown] = records as [CallRecord, CallRecord];
    expect(Object.keys(done)).toEqual([
      'execution_id',
      'tool',
      'toolkit',
      'version',
      'user_id',
      'success',
      'started_at',
      'duration_ms',
      'request_id',
      'key_id',
    ]);
    expect(done).toMatchObject({ tool: 'Sign.In', toolkit: 'Sign', version: '1', user_id: 'u1', success: true, request_id: 'req-1', key_id: 'k1' });
    expect(Object.keys(unknown)).toEqual(['execution_id', 'tool', 'success', 'kind', 'started_at', 'duration_ms']);
    expect(unknown).toMatchObject({ tool: 'Sign.Out', success: false, kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE' });
  });
});
