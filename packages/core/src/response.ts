/**
 * Keeping a result within what a model's client accepts (many refuse tool results over 25,000 tokens):
 * an optional field selection projects the JSON result, and a result still over the token budget is
 * cut, with a note that says how to get the rest.
 */
import { toolError, type ToolError } from './errors.js';
import type { JsonSchema, Tool } from './tool.js';

export const fieldsName = 'fields';

export const fieldsSchema: JsonSchema = {
  type: 'array',
  items: { type: 'string' },
  // Short: every listed tool carries it (some 33 tokens each).
  description: 'Return only these fields of the result: dotted paths like "owner.login".',
};

/** Under the 25,000-token limit of common clients, with room for the client's own framing. */
export const defaultMaxResponseTokens = 20_000;

/**
 * Tokens are estimated from UTF-8 bytes (fast, and no tokenizer at run time), 2.5 bytes to a token:
 * measured with o200k_base, GitHub's JSON takes about 3.8 bytes per token, HubSpot's (ids and
 * timestamps) 2.5, text in Cyrillic or Japanese 6; so the estimate errs on the side of cutting early.
 */
export const bytesPerToken = 2.5;

export const estimateTokens = (text: string): number => Math.ceil(Buffer.byteLength(text) / bytesPerToken);

/** The `fields` argument as a list of paths, or the error for a malformed one. */
export function parseFields(value: unknown): string[] | { error: ToolError } {
  if (Array.isArray(value) && value.length > 0 && value.every((path) => typeof path === 'string' && path.trim() !== '')) return value.map((path) => path.trim());
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
    keys.forEach((key, i) => {
      const last = i === keys.length - 1;
      const known = node.get(key);
      if (known === true) return; // a shorter path already keeps the whole field
      if (last) return void node.set(key, true);
      const child: FieldTree = known ?? new Map();
      node.set(key, child);
      node = child;
    });
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

export interface Capped {
  value: unknown;
  /** For the model: what was cut and how to get the rest. Absent when nothing was cut. */
  note?: string;
}

/**
 * The value as it is when it fits `maxTokens`. Otherwise a list (the result itself, or its largest
 * top-level list, such as GitHub's `items` or HubSpot's `results`) keeps as many leading items as fit;
 * anything else is cut as JSON text, and the value becomes that (incomplete) text.
 */
export function capResult(value: unknown, tool: Tool, maxTokens: number, canSelectFields: boolean): Capped {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? '';
  const tokens = estimateTokens(text);
  if (!maxTokens || tokens <= maxTokens) return { value };
  const total = Buffer.byteLength(text);
  // Bytes the value may keep, with room for the note itself.
  const limit = maxTokens * bytesPerToken;
  const budget = limit - Math.min(800, limit / 5);

  const head = `[Result cut: it is about ${round(tokens)} tokens, over this server's limit of ${round(maxTokens)}.`;
  const fields = canSelectFields ? ` Or pass "${fieldsName}" with the dotted paths you need${suggestion(value)}.` : '';
  const list = listCut(value, budget);
  if (list) {
    const paging = pagingParameters(tool);
    const rest = paging.length
      ? ` To get the rest, page with ${paging.join(', ')}, asking for at most ${list.kept} items per page.`
      : ' To get the rest, narrow the request (filters, a smaller range).';
    return { value: list.value, note: `${head} Showing the first ${list.kept} of ${list.of} items of ${list.where}.${rest}${fields}]` };
  }
  const cut = text.slice(0, Math.floor((text.length * budget) / total));
  return { value: cut, note: `${head} Showing the first ${cut.length.toLocaleString('en')} of ${text.length.toLocaleString('en')} characters of its JSON text, so it is incomplete.${fields} Or narrow the request.]` };
}

const round = (n: number) => (Math.round(n / 100) * 100).toLocaleString('en');

function suggestion(value: unknown): string {
  const names = fieldNamesOf(Array.isArray(value) ? value : largestList(value)?.items ?? value).slice(0, 12);
  return names.length ? ` (fields here include: ${names.join(', ')})` : '';
}

/** The value with its list cut to the leading items that fit `budget` bytes; undefined when not one item fits. */
function listCut(value: unknown, budget: number): { value: unknown; kept: number; of: number; where: string } | undefined {
  const list = Array.isArray(value) ? { key: undefined, items: value } : largestList(value);
  if (!list) return undefined;
  const rest = list.key === undefined ? 2 : Buffer.byteLength(JSON.stringify({ ...(value as object), [list.key]: [] }));
  let size = rest;
  let kept = 0;
  for (const item of list.items) {
    size += Buffer.byteLength(JSON.stringify(item) ?? 'null') + (kept ? 1 : 0);
    if (size > budget) break;
    kept++;
  }
  if (!kept) return undefined;
  const items = list.items.slice(0, kept);
  return {
    value: list.key === undefined ? items : { ...(value as object), [list.key]: items },
    kept,
    of: list.items.length,
    where: list.key === undefined ? 'the list' : `"${list.key}"`,
  };
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

/** Upstream names of paging query parameters (GitHub's page/per_page, HubSpot's after/limit, ...). */
const pagingNames = new Set(['page', 'per_page', 'limit', 'offset', 'after', 'before', 'cursor', 'page_size', 'pagesize', 'page_token', 'pagetoken', 'starting_after']);

/** The tool's parameters that page its results, by the names the model uses. */
export function pagingParameters(tool: Tool): string[] {
  return tool.parameters.filter((p) => p.in === 'query' && pagingNames.has((p.upstream ?? p.name).toLowerCase())).map((p) => p.name);
}
