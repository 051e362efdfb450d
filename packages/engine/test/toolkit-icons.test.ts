/**
 * The toolkits' icons, which the engine's MCP tools name by URL: served without a key, cacheable, and with
 * headers under which an SVG can run nothing; a clear 404 for a toolkit without one.
 */
import { ServingPolicy } from '@quiver/core';
import { counterToolkit, startTestEngine, type TestEngine } from '@quiver/test-support/harness';
import { repoHost, taskboard } from '@quiver/toolkits';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iconBaseUrl } from '../src/http/routes/toolkits.js';

let engine: TestEngine;
beforeAll(async () => {
  engine = await startTestEngine('sqlite', { toolkits: [repoHost, taskboard, counterToolkit(() => {})] });
});
afterAll(() => engine?.close());

const get = (path: string, headers: Record<string, string> = {}) => fetch(engine.url + path, { headers });

describe('GET /v1/toolkits/{name}/icon.svg', () => {
  it('answers the icon without a key, as an image that can run nothing, cacheable', async () => {
    const response = await get('/v1/toolkits/RepoHostApi/icon.svg');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(repoHost.icon);
    expect(response.headers.get('content-type')).toBe('image/svg+xml');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain('sandbox');
    expect(csp).not.toMatch(/script-src|unsafe/);
    expect(response.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    expect(response.headers.get('etag')).toMatch(/^"[\w-]+"$/);
  });

  it('finds the toolkit whatever the case of its name, and answers 304 to the ETag it gave', async () => {
    const first = await get('/v1/toolkits/taskboardapi/icon.svg');
    expect(first.status).toBe(200);
    expect(await first.text()).toBe(taskboard.icon);
    const again = await get('/v1/toolkits/TaskboardApi/icon.svg', { 'if-none-match': first.headers.get('etag')! });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const other = await get('/v1/toolkits/RepoHostApi/icon.svg', { 'if-none-match': first.headers.get('etag')! });
    expect(other.status).toBe(200);
  });

  it('answers 404 with a clear error for a toolkit it does not serve, and for one without an icon, alike', async () => {
    for (const name of ['NoSuchToolkit', 'Counter']) {
      const response = await get(`/v1/toolkits/${name}/icon.svg`);
      expect(response.status, name).toBe(404);
      expect(response.headers.get('content-type'), name).toMatch(/^application\/json/);
      expect(await response.json(), name).toEqual({
        name: 'not_found',
        message: `toolkit ${name} not found. No toolkit of this engine by that name has an icon.`,
      });
    }
    expect((await get('/v1/toolkits/not-a-name/icon.svg')).status).toBe(400);
  });

  it('is in the OpenAPI document, public, answering SVG', async () => {
    const openapi = await engine.api('GET', '/v1/openapi', undefined, null);
    const operation = openapi.body.paths['/v1/toolkits/{name}/icon.svg']?.get;
    expect(operation).toMatchObject({ operationId: 'toolkit-icon', security: [] });
    expect(Object.keys(operation.responses['200'].content)).toEqual(['image/svg+xml']);
  });

  it("is where a policy with the engine's icon base URL points every tool's icon", async () => {
    const policy = new ServingPolicy({ iconBaseUrl: iconBaseUrl(engine.engine) });
    const tool = repoHost.tools.find((candidate) => candidate.name === 'CreateRepohostIssue')!;
    const [icon] = policy.toMcpTool(tool).icons!;
    expect(icon).toEqual({ src: `${engine.url}/v1/toolkits/RepoHostApi/icon.svg`, mimeType: 'image/svg+xml', sizes: ['any'] });
    const response = await fetch(icon!.src);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(repoHost.icon);
  });
});
