/**
 * Property-based fuzzing (fast-check) of every tool's input through the real dispatcher against the
 * emulators: values of the declared types, values of the wrong type, hostile strings (path climbers,
 * header breakers, placeholders, NUL), missing required and unknown parameters. Whatever the input, a call
 * must end in a value or a named error: never TOOL_RUNTIME_FATAL, never a refusal that does not say which
 * parameter was wrong, never a credential in the output. Seeded and bounded, so the run is repeatable and fast.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { localDispatcher, UpstreamClient, type Dispatcher, type JsonSchema, type Tool, type ToolResult } from '@quiver/core';
import { startSandbox, type Sandbox } from '@quiver/sandbox';
import { toolkits as builtin } from '@quiver/toolkits';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommerceTools, openCommerceStore } from '../src/commerce/index.js';

const SEED = 11;
/** Runs per tool; with 1,007 tools this is several thousand calls, a few seconds per toolkit. */
const RUNS_PER_TOOL = 6;
const ENGINE_API_KEY = 'fuzz-engine-api-key-31c9';

/** Strings that have broken request building somewhere: each must be refused by name or sent safely. */
const hostile = ['', '.', '..', '../..', '../../admin', '%2e%2e', '{id}', 'a\r\nX-Injected: 1', 'a\nb', 'nul\u0000byte', ' ', '\u202e', 'x'.repeat(5_000)];

function valueFor(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum))
    return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...schema.enum) }, { weight: 1, arbitrary: fc.constantFrom(...hostile) });
  switch (schema.type) {
    case 'string': {
      const plausible =
        schema.format === 'date-time'
          ? fc.date({ noInvalidDate: true }).map((date) => date.toISOString())
          : schema.format === 'email'
            ? fc.emailAddress()
            : fc.string({ maxLength: 24 });
      return fc.oneof({ weight: 3, arbitrary: plausible }, { weight: 2, arbitrary: fc.constantFrom(...hostile) });
    }
    case 'integer':
      return fc.oneof(fc.integer({ min: (schema.minimum as number) ?? -5, max: (schema.maximum as number) ?? 500 }), fc.integer());
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(depth > 2 ? fc.string() : valueFor((schema.items as JsonSchema) ?? {}, depth + 1), { maxLength: 3 });
    case 'object':
      return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** An input for the tool: mostly well-typed, sometimes a wrong type, a missing required or an unknown parameter. */
function inputFor(tool: Tool): fc.Arbitrary<Record<string, unknown>> {
  const fields = Object.fromEntries(
    tool.parameters.map((parameter) => {
      const declared = parameter.name === 'request_body' ? requestBody(tool) : valueFor(parameter.schema);
      return [parameter.name, fc.oneof({ weight: 6, arbitrary: declared }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) })];
    }),
  );
  const required = tool.parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name);
  const wellFormed = fc.record(fields, { requiredKeys: required });
  return fc.oneof(
    { weight: 8, arbitrary: wellFormed },
    { weight: 1, arbitrary: fc.record(fields, { requiredKeys: [] }) },
    { weight: 1, arbitrary: fc.tuple(wellFormed, fc.string({ minLength: 1, maxLength: 8 })).map(([input, extra]) => ({ ...input, [`x_${extra}`]: 1 })) },
  );
}

/** A mode-driven body: JSON of any shape, text that is not JSON, or nothing. */
const requestBody = (tool: Tool) =>
  fc.oneof(
    fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
    fc.string(),
    valueFor(tool.requestBody?.schema ?? {}).map((value) => JSON.stringify(value)),
  );

/** Where a refusal names what was wrong: a parameter of the tool, the input as a whole, or the body. */
function namesAParameter(tool: Tool, message: string): boolean {
  return tool.parameters.some((parameter) => message.includes(parameter.name)) || message.includes('parameter') || message.includes('The input must be');
}

