/**
 * The checks every toolkit catalog passes, built-in or imported: what a model reads is short plain text,
 * names are ones every provider accepts, every schema compiles and says enough to fill it, mode-driven
 * tools carry self-contained body schemas, and every path placeholder has its parameter. Empty when the
 * catalog passes.
 */
import { inputSchema, toGeminiFunction, toOpenAiStrictFunction, validate, type JsonSchema, type ToolData, type ToolkitData } from '@quiver/core';
import { modeParameters } from './shapes.js';
import { wordCount } from './text.js';

export interface CatalogCheckOptions {
  /**
   * Also the rules every generated catalog keeps (RepoHostApi's and every import's): text within the
   * lengths below, without links, URLs, HTML or emphasis; no default in a body schema; every path
   * placeholder filled by a parameter and every path parameter filling one. The hand-written toolkits
   * (code that rewrites its request) are held to the rest only.
   */
  strict?: boolean;
  /**
   * false: leave the text alone (its length in words, emptiness), for a hand-written toolkit loaded from a
   * folder, whose author decides what its tools say. Default true.
   */
  prose?: boolean;
  /** Longest tool description, in characters. Default 400. */
  toolText?: number;
  /** Longest description of a placed parameter. Default 200. */
  parameterText?: number;
}

export function catalogProblems(toolkit: ToolkitData, options: CatalogCheckOptions = {}): string[] {
  const checked = catalogProblemsByTool(toolkit, options);
  return [...checked.toolkit, ...checked.tools.flat()];
}

/** The problems `catalogProblems` finds: the toolkit's own (name, base URL), and each tool's, in the order of the tools. */
export interface CatalogProblemsByTool {
  toolkit: string[];
  /** One list for each of the toolkit's tools, at its index: empty when the tool passes. */
  tools: string[][];
}

/** `catalogProblems`, told apart by tool: what an import needs to leave out the tools that fail and keep the rest. */
export function catalogProblemsByTool(toolkit: ToolkitData, options: CatalogCheckOptions = {}): CatalogProblemsByTool {
  const toolText = options.toolText ?? 400;
  const parameterText = options.parameterText ?? 200;
  const own: string[] = [];
  if (!/^[A-Za-z][A-Za-z0-9]{0,63}$/.test(toolkit.name)) own.push(`toolkit name ${toolkit.name} is not PascalCase letters and digits`);
  const strict = options.strict ?? false;
  // A server variable the document gave no default stays in the URL: no request could reach that host.
  const unfilled = /\{[^}]*\}/.exec(toolkit.baseUrl)?.[0];
  if (strict && !/^https?:\/\/|^\//.test(toolkit.baseUrl)) own.push(`base URL ${toolkit.baseUrl} is neither an http(s) URL nor a path`);
  else if (strict && unfilled)
    own.push(`base URL ${toolkit.baseUrl} holds ${unfilled}, a server variable without a default: set the base URL in the configuration`);
  const names = new Set<string>();
  const byTool: string[][] = [];
  for (const tool of toolkit.tools) {
    const problems: string[] = [];
    byTool.push(problems);
    const at = `${toolkit.name}.${tool.name}`;
    const say = (problem: string) => problems.push(`${at}: ${problem}`);
    if (!/^[A-Za-z][A-Za-z0-9]{0,63}$/.test(tool.name)) say('name is not PascalCase letters and digits of at most 64 characters');
    if (names.has(tool.name.toLowerCase())) say('name is not unique');
    names.add(tool.name.toLowerCase());
    const prose = options.prose ?? true;
    if (prose) {
      for (const [what, text, max, words] of [
        ['description', tool.description, toolText, 6],
        ['output description', tool.output.description, toolText, 1],
      ] as const) {
        problems.push(...textProblems(text, max, words, strict).map((problem) => `${at}: ${what} ${problem}`));
      }
    }
    // A title is a label a client shows on one line, for a person: no model reads it, so only its shape is checked.
    if (tool.title !== undefined && (typeof tool.title !== 'string' || !tool.title.trim() || /[\n\r]/.test(tool.title) || tool.title.length > 100)) {
      say('title is not one line of 1 to 100 characters');
    }
    const parameterNames = new Set<string>();
    for (const parameter of tool.parameters) {
      const where = `${at}.${parameter.name}`;
      if (!/^[a-zA-Z0-9_.-]{1,64}$/.test(parameter.name)) problems.push(`${where}: name is not letters, digits, _ . - of at most 64 characters`);
      if (parameterNames.has(parameter.name)) problems.push(`${where}: name is not unique`);
      parameterNames.add(parameter.name);
      const max = parameter.in ? parameterText : toolText;
      if (prose) problems.push(...textProblems(parameter.description, max, 4, strict).map((problem) => `${where}: description ${problem}`));
      if (/\bOne of:/.test(parameter.description)) problems.push(`${where}: allowed values in prose, not an enum`);
      if (parameter.schema.default !== undefined) problems.push(`${where}: declares a default`);
      for (const node of subschemas(parameter.schema)) {
        const types = Array.isArray(node.type) ? node.type : [node.type];
        if (types.includes('array') && node.items === undefined) problems.push(`${where}: an array without items`);
        if (Array.isArray(node.enum) && !node.enum.length) problems.push(`${where}: an empty enum`);
      }
      if (strict && parameter.in === 'path' && !tool.http?.path.includes(`{${parameter.upstream ?? parameter.name}}`))
        problems.push(`${where}: fills no placeholder of the path`);
    }
    if (strict && tool.http) {
      for (const [, placeholder] of tool.http.path.matchAll(/\{([^}]+)\}/g)) {
        if (!tool.parameters.some((parameter) => parameter.in === 'path' && (parameter.upstream ?? parameter.name) === placeholder))
          say(`{${placeholder}} has no path parameter`);
      }
    }
    if (tool.requestBody) problems.push(...modeProblems(tool, strict).map((problem) => `${at}: ${problem}`));
    problems.push(...compileProblems(tool).map((problem) => `${at}: ${problem}`));
  }
  return { toolkit: own, tools: byTool };
}

