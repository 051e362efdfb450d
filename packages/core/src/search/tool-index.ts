/**
 * The search index over tools: BM25+ (`bm25.ts`) over seven fields of analysed terms, weighted per field,
 * then the best candidates reranked by learned associations between the words people use and the words
 * tools are named by.
 */
import { readFileSync } from 'node:fs';
import { annotationsOf, type Parameter, type Tool } from '../tool.js';
import { Bm25Index } from './bm25.js';
import { apiWordsOf, everydayWords } from './everyday.js';
import type { SearchHit, SearchOptions, ToolIndex } from './types.js';
import { intentOf, inversesOf } from './intent.js';
import { terms } from './terms.js';
import { words } from './words.js';

const fields = ['name', 'summary', 'description', 'route', 'parameters', 'toolkit', 'phrases'] as const;
type Field = (typeof fields)[number];
type Document = Record<Field, string>;

/** The weights of the ranking. bench/search-tune.mjs learns them and starts from `rankingWeights`. */
export interface RankingWeights {
  /**
   * How much a match in each field counts. The name says what the tool does in a few words and the
   * description's first sentence says it in a few more; the rest of the description is mostly caveats
   * (scopes, permissions, limits). The route (HTTP method and path) names the objects in the API's own
   * nesting. Parameters hint at the objects involved; the toolkit (its name and description, the same on
   * all its tools, and the tool's own tags, as an imported operation's) mostly separates toolkits when a
   * query names one. The phrases are requests for the
   * tool in everyday words, written per tool (`ToolkitInfo.phrases`).
   */
  fields: Record<Field, number>;
  /** Weight of the API words an everyday word adds to a query, against 1 for the words the user typed. */
  everyday: number;
  /**
   * A destructive tool's score is multiplied by this unless the request itself asks to delete or asks for
   * the tool's own action ("revoke the token"), neither negated nor reversed, so that it never outranks a
   * harmless tool that fits as well ("take the newsletter offline" is not "delete it").
   */
  destructive: number;
  /**
   * The same factor where the request asks to change nothing at all (no verb of a tool that changes, no
   * opener that asks for a change, nothing to reverse or end): "companies I belong to" lists, it never leaves.
   */
  destructiveInRead: number;
  /** A yes/no question ("is frank a collaborator") asks whether: a tool that checks counts this much. */
  check: number;
  /** Weight of a pair of neighbouring terms (`pairsOf`) against 1 for a single term. */
  pair: number;
  /**
   * How much the first word of a request says whether it asks to change something or to read, as the
   * phrases use that word (`openers`): 0 ignores it, 1 lets a word used only to change rule out reading.
   */
  opener: number;
  /**
   * How much the learned associations (`associations.json`) count: 0 ignores them, 1 ranks the best
   * candidates as the associations were learned to.
   */
  associations: number;
}

/** Learned on the API-worded evaluation set and the tuning half of the everyday one. */
export const rankingWeights: RankingWeights = {
  fields: { name: 1, summary: 0.84, description: 0.06, route: 0.2, parameters: 0.1, toolkit: 1.18, phrases: 1 },
  everyday: 1.48,
  destructive: 0.6,
  destructiveInRead: 0.3,
  check: 2,
  pair: 0.13,
  opener: 0.5,
  associations: 0.25,
};

