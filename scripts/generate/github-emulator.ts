/**
 * Writes the GitHub emulator's operation table (packages/sandbox/src/github/operations.json) from the
 * GitHub Enterprise Server 3.8 description that npm @octokit/openapi ships (generated/ghes-3.8.json, MIT,
 * installed in scripts/descriptions). The description is 10.5 MB; the emulator loads only this extract: every operation's
 * parameters, bodies and documented successes, the component schemas they reach, the description's first
 * example per success (the samples are built from them) and each operation's first tag.
 *
 * Octokit's placeholders for operations that GHES 3.8 lacks ("does not exist in GitHub Enterprise Server
 * 3.8", answering only 501) are left out, so their paths are not served.
 */
import { readFileSync } from 'node:fs';
import type { JsonSchema, Operation, QueryParameter } from '../../packages/sandbox/src/emulator/operations.js';
import type { GithubOperations } from '../../packages/sandbox/src/github/table.js';
import { dereference, referencedNames, SchemaConverter } from './github-schemas.js';
import { descriptionFile } from './descriptions.js';
import type { Generator } from './index.js';

const output = 'packages/sandbox/src/github/operations.json';
const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

interface Description {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, JsonSchema>; parameters: Record<string, any>; responses: Record<string, any>; examples: Record<string, any> };
}

export function loadGithubDescription(): Description {
  const file = descriptionFile('@octokit/openapi/generated/ghes-3.8.json');
  return JSON.parse(readFileSync(file, 'utf8')) as Description;
}

export function buildOperations(description: Description): GithubOperations {
  const { components } = description;
  const converter = new SchemaConverter(components.schemas);
  const follow = <T>(item: any, section: Record<string, T>): T => (item?.$ref ? section[String(item.$ref).split('/').pop()!]! : item);
  const operations: Record<string, Operation> = {};
  const examples: Record<string, Record<number, unknown>> = {};
  const tags: Record<string, string> = {};

  for (const [path, item] of Object.entries(description.paths)) {
    for (const method of METHODS) {
      const source = item[method];
      if (!source || isPlaceholder(source)) continue;
      const label: string = source.operationId;
      const operation: Operation = { method: method.toUpperCase(), path, pathParameters: {}, queryParameters: {}, successStatus: 0 };

      for (const parameter of [...(item.parameters ?? []), ...(source.parameters ?? [])].map((p) => follow(p, components.parameters))) {
        // Path and query values arrive alone, so their schemas are compiled without $defs.
        const schema = anyOfForOneOf(dereference(converter.convert(parameter.schema ?? {}), (name) => converter.definition(name)));
        if (parameter.in === 'path') {
          operation.pathParameters[parameter.name] = schema;
          if (parameter['x-multi-segment']) {
            operation.multiSegmentParameters ??= [];
            operation.multiSegmentParameters.push(parameter.name);
          }
        } else if (parameter.in === 'query') {
          const query: QueryParameter = { required: parameter.required === true, schema };
          if (schema.type === 'array' && parameter.explode === false) query.explode = false;
          operation.queryParameters[parameter.name] = query;
        }
      }

      const requestBody = source.requestBody;
      if (requestBody) {
        const [contentType, ...others] = Object.keys(requestBody.content);
        operation.requestContentType = contentType!;
        if (others.length) operation.alternativeContentTypes = others;
        operation.requestBody = converter.convert(requestBody.content[contentType!].schema ?? {});
        if (requestBody.required !== true) operation.requestBodyOptional = true;
      }

      const statuses = Object.keys(source.responses).map(Number);
      const successes = statuses.filter((status) => status >= 200 && status < 300);
      for (const [index, status] of (successes.length ? successes : statuses.filter((s) => s >= 300 && s < 400).slice(0, 1)).entries()) {
        const response = follow(source.responses[status], components.responses);
        const contents = Object.entries<any>(response.content ?? {});
        const [contentType, media] = contents.find(([type]) => type === 'application/json') ?? contents[0] ?? [];
        const documented: Pick<Operation, 'responseBody' | 'responseContentType'> = {};
        if (media) {
          documented.responseBody = converter.convert(media.schema ?? {});
          if (contentType !== 'application/json') documented.responseContentType = contentType;
          const example = Object.values<any>(media.examples ?? {})[0];
          if (example) {
            examples[label] ??= {};
            examples[label][status] = follow(example, components.examples).value;
          }
        }
        if (index === 0) Object.assign(operation, { successStatus: status }, documented);
        else {
          operation.otherSuccesses ??= {};
          operation.otherSuccesses[status] = documented;
        }
      }
      operations[label] = operation;
      tags[label] = source.tags?.[0] ?? label.split('/')[0]!;
    }
  }

  return { table: { $defs: reachableDefinitions(operations, converter), operations }, examples, tags };
}

function isPlaceholder(operation: any): boolean {
  const text = `${operation.summary ?? ''} ${operation.description ?? ''}`;
  return /does not exist in GitHub Enterprise Server 3\.8/.test(text) && Object.keys(operation.responses).every((status) => status === '501');
}

/**
 * Coerced text like "42" satisfies both branches of `oneOf: [integer, string]` (workflow ids), which
 * oneOf forbids; for a parameter either branch is fine.
 */
function anyOfForOneOf(schema: JsonSchema): JsonSchema {
  const { oneOf, ...rest } = schema;
  return oneOf ? { ...rest, anyOf: oneOf } : schema;
}

/** Only the component schemas some operation reaches: the webhook payloads alone would double the table. */
function reachableDefinitions(operations: Record<string, Operation>, converter: SchemaConverter): Record<string, JsonSchema> {
  const definitions: Record<string, JsonSchema> = {};
  const pending = [...referencedNames(Object.values(operations).map((operation) => [operation.requestBody, operation.responseBody, operation.otherSuccesses]))];
  while (pending.length) {
    const name = pending.pop()!;
    if (definitions[name]) continue;
    definitions[name] = converter.definition(name);
    pending.push(...referencedNames(definitions[name]));
  }
  return definitions;
}

/** One line: the file is data the emulator loads, not something to read, and indenting would double it. */
export const githubEmulator: Generator = () => [{ path: output, content: `${JSON.stringify(buildOperations(loadGithubDescription()))}\n` }];
