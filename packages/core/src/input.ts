/** A tool's input: its JSON Schema (derived from the parameters) and the checks that guard every call. */
import { BoundedMemo } from './bounded-memo.js';
import { toolError, type ToolError } from './errors.js';
import { headerValueProblem, loneSurrogateAt, loneSurrogateProblem, unsafeSegmentProblem, unsafeSegments } from './request.js';
import { isModeDriven, type JsonSchema, type ToolData } from './tool.js';
import { editDistance } from './edit-distance.js';
import { MAX_NESTING_DEPTH, nestsDeeperThan, pointerToPath, UNKNOWN_FIELD, validate, type ValidationIssue } from './validation.js';

const schemas = new WeakMap<ToolData, JsonSchema>();

/** The tool's input as a JSON Schema object; built once per tool. */
export function inputSchema(tool: ToolData): JsonSchema {
  let schema = schemas.get(tool);
  if (!schema) {
    schema = {
      type: 'object',
      properties: Object.fromEntries(
        tool.parameters.map((p) => {
          const description = beyondName(p.name, p.description);
          return [p.name, description ? { ...p.schema, description } : p.schema];
        }),
      ),
      required: tool.parameters.filter((p) => p.required).map((p) => p.name),
      additionalProperties: false,
    };
    schemas.set(tool, schema);
  }
  return schema;
}

// Words a description may add to a parameter's name and still say nothing more ("The unique identifier of
// the comment." for comment_id): articles, and the ways of saying what an id is.
const sayNothingMore = new Set(['the', 'a', 'an', 'of', 'that', 'identifies', 'unique']);
const rootOf = (word: string) => (word === 'identifier' || word === 'identifiers' ? 'id' : word.endsWith('s') ? word.slice(0, -1) : word);
const wordsOf = (text: string) => text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
// Most pairs recur from tool to tool (repository_owner is on 300): each is worked out once. Bounded, since a
// long-running engine also sees every description its workers ever list.
const served = new BoundedMemo<string, string>(20_000);

/**
 * A parameter's description without the sentences that only say its name again ("Owner of the repository."
 * for repository_owner): every model reads the name, so they cost tokens in every listing and tell nothing.
 * The tool's own record keeps them.
 */
export function beyondName(name: string, description: string): string {
  return served.get(`${name}\n${description}`, () => {
    const named = new Set(wordsOf(name.replace(/([a-z])([A-Z])/g, '$1 $2')).map(rootOf));
    const saysMore = (sentence: string) => wordsOf(sentence).some((word) => !sayNothingMore.has(word) && !named.has(rootOf(word)));
    return description
      .split(/(?<=\.)\s+/)
      .filter(saysMore)
      .join(' ');
  });
}

/**
 * The input without the nulls its schema does not allow, at any depth: a null stands for a value left
 * out (OpenAI's strict mode sends null for every optional parameter it does not fill).
 */
export function withoutNulls(schema: JsonSchema, value: unknown): unknown {
  if (Array.isArray(value)) return schema.items ? value.map((item) => withoutNulls(schema.items as JsonSchema, item)) : value;
  if (value === null || typeof value !== 'object') return value;
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const property = properties[key];
    if (field === null && !(property && allowsNull(property))) continue;
    out[key] = property ? withoutNulls(property, field) : field;
  }
  return out;
}

function allowsNull(schema: JsonSchema): boolean {
  const type = schema.type;
  return (
    type === 'null' ||
    (Array.isArray(type) && type.includes('null')) ||
    schema.nullable === true ||
    (Array.isArray(schema.enum) && schema.enum.includes(null)) ||
    (Array.isArray(schema.anyOf) && (schema.anyOf as JsonSchema[]).some(allowsNull))
  );
}

/** Validates the input against the tool's schema; the error names each offending parameter. */
export function checkInput(tool: ToolData, input: unknown): { error: ToolError } | undefined {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', 'The input must be a JSON object of parameters.');
  }
  const deep = Object.keys(input).find((name) => nestsDeeperThan((input as Record<string, unknown>)[name]));
  if (deep !== undefined) {
    return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `Invalid input for ${tool.name}: parameter '${deep}' nests deeper than ${MAX_NESTING_DEPTH} levels.`);
  }
  const issues = validate(inputSchema(tool), input);
  const problems = issues.map((item) => `parameter '${pointerToPath(item.pointer)}' ${item.message}${unknownParameterHint(tool, item)}`);
  problems.push(...textProblems(tool, input as Record<string, unknown>));
  for (const parameter of tool.parameters) {
    if (parameter.in !== 'path') continue;
    const value = (input as Record<string, unknown>)[parameter.name];
    if (value !== undefined && unsafeSegments.has(String(value))) {
      problems.push(`parameter '${parameter.name}' ${unsafeSegmentProblem}`);
    } else if (value === undefined && !parameter.required && !isModeDriven(tool)) {
      // Declared optional upstream, yet the URL cannot be built without it. (Mode-driven tools check
      // their path parameters when they execute.)
      problems.push(`parameter '${parameter.name}' is required: it fills {${parameter.upstream ?? parameter.name}} in the URL path`);
    }
  }
  if (!problems.length) return undefined;
  return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `Invalid input for ${tool.name}: ${problems.join('; ')}.`);
}

/** Past this many parameters, an unknown one's message names only the close ones rather than them all. */
const LISTED_PARAMETERS = 12;

/**
 * For a parameter the tool does not have: the tool's parameters it may mean (spelt within a third of its length,
 * or one name holding the other: `form_id` for `crm_form_id`), else, for a tool of few, all of them.
 */
function unknownParameterHint(tool: ToolData, issue: ValidationIssue): string {
  const name = /^\/([^/]+)$/.exec(issue.pointer)?.[1];
  // A parameter's name is at most 64 characters (the catalog checks): a longer one is compared with none, since
  // the comparison's time grows with the name's length (a hostile input's keys can be megabytes long).
  if (name === undefined || issue.message !== UNKNOWN_FIELD || name.length > 128) return '';
  const known = tool.parameters.map((parameter) => parameter.name);
  const bare = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');
  const close = known.filter((candidate) => {
    const [a, b] = [bare(name), bare(candidate)];
    return (a.length > 1 && b.includes(a)) || (b.length > 1 && a.includes(b)) || editDistance(a, b) <= Math.max(1, Math.floor(a.length / 3));
  });
  const quoted = close.slice(0, 3).map((candidate) => `'${candidate}'`);
  if (quoted.length) return ` (did you mean ${quoted.join(' or ')}?)`;
  if (!known.length) return ' (the tool takes no parameters)';
  return known.length <= LISTED_PARAMETERS ? ` (the parameters are ${known.join(', ')})` : '';
}

/**
 * Text no upstream can be sent: a lone surrogate anywhere in a value (a handler may put any of it in a
 * path, a query or a body), and in a header value anything a header cannot carry.
 */
function textProblems(tool: ToolData, input: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const [name, value] of Object.entries(input)) {
    const header = tool.parameters.find((parameter) => parameter.name === name)?.in === 'header';
    const problem = header && typeof value === 'string' ? headerValueProblem(value) : undefined;
    const broken = header ? undefined : loneSurrogateAt(value);
    if (problem) problems.push(`parameter '${name}' ${problem}`);
    else if (broken !== undefined) problems.push(`parameter '${pointerToPath(`/${name}${broken}`)}' ${loneSurrogateProblem}`);
  }
  return problems;
}
