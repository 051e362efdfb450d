import { describe, expect, it } from 'vitest';
import { ServingPolicy, withoutDisplayFields } from '@quiver/core';
import { crmMarketing, toolkits } from '@quiver/toolkits';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { formatTokenReport, tokenReport } from '../src/tokens.js';

describe('served definitions', () => {
  // The lean-definition target, counted as `quiver tools tokens` counts it: the served median was 218 before
  // repeated notes and `fields` on text results were dropped, 163 before annotations at MCP's defaults and
  // parameter descriptions that only say the name again were. It holds what the model reads; the display
  // fields (title, icons) are counted apart below.
  it('take at most 150 tokens a tool at the median over all 1,007, as MCP serves them', async () => {
    const report = await tokenReport(
      toolkits.flatMap((toolkit) => toolkit.tools),
      new ServingPolicy(),
      'mcp',
    );
    const sorted = report.tools.map((tool) => tool.tokens).sort((a, b) => a - b);
    expect(sorted).toHaveLength(1007);
    expect(sorted[Math.floor(sorted.length / 2)]).toBeLessThanOrEqual(150);
    expect(report.perTool).toEqual({ median: sorted[503], p90: sorted[906] });
    expect(formatTokenReport(report)).toContain(`one tool's definition: ${sorted[503]} tokens at the median, ${sorted[906]} at the 90th percentile`);
    // Every tool has a title, whose cost is reported: a few tokens each.
    expect(report.display!.titles.tools).toBe(1007);
    expect(report.display!.titles.median).toBeGreaterThanOrEqual(3);
    expect(report.display!.titles.median).toBeLessThanOrEqual(20);
  });

  it('count what the model reads, leaving out the title and icons, and report these apart', async () => {
    const policy = new ServingPolicy();
    const report = await tokenReport(crmMarketing.tools, policy, 'mcp');
    const tool = crmMarketing.tools.find((candidate) => candidate.name === 'CreateMarketingCampaign')!;
    const served = policy.toMcpTool(tool);
    const counted = report.tools.find((row) => row.name === 'CrmMarketingApi.CreateMarketingCampaign')!.tokens;
    expect(counted).toBe(countTokens(JSON.stringify(withoutDisplayFields(served))));
    const { icons: _icons, ...withTitle } = served;
    expect(countTokens(JSON.stringify(withTitle))).toBeGreaterThan(counted);

    const { display } = report;
    expect(display!.titles.tools).toBe(90);
    expect(display!.titles.tokens).toBeGreaterThan(90 * 3);
    expect(display!.bytes).toMatchObject({ iconsAs: 'data URI' });
    expect(display!.bytes.titles).toBeGreaterThan(90 * 10);
    // A data URI repeats the icon on every tool; a URL is short.
    const byUrl = (await tokenReport(crmMarketing.tools, new ServingPolicy({ iconBaseUrl: 'http://127.0.0.1:9099/v1/toolkits' }), 'mcp')).display!;
    expect(byUrl.bytes.iconsAs).toBe('url');
    expect(byUrl.bytes.icons).toBeLessThan(display!.bytes.icons / 3);
    // Neither changes what the model reads.
    expect(byUrl.titles).toEqual(display!.titles);

    const text = formatTokenReport(report);
    expect(text).toContain('as the model reads it: name, description, inputSchema, annotations; the display fields title and icons are left out');
    expect(text).toMatch(/^titles, for the person \(not counted above\): [\d,]+ tokens over 90 tools, \d+ a tool at the median$/m);
    expect(text).toMatch(/^tools\/list as sent: [\d,.]+ KB, of which titles [\d,.]+ KB and icons [\d,.]+ KB \(data URI\)$/m);
    // The other formats have no display fields.
    expect((await tokenReport(crmMarketing.tools, policy, 'openai')).display).toBeUndefined();
  });
});
