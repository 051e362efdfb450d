// Tokens (o200k_base) of MCP `tools/list` as `quiver mcp` serves it: every tool, against discovery
// mode's three meta-tools. The same count as `quiver tools tokens`.
import { ServingPolicy } from '@quiver/core';
import { toolkits } from '@quiver/toolkits';
import { tokenReport } from '../packages/cli/dist/tokens.js';

export async function tokensBench() {
  const report = await tokenReport(toolkits.flatMap((toolkit) => toolkit.tools), new ServingPolicy(), 'mcp');
  return {
    tools: report.tools.length,
    toolsList: report.listing.all,
    discoveryToolsList: report.listing.discovery,
    perToolkit: Object.fromEntries(report.toolkits.map((toolkit) => [toolkit.name, toolkit.tokens])),
  };
}
