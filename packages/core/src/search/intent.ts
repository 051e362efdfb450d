/**
 * What a request says about actions besides the one it asks for: an action it negates ("don't delete the
 * webhooks, just show them") and an earlier action it asks to reverse ("we suspended her by mistake, let her
 * log in again"). Both name a verb the request does not want done, and a reversal wants its inverse done.
 */
import { apiWordsOf } from './everyday.js';
import { terms } from './terms.js';
import { words } from './words.js';

export interface Intent {
  /** Terms of the actions the request says not to do ("delete" in "don't delete ..."). */
  negated: string[];
  /** Terms of earlier actions the request asks to reverse ("suspend" in "we suspended her by mistake, ... again"). */
  reversed: string[];
  /** Terms of the inverse actions of those reversed ("unsuspend"): what the request asks for instead. */
  inverses: string[];
  /** The clause after a negation, where the request says what to do instead ("just show them to me"). */
  instead?: string;
  /**
   * The clause a negation governs, where the instead clause names what it asks for in words of its own, not by
   * referring back ("don't open any files, list the projects of team 9", not "... just show them"): what is declined.
   */
  declined?: string;
  /** Whether the request asks to put something back as it was ("by mistake", "again", "restore"). */
  restores: boolean;
  /**
   * Whether the request negates a verb, of the catalog or not ("stop the webhook from firing for a while"):
   * it says what not to do, so a destructive tool it does not ask for weighs as in a read.
   */
  negates: boolean;
  /**
   * The clause that tells what was done by mistake ("sam was made a moderator by mistake"), where
   * the rest of the request asks for something: it names the state to leave, not what to do.
   */
  mistaken?: string;
}

/** Action term → the terms of the actions that undo it (suspend → unsuspend, and back). */
export type Inverses = ReadonlyMap<string, readonly string[]>;

/**
 * Verb pairs that undo each other without a prefix saying so; a pair counts only where both verbs begin
 * names in the catalog, so the inverses are those the catalog's tools actually offer.
 */
const antonyms: readonly (readonly [string, string])[] = [
  ['enable', 'disable'],
  ['add', 'remove'],
  ['create', 'delete'],
  ['open', 'close'],
  ['start', 'stop'],
  ['grant', 'revoke'],
  ['lock', 'unlock'],
  ['approve', 'dismiss'],
  ['promote', 'demote'],
];
/** Prefixes that turn a verb into its inverse: unsuspend, disassociate, deactivate. */
const inversePrefixes = ['un', 'dis', 'de'];

/**
 * The inverse pairs among the verbs that begin the catalog's tool names (`actions`, lower-case words): a
 * verb and the same verb with an inverting prefix, or a pair of `antonyms`, both present. Returned by term,
 * both ways, so that a request's words meet them after stemming and synonyms (removed → remove → delete).
 */
export function inversesOf(actions: Iterable<string>): Inverses {
  const verbs = new Set(actions);
  const pairs: Array<[string, string]> = [];
  for (const verb of verbs) for (const prefix of inversePrefixes) if (verbs.has(prefix + verb)) pairs.push([verb, prefix + verb]);
  for (const [a, b] of antonyms) if (verbs.has(a) && verbs.has(b)) pairs.push([a, b]);
  const inverses = new Map<string, string[]>();
  const pair = (from: string, to: string) => {
    const list = inverses.get(from) ?? [];
    if (from !== to && !list.includes(to)) list.push(to);
    inverses.set(from, list);
  };
  for (const [a, b] of pairs) {
    const [termA, termB] = [term(a), term(b)];
    if (termA === undefined || termB === undefined) continue;
    pair(termA, termB);
    pair(termB, termA);
  }
  return inverses;
}

/**
 * Reads the negated and reversed actions of a request. `actions` are the terms of the catalog's verbs:
 * only a verb is negated ("not my public keys" negates no action). A negated verb that begins no tool's
 * name negates the catalog actions `meaning` reads it as ("close" an issue is updating it). A verb the
 * request asks for in another clause, in the terms `asks` reads from a text, is not negated.
 * An earlier action counts as reversed when it is mentioned in the past tense and the request asks to put
 * things back (`reversal`), or when the request asks to stop doing it or says a state should end.
 */
