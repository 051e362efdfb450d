// A peer in the benchmark: @modelcontextprotocol/server-github, the reference MCP server for GitHub (a dev
// dependency), started and listed exactly as `quiver mcp` is, in alternating order in the same run, so that
// Quiver's figures read as ratios to a real alternative: cold start to the answer of `initialize` and of
// `tools/list`, resident memory after it, and the tokens of its tool definitions counted as Quiver's are.
// The peer wants a GitHub token at start; it gets a dummy one, and reaches the network only from a tool
// call, which the bench never makes. `node bench/peer.mjs` runs it alone and prints its rows of the table.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { alternatingStarts, quiverMcp, startFigures } from './start.mjs';
import { median, round } from './stats.mjs';
import { listingTokens, tokensBench } from './tokens.mjs';

const manifestFile = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-github/package.json');
const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));

/** The peer as `coldStart` starts it; its stderr is dropped because it announces itself there at every start. */
export const peer = {
  args: [join(dirname(manifestFile), manifest.bin['mcp-server-github'])],
  env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'bench-dummy-token' },
  stderr: 'ignore',
};

/** The peer's figures for results.json, from its starts. */
export const peerFigures = (starts) => ({
  name: manifest.name,
  version: manifest.version,
  ...startFigures(starts),
  tokens: listingTokens(starts[0].tools),
});

/** The table's rows of the peer beside Quiver (`quiver`: results.json's top-level figures), each with Quiver's ratio to it. */
export function peerRows(p, quiver, runs) {
  const n = (count) => count.toLocaleString('en');
  const ratio = (ours, theirs) => round(ours / theirs, 2);
  const both = (ours, theirs, unit = '') => `${ours}${unit} / ${theirs}${unit} (${ratio(ours, theirs)})`;
  const perTool = (total, tools) => Math.round(total / tools);
  return [
    `| the peer: \`${p.name}\` ${p.version}, the reference MCP server for GitHub, tools listed | ${p.tools} | |`,
    `| cold start to the answer of \`initialize\`, \`quiver mcp\` with ${n(quiver.tools)} tools / the peer (median of ${runs} each, in alternating order; Quiver's ratio; a bare Node process, the same way: ${quiver.nodeStartMs} ms) | ${both(quiver.coldStartMs.median, p.coldStartMs.median, ' ms')} | |`,
    `| process start to the answer of \`tools/list\`, sent after \`initialize\`, \`quiver mcp\` / the peer (ratio) | ${both(quiver.toolsListedMs, p.toolsListedMs, ' ms')} | |`,
    `| resident memory after \`tools/list\`, \`quiver mcp\` / the peer (ratio) | ${both(quiver.rssMb, p.rssMb, ' MB')} | |`,
    `| tokens of one served tool definition (MCP), median, Quiver / the peer (ratio); p90 | ${both(quiver.tokens.perTool.median, p.tokens.perTool.median)}; ${quiver.tokens.perTool.p90} / ${p.tokens.perTool.p90} | |`,
    `| \`tools/list\` tokens, Quiver's ${n(quiver.tools)} tools / the peer's ${p.tools}; per tool on average | ${n(quiver.tokens.toolsList)} / ${n(p.tokens.toolsList)}; ${perTool(quiver.tokens.toolsList, quiver.tools)} / ${perTool(p.tokens.toolsList, p.tools)} | |`,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runs = 10;
  process.stderr.write(`cold start: ${runs} runs each of \`quiver mcp\` and of the peer, in alternating order, each round after a bare Node process ...\n`);
  const { nodeStartMs, starts } = await alternatingStarts([quiverMcp(), peer], runs);
  const { toolsList, perTool } = await tokensBench();
  const quiver = { ...startFigures(starts[0]), nodeStartMs: round(median(nodeStartMs), 1), tokens: { toolsList, perTool } };
  const figures = peerFigures(starts[1]);
  console.log(peerRows(figures, quiver, runs).join('\n'));
  console.log(JSON.stringify({ quiver, peer: figures }, null, 2));
}