function textProblems(text: string, max: number, minWords: number, strict: boolean): string[] {
  const problems: string[] = [];
  if (typeof text !== 'string' || !text.trim()) return ['is empty'];
  if (wordCount(text) < minWords) problems.push(`has fewer than ${minWords} words`);
  if (!strict) return problems;
  if (text.length > max) problems.push(`is longer than ${max} characters`);
  if (text.includes('](')) problems.push('holds a markdown link');
  if (/<a\s|<\/a>|<br\s*\/?>|<\/?p>/i.test(text)) problems.push('holds HTML');
  if (/https?:\/\//.test(text)) problems.push('holds a URL');
  if (text.includes('**')) problems.push('holds markdown emphasis');
  return problems;
}

/** A mode-driven tool: mode and request_body as every toolkit has them, and a body schema that stands alone. */
function modeProblems(tool: ToolData, strict: boolean): string[] {
  const problems: string[] = [];
  const mode = tool.parameters.find((parameter) => parameter.name === 'mode');
  const body = tool.parameters.find((parameter) => parameter.name === 'request_body');
  if (JSON.stringify(mode) !== JSON.stringify(modeParameters.mode)) problems.push('mode is not the shared mode parameter');
  if (JSON.stringify(body) !== JSON.stringify(modeParameters.request_body)) problems.push('request_body is not the shared request_body parameter');
  const schema = tool.requestBody!.schema;
  if (holdsReference(schema)) problems.push('the request body schema holds a $ref');
  if (typeof schema.description !== 'string') problems.push('the request body schema has no description');
  for (const node of subschemas(schema)) {
    for (const keyword of ['example', 'examples', 'nullable', ...(strict ? ['default'] : [])])
      if (node[keyword] !== undefined) problems.push(`the request body schema holds ${keyword}`);
  }
  try {
    validate(schema, {});
  } catch (error) {
    problems.push(`the request body schema does not compile: ${(error as Error).message}`);
  }
  return [...new Set(problems)];
}

/** A `$ref` keyword anywhere (a property named `$ref`, as Kubernetes' JSONSchemaProps has, holds a schema: no reference). */
function holdsReference(node: unknown): boolean {
  if (!node || typeof node !== 'object') return false;
  return Object.entries(node).some(([key, value]) => (key === '$ref' && typeof value === 'string') || holdsReference(value));
}

/** The input schema compiles, and converts to each provider's dialect. */
function compileProblems(tool: ToolData): string[] {
  const problems: string[] = [];
  try {
    validate(inputSchema(tool), {});
  } catch (error) {
    problems.push(`the input schema does not compile: ${(error as Error).message}`);
  }
  const asTool = { ...tool, toolkit: { name: 'Check', version: '1', description: 'check' } };
  for (const [dialect, convert] of [
    ['OpenAI strict', toOpenAiStrictFunction],
    ['Gemini', toGeminiFunction],
  ] as const) {
    try {
      convert(asTool);
    } catch (error) {
      problems.push(`no ${dialect} function: ${(error as Error).message}`);
    }
  }
  return problems;
}

/** Every subschema of `schema`, itself included (a property called "default" is a name, not a keyword). */
export function subschemas(schema: unknown, found: JsonSchema[] = []): JsonSchema[] {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return found;
  const node = schema as JsonSchema;
  found.push(node);
  for (const key of ['items', 'additionalProperties', 'not']) subschemas(node[key], found);
  for (const key of ['oneOf', 'anyOf', 'allOf']) if (Array.isArray(node[key])) for (const branch of node[key] as unknown[]) subschemas(branch, found);
  for (const sub of Object.values((node.properties ?? {}) as Record<string, unknown>)) subschemas(sub, found);
  return found;
}
