/**
 * Keeping a result within what a model's client accepts (many refuse tool results over 25,000 tokens):
 * an optional field selection projects the JSON result, and a result still over the token budget is
 * cut, with a note that says how to get the rest.
 */
import { toolError, type NextPage, type ToolError } from './errors.js';
import { resumeAfterCut } from './paging.js';
import type { JsonSchema, Tool } from './tool.js';
import { isRecord } from './records.js';

export const fieldsName = 'fields';

export const fieldsSchema: JsonSchema = {
  type: 'array',
  items: { type: 'string' },
  // Short: every tool with a JSON result carries it.
  description: 'Dotted result paths to keep.',
};

/** Under the 25,000-token limit of common clients, with room for the client's own framing. */
export const defaultMaxResponseTokens = 20_000;

/**
 * Tokens are estimated from the text's runs of letters, digits, spaces and punctuation (fast, and no
 * tokenizer at run time), split as the tokenizer splits words: a letter run breaks where lower case
 * turns upper (`receivedDateTime`, and the many pieces of a random id). A word is about one token
 * whatever its length up to ten letters, a number a token per three digits, JSON punctuation a token
 * per two or three characters, anything outside ASCII a token a character. Calibrated against
 * o200k_base on the sandbox's responses (GitHub, HubSpot, Pylon, Dropbox, Graph): the estimate is
 * within about 0.85 to 1.1 of the real count (random ids, such as Graph's, count lowest), where counting
 * bytes ranged from 0.55 to 1.14.
 */
export function estimateTokens(text: string): number {
  let tokens = 0;
  let run = 0;
  let kind = 0;
  let lower = false;
  const flush = () => {
    if (kind === letter) tokens += 0.6 + run / 10;
    else if (kind === digit) tokens += Math.ceil(run / 3);
    else if (kind === space) tokens += 0.5;
    else if (kind === mark) tokens += run / 2.5;
    run = 0;
  };
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const next = code > 127 ? wide : (code | 32) >= 97 && (code | 32) <= 122 ? letter : code >= 48 && code <= 57 ? digit : code <= 32 ? space : mark;
    if (next === wide) {
      flush();
      kind = wide;
      tokens += 1;
      continue;
    }
    const upper = code >= 65 && code <= 90;
    if (next !== kind || (upper && lower)) flush();
    lower = next === letter && !upper;
    kind = next;
    run++;
  }
  flush();
  return Math.ceil(tokens);
}

const letter = 1;
const digit = 2;
const space = 3;
const mark = 4;
const wide = 5;

/** The `fields` argument as a list of paths, or the error for a malformed one. */
export function parseFields(value: unknown): string[] | { error: ToolError } {
  if (Array.isArray(value) && value.length > 0 && value.every((path) => typeof path === 'string' && path.trim() !== ''))
    return value.map((path) => path.trim());
  return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `parameter '${fieldsName}' must be a non-empty array of dotted paths, e.g. ["id", "owner.login"].`);
}

type FieldTree = Map<string, FieldTree | true>;

/** Only the named fields of the value; a path passes through arrays, applying to each item. */
export function selectFields(value: unknown, paths: readonly string[]): unknown {
  return project(value, fieldTree(paths));
}

function fieldTree(paths: readonly string[]): FieldTree {
  const root: FieldTree = new Map();
  for (const path of paths) {
    const keys = path.split('.');
    let node = root;
    for (const [i, key] of keys.entries()) {
      const known = node.get(key);
      if (known === true) break; // a shorter path already keeps the whole field
      if (i === keys.length - 1) {
        node.set(key, true);
        break;
      }
      const child: FieldTree = known ?? new Map();
      node.set(key, child);
      node = child;
    }
  }
  return root;
}

function project(value: unknown, tree: FieldTree): unknown {
  if (Array.isArray(value)) return value.map((item) => project(item, tree));
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, sub] of tree) if (key in record) out[key] = sub === true ? record[key] : project(record[key], sub);
  return out;
}

/** True when the projection kept nothing: no field of the selection exists in the result. */
export function isEmptyProjection(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0 && value.every(isEmptyProjection);
  return value !== null && typeof value === 'object' && Object.keys(value).length === 0;
}

