/**
 * The tool search's learned associations (packages/core/src/search/associations.json): how much a term of
 * a request speaks for a tool whose name, route or summary has a given term. They are learned from the
 * search phrases alone, never from an evaluation set:
 *
 * 1. Each tool's phrases are dealt into four quarters. For each quarter, the index is built with the other
 *    three and every phrase of the quarter is searched for, as a request the index has not seen; the best
 *    `associationDepth` tools, ranked without associations (`firstStage`), are its candidates.
 * 2. A log-linear model ranks the candidates by `alpha · log(score / best score) + association sum` and is
 *    trained by stochastic gradient descent on the cross-entropy of the phrase's own tool, in a fixed order.
 * 3. The associations are divided by `alpha`, so that the index multiplies a score by `exp(sum)`, and the
 *    weak ones are dropped: a few thousand terms carry what the hundreds of thousands learned do.
 *
 * It reads the committed catalogs and phrases, not the reference material, and takes about a minute.
 */
import { defineToolkit, qualifiedName, type Tool } from '../../packages/core/src/index.js';
import { askedTerms, associationDepth, buildToolIndex, type RankingWeights, toolTerms } from '../../packages/core/src/search/tool-index.js';
import { toolkits } from '../../packages/toolkits/src/index.js';
import type { GeneratedFile } from '../generate.js';

/**
 * The ranking the candidates come from: the index's weights as they were learned without associations. It
 * is fixed here, not read from `rankingWeights`, so that relearning those weights with the associations in
 * place (bench/search-tune.mjs) does not change what the associations were learned on.
 */
const firstStage: RankingWeights = {
  fields: { name: 1.5, summary: 1.13, description: 0.05, route: 0.4, parameters: 0.2, toolkit: 1.18, phrases: 1 },
  everyday: 0.75,
  destructive: 0.8,
  check: 2,
  pair: 0.25,
  opener: 0.25,
  associations: 0,
};
const quarters = 4;
const epochs = 3;
const learningRate = 0.05;
const alphaRate = 0.005;
const decay = 1e-4;
/** Associations weaker than this (before division by alpha) are dropped. */
const weakest = 0.2;

interface Example {
  /** The index of the phrase's own tool. */
  tool: number;
  asked: string[];
  candidates: Array<{ tool: number; logScore: number }>;
}

export function generateSearchAssociations(): GeneratedFile[] {
  const tools = toolkits.flatMap((toolkit) => toolkit.tools);
  const sides = tools.map(toolTerms);
  const model = train(examples(tools), sides);
  const table: Record<string, Record<string, number>> = {};
  for (const [feature, weight] of [...model.weights].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (Math.abs(weight) < weakest) continue;
    const [term, toolTerm] = feature.split('|') as [string, string];
    table[term] = { ...table[term], [toolTerm]: Math.round((weight / model.alpha) * 1000) / 1000 };
  }
  return [{ path: 'packages/core/src/search/associations.json', content: `${JSON.stringify(table)}\n` }];
}

/** Every phrase as a request searched in an index that lacks its quarter of the phrases. */
function examples(tools: readonly Tool[]): Example[] {
  const position = new Map(tools.map((tool, i) => [qualifiedName(tool), i]));
  const phrases = tools.map((tool) => tool.toolkit.phrases?.()[tool.name] ?? []);
  const out: Example[] = [];
  for (let quarter = 0; quarter < quarters; quarter++) {
    const without = toolkits.flatMap((toolkit) => {
      const all = toolkit.phrases?.() ?? {};
      const kept = Object.fromEntries(Object.entries(all).map(([name, list]) => [name, list.filter((_, i) => i % quarters !== quarter)]));
      return defineToolkit({ ...toolkit, phrases: () => kept }).tools;
    });
    const index = buildToolIndex(without, firstStage);
    phrases.forEach((list, tool) => {
      list.forEach((phrase, i) => {
        if (i % quarters !== quarter) return;
        const hits = index.search(phrase, { limit: associationDepth });
        if (!hits.some((hit) => position.get(qualifiedName(hit.tool)) === tool)) return;
        const best = hits[0]!.score;
        const candidates = hits.map((hit) => ({ tool: position.get(qualifiedName(hit.tool))!, logScore: Math.log(hit.score / best) }));
        out.push({ tool, asked: askedTerms(phrase), candidates });
      });
    });
  }
  return out;
}

function train(examples: readonly Example[], sides: readonly string[][]): { weights: Map<string, number>; alpha: number } {
  const weights = new Map<string, number>();
  let alpha = 1;
  const featuresOf = (asked: readonly string[], tool: number) => asked.flatMap((term) => sides[tool]!.map((side) => `${term}|${side}`));
  const order = examples.map((_, i) => i);
  let seed = 1;
  // A fixed linear congruential sequence, so that the file is the same on every run.
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  for (let epoch = 0; epoch < epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const k of order) {
      const example = examples[k]!;
      const features = example.candidates.map((candidate) => featuresOf(example.asked, candidate.tool));
      const logits = example.candidates.map(
        (candidate, c) => alpha * candidate.logScore + features[c]!.reduce((sum, feature) => sum + (weights.get(feature) ?? 0), 0),
      );
      const top = Math.max(...logits);
      const odds = logits.map((logit) => Math.exp(logit - top));
      const total = odds.reduce((a, b) => a + b, 0);
      let alphaGradient = 0;
      example.candidates.forEach((candidate, c) => {
        const gradient = odds[c]! / total - (candidate.tool === example.tool ? 1 : 0);
        alphaGradient += gradient * candidate.logScore;
        for (const feature of features[c]!) {
          const weight = weights.get(feature) ?? 0;
          weights.set(feature, weight - learningRate * (gradient + decay * weight));
        }
      });
      alpha -= alphaRate * alphaGradient;
    }
  }
  return { weights, alpha };
}
