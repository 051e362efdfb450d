// `quiver mcp`'s stdio transport: a result's JsonText goes out as its text, in place; every other message as the SDK sends it.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
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