let sandbox: Sandbox;
let engine: ReturnType<typeof createServer>;
let engineUrl = '';
const client = new UpstreamClient({ maxRetries: 0, timeoutMs: 10_000, deadlineMs: 10_000 });
const commerce = createCommerceTools({ store: openCommerceStore(':memory:') });
const toolkits = builtin.map((toolkit) => (toolkit.name === commerce.name ? commerce : toolkit));
let runtime: Dispatcher;
const credentials = () => [sandbox.token, ...Object.values(sandbox.secrets).filter((value) => value.length >= 4), ENGINE_API_KEY];

beforeAll(async () => {
  sandbox = await startSandbox();
  // The engine's own API, for ToolEngineApi: a stand-in that refuses every call, as an engine would an unknown project.
  engine = createServer((req, res) =>
    req.resume().on('end', () => res.writeHead(404, { 'content-type': 'application/json' }).end('{"name":"not_found","message":"no such thing"}')),
  );
  await new Promise<void>((resolve) => engine.listen(0, '127.0.0.1', resolve));
  engineUrl = `http://127.0.0.1:${(engine.address() as AddressInfo).port}`;
  runtime = localDispatcher(toolkits, {
    client,
    baseUrls: Object.fromEntries(toolkits.map((toolkit) => [toolkit.name, sandbox.baseUrls[toolkit.name] ?? engineUrl])),
    token: sandbox.token,
    secrets: { ...sandbox.secrets, ENGINE_API_KEY },
  });
}, 60_000);
afterAll(async () => {
  await client.close();
  await new Promise<void>((resolve) => engine.close(() => resolve()));
  await sandbox.close();
});

export const figures = { tools: 0, inputs: 0, values: 0, refused: 0, upstreamErrors: 0 };

describe.each(toolkits.map((toolkit) => [toolkit.name, toolkit] as const))('fuzzing %s', (_name, toolkit) => {
  it(`every tool, ${RUNS_PER_TOOL} seeded inputs each: no fatal error, every refusal named, no credential out`, { timeout: 120_000 }, async () => {
    let tried = 0;
    for (const tool of toolkit.tools) {
      await fc.assert(
        fc.asyncProperty(inputFor(tool), async (input) => {
          tried++;
          const result: ToolResult = await runtime.call(`${toolkit.name}.${tool.name}`, input);
          const text = JSON.stringify(result);
          for (const secret of credentials()) expect(text, `${tool.name} leaked a credential`).not.toContain(secret);
          if ('value' in result) return void figures.values++;
          const { kind, message, stacktrace } = result.error;
          expect(kind, `${tool.name}(${JSON.stringify(input).slice(0, 300)}): ${message} ${result.error.developer_message ?? ''}`).not.toBe(
            'TOOL_RUNTIME_FATAL',
          );
          expect(stacktrace).toBeUndefined();
          if (kind === 'TOOL_RUNTIME_BAD_INPUT_VALUE') {
            figures.refused++;
            expect(namesAParameter(tool, message), `${tool.name} refused without naming the parameter: ${message}`).toBe(true);
          } else {
            figures.upstreamErrors++;
            // An emulator answers as its service would: a 5xx is a fault in the emulator, found by fuzzing.
            expect(result.error.status_code ?? 0, `${tool.name}(${JSON.stringify(input).slice(0, 300)}): ${message}`).toBeLessThan(500);
          }
        }),
        { seed: SEED, numRuns: RUNS_PER_TOOL, endOnFailure: true },
      );
      figures.tools++;
    }
    figures.inputs += tried;
    expect(tried).toBe(toolkit.tools.length * RUNS_PER_TOOL);
  });
});

describe('the figures', () => {
  it('every one of the tools was fuzzed', () => {
    expect(figures.tools).toBe(toolkits.reduce((sum, toolkit) => sum + toolkit.tools.length, 0));
    expect(figures.tools).toBeGreaterThanOrEqual(1_007);
    console.log(
      `fuzzing: ${figures.tools} tools, ${figures.inputs} inputs, ${figures.values} values, ${figures.refused} refused by name, ${figures.upstreamErrors} other errors`,
    );
  });
});