export function buildToolIndex(tools: readonly Tool[], weights: RankingWeights = rankingWeights, associations?: Associations): ToolIndex {
  const phrases = tools.map((tool) => tool.toolkit.phrases?.()[tool.name] ?? []);
  const index = new Bm25Index(
    tools.map((tool, id) => documentOf(tool, phrases[id]!)),
    fields,
    weights.fields,
  );
  const destructive = tools.map((tool) => annotationsOf(tool).destructiveHint);
  const changes = tools.map((tool) => !annotationsOf(tool).readOnlyHint);
  const checks = tools.map((tool) => tool.name.startsWith('Check'));
  const changeOdds = openers(phrases, changes);
  const actionWords = tools.map(actionWordOf);
  const actions = actionWords.map((word) => terms([word])[0]);
  const actionTerms = new Set(actions.filter((action) => action !== undefined));
  const changeTerms = new Set(actions.filter((action, id) => action !== undefined && changes[id]));
  const inverses = inversesOf(actionWords);
  const learned = weights.associations ? (associations ?? learnedAssociations()) : undefined;
  const sides = learned ? tools.map(toolTerms) : [];

  return {
    search(request: string, { limit, toolkit }: SearchOptions = {}): SearchHit[] {
      const query = request.slice(0, maxRequestLength);
      const wanted = toolkit?.toLowerCase();
      const typed = requestTerms(query);
      if (!typed.own.length && !typed.added.length) return [];
      // An action the request negates or asks to reverse is not asked for; a reversal asks for its inverse.
      const intent = intentOf(query, actionTerms, inverses);
      const unwanted = new Set([...intent.negated, ...intent.reversed]);
      const own = typed.own.filter((term) => !unwanted.has(term));
      const added = typed.added.filter((term) => !unwanted.has(term));
      const inverse = intent.inverses.filter((term) => !own.includes(term));
      // Prefixes catch what the stemmer leaves apart (contribut → contributor, usag → usage), at a reduced weight.
      const prefix = (term: string) => term.length >= 4 && !isPair(term);
      const asked = [
        ...own.map((term) => ({ term, boost: 1, prefix: prefix(term) })),
        ...inverse.map((term) => ({ term, boost: 1, prefix: false })),
        ...added.map((term) => ({ term, boost: weights.everyday, prefix: prefix(term) })),
        ...pairsOf(own).map((term) => ({ term, boost: weights.pair, prefix: false })),
      ];
      const results = index.search(asked).filter(({ id }) => wanted === undefined || tools[id]!.toolkit.name.toLowerCase() === wanted);
      const askedFor = new Set([...own, ...added, ...intent.inverses]);
      const asksToDelete = askedFor.has(deleteTerm);
      const asksWhether = isYesNoQuestion(query);
      // After a negation, the clause that says what to do instead says whether the request reads or changes.
      const changing = oddsOf(changeOdds, openerOf(intent.instead ?? query));
      const asksToChange = (changing ?? 0) > 0.5 || intent.reversed.length > 0 || endsAState.test(query) || [...askedFor].some((term) => changeTerms.has(term));
      const hits = results.map(({ id, score }) => {
        if (destructive[id] && !asksToDelete && !askedFor.has(actions[id]!)) score *= asksToChange ? weights.destructive : weights.destructiveInRead;
        if (unwanted.has(actions[id]!)) score *= unwantedAction;
        if (asksWhether && checks[id]) score *= weights.check;
        if (changing !== undefined) score *= 1 - weights.opener * (changes[id] ? 1 - changing : changing);
        return { id, score };
      });
      hits.sort((a, b) => b.score - a.score);
      if (learned) {
        const terms = [...own, ...inverse, ...added];
        for (const hit of hits.slice(0, associationDepth)) hit.score *= Math.exp(weights.associations * associationOf(learned, terms, sides[hit.id]!));
        hits.sort((a, b) => b.score - a.score);
      }
      return hits.slice(0, limit).map(({ id, score }) => ({ tool: tools[id]!, score }));
    },
  };
}

/**
 * Learned associations: for a term of a request, how much each term of a tool's side (`toolTerms`) speaks
 * for that tool ("company" for one whose route goes through orgs, "propose" for one named for pull requests). They
 * are learned from the phrases by scripts/generate/search-associations.ts, each phrase searched without
 * its own quarter of the phrases indexed, and only the best candidates of such a search are reranked.
 */
export type Associations = ReadonlyMap<string, ReadonlyMap<string, number>>;
export const associationDepth = 30;

let shipped: Associations | undefined;
/** The associations that ship, learned from the built-in toolkits' phrases; read on the first index built. */
export function learnedAssociations(): Associations {
  shipped ??= associationsOf(JSON.parse(readFileSync(new URL('./associations.json', import.meta.url), 'utf8')));
  return shipped;
}
/** Associations from their JSON form: request term → tool term → weight. */
export const associationsOf = (table: Readonly<Record<string, Readonly<Record<string, number>>>>): Associations =>
  new Map(Object.entries(table).map(([term, sides]) => [term, new Map(Object.entries(sides))]));

/** The sum of the associations between the terms of a request and the terms of a tool's side. */
export function associationOf(learned: Associations, asked: readonly string[], side: readonly string[]): number {
  let sum = 0;
  for (const term of asked) {
    const of = learned.get(term);
    if (of) for (const toolTerm of side) sum += of.get(toolTerm) ?? 0;
  }
  return sum;
}

/**
 * The terms a tool is known by to the associations: its toolkit (`@RepoHostApi`), its name's terms, its
 * route's (`r:`) and its summary's (`s:`), each once.
 */