export function intentOf(
  request: string,
  actions: ReadonlySet<string>,
  inverses: Inverses,
  meaning: (term: string) => readonly string[] = () => [],
  asks: (text: string) => readonly string[] = (text) => terms(words(text)),
): Intent {
  const text = lowered(request);
  const negated: string[] = [];
  let instead: string | undefined;
  let declined: string | undefined;
  let negates = false;
  for (const match of [...text.matchAll(negation), ...text.matchAll(preventFrom), ...text.matchAll(leaveAlone)]) {
    const after = text.slice(match.index + match[0].length);
    // Nothing more is left alone after "alone": "and" there begins what to do instead.
    const clause = after.match(match[0].endsWith('alone') ? afterAlone : insteadClause)?.[1];
    // "Don't rerun the whole workflow, only job 7781" narrows what the verb acts on: it is wanted, on less.
    if (clause !== undefined && narrows(after)) continue;
    const negatedTerm = match[1] === undefined ? undefined : term(match[1]);
    if (negatedTerm !== undefined) negates = true;
    if (negatedTerm !== undefined && actions.has(negatedTerm)) {
      // An action asked for in another clause is wanted there: "without deleting the campaign, remove its spend line".
      const elsewhere = asks(`${text.slice(0, match.index)} ${clause ?? ''}`);
      if (!elsewhere.includes(negatedTerm)) negated.push(negatedTerm);
    }
    // After "without" or "instead of" a verb takes -ing: another word there is a noun ("without attachments").
    else if (negatedTerm !== undefined && (match[1]!.endsWith('ing') || !nounNegation.test(match[0]))) {
      // What the rest of the request asks for is not negated, though the negated verb means it too ("update
      // the ticket without closing it").
      const rest = terms(words(`${text.slice(0, match.index)} ${after}`));
      const asked = new Set(rest.flatMap((word) => (actions.has(word) ? [word] : meaning(word))));
      negated.push(...meaning(negatedTerm).filter((action) => !asked.has(action)));
    }
    if (instead === undefined && clause !== undefined) {
      instead = clause;
      if (!refersBack.test(clause)) declined = text.slice(match.index, text.length - clause.length);
    }
  }
  const reversed: string[] = [];
  const reverse = (word: string, strong: boolean, particle?: string) => {
    // "Again" may ask to repeat ("trigger it again, as we triggered it this morning"): only a verb with an
    // inverse is read as reversed by it, any action by words that say the earlier one was a mistake.
    const reversible = (candidate: string) => inverses.has(candidate) || (strong && actions.has(candidate));
    // The stemmer cuts some past tenses short of their verb ("added" to "ad"): the verb's own forms are tried too.
    // A phrasal verb ("turned off") is the everyday verb its words make together.
    const own =
      particle === undefined ? [word, ...pastTenseBases(word)].map(term).find((candidate) => candidate !== undefined && reversible(candidate)) : undefined;
    // An everyday verb stands for the API's ("blocked" for suspended) where its own term is no reversible action.
    const candidates = own !== undefined ? [own] : apiVerbsOf(word, particle).filter(reversible);
    for (const candidate of candidates) if (!negated.includes(candidate) && !reversed.includes(candidate)) reversed.push(candidate);
  };
  // "Stop following sam" and "it shouldn't be locked anymore" ask for the inverse, as a reversal does.
  for (const [, verb] of text.matchAll(stopDoing)) reverse(verb!, true);
  for (const [, verb] of text.matchAll(noLonger)) reverse(verb!, false);
  for (const [, word] of text.matchAll(undoVerb)) reverse(word!, false);
  // A verb with its inverting prefix written apart asks for the inverse: "un-suppress cust_123".
  for (const [, verb] of text.matchAll(prefixedApart)) reverse(verb!, false);
  const restores = reversal.test(text);
  if (restores) {
    const strong = mistake.test(text);
    for (const [word] of text.matchAll(pastTense)) reverse(word, strong);
    for (const [, verb, particle] of text.matchAll(phrasalPast)) reverse(verb!, strong, particle);
  }
  const mistaken = mistakenClause(text);
  // An action called a mistake by its gerund is reversed as a past tense is: "promoting ben to admin was a mistake".
  for (const [word] of (mistaken ?? '').matchAll(gerund)) reverse(word, false);
  const undoing = [...new Set(reversed.flatMap((reversedTerm) => inverses.get(reversedTerm) ?? []))].filter((inverse) => !reversed.includes(inverse));
  return {
    negated,
    reversed,
    inverses: undoing,
    ...(instead === undefined ? {} : { instead }),
    ...(declined === undefined ? {} : { declined }),
    restores,
    negates,
    ...(mistaken === undefined ? {} : { mistaken }),
  };
}

