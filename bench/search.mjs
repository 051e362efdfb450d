// Tool search on three evaluation sets: bench/search-eval.json (requests close to the API's own words),
// bench/search-everyday.json (everyday words that avoid each tool's vocabulary) and bench/search-intent.json
// (requests as people ask, by pattern: undo, negation, acronyms, content, API-word collisions, small
// toolkits). The everyday and intent sets each have a "tune" half that may be looked at while improving the
// search and a "holdout" half that never is. Recall@1, recall@5 and MRR over the items whose toolkit is
// built (recall@1 per pattern on the intent set), the requests where a destructive tool is shown above every
// tool that fits although none of them is destructive, and the latency of one search over every tool.
// `node bench/search.mjs [eval|everyday|tune|holdout|intent|intent-tune|intent-holdout]` runs it alone and
// prints the misses of that set; `node bench/search.mjs destructive` prints the destructive-above list.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { annotationsOf, createToolIndex, functionName, qualifiedName } from '@quiver/core';
import { toolkits } from '@quiver/toolkits';
import { median, quantile, round } from './stats.mjs';

const intentPatterns = ['ordinary', 'undo', 'negation', 'acronym', 'content', 'collision', 'small-toolkit'];
/** How many results a search shows by default (MCP `search_tools` in discovery mode): what a destructive tool is looked for in. */
const shown = 10;

const load = (file) => JSON.parse(readFileSync(fileURLToPath(new URL(file, import.meta.url)), 'utf8')).items;

/**
 * Refuses a set that names a tool no built toolkit has, so that a typo or a renamed tool fails the run
 * instead of counting as a miss. Items of a toolkit not built yet are kept (they count once it is built)
 * unless `allBuilt`, for a set written from the built catalogs.
 */
function checkNames(set, items, names, { allBuilt = false } = {}) {
  const built = new Set(toolkits.map((toolkit) => toolkit.name));
  const unknown = items.flatMap((item) => item.expected).filter((name) => !names.has(name) && (allBuilt || built.has(name.split(/[._]/)[0])));
  if (unknown.length) throw new Error(`bench/search-${set}.json names tools that do not exist: ${[...new Set(unknown)].join(', ')}`);
}

/** Refuses intent items whose pattern, half or read flag is missing, and halves that do not alternate within each pattern, the first "tune". */
function checkIntent(items) {
  const seen = new Map();
  for (const item of items) {
    const where = `bench/search-intent.json, "${item.query}"`;
    if (!intentPatterns.includes(item.pattern)) throw new Error(`${where}: pattern must be one of ${intentPatterns.join(', ')}, got ${item.pattern}`);
    if (typeof item.read !== 'boolean') throw new Error(`${where}: read must be true or false`);
    const n = seen.get(item.pattern) ?? 0;
    const half = n % 2 === 0 ? 'tune' : 'holdout';
    if (item.half !== half) throw new Error(`${where}: half must be ${half} (halves alternate within each pattern, the first tune), got ${item.half}`);
    seen.set(item.pattern, n + 1);
  }
}