export function toolTerms(tool: Tool): string[] {
  const route = tool.http ? terms(words(tool.http.path.replace(/\{[^}]*\}/g, ' '))).map((term) => `r:${term}`) : [];
  const summary = terms(words(summaryOf(tool))).map((term) => `s:${term}`);
  return [...new Set([`@${tool.toolkit.name}`, ...nameTerms(tool.name, tool.toolkit.name), ...route, ...summary])];
}

/** The terms of a request that the associations read: its own and those its everyday words add. */
export function askedTerms(request: string): string[] {
  const { own, added } = requestTerms(request.slice(0, maxRequestLength));
  return [...own, ...added];
}

/** A request says what it wants in a sentence or two; only this much of it is read, so that a long one costs no more. */
export const maxRequestLength = 500;

/**
 * The share of the phrases beginning with a word that ask for a tool that changes something, for each
 * word that begins at least `openerMinimum` phrases: "which" 0, "show" near 0, "rename" 1, "give" in between.
 */
function openers(phrases: readonly (readonly string[])[], changes: readonly boolean[]): Map<string, number> {
  const counts = new Map<string, { all: number; changing: number }>();
  phrases.forEach((ofTool, id) => {
    for (const phrase of ofTool) {
      const opener = openerOf(phrase);
      const count = counts.get(opener) ?? { all: 0, changing: 0 };
      count.all++;
      if (changes[id]) count.changing++;
      counts.set(opener, count);
    }
  });
  return new Map([...counts].filter(([, count]) => count.all >= openerMinimum).map(([opener, count]) => [opener, count.changing / count.all]));
}
const openerMinimum = 8;

/**
 * Whether a request that begins with `opener` asks for a change: as the phrases that begin with it say, or
 * where too few do, as those that begin with the API word it stands for ("bookmark" as "star").
 */
function oddsOf(changeOdds: ReadonlyMap<string, number>, opener: string): number | undefined {
  const odds = changeOdds.get(opener);
  if (odds !== undefined) return odds;
  const [apiWord] = apiWordsOf(opener);
  return apiWord === undefined ? undefined : changeOdds.get(apiWord);
}

