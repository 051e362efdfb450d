// Tool search on the evaluation set (bench/search-eval.json): recall@1, recall@5 and MRR over the items
// whose toolkit is built, and the latency of one search over every tool. `node bench/search.mjs`
// runs it alone and prints the items whose expected tool is not in the top 5.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createToolIndex, functionName, qualifiedName } from '@quiver/core';
import { toolkits } from '@quiver/toolkits';
import { median, quantile, round } from './stats.mjs';

const evalFile = fileURLToPath(new URL('./search-eval.json', import.meta.url));

export async function searchBench() {
  const tools = toolkits.flatMap((toolkit) => toolkit.tools);
  const names = new Set(tools.flatMap((tool) => [qualifiedName(tool), functionName(tool)]));
  const { items } = JSON.parse(readFileSync(evalFile, 'utf8'));

  const started = process.hrtime.bigint();
  const index = await createToolIndex(tools);
  const buildMs = Number(process.hrtime.bigint() - started) / 1e6;

  // An item counts once its toolkit is built; it is found at the rank of the first tool it names.
  const built = items.filter((item) => item.expected.some((name) => names.has(name)));
  const ranks = built.map((item) => {
    const ranked = index.search(item.query).map((hit) => qualifiedName(hit.tool));
    const rank = ranked.findIndex((name) => item.expected.includes(name)) + 1;
    return { ...item, rank, top: ranked.slice(0, 5) };
  });
  const recallAt = (k) => ranks.filter((r) => r.rank > 0 && r.rank <= k).length / ranks.length;
  const skipped = {};
  for (const item of items.filter((item) => !built.includes(item))) {
    const toolkit = item.expected[0].split('.')[0];
    skipped[toolkit] = (skipped[toolkit] ?? 0) + 1;
  }

  // Every query of the set (built or not) against every tool, after one warm-up pass.
  for (const item of items) index.search(item.query, { limit: 10 });
  const latencies = [];
  for (let round = 0; round < 5; round++) {
    for (const item of items) {
      const t0 = process.hrtime.bigint();
      index.search(item.query, { limit: 10 });
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }

  const result = {
    tools: tools.length,
    items: items.length,
    evaluated: ranks.length,
    skipped,
    recallAt1: round(recallAt(1)),
    recallAt5: round(recallAt(5)),
    mrr: round(ranks.reduce((sum, r) => sum + (r.rank ? 1 / r.rank : 0), 0) / ranks.length),
    buildMs: round(buildMs, 1),
    latencyMs: { median: round(median(latencies)), p99: round(quantile(latencies, 0.99)), searches: latencies.length },
  };
  const misses = ranks.filter((r) => !(r.rank > 0 && r.rank <= 5)).map(({ query, expected, rank, top }) => ({ query, expected, rank, top }));
  return { result, misses };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { result, misses } = await searchBench();
  for (const miss of misses) console.log(`miss (rank ${miss.rank || '-'}): ${miss.query}\n  want ${miss.expected.join(', ')}\n  got  ${miss.top.join(', ')}`);
  console.log(JSON.stringify(result, null, 2));
}