export async function searchBench() {
  const tools = toolkits.flatMap((toolkit) => toolkit.tools);
  const names = new Set(tools.flatMap((tool) => [qualifiedName(tool), functionName(tool)]));
  const destructive = new Set(tools.filter((tool) => annotationsOf(tool).destructiveHint).map(qualifiedName));
  const sets = { eval: load('./search-eval.json'), everyday: load('./search-everyday.json'), intent: load('./search-intent.json') };
  checkNames('eval', sets.eval, names);
  checkNames('everyday', sets.everyday, names);
  checkNames('intent', sets.intent, names, { allBuilt: true });
  checkIntent(sets.intent);

  const started = process.hrtime.bigint();
  const index = await createToolIndex(tools);
  const buildMs = Number(process.hrtime.bigint() - started) / 1e6;

  // An item counts once its toolkit is built; it is found at the rank of the first tool it names.
  const rankAll = (set, items) =>
    items
      .filter((item) => item.expected.some((name) => names.has(name)))
      .map((item) => {
        const ranked = index.search(item.query).map((hit) => qualifiedName(hit.tool));
        const rank = ranked.findIndex((name) => item.expected.includes(name)) + 1;
        // Destructive tools shown above the first that fits (anywhere in the first results when none is), when none that fits is destructive.
        const above = item.expected.some((name) => destructive.has(name))
          ? []
          : ranked.slice(0, rank ? Math.min(rank - 1, shown) : shown).filter((name) => destructive.has(name));
        return { ...item, set, rank, top: ranked.slice(0, 5), destructiveAbove: above };
      });
  const ranked = { eval: rankAll('eval', sets.eval), everyday: rankAll('everyday', sets.everyday), intent: rankAll('intent', sets.intent) };

  const measure = (ranks, items = ranks) => {
    const recallAt = (k) => ranks.filter((r) => r.rank > 0 && r.rank <= k).length / ranks.length;
    return {
      items: items.length,
      evaluated: ranks.length,
      recallAt1: round(recallAt(1)),
      recallAt5: round(recallAt(5)),
      mrr: round(ranks.reduce((sum, r) => sum + (r.rank ? 1 / r.rank : 0), 0) / ranks.length),
    };
  };
  const half = (items, name) => items.filter((item) => item.half === name);
  const subsets = {
    eval: ranked.eval,
    everyday: ranked.everyday,
    tune: half(ranked.everyday, 'tune'),
    holdout: half(ranked.everyday, 'holdout'),
    intent: ranked.intent,
    'intent-tune': half(ranked.intent, 'tune'),
    'intent-holdout': half(ranked.intent, 'holdout'),
  };
  const patterns = Object.fromEntries(
    intentPatterns.map((pattern) => {
      const { evaluated, recallAt1 } = measure(ranked.intent.filter((r) => r.pattern === pattern));
      return [pattern, { evaluated, recallAt1 }];
    }),
  );

  const all = [...ranked.eval, ...ranked.everyday, ...ranked.intent];
  const destructiveAbove = all
    .filter((r) => r.destructiveAbove.length)
    .map(({ set, half, pattern, query, expected, rank, destructiveAbove }) => ({ set, half, pattern, query, expected, rank, destructive: destructiveAbove }));
  const countIn = (set) => destructiveAbove.filter((r) => r.set === set).length;

  // Every query of the three sets against every tool, after one warm-up pass.
  const latencyMs = searchLatencyMs(
    index,
    [...sets.eval, ...sets.everyday, ...sets.intent].map((item) => item.query),
  );

  const result = {
    tools: tools.length,
    ...measure(ranked.eval, sets.eval),
    everyday: {
      ...measure(ranked.everyday, sets.everyday),
      tune: measure(subsets.tune, half(sets.everyday, 'tune')),
      holdout: measure(subsets.holdout, half(sets.everyday, 'holdout')),
    },
    intent: { ...measure(ranked.intent, sets.intent), tune: measure(subsets['intent-tune']), holdout: measure(subsets['intent-holdout']), patterns },
    destructiveAbove: {
      count: destructiveAbove.length,
      evaluated: all.length,
      eval: countIn('eval'),
      everyday: countIn('everyday'),
      intent: countIn('intent'),
    },
    buildMs: round(buildMs, 1),
    latencyMs,
  };
  const misses = Object.fromEntries(
    Object.entries(subsets).map(([name, ranks]) => [
      name,
      ranks.filter((r) => r.rank !== 1).map(({ query, expected, pattern, rank, top }) => ({ query, expected, pattern, rank, top })),
    ]),
  );
  return { result, misses, destructiveAbove };
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
  const set = process.argv[2] ?? 'eval';
  const choices = ['eval', 'everyday', 'tune', 'holdout', 'intent', 'intent-tune', 'intent-holdout', 'destructive'];
  if (!choices.includes(set)) throw new Error(`set must be one of ${choices.join(', ')}, got ${set}`);
  const { result, misses, destructiveAbove } = await searchBench();
  for (const miss of misses[set] ?? [])
    console.log(
      `miss (rank ${miss.rank || '-'})${miss.pattern ? ` [${miss.pattern}]` : ''}: ${miss.query}\n  want ${miss.expected.join(', ')}\n  got  ${miss.top.join(', ')}`,
    );
  if (set === 'destructive')
    for (const r of destructiveAbove)
      console.log(
        `${r.set}${r.half ? ` ${r.half}` : ''}${r.pattern ? ` [${r.pattern}]` : ''} (rank ${r.rank || '-'}): ${r.query}\n  want ${r.expected.join(', ')}\n  above ${r.destructive.join(', ')}`,
      );
  console.log(JSON.stringify(result, null, 2));
}