/** The first word of a request after the words that only ask politely ("please", "can you", "I want to"). */
const openerOf = (request: string): string =>
  request
    .toLowerCase()
    .replace(politeLead, '')
    .match(/[\p{L}\p{N}']+/u)?.[0] ?? '';
const politeLead =
  /^\s*(?:(?:please|pls|hey|ok|so|now|then|just|quickly|also)\s+|(?:can|could|would|will)\s+(?:you|u)\s+|i\s+(?:want|need|would like|wanna|have)\s+to\s+|i'd\s+like\s+to\s+|let's\s+|help\s+me\s+|go\s+ahead\s+and\s+)+/;

/** Whether a request asks whether something is so: "is frank a collaborator", "do I follow sam", but not "can you add ...". */
function isYesNoQuestion(request: string): boolean {
  const [first, second] = request.toLowerCase().match(/[\p{L}']+/gu) ?? [];
  return first !== undefined && yesNoOpeners.has(first) && second !== 'you' && second !== 'u';
}
const yesNoOpeners = new Set(['is', 'are', 'am', 'was', 'were', 'do', 'does', 'did', 'has', 'have', 'can', "isn't", "aren't", "doesn't"]);

const analyse = (text: string): string => terms(words(text)).join(' ');

/** A request's own terms (less the everyday words that another term replaces) and the API terms its everyday words add. */
function requestTerms(request: string): { own: string[]; added: string[] } {
  const typed = words(withoutNames(request));
  const everyday = everydayTerms(typed);
  const own = terms(typed.filter((_, i) => !everyday.replaced.has(i)));
  return { own, added: everyday.terms.filter((term) => !own.includes(term)) };
}

/** A tool's phrases are requests, so they are analysed as a query is, and the same words meet on the same terms. */
const analyseRequests = (requests: readonly string[]): string =>
  requests
    .flatMap((request) => {
      const { own, added } = requestTerms(request);
      return [...own, ...added, ...pairsOf(own)];
    })
    .join(' ');

/**
 * Each two neighbouring terms of a request, in order, as one term: word order tells "who follows me"
 * from "who do I follow", which share every word. Only phrases and queries have them.
 */
const pairsOf = (terms: readonly string[]): string[] => terms.slice(1).map((term, i) => `+${terms[i]}+${term}`);
// A pair starts with a mark no term starts with, so that a prefix search for a term never walks the pairs.
const isPair = (term: string) => term.startsWith('+');

/**
 * A request without the names it gives things: quoted text ('bug', "Spring launch") and the word after
 * "called" or "named" (a branch called release-2) are values, not what the tool does, as numbers are.
 */
const withoutNames = (query: string): string => query.replace(/(^|\s)(["'])[^"']+\2(?=$|[\s.,;:!?])/g, '$1').replace(/\b(called|named)\s+\S+/gi, '');
const deleteTerm = terms(['delete'])[0]!;
const endsAState = /\b(?:no longer|anymore|any more)\b/i;

/** Everyday phrases by their first word, longest first, each with the API terms it adds (or puts in its place). */
const everydayByFirstWord = new Map<string, Array<{ phrase: string[]; adds: string[]; replaces: boolean }>>();
for (const [phrase, api] of everydayWords) {
  const key = phrase.split(' ');
  const entries = everydayByFirstWord.get(key[0]!) ?? [];
  entries.push({ phrase: key, adds: terms(words(api)), replaces: api.startsWith('=') });
  entries.sort((a, b) => b.phrase.length - a.phrase.length);
  everydayByFirstWord.set(key[0]!, entries);
}

/** The API terms that the everyday words and phrases of a request stand for, and the positions of the words they replace. */
function everydayTerms(typed: readonly string[]): { terms: string[]; replaced: Set<number> } {
  const out: string[] = [];
  const replaced = new Set<number>();
  for (let i = 0; i < typed.length; i++) {
    const match = everydayByFirstWord.get(typed[i]!)?.find(({ phrase }) => phrase.every((word, j) => typed[i + j] === word));
    if (!match) continue;
    for (const term of match.adds) if (!out.includes(term)) out.push(term);
    if (match.replaces) for (let j = 0; j < match.phrase.length; j++) replaced.add(i + j);
    i += match.phrase.length - 1;
  }
  return { terms: out, replaced };
}

/**
 * A tool that does what the request says not to do, or what it asks to reverse, counts this much: "don't
 * delete the webhooks, just show them" still names deleting, and the deleting tools must not come first.
 */
const unwantedAction = 0.5;

/** The verb a tool's name begins with, less its toolkit's name (`RepohostCreateIssueComment` → create). */
function actionWordOf(tool: Tool): string {
  const brand = tool.toolkit.name.toLowerCase().replace(/api$/, '');
  return words(tool.name).find((word) => word !== brand) ?? '';
}

/** The terms of a tool's name, less its toolkit's own name (`CreateRepohostIssue` in RepoHostApi), which says nothing about the tool. */
export function nameTerms(name: string, toolkit: string): string[] {
  const brand = toolkit.toLowerCase().replace(/api$/, '');
  return terms(words(name).filter((word) => word !== brand));
}
/** A tool description's first sentence says what it does; the rest is mostly caveats. */
const sentencesOf = (tool: Tool) => tool.description.split(/(?<=\.)\s/);
const summaryOf = (tool: Tool) => sentencesOf(tool)[0] ?? '';

function documentOf(tool: Tool, phrases: readonly string[]): Document {
  const [summary = '', ...details] = sentencesOf(tool);
  const body = (tool.requestBody?.schema.properties ?? {}) as Record<string, { description?: string }>;
  return {
    name: nameTerms(tool.name, tool.toolkit.name).join(' '),
    summary: analyse(summary),
    description: analyse(`${details.join(' ')} ${tool.output.description}`),
    route: tool.http ? analyse(`${methodWords[tool.http.method]} ${tool.http.path.replace(/\{[^}]*\}/g, ' ')}`) : '',
    parameters: analyse(
      [...tool.parameters.filter(isOwnParameter).map(describe), ...Object.entries(body).map(([name, p]) => `${name} ${p.description ?? ''}`)].join(' '),
    ),
    // An imported operation's tags (`pets`, `billing`) name its group as the toolkit's name names the whole.
    toolkit: analyse(`${tool.toolkit.name} ${tool.toolkit.description} ${(tool.tags ?? []).join(' ')}`),
    phrases: analyseRequests(phrases),
  };
}

/** What each HTTP method does, in the words a request uses. */
const methodWords: Record<string, string> = { GET: 'get', HEAD: 'get', POST: 'create', PUT: 'update', PATCH: 'update', DELETE: 'delete' };

/** `mode` and `request_body` read the same on every mode-driven tool; the request body's own properties are indexed instead. */
const isOwnParameter = (parameter: Parameter) => parameter.in !== undefined;
const describe = (parameter: Parameter) => `${parameter.name} ${parameter.description}`;
