/**
 * The search index over tools: BM25+ (`bm25.ts`) over seven fields of analysed terms, weighted per field,
 * then the best candidates reranked by learned associations between the words people use and the words
 * tools are named by.
 */
import { readFileSync } from 'node:fs';
import { BoundedMemo } from '../bounded-memo.js';
import { annotationsOf, type Parameter, type Tool } from '../tool.js';
import { Bm25Index } from './bm25.js';
import { apiWordsOf, everydayWords } from './everyday.js';
import type { SearchHit, SearchOptions, ToolIndex } from './types.js';
import { intentOf, inversesOf, lowered } from './intent.js';
import { stopWords } from './synonyms.js';
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
   * the tool's own action on the tool's own object ("revoke the token" for `RevokeToken`), neither negated
   * nor reversed, so that it never outranks a harmless tool that fits as well ("take the newsletter offline"
   * is not "delete it").
   */
  destructive: number;
  /**
   * The same factor where the request asks to change nothing at all (no verb of a tool that changes, no
   * opener that asks for a change, nothing to reverse or end): "companies I belong to" lists, it never
   * leaves. A request that puts something back ("by mistake", "again") counts so too: it repairs, and a
   * destructive tool it does not name would do more harm.
   */
  destructiveInRead: number;
  /**
   * Where the request tells a mistake and asks for something besides (`Intent.mistaken`), a destructive tool
   * it does not ask for counts this much more: what repairs a mistake must not add another.
   */
  destructiveAfterMistake: number;
  /** A yes/no question ("is frank a collaborator") asks whether: a tool that checks counts this much. */
  check: number;
  /**
   * A checking tool whose name says nothing the question names counts this much instead ("did my order go
   * through" is no question for `CheckIfUserIsFollowed`).
   */
  checkElsewhere: number;
  /**
   * A request that only names things (`namedNumber`: "the deploy keys of octo/app", "starter ignore file for
   * a node project") asks to change nothing: a tool that changes counts this much.
   */
  namesOnly: number;
  /** Where such a request names several things ("files attached to the release"), a tool that lists counts this much. */
  several: number;
  /**
   * How much the words of a repository named by owner and name (`acme/app-server`, `repositoryNames`)
   * count, against 1 for the other words typed; the word "repository" counts the rest. At 1 a name is read
   * as its words.
   */
  repositoryName: number;
  /**
   * Weight of the word "repository" that such a name adds where the request also names a numbered thing
   * ("issue 301 in acme/web", "acme/api#77", `numberedThing`): the repository is then where the thing is, not
   * what is acted on.
   */
  repositoryPlace: number;
  /**
   * Where a request names a repository by owner and name ("the webhooks of acme/api"), a tool of a toolkit that
   * addresses repositories in its routes, whose own route addresses none (an organization's, a user's, the
   * server's), counts this much: the request is about that one repository.
   */
  repositoryScope: number;
  /** Weight of the terms of a list that ends a request after a colon (`splitList`), mostly values. */
  listed: number;
  /**
   * Weight of the terms of the message a request carries (`splitMessage`: "tell the folks on issue 12 that a
   * fix shipped in 2.3") and of its quoted text ('Crash on save'), content rather than what is asked. At 1
   * the message is read as the request and quoted text is dropped, as names are.
   */
  message: number;
  /**
   * A request that names a toolkit's service (`serviceNames`: "the deck in Dropbox", "our HubSpot forms") asks
   * that toolkit: the tools of the others count this much.
   */
  otherService: number;
  /**
   * Weight of the words "issue" and "pull request" that a number written `#231` adds to a request that names
   * neither: on the code sites that write numbers so, it is one or the other.
   */
  numberSign: number;
  /** Weight of the terms only the clause that tells a mistake has (`Intent.mistaken`), against 1 for the rest. */
  mistaken: number;
  /** Weight of the terms only the clause a negation declines has (`Intent.declined`), against 1 for the rest. */
  declined: number;
  /**
   * Whether a request that no longer wants to do something is read as asking to stop it (`asStopping`: "I
   * don't want to watch octo/app anymore" as "stop watching octo/app").
   */
  stopping: boolean;
  /**
   * A tool whose name says one thing where the request says several of it, or several where it says one
   * (`GetComponent` for "the components of file 9", `ListIssues` for "ticket 512"), counts this much.
   */
  number: number;
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
  /** Whether a word no tool has is read as the typo of a term one edit away (`typoOf`). */
  typos: boolean;
  /**
   * How much the action a request asks for (`actionModel`) counts: a tool's score is multiplied by the
   * probability of its name's verb given the request's words, to this power. 0 ignores it.
   */
  action: number;
}

/** Learned on the API-worded evaluation set and the tuning half of the everyday one. */
export const rankingWeights: RankingWeights = {
  fields: { name: 1, summary: 0.84, description: 0.06, route: 0.2, parameters: 0.1, toolkit: 1.18, phrases: 1 },
  everyday: 1.48,
  destructive: 0.6,
  destructiveInRead: 0.3,
  destructiveAfterMistake: 0.5,
  check: 2,
  checkElsewhere: 1,
  namesOnly: 0.9,
  several: 1.1,
  repositoryName: 0.3,
  repositoryPlace: 0.5,
  repositoryScope: 0.7,
  otherService: 0.5,
  numberSign: 0.8,
  stopping: true,
  mistaken: 0.5,
  declined: 0.5,
  number: 0.95,
  pair: 0.13,
  listed: 0.3,
  message: 0.3,
  opener: 0.5,
  associations: 0.25,
  action: 0.3,
  typos: true,
};