/** Top-level field names of a result (of its first item when it is a list), to suggest a selection. */
export function fieldNamesOf(value: unknown): string[] {
  const sample = Array.isArray(value) ? value.find((item) => item && typeof item === 'object') : value;
  return sample && typeof sample === 'object' && !Array.isArray(sample) ? Object.keys(sample) : [];
}

/**
 * Dotted paths of a result as `fields` reads them (through lists, `items.title`), shallowest first: at
 * most `max`, at most `depth` levels deep. A list's paths are those of its first object.
 */
export function fieldPathsOf(value: unknown, max = 40, depth = 3): string[] {
  const paths: string[] = [];
  let level: Array<[string, unknown]> = [['', value]];
  for (let d = 0; d < depth && level.length && paths.length < max; d++) {
    const deeper: Array<[string, unknown]> = [];
    for (const [prefix, node] of level) {
      const sample = Array.isArray(node) ? node.find(isRecord) : node;
      if (!isRecord(sample)) continue;
      for (const [key, field] of Object.entries(sample)) {
        if (paths.length === max) break;
        const path = prefix ? `${prefix}.${key}` : key;
        paths.push(path);
        deeper.push([path, field]);
      }
    }
    level = deeper;
  }
  return paths;
}

export interface Capped {
  value: unknown;
  /** For the model: what was cut and how to get the rest. Absent when nothing was cut. */
  note?: string;
  /**
   * Set when items of a list were left out: the call's own next page would skip them, so this one (the
   * arguments that resume at the first item left out, or none where the tool's paging cannot say so) replaces it.
   */
  leftOut?: { next_page?: NextPage };
}

/** The call a result came from, for a cut to say where its next page starts. */
export interface PagedCall {
  /** The arguments the call was made with. */
  args: Record<string, unknown>;
  /** The next page the upstream told, outside the body (GitHub's Link header). */
  next_page?: NextPage;
}

/**
 * The value as it is when it fits `maxTokens`; otherwise a smaller value that is still whole JSON. A
 * list (the result itself, or its largest top-level list, such as GitHub's `items` or HubSpot's
 * `results`) keeps as many leading items as fit. When not one item fits, the items (or the single
 * object) keep only their plain fields, the nested ones named in the note; a text result is cut as
 * text. The note says what was left out and how to get it; where items were left out, the paging
 * says where to resume (paging.ts) so that following it skips nothing.
 */
