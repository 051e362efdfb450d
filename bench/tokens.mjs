// Tokens (o200k_base) of MCP `tools/list` as `quiver mcp` serves it: every tool, against discovery
// mode's three meta-tools; the median and p90 tool; and the whole listing in each provider format.
// The same counts as `quiver tools tokens [--format ...]`; `listingTokens` counts another server's `tools/list` so.
import { ServingPolicy, withoutDisplayFields } from '@quiver/core';
import { toolkits } from '@quiver/toolkits';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { tokenFormats, tokenReport } from '../packages/cli/dist/tokens.js';
import { median, quantile } from './stats.mjs';

export async function tokensBench() {
  const tools = toolkits.flatMap((toolkit) => toolkit.tools);
  const report = await tokenReport(tools, new ServingPolicy(), 'mcp');
  const formats = {};
  for (const format of tokenFormats) formats[format] = (await tokenReport(tools, new ServingPolicy(), format)).listing.all;
  return {
    tools: report.tools.length,
    toolsList: report.listing.all,
    discoveryToolsList: report.listing.discovery,
    perTool: report.perTool,
    formats,
    perToolkit: Object.fromEntries(report.toolkits.map((toolkit) => [toolkit.name, toolkit.tokens])),
  };
}

/**
 * A `tools/list` result's definitions as a server sent them, counted as `quiver tools tokens` counts Quiver's
 * in MCP format: each definition without the display fields no model reads, then the whole listing.
 */
export function listingTokens(definitions) {
  const read = definitions.map(withoutDisplayFields);
  const perTool = read.map((definition) => countTokens(JSON.stringify(definition)));
  return { toolsList: countTokens(JSON.stringify({ tools: read })), perTool: { median: median(perTool), p90: quantile(perTool, 0.9) } };
}
