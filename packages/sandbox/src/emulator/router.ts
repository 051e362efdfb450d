/** Finds the operation for a method and path. */
import type { Operation } from './operations.js';

export type Route =
  | {
      kind: 'operation';
      label: string;
      operation: Operation;
      params: Record<string, string>;
      /**
       * Further operations on the same method and path template, in table order (a document may give one
       * method and path several operations, told apart only by what they take): the request is theirs when
       * it is not the first one's.
       */
      alternatives?: Array<{ label: string; operation: Operation; params: Record<string, string> }>;
    }
  | { kind: 'unknown-path' }
  | { kind: 'wrong-method'; allowed: string[] };

/** A literal, a whole-segment parameter, or a segment of parameters and text (`{name}.pdf`, `{type}-{version}`). */
type Segment = { literal: string } | { param: string; multi: boolean } | { pattern: RegExp; names: string[] };

interface Template {
  label: string;
  operation: Operation;
  segments: Segment[];
}

interface Match {
  template: Template;
  params: Record<string, string>;
  /** For each segment of the request, how the template matched it: 2 a literal, 1 a parameter within text (`{name}.pdf`), 0 a parameter. */
  literals: number[];
}

export function createRouter(operations: Record<string, Operation>): (method: string, path: string) => Route {
  const templates: Template[] = Object.entries(operations).map(([label, operation]) => {
    const multi = new Set(operation.multiSegmentParameters ?? []);
    const segments = split(operation.path).map((segment): Segment => {
      const param = /^\{([^{}]+)\}$/.exec(segment)?.[1];
      if (param) return { param, multi: multi.has(param) };
      return /\{[^{}]+\}/.test(segment) ? mixedSegment(segment) : { literal: segment };
    });
    // One spanning parameter per template keeps matching unambiguous: its span is whatever the rest leaves.
    if (segments.filter((s) => 'multi' in s && s.multi).length > 1) throw new Error(`${label}: more than one multi-segment path parameter`);
    return { label, operation, segments };
  });

  return (method, path) => {
    let segments: string[];
    try {
      segments = split(path).map(decodeURIComponent);
    } catch {
      return { kind: 'unknown-path' };
    }
    const candidates = templates.flatMap((template) => matchTemplate(template, segments) ?? []).sort(bySpecificity);
    if (candidates.length === 0) return { kind: 'unknown-path' };
    const match = candidates.find((candidate) => candidate.template.operation.method === method.toUpperCase());
    if (!match) return { kind: 'wrong-method', allowed: [...new Set(candidates.map((candidate) => candidate.template.operation.method))] };
    const found: Route = { kind: 'operation', label: match.template.label, operation: match.template.operation, params: match.params };
    const alternatives = candidates
      .filter((candidate) => candidate !== match && candidate.template.operation.method === match.template.operation.method)
      .filter((candidate) => candidate.template.operation.path === match.template.operation.path)
      .map((candidate) => ({ label: candidate.template.label, operation: candidate.template.operation, params: candidate.params }));
    if (alternatives.length) found.alternatives = alternatives;
    return found;
  };
}

/** A trailing slash is insignificant: `/campaigns/` and `/campaigns` are one resource. */
function split(path: string): string[] {
  const segments = path.split('/').slice(1);
  if (segments.length > 1 && segments.at(-1) === '') segments.pop();
  return segments;
}

function matchTemplate(template: Template, segments: string[]): Match | undefined {
  const spanning = template.segments.some((s) => 'multi' in s && s.multi);
  const span = spanning ? segments.length - template.segments.length + 1 : 1;
  if (span < 1 || (!spanning && template.segments.length !== segments.length)) return undefined;
  const params: Record<string, string> = {};
  const literals: number[] = [];
  let at = 0;
  for (const segment of template.segments) {
    if ('literal' in segment) {
      if (segments[at] !== segment.literal) return undefined;
      literals.push(2);
      at += 1;
      continue;
    }
    if ('pattern' in segment) {
      const found = segment.pattern.exec(segments[at] ?? '');
      if (!found) return undefined;
      segment.names.forEach((name, index) => {
        params[name] = found[index + 1]!;
      });
      literals.push(1);
      at += 1;
      continue;
    }
    const taken = segments.slice(at, at + (segment.multi ? span : 1));
    if (taken.some((value) => value === '')) return undefined;
    params[segment.param] = taken.join('/');
    literals.push(...taken.map(() => 0));
    at += taken.length;
  }
  return { template, params, literals };
}

/**
 * Literal segments beat parameters, compared from the left: `/emails/clone` before `/emails/{emailId}`,
 * and `/branches/main/protection` is the protection of `main`, not a branch named `main/protection`. A
 * parameter within text beats a bare one: `/{path}/{name}.rw.html` before `/{path}/{name}`.
 */
function bySpecificity(a: Match, b: Match): number {
  for (let i = 0; i < a.literals.length; i += 1) {
    if (a.literals[i] !== b.literals[i]) return b.literals[i]! - a.literals[i]!;
  }
  return 0;
}

/** `{bid}.pdf` → /^(.+?)\.pdf$/ with its parameter names; each parameter takes at least one character. */
function mixedSegment(segment: string): Segment {
  const names: string[] = [];
  const source = segment
    .split(/(\{[^{}]+\})/)
    .map((part) => {
      const name = /^\{([^{}]+)\}$/.exec(part)?.[1];
      if (!name) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(name);
      return '(.+?)';
    })
    .join('');
  return { pattern: new RegExp(`^${source}$`), names };
}
