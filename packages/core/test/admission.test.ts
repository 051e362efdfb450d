/** The dispatcher asks the engine's limits before a call runs: a refusal is the call's result, recorded; an admitted call is released once it ends, whatever its end. */
import { describe, expect, it } from 'vitest';
import { defineToolkit, localDispatcher, toolError, UpstreamClient, type Admission, type CallRecord } from '../src/index.js';

let ran = 0;
const toolkit = defineToolkit(
  {
    name: 'Admit',
    version: '1',
    description: 'Tools for admission.',
    baseUrl: 'http://127.0.0.1:9',
    tools: [
      { name: 'Run', description: 'Runs.', parameters: [], output: { description: 'Ran.' }, requirements: {} },
      { name: 'Throw', description: 'Throws.', parameters: [], output: { description: 'Never.' }, requirements: {} },
    ],
  },
  {
    Run: async () => {
      ran++;
      return { value: { ran } };
    },
    Throw: async () => {
      throw new Error('broken handler');
    },
  },
);

describe('admission of a call', () => {
  const records: CallRecord[] = [];
  const dispatcher = localDispatcher([toolkit], { client: new UpstreamClient(), record: (record) => records.push(record) });

  it('answers a refusal without running the tool, and records it by its kind', async () => {
    const refused = toolError('TOOL_RUNTIME_RATE_LIMIT', 'Too many calls in flight.', { retry_after_ms: 1000 }).error;
    const before = ran;
    const result = await dispatcher.call('Admit.Run', {}, { admit: async () => ({ refused }) });
    expect(result).toEqual({ error: { kind: 'TOOL_RUNTIME_RATE_LIMIT', message: 'Too many calls in flight.', can_retry: true, retry_after_ms: 1000 } });
    expect(ran).toBe(before);
    expect(records.at(-1)).toMatchObject({ tool: 'Admit.Run', success: false, kind: 'TOOL_RUNTIME_RATE_LIMIT' });
  });

  it('releases an admitted call once, when it ends or throws; an unknown tool is never admitted', async () => {
    let asked = 0;
    let released = 0;
    const admit = async (): Promise<Admission> => {
      asked++;
      return { release: () => released++ };
    };
    expect(await dispatcher.call('Admit.Run', {}, { admit })).toMatchObject({ value: { ran: expect.any(Number) } });
    expect([asked, released]).toEqual([1, 1]);
    expect(await dispatcher.call('Admit.Throw', {}, { admit })).toMatchObject({ error: { kind: 'TOOL_RUNTIME_FATAL' } });
    expect([asked, released]).toEqual([2, 2]);
    expect(await dispatcher.call('Admit.Nothing', {}, { admit })).toMatchObject({ error: { kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE' } });
    expect([asked, released]).toEqual([2, 2]);
  });
});
