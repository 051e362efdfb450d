/**
 * The issue search language: words, AND, OR, NOT (upper case) and parentheses. Adjacent words are
 * alternatives (OR), as in ranked retrieval; AND binds tighter than OR. A NOT joined without an
 * operator excludes from its whole group, as in most search engines: `refund card NOT duplicate` is
 * (refund OR card) without duplicate, while an explicit `a OR NOT b` keeps its literal meaning.
 */

export type QueryNode =
  | { kind: 'word'; text: string }
  | { kind: 'not'; operand: QueryNode }
  | { kind: 'and'; operands: QueryNode[] }
  | { kind: 'or'; operands: QueryNode[] }
  /** `include` without anything that matches `exclude`. */
  | { kind: 'without'; include: QueryNode; exclude: QueryNode };

export class QueryError extends Error {}

const OPERATORS = new Set(['AND', 'OR', 'NOT', '(', ')']);

export function parseQuery(query: string): QueryNode {
  // Tokens: parentheses, and runs of anything else; a run without a letter or digit can match nothing.
  const tokens = (query.match(/[()]|[^\s()]+/g) ?? []).filter((token) => OPERATORS.has(token) || /[\p{L}\p{N}]/u.test(token));
  let at = 0;
  const peek = () => tokens[at];
  const take = () => tokens[at++];

  function group(): QueryNode {
    const include: QueryNode[] = [];
    const exclude: QueryNode[] = [];
    let explicit = false;
    while (at < tokens.length && peek() !== ')') {
      if (peek() === 'OR') {
        if (!include.length && !exclude.length) throw new QueryError('OR needs a term on each side');
        take();
        explicit = true;
      }
      if (peek() === undefined || peek() === ')' || peek() === 'OR' || peek() === 'AND')
        throw new QueryError(`${explicit ? 'OR' : 'the query'} needs a term after it`);
      const operand = conjunction();
      if (operand.kind === 'not' && !explicit) exclude.push(operand.operand);
      else include.push(operand);
      explicit = false;
    }
    if (!include.length && !exclude.length) throw new QueryError('the query has no words to search for');
    if (!include.length) return { kind: 'not', operand: either(exclude) };
    const positive = either(include);
    return exclude.length ? { kind: 'without', include: positive, exclude: either(exclude) } : positive;
  }

  function conjunction(): QueryNode {
    const operands = [unary()];
    while (peek() === 'AND') {
      take();
      if (peek() === undefined || peek() === ')' || peek() === 'AND' || peek() === 'OR') throw new QueryError('AND needs a term on each side');
      operands.push(unary());
    }
    return operands.length === 1 ? operands[0]! : { kind: 'and', operands };
  }

  function unary(): QueryNode {
    const token = take();
    if (token === 'NOT') {
      if (peek() === undefined || peek() === ')' || peek() === 'AND' || peek() === 'OR') throw new QueryError('NOT needs a term after it');
      return { kind: 'not', operand: unary() };
    }
    if (token === '(') {
      const inner = group();
      if (take() !== ')') throw new QueryError('a parenthesis is not closed');
      return inner;
    }
    if (token === undefined || token === ')' || token === 'AND' || token === 'OR') throw new QueryError(`unexpected ${token ?? 'end of query'}`);
    return { kind: 'word', text: token };
  }

  const root = group();
  if (at < tokens.length) throw new QueryError('a closing parenthesis has no opening one');
  return root;
}

const either = (nodes: QueryNode[]): QueryNode => (nodes.length === 1 ? nodes[0]! : { kind: 'or', operands: nodes });
