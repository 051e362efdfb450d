/** docs/engine-api.md describes every route of the OpenAPI document the engine generates. */
import { readFileSync } from 'node:fs';
import { startTestEngine, type TestEngine } from '@quiver/test-support/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const reference = readFileSync(new URL('../../../docs/engine-api.md', import.meta.url), 'utf8');
let engine: TestEngine;
beforeAll(async () => {
  engine = await startTestEngine('sqlite');
});
afterAll(() => engine?.close());

describe('the engine API reference', () => {
  it('names every route of GET /v1/openapi as `METHOD path`', async () => {
    const openapi = await engine.api('GET', '/v1/openapi', undefined, null);
    const routes = Object.entries(openapi.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `\`${method.toUpperCase()} ${path}\``),
    );
    expect(routes.length).toBeGreaterThan(30);
    expect(routes.filter((route) => !reference.includes(route))).toEqual([]);
  });
});
