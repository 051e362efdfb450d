/**
 * The OData query options Graph's message lists take: `$filter` (comparisons eq, ne, gt, ge, lt, le;
 * functions startsWith, endsWith, contains; and, or, not, parentheses), `$orderby` and `$select`.
 * Property paths (`sender/emailAddress/address`) walk into the message. Text compares without case, as
 * Exchange does; date-time literals stand unquoted and compare as instants.
 */
import { GraphError } from './context.js';

type Value = string | number | boolean | null | { dateTime: number };
type Expression =
  | { kind: 'and' | 'or'; left: Expression; right: Expression }
  | { kind: 'not'; operand: Expression }
  | { kind: 'compare'; operator: string; left: Operand; right: Operand }
  | { kind: 'function'; name: string; property: string; literal: string };
type Operand = { property: string } | { literal: Value };

const COMPARISONS = new Set(['eq', 'ne', 'gt', 'ge', 'lt', 'le']);
const FUNCTIONS = new Set(['startswith', 'endswith', 'contains']);
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

const invalid = (message: string) => new GraphError(400, 'BadRequest', `Invalid filter clause: ${message}`);

type Token = { type: 'string'; value: string } | { type: 'word'; value: string } | { type: 'symbol'; value: '(' | ')' | ',' };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const char = text[at]!;
    if (/\s/.test(char)) at++;
    else if (char === '(' || char === ')' || char === ',') {
      tokens.push({ type: 'symbol', value: char });
      at++;
    } else if (char === "'") {
      let value = '';
      for (at++; ; at++) {
        if (at >= text.length) throw invalid('a string literal is not closed');
        if (text[at] === "'") {
          if (text[at + 1] !== "'") break;
          at++; // '' is an escaped quote
        }
        value += text[at];
      }
      tokens.push({ type: 'string', value });
      at++;
    } else {
      const word = /^[^\s(),']+/.exec(text.slice(at))![0];
      tokens.push({ type: 'word', value: word });
      at += word.length;
    }
  }
  return tokens;
}

export function parseFilter(text: string): Expression {
  const tokens = tokenize(text);
  let at = 0;
  const peek = () => tokens[at];
  const isWord = (value: string) => peek()?.type === 'word' && peek()!.value.toLowerCase() === value;
  const expect = (value: string) => {
    const token = tokens[at++];
    if (token?.type !== 'symbol' || token.value !== value) throw invalid(`expected '${value}'`);
  };

  function or(): Expression {
    let left = and();
    while (isWord('or')) {
      at++;
      left = { kind: 'or', left, right: and() };
    }
    return left;
  }
  function and(): Expression {
    let left = unary();
    while (isWord('and')) {
      at++;
      left = { kind: 'and', left, right: unary() };
    }
    return left;
  }
  function unary(): Expression {
    if (isWord('not')) {
      at++;
      return { kind: 'not', operand: unary() };
    }
    return primary();
  }
  function primary(): Expression {
    const token = peek();
    if (token?.type === 'symbol' && token.value === '(') {
      at++;
      const inner = or();
      expect(')');
      return inner;
    }
    if (token?.type === 'word' && FUNCTIONS.has(token.value.toLowerCase()) && tokens[at + 1]?.value === '(') {
      at += 2;
      const property = operand();
      expect(',');
      const literal = operand();
      expect(')');
      if (!('property' in property) || !('literal' in literal) || typeof literal.literal !== 'string') {
        throw invalid(`${token.value} takes a property and a string literal`);
      }
      return { kind: 'function', name: token.value.toLowerCase(), property: property.property, literal: literal.literal };
    }
    const left = operand();
    const operator = tokens[at++];
    if (operator?.type !== 'word' || !COMPARISONS.has(operator.value)) throw invalid(`expected a comparison operator after ${describe(left)}`);
    const right = operand();
    if (!('property' in left) && !('property' in right)) throw invalid('a comparison needs a property');
    return { kind: 'compare', operator: operator.value, left, right };
  }
  function operand(): Operand {
    const token = tokens[at++];
    if (!token) throw invalid('the expression ends too early');
    if (token.type === 'string') return { literal: token.value };
    if (token.type === 'symbol') throw invalid(`unexpected '${token.value}'`);
    const word = token.value;
    if (word === 'true' || word === 'false') return { literal: word === 'true' };
    if (word === 'null') return { literal: null };
    if (/^-?\d+(\.\d+)?$/.test(word)) return { literal: Number(word) };
    if (DATE_TIME.test(word)) return { literal: { dateTime: Date.parse(word) } };
    if (/^[A-Za-z@][\w@.]*(\/[A-Za-z][\w]*)*$/.test(word)) return { property: word };
    throw invalid(`'${word}' is neither a property nor a literal`);
  }

  const expression = or();
  if (at < tokens.length) throw invalid(`unexpected '${tokens[at]!.value}'`);
  return expression;
}