export function buildToolIndex(tools: readonly Tool[], weights: RankingWeights = rankingWeights, associations?: Associations): ToolIndex {
  const phrases = tools.map((tool) => tool.toolkit.phrases?.()[tool.name] ?? []);
  // Names (a repository's, a path's) are read as values, not as words of the request, where they count less than words.
  const readsValues = weights.repositoryName < 1;
  const index = new Bm25Index(
    tools.map((tool, id) => documentOf(tool, phrases[id]!, readsValues)),
    fields,
    weights.fields,
  );
  const services = serviceNames(tools, phrases);
  const destructive = tools.map((tool) => annotationsOf(tool).destructiveHint);
  const changes = tools.map((tool) => !annotationsOf(tool).readOnlyHint);
  const checks = tools.map((tool) => tool.name.startsWith('Check'));
  // Tools whose route names a repository, and the toolkits that have any: the others' tools act elsewhere.
  const placed = tools.map((tool) => repositoryPlaceholder.test(tool.http?.path ?? ''));
  const withRepositories = new Set(tools.filter((_, id) => placed[id]).map((tool) => tool.toolkit.name));
  const elsewhere = tools.map((tool, id) => !placed[id] && withRepositories.has(tool.toolkit.name));
  const changeOdds = openers(phrases, changes);
  const everyOpener = openers(phrases, changes, 1);
  const actionWords = tools.map(actionWordOf);
  const actions = actionWords.map((word) => terms([word])[0]);
  const lists = actions.map((action) => action === listTerm);
  const actionTerms = new Set(actions.filter((action) => action !== undefined));
  const changeTerms = new Set(actions.filter((action, id) => action !== undefined && changes[id]));
  const inverses = inversesOf(actionWords);
  const objectWords = tools.map(objectWordsOf);
  const objects = objectWords.map((named) => terms(named));
  const heads = objectWords.map(headOf);
  // Everything a tool's name says besides its verb: what it acts on and where (`CheckUserMembershipInOrg` → user, membership, org).
  const subjects = tools.map((tool, id) => nameTerms(tool.name, tool.toolkit.name).filter((term) => term !== actions[id]));
  const actionOdds = weights.action ? actionModel(actions, phrases) : undefined;
  const learned = weights.associations ? (associations ?? learnedAssociations()) : undefined;
  const sides = learned ? tools.map(toolTerms) : [];
  // A word begins a request as a verb where it begins enough phrases to say whether they change (or, fewer,
  // mostly ones that change: "unarchive", "note"), or begins a tool's name. Nouns begin only a few that read.
  const isVerb = (word: string): boolean =>
    oddsOf(changeOdds, word) !== undefined || (everyOpener.get(word) ?? 0) > 0.5 || actionTerms.has(terms([word])[0] ?? '');
  // A verb no tool's name begins with means the action its associations speak for most ("close" → update).
  const actionsMeant = (term: string): string[] => {
    let best: string | undefined;
    let strongest = meaningMinimum;
    for (const [toolTerm, weight] of learned?.get(term) ?? []) {
      if (weight >= strongest && actionTerms.has(toolTerm)) [best, strongest] = [toolTerm, weight];
    }
    return best === undefined ? [] : [best];
  };

  return {
    search(request: string, { limit, toolkit }: SearchOptions = {}): SearchHit[] {
      const cut = request.slice(0, maxRequestLength).replace(verbSomeoneAThing, '$1 $3 to $2');
      const query = weights.stopping ? asStopping(cut) : cut;
      const wanted = toolkit?.toLowerCase();
      const typed = requestTerms(query, true, weights.message < 1);
      // A few words no tool has are read as typos; a request of many such words (pasted text) costs no more.
      let typos = 0;
      if (weights.typos) typed.own = typed.own.map((term) => (index.documentsWith(term) || typos++ >= maxTypos ? term : (typoOf(term, index) ?? term)));
      // Once: a term given twice would count twice ("email everyone and blast the newsletter" adds it as well).
      const addOnce = (term: string) => {
        if (!typed.own.includes(term) && !typed.added.includes(term)) typed.added.push(term);
      };
      const opening = withoutPoliteLead(query);
      if (sendsMessage.test(opening)) addOnce(sendTerm);
      if (mentionsSomeone.test(opening)) for (const term of commentTerms) addOnce(term);
      // A path from the root ("/Shared/Design", "/Invoices/inv-2291.pdf") names a folder or a file in a store of them.
      const path = readsValues ? query.match(absolutePath) : null;
      if (path) addOnce(path[1] ? fileTerm : folderTerm);
      if (!typed.own.length && !typed.added.length) return [];
      // An action the request negates or asks to reverse is not asked for; a reversal asks for its inverse.
      const intent = intentOf(query, actionTerms, inverses, actionsMeant, askedTerms);
      const unwanted = new Set([...intent.negated, ...intent.reversed]);
      // Where a reversal names the action it wants (its inverse), the words that only ask to undo say nothing more.
      const own = typed.own.filter((term) => !unwanted.has(term) && !(intent.inverses.length > 0 && undoingTerms.has(term)));
      // What a mistake made is the state to leave: its words count as content where the rest does not name them.
      const mistakeTold = intent.mistaken !== undefined && weights.mistaken < 1;
      const mistaken = mistakeTold ? clauseOnlyTerms(intent.mistaken!, lowered(query)) : noTerms;
      // What a negation declines, where the request names what it wants in words of its own, counts less too.
      const declined = intent.declined === undefined || weights.declined >= 1 ? noTerms : clauseOnlyTerms(intent.declined, lowered(query));
      // A reversal names the action wanted more precisely than an everyday verb does ("withdraw" stands for
      // deleting, but "withdraw the approving review" asks to dismiss it): the verb's other actions are dropped.
      const added = typed.added.filter(
        (term) => !unwanted.has(term) && !(intent.inverses.length > 0 && actionTerms.has(term) && !intent.inverses.includes(term)),
      );
      const inverse = intent.inverses.filter((term) => !own.includes(term));
      // Prefixes catch what the stemmer leaves apart (contribut → contributor, usag → usage), at a reduced weight.
      const prefix = (term: string) => term.length >= 4 && !isPair(term);
      // A repository named by owner and name is read as the word "repository", its words at a fraction.
      const { named: repositoryWords, rest: withoutRepositories } = repositoryNames(query);
      // Its words, and those of a path ("/Marketing/Campaigns"), are values: they count at a fraction, as names.
      const values = !readsValues ? noTerms : path ? new Set([...repositoryWords, ...clauseOnlyTerms(path[0], query)]) : repositoryWords;
      const repository = repositoryWords.size > 0 && weights.repositoryName < 1 && !own.includes(repositoryTerm) ? [repositoryTerm] : [];
      // "#231" is an issue or a pull request by its number.
      const numbered =
        weights.numberSign > 0 && numberSign.test(query) && !own.includes(issueTerm) && !own.includes(pullRequestTerm) ? [issueTerm, pullRequestTerm] : [];
      const ownBoost = (term: string) =>
        values.has(term) ? weights.repositoryName : mistaken.has(term) ? weights.mistaken : declined.has(term) ? weights.declined : 1;
      const asked = [
        ...numbered.map((term) => ({ term, boost: weights.numberSign, prefix: false })),
        ...own.map((term) => ({ term, boost: ownBoost(term), prefix: prefix(term), value: values.has(term) })),
        ...repository.map((term) => ({ term, boost: numberedThing.test(query) ? weights.repositoryPlace : 1 - weights.repositoryName, prefix: false })),
        ...inverse.map((term) => ({ term, boost: 1, prefix: false })),
        ...added.map((term) => ({ term, boost: weights.everyday, prefix: prefix(term) })),
        ...pairsOf(own).map((term) => ({ term, boost: weights.pair, prefix: false })),
        ...typed.listed.map((term) => ({ term, boost: weights.listed, prefix: false })),
        ...typed.message.map((term) => ({ term, boost: weights.message, prefix: false })),
      ];
      const results = index.search(asked).filter(({ id }) => wanted === undefined || tools[id]!.toolkit.name.toLowerCase() === wanted);
      // A repository named by owner and name is asked about as the word "repository" would be ("unstar acme/web"),
      // unless it is only where a numbered thing is ("issue 301 in acme/web").
      const repositoryAsked = numberedThing.test(query) ? [] : repository;
      const askedFor = new Set([...own, ...added, ...intent.inverses, ...repositoryAsked]);
      // A deletion told in the past tense ("they only deleted a saved card") is what happened, not what is asked.
      if (askedFor.has(deleteTerm) && !added.includes(deleteTerm) && deletionsAllPast(query)) askedFor.delete(deleteTerm);
      const asksToDelete = askedFor.has(deleteTerm);
      const asksWhether = isYesNoQuestion(query);
      const named = namedNumber(query, isVerb);
      // After a negation, the clause that says what to do instead says whether the request reads or changes.
      const opener = verbOpenerOf(intent.instead ?? query, changeOdds);
      // A request that reverses an earlier action asks for a change, whatever word it begins with; so does one that
      // tells a mistake and asks for something besides ("I closed issue 19 by mistake, can you reopen it"): a fix.
      // (Read so with the mistake's clause, `mistaken`, as the associations were learned without either.)
      const changing = intent.reversed.length > 0 || mistakeTold ? 1 : oddsOf(changeOdds, opener);
      const asksToChange =
        ((changing ?? 0) > 0.5 && !determiners.has(opener)) ||
        intent.reversed.length > 0 ||
        endsAState.test(query) ||
        [...askedFor].some((term) => changeTerms.has(term));
      // A repository's name ("acme/web") is a value: its words say nothing of the action.
      const actionOf = actionOdds?.(withoutRepositories, unwanted);
      const servicesNamed = services.size ? servicesIn(query, services) : noToolkits;
      const numbers = weights.number < 1 ? numbersOf(query) : noNumbers;
      const hits = results.map(({ id, score }) => {
        if (destructive[id] && !asksToDelete && !asksForActionOn(askedFor, actions[id], objects[id]!))
          score *=
            (asksToChange && !intent.restores && !intent.negates ? weights.destructive : weights.destructiveInRead) *
            (mistakeTold ? weights.destructiveAfterMistake : 1);
        if (unwanted.has(actions[id]!)) score *= unwantedAction;
        if (asksWhether && checks[id]) score *= asksAbout(askedFor, subjects[id]!) ? weights.check : weights.checkElsewhere;
        if (named !== undefined && changes[id]) score *= weights.namesOnly;
        if (named === 'several' && lists[id]) score *= weights.several;
        if (changing !== undefined) score *= 1 - weights.opener * (changes[id] ? 1 - changing : changing);
        if (actionOf && actions[id] !== undefined) score *= actionOf(actions[id]!) ** weights.action;
        if (servicesNamed.size && !servicesNamed.has(tools[id]!.toolkit.name)) score *= weights.otherService;
        if (repositoryWords.size && elsewhere[id]) score *= weights.repositoryScope;
        const head = heads[id];
        if (head !== undefined && numbers.has(head.term) && numbers.get(head.term) !== head.plural) score *= weights.number;
        return { id, score };
      });
      hits.sort((a, b) => b.score - a.score);
      if (learned) {
        // A repository's own name ("acme/web") and a path say nothing of the tool: their words are values.
        const terms = [...own.filter((term) => !values.has(term)), ...inverse, ...added, ...repository];
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
/** How strongly a verb must go with a catalog action to be read as it when negated. */
const meaningMinimum = 0.15;

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

/**
 * The term a word that no tool has is most likely a typo of: the one, among the terms one edit away (a letter left
 * out, changed, or two swapped, "asign" for assign; else one too many), that the most tools have. Only words of
 * letters at least five long are read so: a shorter one is as often a name ("dana" is one edit from "data").
 */
function typoOf(term: string, index: Bm25Index<Field>): string | undefined {
  if (term.length < minTypoLength || term.length > maxTypoLength || !/^[a-z]+$/.test(term)) return undefined;
  let best: string | undefined;
  let most = 0;
  const consider = (candidate: string) => {
    const documents = index.documentsWith(candidate);
    if (documents > most) [best, most] = [candidate, documents];
  };
  for (let i = 0; i <= term.length; i++) {
    const [head, tail] = [term.slice(0, i), term.slice(i)];
    if (tail.length > 1) consider(head + tail[1] + tail[0] + tail.slice(2));
    for (const letter of alphabet) {
      consider(head + letter + tail);
      if (tail) consider(head + letter + tail.slice(1));
    }
  }
  // A letter too many is the rarer typo, and taking one out of a word often leaves another ("asign" is no "sign").
  for (let i = 0; best === undefined && i < term.length; i++) consider(term.slice(0, i) + term.slice(i + 1));
  return best;
}
const alphabet = 'abcdefghijklmnopqrstuvwxyz';
const minTypoLength = 5;
const maxTypos = 4;
const maxTypoLength = 20;

/** A request says what it wants in a sentence or two; only this much of it is read, so that a long one costs no more. */
export const maxRequestLength = 500;

/**
 * The share of the phrases beginning with a word that ask for a tool that changes something, for each
 * word that begins at least `openerMinimum` phrases: "which" 0, "show" near 0, "rename" 1, "give" in between.
 */
function openers(phrases: readonly (readonly string[])[], changes: readonly boolean[], minimum = openerMinimum): Map<string, number> {
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
  return new Map([...counts].filter(([, count]) => count.all >= minimum).map(([opener, count]) => [opener, count.changing / count.all]));
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
const openerOf = (request: string): string => firstWordOf(withoutPoliteLead(request));
const withoutPoliteLead = (request: string): string => request.toLowerCase().replace(politeLead, '');
const firstWordOf = (text: string): string => text.match(/[\p{L}\p{N}']+/u)?.[0] ?? '';
const politeLead =
  /^\s*(?:(?:please|pls|hey|ok|so|now|then|just|quickly|also)\s+|(?:can|could|would|will)\s+(?:you|u)\s+|i\s+(?:want|need|would like|wanna|have)\s+to\s+|i'd\s+like\s+to\s+|let's\s+|help\s+me\s+|go\s+ahead\s+and\s+)+/;

/**
 * The opener of a request, or the verb after it where it is a noun followed by "to" and a verb that
 * begins phrases ("link to download the logs" asks to download).
 */
function verbOpenerOf(request: string, changeOdds: ReadonlyMap<string, number>): string {
  const text = withoutPoliteLead(request);
  const [, after] = text.match(/^[\p{L}\p{N}']+\s+to\s+([\p{L}']+)/u) ?? [];
  return after !== undefined && changeOdds.has(after) ? after : firstWordOf(text);
}

/** Words that begin a noun, not a verb: a request that opens with one says by its first word nothing of what it asks done. */
const determiners = new Set(['the', 'a', 'an', 'my', 'our', 'your', 'his', 'her', 'their', 'its', 'this', 'that', 'these', 'those']);

/** Whether a request asks whether something is so: "is frank a collaborator", "do I follow sam", but not "can you add ...". */
function isYesNoQuestion(request: string): boolean {
  const [first, second] = request.toLowerCase().match(/[\p{L}']+/gu) ?? [];
  return first !== undefined && yesNoOpeners.has(first) && second !== 'you' && second !== 'u';
}
const yesNoOpeners = new Set(['is', 'are', 'am', 'was', 'were', 'do', 'does', 'did', 'has', 'have', 'can', "isn't", "aren't", "doesn't"]);

const analyse = (text: string): string => terms(words(text)).join(' ');

/**
 * A request's own terms (less the everyday words that another term replaces), the API terms its everyday
 * words add, the terms of a list that ends it after a colon (`splitList`) and, where `carriesMessage`, those
 * of the message it carries (`splitMessage`) and of its quoted text.
 */
function requestTerms(request: string, compounds = true, carriesMessage = false): { own: string[]; added: string[]; listed: string[]; message: string[] } {
  const [rest, list] = splitList(withoutNames(request));
  const [head, said] = carriesMessage ? splitMessage(rest) : [rest, ''];
  const message = carriesMessage ? [said, ...[...request.matchAll(quoted)].map((match) => match[3])].join(' ') : '';
  const { typed, compound } = wordsOfCompounds(head, compounds);
  const everyday = everydayTerms(typed, compound);
  const own = terms(typed.filter((_, i) => !everyday.replaced.has(i)));
  const added = everyday.terms.filter((term) => !own.includes(term));
  const neither = (term: string) => !own.includes(term) && !added.includes(term);
  return { own, added, listed: terms(words(list)).filter(neither), message: terms(words(message)).filter(neither) };
}

/** A tool's phrases are requests, so they are analysed as a query is, and the same words meet on the same terms. */
const analyseRequests = (requests: readonly string[], readsValues: boolean): string =>
  requests
    .flatMap((request) => {
      // A phrase's hyphenated words are the catalog's own (self-hosted, sign-in), not names a user gives. Its
      // repositories' names are examples ("acme/web"), which would draw to it every request that names the same.
      const { own, added, listed } = requestTerms(readsValues ? withoutRepositoryNames(request) : request, false);
      return [...own, ...added, ...listed, ...pairsOf(own)];
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
const withoutNames = (query: string): string => query.replace(quoted, '$1').replace(/\b(called|named)\s+\S+/gi, '');
/**
 * Text in quotes, standing alone (not the apostrophe of "octo/app's"): the quote's text is the third group. Double
 * quotes may hold apostrophes ("don't merge"), single ones an apostrophe within a word ('I'd rather revert').
 */
const quoted = /(^|\s)(["'])((?:(?!\2).|(?<=\p{L})'(?=\p{L}))+)\2(?=$|[\s.,;:!?])/gu;

/**
 * A request and the list that ends it after a colon ("split the task into: research, draft, review"): the
 * list is mostly values (items, names, addresses), though it may name what is asked ("facts: size, visibility").
 */
function splitList(request: string): [string, string] {
  const colon = request.lastIndexOf(':');
  const tail = request.slice(colon + 1);
  return colon >= 0 && isList(tail) ? [request.slice(0, colon), tail] : [request, ''];
}

/**
 * A request and the message it carries ("tell the folks on issue 12 that a fix shipped in 2.3", "let everyone
 * know the patch went out", or after a colon: "make a gist with: …"): what the message says is content, not
 * what the request asks. The whole request is kept where nothing but the message would be left.
 */
function splitMessage(request: string): [string, string] {
  const match = request.match(messageStart) ?? request.match(contentAfterColon);
  if (match?.index === undefined) return [request, ''];
  const head = request.slice(0, match.index + match[0].length);
  return terms(words(head)).length ? [head, request.slice(head.length)] : [request, ''];
}
/**
 * Where a message begins: after "that" following a verb of telling that opens a clause, and its addressee
 * (not "that" as a relative, "the comment that suggested the fix", nor as a determiner, right after the verb
 * or a preposition: "reply to that comment"); or after "let … know", but not "let me know", which asks for
 * the answer.
 */
/** On, in or under a thing named with its number, after up to three words: "on acme/web issue 12", "in thread 7". */
const onANumberedThing = String.raw`(?:on|in|under)\s+(?:[\w'@.#/-]+\s+){0,3}?[\w'@./-]*#?\d+\b`;
const clauseOpening = String.raw`(?:${politeLead.source}|^\s*|[,;.!?]\s+|\b(?:to|and|then)\s+)`;
const messageStart = new RegExp(
  String.raw`${clauseOpening}(?:tell|say|reply|answer|comment|note|jot|post|write|message|email|remind|ping|notify|nudge|mention)` +
    String.raw`(?:\s+(?!(?:to|on|in|for|about|with|of|from|at|under|into)\s+that\b)[\w'@.#/-]+){1,8}?\s+that\b` +
    String.raw`|\blet\s+(?!(?:me|us)\b)(?:[\w'@.#/-]+\s+){1,6}?know(?:\s+that)?\b` +
    // Or without "that", after those told and the numbered thing they are told on: "tell the folks on issue 12 the release shipped".
    String.raw`|${clauseOpening}(?:tell|remind|ping|notify|nudge|mention)\s+(?:[\w'@.-]+\s+){1,4}?${onANumberedThing}` +
    // What someone is asked to do is theirs to do: "mention @sam on the pull request asking him to delete the branch".
    String.raw`|\b(?:asking|telling|reminding)\s+(?:him|her|them|everyone|@[\w-]+|the\s+\w+|\w+)\s+to\b`,
  'i',
);
/**
 * Where content introduced by a colon begins: "make a secret gist with: git push --force …", "change the body of
 * issue 77 to: …", "comment saying: LGTM", "add a card with the note: …". A colon alone begins none: "quick one:
 * list the webhooks" asks what follows it.
 */
const contentAfterColon = /\b(?:with|to|say|saying|says|reading|containing|body|text|message|content|notes?)\s*:/i;

/**
 * "Drop sam a line" is "drop a line to sam", "show @sam the door" is "show the door to @sam": in such idioms the
 * one they are for comes between the verb and the rest of it, which the everyday words read unbroken.
 */
const verbSomeoneAThing = /\b(drop|show|give)\s+(\S+)\s+((?:an?|the)\s+(?:line|note|message|comment|door|boot))\b/gi;

/**
 * A request that no longer wants to do something, worded as stopping it: "I don't want to watch octo/app
 * anymore" as "stop watching octo/app", "we no longer need to run the nightly job" as "stop running ...".
 */
export function asStopping(request: string): string {
  return request.replace(noLongerWanted, (_, before: string | undefined, after: string | undefined) => `stop ${gerundOf((before ?? after)!)}`);
}
const noLongerWanted =
  /\b(?:(?:i|we)\s+)?(?:(?:don'?t|do not)\s+(?:want|need|wish)\s+to\s+([a-z]{3,})\b(?=[^.;!?]*\b(?:anymore|any more)\b)|no longer\s+(?:want|need|wish)\s+to\s+([a-z]{3,})\b)/gi;
/** The -ing form of a verb: watch → watching, receive → receiving, get → getting. */
function gerundOf(verb: string): string {
  const lower = verb.toLowerCase();
  if (/[^e]e$/.test(lower)) return `${lower.slice(0, -1)}ing`;
  if (/^[^aeiou]*[aeiou][bdgmnpt]$/.test(lower)) return `${lower}${lower.at(-1)}ing`;
  return `${lower}ing`;
}

/** Whether a text is a list of short items: two or more, each of a few words, between commas or "and". */
function isList(text: string): boolean {
  const items = text.split(/,|\band\b/).map((item) => item.trim().split(/\s+/).filter(Boolean).length);
  return items.length >= 2 && items.every((length) => length >= 1 && length <= maxListItemWords);
}
const maxListItemWords = 3;
/** Words by which a request asks to undo something without naming what: "take that back", "put it back", "undo that". */
const undoingTerms = new Set(terms(['back', 'again', 'undo', 'revert', 'take', 'put', 'bring', 'switch']));
const deleteTerm = terms(['delete'])[0]!;
/** Whether a request means deleting only by past tenses and participles ("deleted", "removed"), not as "get rid of" does. */
export const deletionsAllPast = (request: string): boolean =>
  !terms(words(request).filter((word) => !(/(?:ed|en)$/.test(word) && terms([word])[0] === deleteTerm))).includes(deleteTerm);
const sendTerm = terms(['send'])[0]!;
/**
 * A request that opens by emailing someone ("email the vendor and ask for a quote"), or by telling someone
 * who is an email address something ("let ops@acme.io know the migration finished"), asks to send a message.
 */
const sendsMessage = new RegExp(
  String.raw`^(?:(?:e-?mail|message)\s+(?:the|my|our|his|her|their|everyone|everybody|him|them)\b` +
    String.raw`|(?:e-?mail|message|tell|let|ping|ask|remind|notify|write\s+to)\s+(?:[\w'-]+\s+){0,2}?[^\s@]+@[^\s@]+\.[a-z]{2,}\b)`,
);
/**
 * A request that opens by telling someone named by their handle something ("ping @ana on gist 5f1e2 that ..."),
 * or people on a numbered thing ("tell the folks on issue 12 ..."), asks to comment where they are.
 */
const mentionsSomeone = new RegExp(String.raw`^(?:tell|let|ping|ask|remind|notify|nudge|mention)\s+(?:@[\w-]+|(?:[\w'-]+\s+){1,3}?${onANumberedThing})`);
const commentTerms = terms(['create', 'comment']);
/** A path from the root, of a folder or (with an extension, the first group) a file. */
const absolutePath = /(?:^|\s)\/[\p{L}\p{N} _-]*[\p{L}\p{N}](?:\/[\p{L}\p{N} _-]*[\p{L}\p{N}])*(\.[a-z0-9]{1,5})?(?=$|[\s,;:!?)]|\.(?:\s|$))/iu;
const fileTerm = terms(['file'])[0]!;
const folderTerm = terms(['folder'])[0]!;
const issueTerm = terms(['issue'])[0]!;
const pullRequestTerm = terms(['pr'])[0]!;
/** A route's placeholder for a repository: `{repo}`, `{repository_id}`. */
const repositoryPlaceholder = /\{(?:repo|repository_id)\}/;
/** A thing named by its number: "issue 301", "release 77", "#231". */
const numberedThing = /#\d+\b|\b\p{L}{2,}\s+#?\d+\b/iu;
/** `#231` standing alone, or after a repository as the code sites write it (`acme/web#902`). */
const numberSign = /(?:^|[\s(]|[\p{L}\p{N}]\/[\p{L}\p{N}_.-]*[\p{L}\p{N}])#\d+\b/u;
const repositoryTerm = terms(['repository'])[0]!;
const listTerm = terms(['list'])[0]!;

/**
 * The terms that a request has only from the repositories it names by owner and name (`octo/app`,
 * `acme/app-server`): values, whose words ("app", "server") would otherwise pull in the tools named for them
 * (the app installations). A ref, a branch or a path (`refs/heads`, `release/1.2`, `src/app.ts`) is no
 * repository, nor is a team.
 */
function repositoryNames(request: string): { named: Set<string>; rest: string } {
  const names: string[] = [];
  const rest = withoutRepositoryNames(request, (owner, name) => names.push(owner, name));
  if (!names.length) return { named: new Set(), rest };
  const { own, added } = requestTerms(rest);
  return { named: new Set(terms(words(names.join(' '))).filter((term) => !own.includes(term) && !added.includes(term))), rest };
}
/** A request without the repositories it names by owner and name, each given to `found` (a team's `organization/slug` stays). */
function withoutRepositoryNames(request: string, found: (owner: string, name: string) => void = () => {}): string {
  return request.replace(repositoryName, (match, lead: string, owner: string, name: string, at: number) => {
    // A team is written so too, by its organization and slug: "the acme/sre team".
    if (notOwners.has(owner.toLowerCase()) || teamAfter.test(request.slice(at + match.length))) return match;
    found(owner, name);
    return lead;
  });
}
/** An owner and a name of letters, digits, hyphens and underscores (no dot, as a file has), one slash between, standing alone or before an issue's number (`acme/web#902`). */
const repositoryName = /(^|[\s(])([\p{L}\p{N}][\p{L}\p{N}-]+)\/([\p{L}\p{N}][\p{L}\p{N}_-]*[\p{L}\p{N}])(?='s\b|#\d|[\s,;:!?)]|[.](?:\s|$)|$)/gu;
/** What follows a team's `organization/slug`. */
const teamAfter = /^\s+teams?\b/i;
/** Words before a slash that begin a ref, a branch or a path, not an owner. */
const notOwners = new Set('refs heads tags release releases feature features hotfix bugfix fix src lib docs test tests'.split(' '));

/**
 * How many things a request that only names them asks about: several ("the deploy keys of octo/app", "files
 * attached to the release") or one ("starter ignore file for a node project"). Such a request opens with a
 * determiner or with a word that is no verb (`isVerb`); its number is that of the last word of the noun phrase
 * it opens with, which ends at a stop word, a number, a participle or the end of the clause. Undefined for a
 * request that may open with a verb or a question word.
 */
export function namedNumber(request: string, isVerb: (word: string) => boolean): 'several' | 'one' | undefined {
  const [clause = ''] = withoutPoliteLead(request).split(/[,;:.!?(]/);
  const tokens = clause.match(/[\p{L}\p{N}'/-]+/gu) ?? [];
  let start = 0;
  while (start < tokens.length && determiners.has(tokens[start]!)) start++;
  if (start === 0 && (tokens.length === 0 || isVerb(tokens[0]!))) return undefined;
  let head: string | undefined;
  for (let i = start; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (stopWords.has(token) || /\p{N}/u.test(token) || (i > start && token.endsWith('ed'))) break;
    head = token;
  }
  if (head === undefined) return undefined;
  return isPlural(head) ? 'several' : 'one';
}
/** Whether a word is a plural: its term is that of the word less its s or es (keys, addresses; not status, analysis). */
function isPlural(word: string): boolean {
  if (word.length <= 3 || !/[^siu]s$/.test(word)) return false;
  const [term] = terms([word]);
  return term === terms([word.slice(0, -1)])[0] || (word.endsWith('es') && term === terms([word.slice(0, -2)])[0]);
}
/**
 * The terms of a part of a request (a clause that tells a mistake or declines, a path) that the rest of it does not
 * have; `request` is written as the part was taken from it (lower case for intent's clauses).
 */
function clauseOnlyTerms(clause: string, request: string): Set<string> {
  const inClause = terms(words(clause));
  const rest = new Set(terms(words(request.replace(clause, ' '))));
  return new Set(inClause.filter((term) => !rest.has(term)));
}
const noTerms: ReadonlySet<string> = new Set();
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

/**
 * The words of a text, each with the hyphenated compound it is part of (its first word's index), or -1 for
 * none or where `compounds` is false: a request's compounds are mostly names (octo/app-installer, machine-learning).
 */
function wordsOfCompounds(text: string, compounds: boolean): { typed: string[]; compound: number[] } {
  const typed: string[] = [];
  const compound: number[] = [];
  for (const [token] of text.matchAll(/\S+/g)) {
    const parts = words(token);
    const id = compounds && parts.length > 1 && /\p{L}-\p{L}/u.test(token) ? typed.length : -1;
    for (const part of parts) {
      typed.push(part);
      compound.push(id);
    }
  }
  return { typed, compound };
}

/** The API terms that the everyday words and phrases of a request stand for, and the positions of the words they replace. */
function everydayTerms(typed: readonly string[], compound: readonly number[]): { terms: string[]; replaced: Set<number> } {
  const out: string[] = [];
  const replaced = new Set<number>();
  // An everyday word that is only part of a compound is not meant ("machine" in machine-learning).
  const cuts = (start: number, length: number) =>
    (compound[start] !== -1 && compound[start - 1] === compound[start]) ||
    (compound[start + length - 1] !== -1 && compound[start + length] === compound[start + length - 1]);
  for (let i = 0; i < typed.length; i++) {
    const match = everydayByFirstWord.get(typed[i]!)?.find(({ phrase }) => phrase.every((word, j) => typed[i + j] === word) && !cuts(i, phrase.length));
    // A verb whose particle comes later says more than the verb alone ("hand my project over" is no "hand").
    const separated = match === undefined || match.phrase.length === 1 ? separatedVerbTerms(typed, i) : [];
    if (separated.length) {
      for (const term of separated) if (!out.includes(term)) out.push(term);
      continue;
    }
    if (!match) continue;
    for (const term of match.adds) if (!out.includes(term)) out.push(term);
    if (match.replaces) for (let j = 0; j < match.phrase.length; j++) replaced.add(i + j);
    i += match.phrase.length - 1;
  }
  return { terms: out, replaced };
}

/**
 * The API terms of a phrasal verb whose particle comes after its object ("take the label off", "turn them
 * back on", "hand my project over"), as its unbroken form ("take off") has them; the nearest particle wins.
 */
function separatedVerbTerms(typed: readonly string[], at: number): string[] {
  const phrasal = (everydayByFirstWord.get(typed[at]!) ?? []).filter(({ phrase }) => phrase.length === 2 && particles.has(phrase[1]!));
  for (let j = at + 2; j < Math.min(typed.length, at + 2 + maxObjectWords); j++) {
    const match = phrasal.find(({ phrase }) => phrase[1] === typed[j]);
    // A particle that opens an everyday phrase of its own is that phrase's: "take the email off the air" unpublishes it.
    if (match && !opensPhrase(typed, j)) return match.adds;
  }
  return [];
}
const opensPhrase = (typed: readonly string[], at: number): boolean =>
  (everydayByFirstWord.get(typed[at]!) ?? []).some(({ phrase }) => phrase.length > 1 && phrase.every((word, k) => typed[at + k] === word));
const particles = new Set(['off', 'out', 'back', 'down', 'over', 'on', 'up', 'away', 'in', 'into']);
/** How many words may stand between a phrasal verb and its particle. */
const maxObjectWords = 5;

/**
 * A tool that does what the request says not to do, or what it asks to reverse, counts this much: "don't
 * delete the webhooks, just show them" still names deleting, and the deleting tools must not come first.
 */
const unwantedAction = 0.5;

/**
 * Whether a request asks for a tool's own action on the tool's own object: "revoke the token" for
 * `RevokeToken`, but not "turn off the issues" for `DisableLfs`, whose action it names on another object.
 */
const asksForActionOn = (asked: ReadonlySet<string>, action: string | undefined, objects: readonly string[]): boolean =>
  action !== undefined && asked.has(action) && asksAbout(asked, objects);

/** Whether a request names what a tool acts on (any of its object terms), or the tool's name names nothing. */
const asksAbout = (asked: ReadonlySet<string>, objects: readonly string[]): boolean => objects.length === 0 || objects.some((term) => asked.has(term));

/**
 * The words of what a tool's name says it acts on: those after its verb and before the words that scope it
 * (`DisableLfsForRepohostRepo` → lfs, `RemoveIssueLabel` → issue, label).
 */
function objectWordsOf(tool: Tool): string[] {
  const named = nameWords(tool.name, tool.toolkit.name);
  const scope = named.findIndex((word, i) => i > 0 && scopeWords.has(word));
  return named.slice(1, scope < 0 ? undefined : scope);
}
const scopeWords = new Set(['for', 'in', 'on', 'of', 'from', 'to', 'by', 'with', 'at', 'into']);

/**
 * The last of the words a tool's name acts on (`objectWordsOf`), as a term and whether it is a plural
 * (`GetComponents` → component, plural; `RemoveIssueLabel` → label, one).
 */
function headOf(objectWords: readonly string[]): { term: string; plural: boolean } | undefined {
  const word = objectWords.at(-1);
  const term = word === undefined ? undefined : terms([word])[0];
  return term === undefined ? undefined : { term, plural: isPlural(word!) };
}

/**
 * For each term a request's nouns have, whether it says several of it: plural ("components") or one (singular,
 * "component 4"). A term said both ways is left out.
 */
function numbersOf(request: string): Map<string, boolean> {
  const out = new Map<string, boolean>();
  const mixed = new Set<string>();
  for (const word of words(request)) {
    const [term] = terms([word]);
    if (term === undefined) continue;
    const plural = isPlural(word);
    if (out.has(term) && out.get(term) !== plural) mixed.add(term);
    out.set(term, plural);
  }
  for (const term of mixed) out.delete(term);
  return out;
}
const noNumbers: ReadonlyMap<string, boolean> = new Map();

/** The verb a tool's name begins with, less its toolkit's name (`RepohostCreateIssueComment` → create). */
function actionWordOf(tool: Tool): string {
  return nameWords(tool.name, tool.toolkit.name)[0] ?? '';
}

/** The terms of a tool's name, less its toolkit's own name (`CreateRepohostIssue` in RepoHostApi), which says nothing about the tool. */
export function nameTerms(name: string, toolkit: string): string[] {
  return terms(nameWords(name, toolkit));
}

/** A tool name's words less its toolkit's (`repohost` of `ListRepohostIssues` in RepoHostApi). */
export function nameWords(name: string, toolkit: string): string[] {
  const brand = toolkit.toLowerCase().replace(/api$/, '');
  return words(name).filter((word) => word !== brand);
}
/** A tool description's first sentence says what it does; the rest is mostly caveats. */
const sentencesOf = (tool: Tool) => tool.description.split(/(?<=\.)\s/);
const summaryOf = (tool: Tool) => sentencesOf(tool)[0] ?? '';

function documentOf(tool: Tool, phrases: readonly string[], readsValues: boolean): Document {
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
    phrases: analyseRequests(phrases, readsValues),
  };
}

/**
 * The names of the services toolkits wrap (`dropbox`, `figma`, `hubspot`, `customer.io`), from the catalog: a word
 * of a toolkit's description written with a capital (not for opening a sentence), never in lower case in any tool's
 * description (as "track", "people" or "read" are), and named by a quarter or more of the toolkit's own tools or
 * their phrases. By the service's name a request asks its toolkit: "the board deck in Dropbox" is no project of a
 * repository. Returned by name, in lower case.
 */
export function serviceNames(tools: readonly Tool[], phrases: readonly (readonly string[])[]): Map<string, string> {
  const candidates = new Map<string, string>();
  const sizes = new Map<string, number>();
  for (const { toolkit } of tools) {
    sizes.set(toolkit.name, (sizes.get(toolkit.name) ?? 0) + 1);
    if (sizes.get(toolkit.name)! > 1) continue;
    const words = toolkit.description.split(/\s+/);
    for (const [i, word] of words.entries()) {
      const name = word.replace(/^\W+|\W+$/g, '');
      // A word that opens a later sentence has its capital from there; the description's first word is often the service.
      if (name.length >= 4 && /^\p{Lu}/u.test(name) && !/[.:!?]$/.test(words[i - 1] ?? '')) candidates.set(name.toLowerCase(), toolkit.name);
    }
  }
  if (!candidates.size) return candidates;
  const lowerCase = new Set<string>();
  const naming = new Map<string, number>();
  for (const [id, tool] of tools.entries()) {
    const named = new Set<string>();
    const name = (word: string) => {
      for (const part of wordsOf(word)) if (candidates.get(part) === tool.toolkit.name) named.add(part);
    };
    for (const match of tool.description.matchAll(dottedWords)) {
      const [word] = match;
      const lower = word.toLowerCase();
      // Written in lower case as a word of its own, not within a dotted name or a path (api.github.com, /repos/github).
      if (lower === word && !word.includes('.') && tool.description[match.index - 1] !== '/' && candidates.has(word)) lowerCase.add(word);
      name(lower);
    }
    for (const [word] of `${tool.name} ${phrases[id]!.join(' ')}`.toLowerCase().matchAll(dottedWords)) name(word);
    for (const found of named) naming.set(found, (naming.get(found) ?? 0) + 1);
  }
  return new Map([...candidates].filter(([name, toolkit]) => !lowerCase.has(name) && (naming.get(name) ?? 0) >= serviceShare * sizes.get(toolkit)!));
}
/** Words of letters and digits, with those a dot joins (`customer.io`, `api.github.com`) as one. */
const dottedWords = /[\p{L}\p{N}]+(?:\.[\p{L}\p{N}]+)*/gu;
/** A word and, where dots join it, its parts: customer.io, customer, io. */
const wordsOf = (word: string): string[] => (word.includes('.') ? [word, ...word.split('.')] : [word]);
/** The share of a toolkit's tools that name its service. */
const serviceShare = 0.25;
const noToolkits: ReadonlySet<string> = new Set();

/** The toolkits whose services a request names (`serviceNames`). */
const servicesIn = (request: string, services: ReadonlyMap<string, string>): Set<string> =>
  new Set(Array.from(request.toLowerCase().matchAll(dottedWords), ([word]) => wordsOf(word).flatMap((part) => services.get(part) ?? [])).flat());

/** What each HTTP method does, in the words a request uses. */
const methodWords: Record<string, string> = { GET: 'get', HEAD: 'get', POST: 'create', PUT: 'update', PATCH: 'update', DELETE: 'delete' };

/** `mode` and `request_body` read the same on every mode-driven tool; the request body's own properties are indexed instead. */
const isOwnParameter = (parameter: Parameter) => parameter.in !== undefined;
const describe = (parameter: Parameter) => `${parameter.name} ${parameter.description}`;

/**
 * The action a request asks for, as the phrases of all tools ask for each action (`actionWordOf`) whatever
 * the object: naive Bayes over the words of the phrases, each phrase labelled with its tool's action, and a
 * request's opening word as a word of its own ("show", "did"). A request's words are far from independent,
 * so an action is scored by the mean of their log-likelihoods, not the sum, and every action is as likely
 * before the words are read. Stop words are kept: "all", "new", "is" tell the actions apart. Returns, for a
 * request and the terms of the actions it does not want, the probability of each action.
 */
function actionModel(actions: readonly (string | undefined)[], phrases: readonly (readonly string[])[]) {
  const classes = [...new Set(actions.filter((action) => action !== undefined))];
  const classOf = new Map(classes.map((action, c) => [action, c]));
  const counts = new Map<string, Float64Array>();
  const totals = new Float64Array(classes.length);
  phrases.forEach((ofTool, id) => {
    const c = classOf.get(actions[id]!);
    if (c === undefined) return;
    for (const phrase of ofTool) {
      for (const feature of actionFeatures(phrase)) {
        const row = counts.get(feature) ?? new Float64Array(classes.length);
        counts.set(feature, row);
        row[c]!++;
        totals[c]!++;
      }
    }
  });
  const denominators = totals.map((total) => total + smoothing * counts.size);
  // Worked out for a word when a request first has it: most of the phrases' words are never asked for.
  const logLikelihood = new BoundedMemo<string, Float64Array>(counts.size);
  const logLikelihoodOf = (feature: string): Float64Array | undefined => {
    const row = counts.get(feature);
    return row && logLikelihood.get(feature, () => row.map((n, c) => Math.log((n + smoothing) / denominators[c]!)));
  };
  return (request: string, unwanted: ReadonlySet<string>): ((action: string) => number) => {
    const known = actionFeatures(request)
      .filter((feature) => !unwanted.has(terms([feature])[0] ?? feature))
      .map(logLikelihoodOf)
      .filter((row) => row !== undefined);
    const log = new Float64Array(classes.length);
    for (const row of known) for (let c = 0; c < log.length; c++) log[c]! += row[c]! / known.length;
    const top = Math.max(...log);
    const odds = log.map((value) => Math.exp(value - top));
    const sum = odds.reduce((a, b) => a + b, 0);
    return (action) => odds[classOf.get(action)!]! / sum;
  };
}
/** Additive smoothing of the counts of the action model's words. */
const smoothing = 0.5;

/** The words of a request that the action model reads: its words after any polite lead, numbers as one word, and its opening word again. */
function actionFeatures(request: string): string[] {
  const features = words(withoutPoliteLead(request)).map((word) => (/^\p{N}+$/u.test(word) ? '#' : word));
  return features.length ? [...features, `^${features[0]}`] : features;
}