const term = (word: string): string | undefined => terms([word])[0];

/** A request as intent reads it: in lower case, with typographic apostrophes as plain ones. */
export const lowered = (request: string): string => request.toLowerCase().replace(/[’`]/g, "'");

/** The clause around words that call an earlier action a mistake, where another clause follows or comes before it. */
function mistakenClause(text: string): string | undefined {
  const match = mistakeSaid.exec(text);
  if (!match) return undefined;
  const start = Math.max(...[...text.slice(0, match.index).matchAll(clauseBreak)].map((b) => b.index + b[0].length), 0);
  const next = text.slice(match.index + match[0].length).match(firstClauseBreak);
  const end = next?.index === undefined ? text.length : match.index + match[0].length + next.index;
  const rest = `${text.slice(0, start)} ${text.slice(end)}`;
  return /\p{L}{3,}/u.test(rest) ? text.slice(start, end) : undefined;
}
/** Words that say an earlier action was a mistake, as a description of it ("undo" and "revert" ask instead). */
const mistakeDescribed =
  'by mistake|a mistake|mistakenly|by accident|accidental|accidentally|wrongly|the wrong|by error|in error|too early|too soon|prematurely|without meaning to|unintentionally|inadvertently';
const mistakeSaid = new RegExp(`\\b(?:${mistakeDescribed})\\b`);
/** Where a clause ends: punctuation, a dash, or a word that joins a request to it. */
const clauseBreak = /[,;:.!?]\s|\s[-–—]\s|\s(?:so|but|and|please|then)\s/g;
const firstClauseBreak = new RegExp(clauseBreak.source);

/** The verb a past tense may be of: added → add, closed → close, starred → star. */
const pastTenseBases = (word: string): string[] => (/ed$/.test(word) ? [word.replace(/ed$/, ''), word.replace(/d$/, ''), word.replace(/(\w)\1ed$/, '$1')] : []);

/**
 * The terms of the API verbs an everyday verb in the past tense stands for, with its particle where it has one:
 * blocked → suspend, banned → suspend, turned off → disable.
 */
function apiVerbsOf(word: string, particle?: string): string[] {
  for (const base of [word, ...pastTenseBases(word), ...(irregularPast.get(word) ?? [])]) {
    const api = apiWordsOf(particle === undefined ? base : `${base} ${particle}`);
    if (api.length) return terms(api);
  }
  return [];
}

/** A negating phrase and the verb it negates: "don't delete", "no need to archive", "without deleting", "instead of removing". */
const negation =
  /\b(?:don'?t|do not|does not|doesn'?t|never mind|nevermind|never|no need to|without|instead of|rather than)\s+(?:(?:need|have|want|bother|ever|go|going|yet|really)\s+(?:to\s+)?|to\s+)*(?:\w+ly\s+)?([a-z]+)/g;
/** Negating words that a noun may follow as well as a verb. */
const nounNegation = /^(?:without|instead of|rather than)\b/;
/**
 * Words that say an earlier action was a mistake, or ask to undo it ("published too early" is one as well, and
 * "I muted the thread but now I want updates on it again" tells a change of mind).
 */
const mistake = new RegExp(`\\b(?:undo|undid|revert|reverse|mistake|accident|shouldn'?t have|should not have|but now|${mistakeDescribed})\\b`);
/** Words that ask to put something back as it was. */
const reversal = new RegExp(`${mistake.source}|\\b(?:again|back|restore|reinstate|re-\\w+)\\b`);
/** A state the request says should end: "shouldn't be attached", "no longer suspended". */
const noLonger = /\b(?:shouldn'?t|should not|must not|mustn'?t|no longer)\s+(?:be\s+)?(?:\w+ly\s+)?([a-z]{3,}ed)\b/g;
/** Leaving something alone negates changing it, without naming the change. */
const leaveAlone = /\bleave\s+(?:[\w'@.#/-]+\s+){1,5}?alone\b/g;
/** Where the clause that says what to do instead begins after a negation: a comma, "just", "but", "instead". */
const insteadClause = /(?:[,;:]|\s(?:just|but|only|instead|rather))\s+(.*)/;
/**
 * Whether what follows a negation says what to do instead with "only" or "just" and a thing, not an action
 * ("only job 7781", "just the stale ones", not "just fix its title"): it narrows the negated action.
 */
const narrows = (after: string): boolean => narrowedThing.test(after.match(/(?:^|\s|[,;:])(?:only|just)\s+(.*)$/)?.[1] ?? '');
/** A thing named after "only" or "just": a determiner, a number, or a word and its number. */
const narrowedThing = /^(?:(?:the|a|an|my|our|your|his|her|their|its|this|that|these|those|one|ones|some)\b|#?\d|[a-z]+\s+#?\d)/;
/** Words by which a clause refers back to what another names ("just show them", "remove the label from it"). */
const refersBack = /\b(?:it|its|them|their|theirs|that|those|these|there|one|ones|same)\b/;
/** Where the clause that says what to do instead begins after "leave ... alone". */
const afterAlone = /^\s*(?:[,;:]\s*|\s(?:and|but|just|only|instead|rather|then)\s+)+(.*)/;
/** Keeping someone from an action negates it, as a request: "prevent anyone from deleting the tags". */
const preventFrom = /\b(?:prevent|keep|stop|block|forbid|protect)\s+(?:[\w'@.-]+\s+){0,4}?from\s+([a-z]+ing)\b/g;
/** A verb of undoing and the action it undoes, as a verb or a noun: "withdraw the approving review", "retract my approval". */
const undoVerb = /\b(?:undo|revert|reverse|withdraw|retract|take back|roll back)\s+(?:(?:the|my|our|your|his|her|their|this|that|its|a|an)\s+)?([a-z]{3,})/g;
/** A verb after an inverting prefix and a hyphen: "un-suppress", "dis-associate". */
const prefixedApart = /\b(?:un|dis|de)-([a-z]{3,})\b/g;
/** "Stop" and the verb it stops: "stop following", "stop sending". */
const stopDoing = /\bstop\s+([a-z]{3,}ing)\b/g;
/**
 * A phrasal verb in the past tense, its particle after up to three words of its object: "turned off Actions",
 * "kicked jay out", "took the post down". Only past tenses that are no present tense as well: "put it back up"
 * and "set it up again" ask for what is to be done.
 */
const phrasalPast = /\b([a-z]{3,}ed|took|gave|threw|froze|broke)\s+(?:[\w'@.#/-]+\s+){0,3}?(off|out|down|up|on|over|away|in)\b/g;
/** Irregular past tenses of the verbs that begin everyday phrasal verbs. */
const irregularPast: ReadonlyMap<string, readonly string[]> = new Map([
  ['took', ['take']],
  ['gave', ['give']],
  ['threw', ['throw']],
  ['froze', ['freeze']],
  ['broke', ['break']],
]);
/** A past-tense verb: "suspended", "unpublished", "locked". */
const pastTense = /\b[a-z]{3,}ed\b/g;
/** A verb's gerund: "promoting", "adding". */
const gerund = /\b[a-z]{3,}ing\b/g;