const describe = (operand: Operand) => ('property' in operand ? operand.property : JSON.stringify(operand.literal));

export function valueAt(record: unknown, path: string): unknown {
  return path.split('/').reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), record);
}

export function matches(expression: Expression, record: unknown): boolean {
  switch (expression.kind) {
    case 'and':
      return matches(expression.left, record) && matches(expression.right, record);
    case 'or':
      return matches(expression.left, record) || matches(expression.right, record);
    case 'not':
      return !matches(expression.operand, record);
    case 'function': {
      const value = valueAt(record, expression.property);
      if (typeof value !== 'string') return false;
      const [text, part] = [value.toLowerCase(), expression.literal.toLowerCase()];
      return expression.name === 'startswith' ? text.startsWith(part) : expression.name === 'endswith' ? text.endsWith(part) : text.includes(part);
    }
    case 'compare': {
      const resolve = (operand: Operand): unknown => ('property' in operand ? valueAt(record, operand.property) : operand.literal);
      const order = compareValues(resolve(expression.left), resolve(expression.right));
      switch (expression.operator) {
        case 'eq':
          return order === 0;
        case 'ne':
          return order !== 0;
        case 'gt':
          return order !== undefined && order > 0;
        case 'ge':
          return order !== undefined && order >= 0;
        case 'lt':
          return order !== undefined && order < 0;
        default:
          return order !== undefined && order <= 0;
      }
    }
  }
}

/** -1, 0 or 1; undefined when the two cannot be ordered (a missing value, or different kinds). */
export function compareValues(a: unknown, b: unknown): number | undefined {
  const instant = (value: unknown) =>
    value && typeof value === 'object' && 'dateTime' in value
      ? (value as { dateTime: number }).dateTime
      : typeof value === 'string' && DATE_TIME.test(value)
        ? Date.parse(value)
        : undefined;
  const [ta, tb] = [instant(a), instant(b)];
  if (ta !== undefined && tb !== undefined) return Math.sign(ta - tb);
  // null and a missing value are the same to OData: both are equal to null.
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null) ? 0 : undefined;
  if (typeof a === 'string' && typeof b === 'string') return Math.sign(a.toLowerCase().localeCompare(b.toLowerCase()));
  if (typeof a === typeof b && (typeof a === 'number' || typeof a === 'boolean')) return Math.sign(Number(a) - Number(b));
  return undefined;
}

export interface Ordering {
  path: string;
  descending: boolean;
}

/** `['receivedDateTime desc', 'subject']` (the items of `$orderby=receivedDateTime desc,subject`) → the keys in order. */
export function parseOrderBy(items: string[]): Ordering[] {
  return items.map((part) => {
    const [path, direction = 'asc', ...rest] = part.trim().split(/\s+/);
    if (!path || rest.length || !['asc', 'desc'].includes(direction)) throw new GraphError(400, 'BadRequest', `Invalid $orderby: '${part}'`);
    return { path, descending: direction === 'desc' };
  });
}

export function comparator(orderings: Ordering[]): (a: unknown, b: unknown) => number {
  return (a, b) => {
    for (const { path, descending } of orderings) {
      const order = compareValues(valueAt(a, path), valueAt(b, path)) ?? 0;
      if (order !== 0) return descending ? -order : order;
    }
    return 0;
  };
}

/** Only the selected top-level properties, and the id, which Graph always returns. */
export function select<T extends Record<string, unknown>>(record: T, fields: string[] | undefined): Partial<T> {
  if (!fields) return record;
  const wanted = new Set(['id', ...fields.map((field) => field.trim())]);
  return Object.fromEntries(Object.entries(record).filter(([key]) => wanted.has(key))) as Partial<T>;
}
