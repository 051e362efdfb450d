// Every tool in each provider's schema dialect, checked against the rules of that provider's documented
// subset: OpenAI's strict mode (Structured Outputs) and Gemini's function declarations.
import { describe, expect, it } from 'vitest';
import { inputSchema, toGeminiFunction, toOpenAiStrictFunction, type JsonSchema, type Tool } from '@quiver/core';
import { toolkits } from '../src/index.js';

const tools: Tool[] = toolkits.flatMap((toolkit) => toolkit.tools);

/** Problems of a schema under OpenAI strict mode's rules; none when it is accepted. */
function strictProblems(schema: JsonSchema, path = '$', depth = 0): string[] {
  const allowed = new Set(['type', 'properties', 'required', 'additionalProperties', 'enum', 'const', 'anyOf', 'items', 'description', '$ref', '$defs']);
  const types = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
  const problems = Object.keys(schema)
    .filter((key) => !allowed.has(key))
    .map((key) => `${path}: keyword ${key}`);
  if (depth > 10) problems.push(`${path}: nested deeper than 10 levels`);
  const declared = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  if (!declared.length && !schema.anyOf && !('const' in schema)) problems.push(`${path}: no type`);
  for (const type of declared) if (!types.has(type as string)) problems.push(`${path}: type ${String(type)}`);
  if (declared.includes('object')) {
    const keys = Object.keys((schema.properties ?? {}) as object);
    if (schema.additionalProperties !== false) problems.push(`${path}: additionalProperties is not false`);
    const required = (schema.required ?? []) as string[];
    if (required.length !== keys.length || keys.some((key) => !required.includes(key))) problems.push(`${path}: not every property is required`);
    for (const [key, property] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>))
      problems.push(...strictProblems(property, `${path}.${key}`, depth + 1));
  }
  if (declared.includes('array')) {
    if (!schema.items) problems.push(`${path}: array without items`);
    else problems.push(...strictProblems(schema.items as JsonSchema, `${path}[]`, depth + 1));
  }
  if (Array.isArray(schema.enum) && declared.includes('null') !== schema.enum.includes(null)) problems.push(`${path}: nullable enum without null`);
  for (const [i, branch] of ((schema.anyOf ?? []) as JsonSchema[]).entries()) problems.push(...strictProblems(branch, `${path}|${i}`, depth + 1));
  return problems;
}

/** Problems of a schema under Gemini's function declaration rules (an OpenAPI 3.0 schema subset). */
function geminiProblems(schema: JsonSchema, path = '$'): string[] {
  const allowed = new Set([
    'type',
    'format',
    'description',
    'nullable',
    'enum',
    'maxItems',
    'minItems',
    'properties',
    'required',
    'items',
    'minimum',
    'maximum',
  ]);
  const formats: Record<string, string[]> = { string: ['date-time', 'enum'], integer: ['int32', 'int64'], number: ['float', 'double'] };
  const problems = Object.keys(schema)
    .filter((key) => !allowed.has(key))
    .map((key) => `${path}: keyword ${key}`);
  const type = schema.type;
  if (typeof type !== 'string' || !['string', 'integer', 'number', 'boolean', 'array', 'object'].includes(type))
    return [...problems, `${path}: type ${JSON.stringify(type)}`];
  if (schema.format !== undefined && !formats[type]?.includes(schema.format as string)) problems.push(`${path}: format ${String(schema.format)} on ${type}`);
  if (schema.enum !== undefined && (type !== 'string' || !(schema.enum as unknown[]).every((value) => typeof value === 'string')))
    problems.push(`${path}: enum on ${type}`);
  if (type === 'array') {
    if (!schema.items) problems.push(`${path}: array without items`);
    else problems.push(...geminiProblems(schema.items as JsonSchema, `${path}[]`));
  }
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  for (const key of (schema.required ?? []) as string[]) if (!(key in properties)) problems.push(`${path}: required ${key} is no property`);
  for (const [key, property] of Object.entries(properties)) problems.push(...geminiProblems(property, `${path}.${key}`));
  return problems;
}

describe('openai-strict', () => {
  it('gives every tool a strict function that follows the strict-mode rules', () => {
    expect(tools.length).toBe(1007);
    const problems = tools.flatMap((tool) => {
      const { type, function: fn } = toOpenAiStrictFunction(tool);
      const own = [type !== 'function' && 'type', fn.strict !== true && 'strict', !/^[a-zA-Z0-9_-]{1,64}$/.test(fn.name) && 'name'].filter(Boolean) as string[];
      if (fn.parameters.type !== 'object') own.push('root is not an object');
      return [...own, ...strictProblems(fn.parameters)].map((problem) => `${fn.name}: ${problem}`);
    });
    expect(problems).toEqual([]);
  });

  it('makes an optional parameter nullable and keeps a required one as it is', () => {
    const tool = tools.find((t) => t.name === 'ListRepohostIssuesForRepo')!;
    const { parameters } = toOpenAiStrictFunction(tool).function;
    const properties = parameters.properties as Record<string, JsonSchema>;
    expect(properties.repository_owner).toMatchObject({ type: 'string' });
    expect(properties.issue_state).toMatchObject({ type: ['string', 'null'], enum: ['open', 'closed', 'all', null] });
    // The plain schema breaks these rules: the check can fail.
    expect(strictProblems(inputSchema(tool))).toContain('$: not every property is required');
  });
});

describe('gemini', () => {
  it('gives every tool a function declaration within Gemini’s schema subset', () => {
    const problems = tools.flatMap((tool) => {
      const declaration = toGeminiFunction(tool);
      const own = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/.test(declaration.name) ? [] : ['name'];
      return [...own, ...geminiProblems(declaration.parameters)].map((problem) => `${declaration.name}: ${problem}`);
    });
    expect(problems).toEqual([]);
  });

  it('leaves out what Gemini rejects and keeps the rest', () => {
    const search = toGeminiFunction(tools.find((t) => t.name === 'SearchFilesAndFolders')!).parameters as JsonSchema & {
      properties: Record<string, JsonSchema>;
    };
    expect(search).not.toHaveProperty('additionalProperties');
    expect(search.properties.filter_by_category).toEqual(
      expect.objectContaining({ type: 'array', items: expect.objectContaining({ enum: expect.any(Array) }) }),
    );
    expect(search.properties.filter_by_category).not.toHaveProperty('uniqueItems');
    const secret = toGeminiFunction(tools.find((t) => t.name === 'CreateOrUpdateOrgSecret')!).parameters as JsonSchema & {
      properties: Record<string, JsonSchema>;
    };
    expect(secret.properties.repository_ids_for_secret_access!.items).toEqual({ type: 'string' });
    // The plain schema breaks these rules: the check can fail.
    expect(geminiProblems(inputSchema(tools.find((t) => t.name === 'SearchFilesAndFolders')!))).toEqual(
      expect.arrayContaining(['$: keyword additionalProperties', '$.filter_by_category: keyword uniqueItems']),
    );
  });
});