export function capResult(value: unknown, tool: Tool, maxTokens: number, canSelectFields: boolean, call: PagedCall = { args: {} }): Capped {
  // Most results are far under the budget: a bound of their JSON's length says so without writing it out.
  if (maxTokens && jsonLengthBound(value, maxTokens) <= maxTokens) return { value };
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  if (!maxTokens || text.length <= maxTokens) return { value };
  const tokens = estimateTokens(text);
  if (tokens <= maxTokens) return { value };
  // Tokens the value may keep, with room for the note itself.
  const budget = maxTokens - Math.min(300, maxTokens / 5);

  const head = `[Result cut: it is about ${round(tokens)} tokens, over this server's limit of ${round(maxTokens)}.`;
  const fields = (names: string) => (canSelectFields ? ` Or pass "${fieldsName}" with the dotted paths you need${names}.` : '');
  if (typeof value === 'string') {
    const cut = value.slice(0, Math.floor((value.length * budget) / tokens));
    return {
      value: cut,
      note: `${head} Showing the first ${cut.length.toLocaleString('en')} of ${value.length.toLocaleString('en')} characters of the text. Narrow the request to get the rest.]`,
    };
  }
  /** The list cut to its first `kept` items, its paging made to resume at the first item left out. */
  const resumed = (cut: { value: unknown; kept: number; of: number }, shown: string, rest = '') => {
    const paging = resumeAfterCut(tool, cut.value, call.args, cut.kept, cut.of, call.next_page);
    const advice = paging?.advice ?? 'To get the rest, narrow the request (filters, a smaller range).';
    const next_page = paging?.next_page;
    return { value: paging ? paging.value : cut.value, note: `${head} ${shown}${rest} ${advice}`, leftOut: { ...(next_page && { next_page }) } };
  };
  const list = listCut(value, budget);
  if (list) {
    const cut = resumed(list, `Showing the first ${list.kept} of ${list.of} items of ${list.where}.`);
    return { ...cut, note: `${cut.note}${fields(suggestion(value))}]` };
  }

  // Not one item fits: plain fields only.
  const { value: plain, nested } = plainFields(value);
  const left = nested.length ? ` Left out, as too large: ${nested.slice(0, 20).join(', ')}.` : '';
  const how =
    canSelectFields && nested.length
      ? ` To get them, pass "${fieldsName}" with the paths you need, e.g. ["${nested[0]}"].`
      : ' Narrow the request to get the rest.';
  if (estimateTokens(JSON.stringify(plain)) <= budget) return { value: plain, note: `${head} Showing only its plain (not nested) fields.${left}${how}]` };
  const plainList = listCut(plain, budget);
  if (plainList) {
    const cut = resumed(plainList, `Showing only plain fields of the first ${plainList.kept} of ${plainList.of} items of ${plainList.where}.`, left);
    return { ...cut, note: `${cut.note}${how}]` };
  }
  const first = firstItemCut(plain, budget);
  if (first) {
    const which = first.of > 1 ? `the first of the ${first.of} items` : 'the only item';
    const shown = `Showing only the first ${first.fields.kept} of ${first.fields.of} plain fields of ${which} of ${first.where}, long texts shortened.`;
    // Items left out are resumed after the one shown; with none left out, the upstream's own paging stands.
    if (first.of === 1) return { value: first.value, note: `${head} ${shown}${left}${how}]` };
    const cut = resumed(first, shown, left);
    return { ...cut, note: `${cut.note}${how}]` };
  }
  const { value: leading, kept, of } = leadingFields(plain, budget);
  return { value: leading, note: `${head} Showing only the first ${kept} of its ${of} plain fields, long texts shortened.${left}${how}]` };
}

const round = (n: number) => (Math.round(n / 100) * 100).toLocaleString('en');

/** Characters a string needs escaping for in JSON (lone surrogates included); without them its JSON is itself in quotes. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what JSON escapes.
const ESCAPED = /[\u0000-\u001f"\\\ud800-\udfff]/;
/** The longest JSON of a finite number (`-1.2345678901234567e-308`). */
const NUMBER_MAX = 25;
/** Deeper than this, the bound gives up (and JSON.stringify says what it says of the value). */
const BOUND_DEPTH = 64;

/**
 * A number no smaller than the length of `JSON.stringify(value)`, found without writing the JSON; Infinity
 * once it passes `limit`, or when it cannot tell cheaply (a value with its own toJSON, anything but plain
 * objects, arrays and JSON's scalars, nesting past BOUND_DEPTH).
 */
export function jsonLengthBound(value: unknown, limit: number, depth = 0): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2 + (ESCAPED.test(value) ? 5 * value.length : 0);
    case 'number':
      return NUMBER_MAX;
    case 'boolean':
      return 5;
    case 'undefined':
      return 4;
    case 'object':
      break;
    default:
      return Number.POSITIVE_INFINITY;
  }
  if (value === null) return 4;
  if (depth >= BOUND_DEPTH) return Number.POSITIVE_INFINITY;
  let length = 2;
  if (Array.isArray(value)) {
    for (const item of value) {
      length += jsonLengthBound(item, limit - length, depth + 1) + 1;
      if (length > limit) return Number.POSITIVE_INFINITY;
    }
    return length;
  }
  const prototype = Object.getPrototypeOf(value);
  if ((prototype !== Object.prototype && prototype !== null) || typeof (value as { toJSON?: unknown }).toJSON === 'function') return Number.POSITIVE_INFINITY;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    length += jsonLengthBound(key, limit) + 1 + jsonLengthBound((value as Record<string, unknown>)[key], limit - length, depth + 1) + 1;
    if (length > limit) return Number.POSITIVE_INFINITY;
  }
  return length;
}

