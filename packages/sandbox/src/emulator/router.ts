/** Finds the operation for a method and path. */
import type { Operation } from './operations.js';

export type Route =
  | { kind: 'operation'; label: string; operation: Operation; params: Record<string, string> }
  | { kind: 'unknown-path' }
  | { kind: 'wrong-method'; allowed: string[] };

interface Template {
  label: string;
  operation: Operation;
  /** A literal segment, or the name of a path parameter. */
  segments: Array<{ literal: string } | { param: string }>;
}

export function createRouter(operations: Record<string, Operation>): (method: string, path: string) => Route {
  const templates: Template[] = Object.entries(operations).map(([label, operation]) => ({
    label,
    operation,
    segments: split(operation.path).map((segment) => {
      const param = /^\{(.+)\}$/.exec(segment)?.[1];
      return param ? { param } : { literal: segment };
    }),
  }));

  return (method, path) => {
    let segments: string[];
    try {
      segments = split(path).map(decodeURIComponent);
    } catch {
      return { kind: 'unknown-path' };
    }
    const candidates = templates
      .filter((template) => template.segments.length === segments.length && template.segments.every((s, i) => matches(s, segments[i]!)))
      .sort(bySpecificity);
    if (candidates.length === 0) return { kind: 'unknown-path' };
    const match = candidates.find((template) => template.operation.method === method.toUpperCase());
    if (!match) return { kind: 'wrong-method', allowed: [...new Set(candidates.map((template) => template.operation.method))] };
    const params: Record<string, string> = {};
    match.segments.forEach((segment, i) => {
      if ('param' in segment) params[segment.param] = segments[i]!;
    });
    return { kind: 'operation', label: match.label, operation: match.operation, params };
  };
}

/** A trailing slash is insignificant: `/campaigns/` and `/campaigns` are one resource. */
function split(path: string): string[] {
  const segments = path.split('/').slice(1);
  if (segments.length > 1 && segments.at(-1) === '') segments.pop();
  return segments;
}

const matches = (segment: Template['segments'][number], value: string): boolean =>
  'literal' in segment ? segment.literal === value : value !== '';

/** Literal segments beat parameters, compared from the left: `/emails/clone` before `/emails/{emailId}`. */
function bySpecificity(a: Template, b: Template): number {
  for (let i = 0; i < a.segments.length; i += 1) {
    const aLiteral = 'literal' in a.segments[i]!;
    const bLiteral = 'literal' in b.segments[i]!;
    if (aLiteral !== bLiteral) return aLiteral ? -1 : 1;
  }
  return 0;
}
