/**
 * Every operation the emulator answers from samples, called over HTTP with valid path values, query
 * and body, and every sample a stateful handler starts from: each answer has the operation's success
 * status and a body that validates against its response schema, objects closed as the emulator
 * reads them. The checking validator here is independent of the emulator's own.
 */
import { clientFor } from '@quiver/test-support/json-client';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonSchema, Operation } from '../../src/emulator/operations.js';
import { closeObjects } from '../../src/emulator/validation.js';
import { githubHandlers, startGithubEmulator, type GithubEmulator } from '../../src/github/emulator.js';
import { createSamples, synthesize } from '../../src/github/samples.js';
import { githubOperations as operations } from '../../src/github/table.js';

const addFormats = addFormatsModule as unknown as FormatsPlugin;
const { table } = operations;
const samples = createSamples(operations);
const ajv = new Ajv({ strict: false, allErrors: true, inlineRefs: false, code: { optimize: false } });
addFormats(ajv);
ajv.addSchema({ $id: 'defs', $defs: Object.fromEntries(Object.entries(table.$defs).map(([name, schema]) => [name, closeObjects(schema)])) });
const validators = new Map<string, ValidateFunction>();

function validatorFor(label: string, status: number, schema: JsonSchema): ValidateFunction {
  const key = `${label} ${status}`;
  let validate = validators.get(key);
  if (!validate) {
    const pointed = JSON.parse(JSON.stringify(closeObjects(schema)).replaceAll('"#/$defs/', '"defs#/$defs/')) as JsonSchema;
    validate = ajv.compile(pointed);
    validators.set(key, validate);
  }
  return validate;
}

/** A path for the operation with a plain value for each parameter. */
function pathFor(operation: Operation): string {
  return operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const schema = operation.pathParameters[name] ?? {};
    const value = synthesize(schema, table.$defs);
    return encodeURIComponent(typeof value === 'string' && value !== 'string' ? value : schema.type === 'integer' ? '1' : `sample-${name}`);
  });
}

function queryFor(operation: Operation): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, parameter] of Object.entries(operation.queryParameters)) {
    if (parameter.required) query[name] = String(synthesize(parameter.schema, table.$defs));
  }
  return query;
}

/** The body as its content type wants it: JSON, form fields, multipart parts or the text itself. */
function encode(operation: Operation, body: unknown): { rawBody: string; headers: Record<string, string> } {
  const type = operation.requestContentType ?? 'application/json';
  if (type.includes('json')) return { rawBody: JSON.stringify(body), headers: { 'content-type': type } };
  const fields = Object.entries((body ?? {}) as Record<string, unknown>).map(([name, value]) => [name, String(value)] as const);
  if (type === 'application/x-www-form-urlencoded')
    return { rawBody: String(new URLSearchParams(fields.map(([n, v]) => [n, v]))), headers: { 'content-type': type } };
  if (type === 'multipart/form-data') {
    const parts = fields.map(([name, value]) => `--sample\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
    return { rawBody: `${parts.join('')}--sample--\r\n`, headers: { 'content-type': 'multipart/form-data; boundary=sample' } };
  }
  return { rawBody: String(body), headers: { 'content-type': type } };
}

const generic = Object.entries(table.operations).filter(([label]) => !githubHandlers[label]);

let emulator: GithubEmulator;
beforeAll(async () => {
  emulator = await startGithubEmulator();
});
afterAll(() => emulator.close());

describe('generic answers', () => {
  it(`answers all ${generic.length} operations without state with their success status and a body valid against their schema`, {
    timeout: 120_000,
  }, async () => {
    const call = clientFor(emulator.url, emulator.tokenFor('octocat'));
    const problems: string[] = [];
    for (const [label, operation] of generic) {
      const body = operation.requestBody && !operation.requestBodyOptional ? synthesize(operation.requestBody, table.$defs) : undefined;
      const reply = await call(operation.method, pathFor(operation), { query: queryFor(operation), ...(body !== undefined && encode(operation, body)) });
      if (reply.status !== operation.successStatus) {
        problems.push(`${label}: ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`);
        continue;
      }
      if (operation.responseBody) {
        const validate = validatorFor(label, reply.status, operation.responseBody);
        if (!validate(reply.body)) problems.push(`${label}: ${ajv.errorsText(validate.errors).slice(0, 300)}`);
      } else if (reply.body !== undefined) {
        problems.push(`${label}: a body where none is documented`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('samples', () => {
  it('gives every documented success of every operation a body valid against its schema', { timeout: 120_000 }, () => {
    const problems: string[] = [];
    for (const [label, operation] of Object.entries(table.operations)) {
      const documented: Array<[number, JsonSchema | undefined]> = [
        [operation.successStatus, operation.responseBody],
        ...Object.entries(operation.otherSuccesses ?? {}).map(([status, other]): [number, JsonSchema | undefined] => [Number(status), other.responseBody]),
      ];
      for (const [status, schema] of documented) {
        if (!schema) continue;
        try {
          const validate = validatorFor(label, status, schema);
          if (!validate(samples.sample(label, status))) problems.push(`${label} ${status}: ${ajv.errorsText(validate.errors).slice(0, 300)}`);
        } catch (error) {
          problems.push(`${label} ${status}: ${String(error).slice(0, 300)}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('keeps the description example where it fits', () => {
    expect(samples.sample('issues/get').title).toBe('Found a bug');
    expect(samples.sample('repos/get').full_name).toBe('octocat/Hello-World');
  });
});
