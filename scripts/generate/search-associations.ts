/**
 * The tool search's learned associations (packages/core/src/search/associations.json): how much a term of
 * a request speaks for a tool whose name, route or summary has a given term. They are learned from the
 * search phrases alone, never from an evaluation set:
 *
 * 1. Each tool's phrases are dealt into four quarters. For each quarter, the index is built with the other
 *    three and every phrase of the quarter is searched for, as a request the index has not seen; the best
 *    `associationDepth` tools, ranked without associations (`firstStage`), are its candidates.
 * 2. A log-linear model ranks the candidates by `alpha · log(score / best score) + association sum` and is
 *    trained by stochastic gradient descent on the cross-entropy of the phrase's own tool. The objective is
 *    convex and the step shrinks each epoch, so the training runs until the order of the examples no longer
 *    matters: another shuffle gives associations within a few thousandths of these and the same rankings.
 *    (Stopped early, as it once was after three epochs at a fixed step, the ranking depended on the shuffle
 *    by several requests in a hundred.)
 * 3. The associations are divided by `alpha`, so that the index multiplies a score by `exp(sum)`, and the
 *    weak ones are dropped: some fourteen thousand carry what the hundreds of thousands learned do.
 *
 * It reads the committed catalogs and phrases, not the reference material, and takes about 40 seconds.
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
  // The rule for requests that change nothing came after the associations: they are learned without it.
  destructiveInRead: 0.8,
  // So did the one for destructive tools where a request tells a mistake.
  destructiveAfterMistake: 1,
  check: 2,
  // The rule for checking tools that a question does not name came after them: they are learned without it.
  checkElsewhere: 2,
  // The rules for requests that only name things and for repository names came after them too.
  namesOnly: 1,
  several: 1,
  repositoryName: 1,
  repositoryPlace: 1,
  repositoryScope: 1,
  // And those for a service named, for a number written `#231`, for what a request no longer wants, for the
  // clauses of a mistake and of a negation, and for number.
  otherService: 1,
  numberSign: 0,
  stopping: false,
  mistaken: 1,
  declined: 1,
  number: 1,
  pair: 0.25,
  opener: 0.25,
  listed: 0.3,
  // The rule for the message a request carries came after them too.
  message: 1,
  associations: 0,
  // The action model came after them too, and so did reading typos.
  action: 0,
  typos: false,
};
/** Where the associations are written, and what a run of the generators learns last. */
export const associationsPath = 'packages/core/src/search/associations.json';
const quarters = 4;
const epochs = 12;
const learningRate = 0.05;
const alphaRate = 0.005;
const decay = 1e-4;
/** Associations weaker than this (before division by alpha) are dropped. */
const weakest = 0.2;

export interface Example {
  /** The index of the phrase's own tool. */
  tool: number;
  asked: string[];
  candidates: Array<{ tool: number; logScore: number }>;
}

export function generateSearchAssociations(): GeneratedFile[] {
  // The toolkits are typed by core's declarations and the search's internals here by core's source: one Tool when
  // run, two to the compiler, since a class's private field makes each declaration a type of its own.
  const tools = toolkits.flatMap((toolkit) => toolkit.tools) as unknown as Tool[];
  const sides = tools.map(toolTerms);
  const model = train(examples(tools), sides);
  const table: Record<string, Record<string, number>> = {};
  for (const [feature, weight] of [...model.weights].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (Math.abs(weight) < weakest) continue;
    const [term, toolTerm] = feature.split('|') as [string, string];
    table[term] = { ...table[term], [toolTerm]: Math.round((weight / model.alpha) * 1000) / 1000 };
  }
  return [{ path: associationsPath, content: `${JSON.stringify(table)}\n` }];
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

/** The log-linear model of step 2; `seed` only orders the examples, which the result does not depend on. */
export function train(examples: readonly Example[], sides: readonly string[][], seed = 1): { weights: Map<string, number>; alpha: number } {
  // Each pair of a request term and a tool term is a feature, numbered once, so that the epochs only do arithmetic.
  const numbers = new Map<string, number>();
  const numbered = examples.map((example) =>
    example.candidates.map(({ tool }) =>
      Int32Array.from(
        example.asked.flatMap((term) =>
          sides[tool]!.map((side) => {
            const feature = `${term}|${side}`;
            if (!numbers.has(feature)) numbers.set(feature, numbers.size);
            return numbers.get(feature)!;
          }),
        ),
      ),
    ),
  );
  const weights = new Float64Array(numbers.size);
  let alpha = 1;
  const order = examples.map((_, i) => i);
  // A fixed linear congruential sequence, so that the file is the same byte for byte on every run.
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  for (let epoch = 0; epoch < epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    const rate = learningRate / (1 + epoch / 2);
    for (const k of order) {
      const example = examples[k]!;
      const features = numbered[k]!;
      const logits = example.candidates.map((candidate, c) => {
        let logit = alpha * candidate.logScore;
        for (const n of features[c]!) logit += weights[n]!;
        return logit;
      });
      const top = Math.max(...logits);
      const odds = logits.map((logit) => Math.exp(logit - top));
      const total = odds.reduce((a, b) => a + b, 0);
      let alphaGradient = 0;
      example.candidates.forEach((candidate, c) => {
        const gradient = odds[c]! / total - (candidate.tool === example.tool ? 1 : 0);
        alphaGradient += gradient * candidate.logScore;
        for (const n of features[c]!) weights[n] = weights[n]! - rate * (gradient + decay * weights[n]!);
      });
      alpha -= (rate / learningRate) * alphaRate * alphaGradient;
    }
  }
  return { weights: new Map([...numbers].map(([feature, n]) => [feature, weights[n]!])), alpha };
}
