/** Tags (an imported operation's OpenAPI tags) are vocabulary of the tool in search, beside its toolkit's name. */
import { describe, expect, it } from 'vitest';
import { createToolIndex, defineToolkit, formatTool, qualifiedName, type ToolData } from '../../src/index.js';

const tool = (name: string, description: string, tags?: string[]): ToolData => ({
  name,
  description,
  parameters: [],
  output: { description: '' },
  requirements: {},
  http: { method: 'GET', path: `/${name.toLowerCase()}` },
  ...(tags && { tags }),
});

const imported = defineToolkit({
  name: 'Bookkeeper',
  version: '1.0.0',
  description: 'An imported accounting API.',
  baseUrl: 'http://127.0.0.1:9',
  tools: [
    tool('ListEntries', 'Lists the entries.', ['ledger']),
    tool('ListRecords', 'Lists the records.', ['reconciliation']),
    tool('GetStatus', 'Returns the status.'),
  ],
});
const other = defineToolkit({
  name: 'Notes',
  version: '1.0.0',
  description: 'Notes.',
  baseUrl: 'http://127.0.0.1:9',
  tools: [tool('ListNotes', 'Lists the notes.')],
});

describe('tags in search', () => {
  it("finds a tool by a word only its tags hold, and by its toolkit's name", async () => {
    const index = await createToolIndex([...imported.tools, ...other.tools]);
    const first = (query: string) => index.search(query).map((hit) => qualifiedName(hit.tool))[0];
    expect(first('ledger')).toBe('Bookkeeper.ListEntries');
    expect(first('reconciliation')).toBe('Bookkeeper.ListRecords');
    expect(index.search('bookkeeper', { limit: 10 }).map((hit) => hit.tool.toolkit.name)).toEqual(['Bookkeeper', 'Bookkeeper', 'Bookkeeper']);
  });

  it('keeps tags out of what is served', () => {
    const served = JSON.stringify(formatTool(imported.tools[0]!, 'mcp'));
    expect(served).not.toContain('ledger');
  });
});
