// Learns the ranking weights (field weights, the weight of everyday words, the factors of the rules) on the
// "tune" half of bench/search-everyday.json together with bench/search-eval.json, by coordinate search on
// the mean reciprocal rank; the "holdout" half is never looked at. Prints the weights it found and the
// holdout figures they give, for tool-index.ts. `node bench/search-tune.mjs`
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { qualifiedName } from '@quiver/core';
import { toolkits } from '@quiver/toolkits';
import { buildToolIndex, rankingWeights } from '../packages/core/dist/search/tool-index.js';

const load = (file) => JSON.parse(readFileSync(fileURLToPath(new URL(file, import.meta.url)), 'utf8')).items;
const tools = toolkits.flatMap((toolkit) => toolkit.tools);
const everyday = load('./search-everyday.json');
const tune = [...everyday.filter((item) => item.half === 'tune'), ...load('./search-eval.json')];
const holdout = everyday.filter((item) => item.half === 'holdout');

function measure(weights, items) {
  const index = buildToolIndex(tools, weights);
  let mrr = 0;
  let at1 = 0;
  let at5 = 0;
  for (const item of items) {
    const rank = index.search(item.query, { limit: 50 }).findIndex((hit) => item.expected.includes(qualifiedName(hit.tool))) + 1;
    if (rank) mrr += 1 / rank;
    if (rank === 1) at1++;
    if (rank && rank <= 5) at5++;
  }
  return { mrr: mrr / items.length, recallAt1: at1 / items.length, recallAt5: at5 / items.length };
}

let best = { ...rankingWeights, fields: { ...rankingWeights.fields } };
let score = measure(best, tune).mrr;
const knobs = [
  ...Object.keys(rankingWeights.fields).map((field) => ['fields', field]),
  ...Object.keys(rankingWeights)
    .filter((knob) => typeof rankingWeights[knob] === 'number')
    .map((knob) => [knob]),
];
// Factors that lower a score stay at or below 1.
const lowering = new Set(['destructive', 'destructiveInRead', 'opener', 'namesOnly', 'repositoryName', 'otherService']);
for (let pass = 0; pass < 2; pass++) {
  for (const [knob, field] of knobs) {
    for (const factor of [0.5, 0.75, 1.33, 2]) {
      const candidate = { ...best, fields: { ...best.fields } };
      if (field) candidate.fields[field] = Math.round(best.fields[field] * factor * 100) / 100;
      else candidate[knob] = Math.min(lowering.has(knob) ? 1 : Infinity, Math.round(best[knob] * factor * 100) / 100);
      const candidateScore = measure(candidate, tune).mrr;
      if (candidateScore > score + 1e-4) {
        best = candidate;
        score = candidateScore;
      }
    }
  }
}
console.log(JSON.stringify({ weights: best, tune: measure(best, tune), holdout: measure(best, holdout) }, null, 2));
