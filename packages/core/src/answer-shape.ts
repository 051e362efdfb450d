/**
 * Upstream answers of the wrong shape: a success whose content is not what the operation answers (a field
 * missing, a list where an object belongs, text where JSON was due, a header that is not JSON). Handlers
 * that read fields of an answer check it here first, so that a strange answer is an error of its own kind,
 * never a TypeError in the handler. It is neither the caller's doing nor worth repeating as it is (the
 * upstream will most likely answer the same), so it is not retryable.
 */
import { toolError, type ToolError } from './errors.js';
import type { JsonSchema, ToolData } from './tool.js';
import { isBinaryBody } from './upstream.js';
import { pointerToPath, validate } from './validation.js';

/**
 * The error for an answer to `tool`'s request that is not what was `expected`. The developer message gives
 * the request's method and path template, not its URL: the template carries no value of the call.
 */
export function unexpectedResponse(tool: ToolData, expected: string, received: unknown): { error: ToolError } {
  const request = tool.http ? `${tool.http.method} ${tool.http.path}` : tool.name;
  const problem = `expected ${expected}, got ${describe(received)}`;
  return toolError(
    'UPSTREAM_RUNTIME_UNEXPECTED_RESPONSE',
    `The upstream service's answer to ${tool.name} is not what that operation answers: ${problem}. The answer was not used; calling again will most likely get the same.`,
    { developer_message: `${request}: answer of an unexpected shape: ${problem}.` },
  );
}

/**
 * The answer, when it has the `shape` a handler reads (a JSON Schema of only the fields it uses, kept in a
 * constant so that it is compiled once), or the error naming the first place where it differs.
 */
export function answerOfShape<T>(tool: ToolData, answer: unknown, shape: JsonSchema): { value: T } | { error: ToolError } {
  const [issue] = validate(shape, answer);
  if (!issue) return { value: answer as T };
  const where = pointerToPath(issue.pointer) || 'the answer';
  // Validation speaks of what a value must be ("must be an array", "is required"); here it is what was expected.
  const expectation = issue.message === 'is required' ? 'to be present' : issue.message.replace(/^must /, 'to ');
  return unexpectedResponse(tool, `${where} ${expectation}`, valueAt(answer, issue.pointer));
}

/** The value a JSON pointer reaches, or undefined where the path ends early. */
function valueAt(value: unknown, pointer: string): unknown {
  let node = value;
  for (const part of pointer.split('/').slice(1)) {
    if (!node || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

/** What came, by its kind and size: never its content, which may be long or not meant to be shown. */
function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `a list of ${value.length} item${value.length === 1 ? '' : 's'}`;
  if (isBinaryBody(value)) return `${value.size_bytes} bytes of ${value.content_type}`;
  if (typeof value === 'object') {
    const keys = Object.keys(value);
    if (!keys.length) return 'an empty object';
    return `an object with the field${keys.length === 1 ? '' : 's'} ${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', …' : ''}`;
  }
  if (typeof value === 'string') return `text of ${value.length} character${value.length === 1 ? '' : 's'}`;
  return `the ${typeof value} ${String(value)}`;
}
