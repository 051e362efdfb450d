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
