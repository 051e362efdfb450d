// `quiver mcp`'s stdio transport: a result's JsonText goes out as its text, in place; every other message as the SDK sends it.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { definitionIn2026 } from '../src/mcp/definition-text.js';
import { JsonText, jsonArray, StdioTransport } from '../src/mcp/stdio.js';

function transport() {
  const output = new PassThrough();
  const chunks: Buffer[] = [];
  output.on('data', (chunk: Buffer) => chunks.push(chunk));
  const stdio = new StdioTransport(new PassThrough(), output);
  return { stdio, written: () => Buffer.concat(chunks).toString('utf8') };
}

const definitions = [{ name: 'Design_GetFile', description: 'Gets a file — "quoted", with é' }, { name: 'Design_GetComments' }];
const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));

describe('StdioTransport', () => {
  it('writes a JsonText in place of the value it stands for, on one line, the rest of the result kept', async () => {
    const { stdio, written } = transport();
    await stdio.start();
    const tools = jsonArray(definitions.map(bytes));
    await stdio.send({ jsonrpc: '2.0', id: 7, result: { tools: tools as unknown as [], nextCursor: 'c2' } });
    const text = written();
    expect(text.endsWith('\n')).toBe(true);
    expect(text.slice(0, -1)).not.toContain('\n');
    expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', id: 7, result: { tools: definitions, nextCursor: 'c2' } });
  });

  it('writes an empty array, and any other message as the SDK does', async () => {
    const { stdio, written } = transport();
    await stdio.start();
    await stdio.send({ jsonrpc: '2.0', id: 'a', result: { tools: jsonArray([]) as unknown as [] } });
    await stdio.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    expect(
      written()
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([
      { jsonrpc: '2.0', id: 'a', result: { tools: [] } },
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
    ]);
  });

  it('refuses to send once closed', async () => {
    const { stdio, written } = transport();
    await stdio.start();
    await stdio.close();
    await expect(stdio.send({ jsonrpc: '2.0', id: 1, result: { tools: new JsonText([bytes([])]) as unknown as [] } })).rejects.toThrow(/closed/);
    expect(written()).toBe('');
  });
});

describe('the end of the input', () => {
  /** A transport on an input of its own, as a server uses it: what it was given, and when it closed. */
  async function session(answerWaitMs?: number) {
    const input = new PassThrough();
    const stdio = new StdioTransport(input, new PassThrough(), answerWaitMs);
    const given: unknown[] = [];
    let closed = false;
    stdio.onmessage = (message) => given.push(message);
    stdio.onclose = () => {
      closed = true;
    };
    await stdio.start();
    const ask = (message: object) => input.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    return { stdio, input, given, ask, closed: () => closed };
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

  it('closes the session only once every request read has been answered', async () => {
    const { stdio, input, given, ask, closed } = await session();
    ask({ id: 1, method: 'tools/call', params: { name: 'A' } });
    ask({ id: 'two', method: 'tools/call', params: { name: 'B' } });
    ask({ method: 'notifications/initialized' });
    input.end();
    await settle();
    expect(given).toHaveLength(3);
    expect(closed()).toBe(false);
    await stdio.send({ jsonrpc: '2.0', id: 1, result: {} });
    await settle();
    expect(closed()).toBe(false);
    await stdio.send({ jsonrpc: '2.0', id: 'two', error: { code: -32602, message: 'no' } });
    await settle();
    expect(closed()).toBe(true);
  });

  it('closes at once with nothing to answer, after its bound with an answer missing, and awaits no stream', async () => {
    const idle = await session();
    idle.input.end();
    await settle();
    expect(idle.closed()).toBe(true);

    const stuck = await session(50);
    stuck.ask({ id: 3, method: 'tools/call', params: { name: 'Never' } });
    stuck.input.end();
    await settle();
    expect(stuck.closed()).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(stuck.closed()).toBe(true);

    const listening = await session();
    listening.ask({ id: 4, method: 'subscriptions/listen', params: {} });
    listening.input.end();
    await settle();
    expect(listening.closed()).toBe(true);
  });
});

describe('definitionIn2026', () => {
  const dialect = Buffer.from('"$schema":"d",');
  const runAt = Buffer.from('"run_at":{"type":"string"}');
  const text = (parts: readonly Uint8Array[] | undefined) => parts && JSON.parse(Buffer.concat(parts).toString('utf8'));
  // Braces, brackets, quotes and a key like the input schema's inside strings, and nesting in the properties.
  const tricky = {
    name: 'T_Tool',
    description: 'Sends {"inputSchema":{ and } ] \\" as text',
    inputSchema: {
      type: 'object',
      properties: {
        q: { type: 'string', description: 'a } and a " and \\ and {' },
        nested: { type: 'object', properties: { a: { type: 'array', items: {} } } },
      },
      required: ['q'],
    },
    outputSchema: { type: 'object', properties: {} },
  };

  it('puts the dialect first in the input schema, and run_at last among its properties, strings and nesting skipped', () => {
    const inputSchema = { $schema: 'd', ...tricky.inputSchema };
    expect(text(definitionIn2026(bytes(tricky), dialect))).toEqual({ ...tricky, inputSchema });
    const later = text(definitionIn2026(bytes(tricky), dialect, runAt));
    expect(later).toEqual({ ...tricky, inputSchema: { ...inputSchema, properties: { ...tricky.inputSchema.properties, run_at: { type: 'string' } } } });
    expect(Object.keys(later.inputSchema)[0]).toBe('$schema');
    expect(Object.keys(later.inputSchema.properties).at(-1)).toBe('run_at');
  });

  it('adds run_at to no properties without a comma, and leaves a definition of another shape to be built', () => {
    const bare = { name: 'T_Bare', inputSchema: { type: 'object', properties: {} } };
    expect(text(definitionIn2026(bytes(bare), dialect, runAt))).toEqual({
      ...bare,
      inputSchema: { $schema: 'd', type: 'object', properties: { run_at: { type: 'string' } } },
    });
    expect(definitionIn2026(bytes({ name: 'T_Other', inputSchema: { properties: {}, type: 'object' } }), dialect)).toBeUndefined();
    expect(definitionIn2026(bytes({ name: 'T_None' }), dialect)).toBeUndefined();
  });
});