function suggestion(value: unknown): string {
  const names = fieldNamesOf(Array.isArray(value) ? value : (largestList(value)?.items ?? value)).slice(0, 12);
  return names.length ? ` (fields here include: ${names.join(', ')})` : '';
}

/** The value with its list cut to the leading items that fit `budget` tokens; undefined when not one item fits. */
function listCut(value: unknown, budget: number): ListCut | undefined {
  const list = listOf(value);
  if (!list) return undefined;
  let size = frameSize(value, list);
  let kept = 0;
  for (const item of list.items) {
    size += estimateTokens(JSON.stringify(item) ?? 'null') + 1;
    if (size > budget) break;
    kept++;
  }
  if (!kept) return undefined;
  return withItems(value, list, list.items.slice(0, kept));
}

/**
 * The list with its first item alone, cut to the leading plain fields that fit: for a list whose first item's
 * plain fields are over the budget, where cutting the object that holds the list would drop the list.
 */
function firstItemCut(value: unknown, budget: number): (ListCut & { fields: { kept: number; of: number } }) | undefined {
  const list = listOf(value);
  if (!list?.items.length) return undefined;
  const first = leadingFields(list.items[0], budget - frameSize(value, list));
  if (!first.kept) return undefined;
  return { ...withItems(value, list, [first.value]), fields: { kept: first.kept, of: first.of } };
}

interface ListCut {
  value: unknown;
  kept: number;
  of: number;
  where: string;
}

/** The result's list: the result itself, or its largest top-level list. */
const listOf = (value: unknown) => (Array.isArray(value) ? { key: undefined, items: value } : largestList(value));

/** Tokens of what holds the list, without its items. */
const frameSize = (value: unknown, list: { key?: string }) =>
  list.key === undefined ? 1 : estimateTokens(JSON.stringify({ ...(value as object), [list.key]: [] }));

function withItems(value: unknown, list: { key?: string; items: unknown[] }, items: unknown[]): ListCut {
  return {
    value: list.key === undefined ? items : { ...(value as object), [list.key]: items },
    kept: items.length,
    of: list.items.length,
    where: list.key === undefined ? 'the list' : `"${list.key}"`,
  };
}

/**
 * An object without its nested objects and lists (those of a list's items, for a list, or of the
 * largest list's items too), and the paths of what was left out.
 */
function plainFields(value: unknown): { value: unknown; nested: string[] } {
  const nested = new Set<string>();
  const strip = (record: unknown, prefix: string): unknown => {
    if (!isRecord(record)) return record;
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(record)) {
      if (field !== null && typeof field === 'object') nested.add(prefix + key);
      else out[key] = field;
    }
    return out;
  };
  if (Array.isArray(value)) return { value: value.map((item) => strip(item, '')), nested: [...nested] };
  const list = largestList(value);
  const top = strip(value, '') as Record<string, unknown>;
  if (!list) return { value: top, nested: [...nested] };
  nested.delete(list.key);
  return { value: { ...top, [list.key]: list.items.map((item) => strip(item, `${list.key}.`)) }, nested: [...nested] };
}

/** The leading plain fields of an object that fit `budget` tokens, texts over a tenth of it shortened. */
function leadingFields(value: unknown, budget: number): { value: unknown; kept: number; of: number } {
  const entries = isRecord(value) ? Object.entries(value) : [];
  const longest = Math.floor(budget / 10) * 2;
  const out: Record<string, unknown> = {};
  let size = 2;
  for (const [key, field] of entries) {
    const shown = typeof field === 'string' && field.length > longest ? `${field.slice(0, longest)}…` : field;
    size += estimateTokens(JSON.stringify({ [key]: shown })) + 1;
    if (size > budget) break;
    out[key] = shown;
  }
  return { value: out, kept: Object.keys(out).length, of: entries.length };
}

/** The top-level field holding the longest list, by its JSON size. */
function largestList(value: unknown): { key: string; items: unknown[] } | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  let best: { key: string; items: unknown[]; size: number } | undefined;
  for (const [key, items] of Object.entries(value)) {
    if (!Array.isArray(items) || items.length < 2) continue;
    const size = JSON.stringify(items).length;
    if (!best || size > best.size) best = { key, items, size };
  }
  return best;
}
