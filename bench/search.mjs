// Tool search on two evaluation sets: bench/search-eval.json (requests close to the API's own words) and
// bench/search-everyday.json (everyday words that avoid each tool's vocabulary; its "tune" half may be
// looked at while improving the search, its "holdout" half never is). Recall@1, recall@5 and MRR over the
// items whose toolkit is built, and the latency of one search over every tool.
// `node bench/search.mjs [eval|everyday|tune|holdout]` runs it alone and prints the misses of that set.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createToolIndex, functionName, qualifiedName } from '@quiver/core';
import { toolkits } from '@quiver/toolkits';
import { median, quantile, round } from './stats.mjs';

const load = (file) => JSON.parse(readFileSync(fileURLToPath(new URL(file, import.meta.url)), 'utf8')).items;

export async function searchBench() {
  const tools = toolkits.flatMap((toolkit) => toolkit.tools);
  const names = new Set(tools.flatMap((tool) => [qualifiedName(tool), functionName(tool)]));
  const sets = { eval: load('./search-eval.json'), everyday: load('./search-everyday.json') };

  const started = process.hrtime.bigint();
  const index = await createToolIndex(tools);
  const buildMs = Number(process.hrtime.bigint() - started) / 1e6;

  // An item counts once its toolkit is built; it is found at the rank of the first tool it names.
  const measure = (items) => {
    const built = items.filter((item) => item.expected.some((name) => names.has(name)));
    const ranks = built.map((item) => {
      const ranked = index.search(item.query).map((hit) => qualifiedName(hit.tool));
      const rank = ranked.findIndex((name) => item.expected.includes(name)) + 1;
      return { ...item, rank, top: ranked.slice(0, 5) };
    });
    const recallAt = (k) => ranks.filter((r) => r.rank > 0 && r.rank <= k).length / ranks.length;
    const result = {
      items: items.length,
      evaluated: ranks.length,
      recallAt1: round(recallAt(1)),
      recallAt5: round(recallAt(5)),
      mrr: round(ranks.reduce((sum, r) => sum + (r.rank ? 1 / r.rank : 0), 0) / ranks.length),
    };
    const misses = ranks.filter((r) => r.rank !== 1).map(({ query, expected, rank, top }) => ({ query, expected, rank, top }));
    return { result, misses };
  };
  const measured = {
    eval: measure(sets.eval),
    everyday: measure(sets.everyday),
    tune: measure(sets.everyday.filter((item) => item.half === 'tune')),
    holdout: measure(sets.everyday.filter((item) => item.half === 'holdout')),
  };

  // Every query of both sets against every tool, after one warm-up pass.
  const latencyMs = searchLatencyMs(
    index,
    [...sets.eval, ...sets.everyday].map((item) => item.query),
  );

  const result = {
    tools: tools.length,
    ...measured.eval.result,
    everyday: { ...measured.everyday.result, tune: measured.tune.result, holdout: measured.holdout.result },
    buildMs: round(buildMs, 1),
    latencyMs,
  };
  return { result, misses: Object.fromEntries(Object.entries(measured).map(([name, m]) => [name, m.misses])) };
}

/** The median and p99 of one search (limit 10) over `index` for each query, five passes after one warm-up pass. */
export function searchLatencyMs(index, queries) {
  for (const query of queries) index.search(query, { limit: 10 });
  const latencies = [];
  for (let pass = 0; pass < 5; pass++) {
    for (const query of queries) {
      const started = process.hrtime.bigint();
      index.search(query, { limit: 10 });
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  }
  return { median: round(median(latencies)), p99: round(quantile(latencies, 0.99)), searches: latencies.length };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { result, misses } = await searchBench();
  const set = process.argv[2] ?? 'eval';
  for (const miss of misses[set] ?? [])
    console.log(`miss (rank ${miss.rank || '-'}): ${miss.query}\n  want ${miss.expected.join(', ')}\n  got  ${miss.top.join(', ')}`);
  console.log(JSON.stringify(result, null, 2));
}
