/**
 * ToolEngineApi administers the engine that serves it, with that engine's admin key: its calls go to the
 * engine's own address (where it listens, over loopback when that is a wildcard address), or to the public
 * URL when one is set, never to a fixed port where anything might listen.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestEngine, type TestEngine } from '@quiver/test-support/harness';
import { toolEngine } from '@quiver/toolkits';
import { afterEach, describe, expect, it } from 'vitest';

let engine: TestEngine | undefined;
let recorder: Server | undefined;
afterEach(async () => {
  await engine?.close();
  recorder?.closeAllConnections();
  await new Promise((resolve) => (recorder ? recorder.close(resolve) : resolve(undefined)));
  engine = recorder = undefined;
});

/** Starts an engine serving ToolEngineApi with its own admin key as ENGINE_API_KEY. */
async function engineWithToolEngineApi(config: { host?: string; publicUrl?: string } = {}, baseUrls?: Record<string, string>): Promise<TestEngine> {
  engine = await startTestEngine('sqlite', { toolkits: [toolEngine], ...(baseUrls && { baseUrls }) }, config);
  expect((await engine.api('POST', '/v1/admin/secrets/ENGINE_API_KEY', { value: engine.key })).status).toBe(200);
  return engine;
}

const listWorkers = (running: TestEngine) => running.api('POST', '/v1/tools/execute', { tool_name: 'ToolEngineApi.ListWorkers', input: {} });

/** A stand-in for whatever answers at an address: it records the requests and answers an empty page. */
async function startRecorder(): Promise<{ url: string; seen: Array<{ path?: string; headers: IncomingHttpHeaders }> }> {
  const seen: Array<{ path?: string; headers: IncomingHttpHeaders }> = [];
  recorder = createServer((request, response) => {
    seen.push({ path: request.url, headers: request.headers });
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ items: [], limit: 25, offset: 0, page_count: 0, total_count: 0 }));
  });
  await new Promise<void>((resolve) => recorder!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`, seen };
}

describe('ToolEngineApi calls its own engine', () => {
  for (const host of ['127.0.0.1', '0.0.0.0', '::']) {
    it(`on a random port, listening on ${host}`, async () => {
      const running = await engineWithToolEngineApi({ host });
      await running.api('POST', '/v1/workers', { id: 'marker', type: 'http', enabled: false, http: { uri: 'http://127.0.0.1:9', secret: 's' } });
      const listed = await listWorkers(running);
      // Only this engine knows its key and its worker.
      expect(listed.body).toMatchObject({ success: true, output: { value: { total_count: 1, items: [{ id: 'marker' }] } } });
    });
  }

  it('at the public URL when one is set', async () => {
    const publicSide = await startRecorder();
    const running = await engineWithToolEngineApi({ publicUrl: publicSide.url });
    expect((await listWorkers(running)).body).toMatchObject({ success: true, output: { value: { total_count: 0 } } });
    expect(publicSide.seen).toEqual([
      expect.objectContaining({ path: '/v1/workers', headers: expect.objectContaining({ authorization: `Bearer ${running.key}` }) }),
    ]);
  });

  it('at the base URL configured for it, when one is', async () => {
    const configured = await startRecorder();
    const running = await engineWithToolEngineApi({}, { ToolEngineApi: configured.url });
    expect((await listWorkers(running)).body.success).toBe(true);
    expect(configured.seen.map((request) => request.path)).toEqual(['/v1/workers']);
  });
});
