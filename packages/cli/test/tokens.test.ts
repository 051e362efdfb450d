import { describe, expect, it } from 'vitest';
import { ServingPolicy } from '@quiver/core';
import { toolkits } from '@quiver/toolkits';
import { tokenReport } from '../src/tokens.js';

describe('served definitions', () => {
  // The lean-definition target, counted as `quiver tools tokens` counts it: the served median was 218 before
  // titles, repeated notes and `fields` on text results were dropped.
  it('take at most 170 tokens a tool at the median over all 1,007, as MCP serves them', async () => {
    const report = await tokenReport(
      toolkits.flatMap((toolkit) => toolkit.tools),
      new ServingPolicy(),
      'mcp',
    );
    const sorted = report.tools.map((tool) => tool.tokens).sort((a, b) => a - b);
    expect(sorted).toHaveLength(1007);
    expect(sorted[Math.floor(sorted.length / 2)]).toBeLessThanOrEqual(170);
  });
});
