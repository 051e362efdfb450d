/**
 * `quiver sandbox` with imported toolkits: it starts an emulator built from each one's document beside the
 * built-in ones, announces and prints it, and `quiver call --sandbox` with the same toolkit path uses it, so
 * that what one call creates the next one reads.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, startSandboxCommand } from '@quiver/test-support/run-cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const scratch = mkdtempSync(join(tmpdir(), 'quiver-sandbox-toolkits-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

const thing = {
  type: 'object',
  required: ['id', 'name'],
  properties: { id: { type: 'string', readOnly: true }, name: { type: 'string', description: 'The name of the thing.' } },
};
const document = {
  openapi: '3.0.3',
  info: { title: 'Things', version: '1.0.0', description: 'A small store of things.' },
  servers: [{ url: 'https://things.example.com/v1' }],
  security: [{ key: [] }],
  components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-API-Key' } }, schemas: { Thing: thing } },
  paths: {
    '/things': {
      post: {
        operationId: 'createThing',
        summary: 'Create a thing in the store',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
        responses: { '201': { description: 'The thing created.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } },
      },
    },
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        summary: 'Read one thing by its id',
        parameters: [{ name: 'id', in: 'path', required: true, description: 'The id of the thing.', schema: { type: 'string' } }],
        responses: { '200': { description: 'The thing.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } },
      },
    },
  },
};

const folder = join(scratch, 'Things');
const dataEnv = () => ({ QUIVER_DATA_DIR: mkdtempSync(join(scratch, 'data-')) });

beforeAll(async () => {
  writeFileSync(join(scratch, 'things.json'), JSON.stringify(document));
  const imported = await runCli(['toolkit', 'import', 'things.json', '--name', 'Things'], {}, scratch);
  expect(imported.code, imported.stderr).toBe(0);
}, 30_000);

const startSandbox = (args: string[], env: NodeJS.ProcessEnv) => startSandboxCommand(args, env, children);

const call = (tool: string, input: object, env: NodeJS.ProcessEnv) =>
  runCli(['call', tool, '--sandbox', '--toolkit-path', folder, '--input', JSON.stringify(input)], env);

describe('quiver sandbox --toolkit-path', () => {
  it("starts and prints the imported toolkit's emulator, and calls share it: a create, then a read in another process, sees the thing", async () => {
    const env = dataEnv();
    const sandbox = await startSandbox(['--toolkit-path', folder], env);
    const url = /^Things\s+(http:\/\/\S+)$/m.exec(sandbox.stdout())?.[1];
    expect(url, sandbox.stdout()).toBeDefined();
    expect(sandbox.stdout()).toMatch(/^CrmMarketingApi\s+http:/m);
    // The emulator demands the credential the document declares; the sandbox's token is the one it grants.
    expect((await fetch(`${url}/things/1`)).status).toBe(401);
    expect((await fetch(`${url}/things/1`, { headers: { 'x-api-key': 'quiver-sandbox-token' } })).status).toBe(200);

    const created = await call('Things.CreateThing', { name: 'Kept between calls' }, env);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toMatch(/using the running sandbox \(quiver sandbox, process \d+\)/);
    const { id, name } = JSON.parse(created.stdout).value;
    expect(name).toBe('Kept between calls');
    const read = await call('Things.GetThing', { id }, env);
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout)).toEqual({ value: { id, name: 'Kept between calls' } });
    expect(read.stderr).not.toContain("this command's own emulator");

    sandbox.child.kill('SIGTERM');
    expect(await sandbox.exit).toBe(0);
    // Without the running sandbox each call has an emulator of its own: the thing is gone.
    const fresh = await call('Things.GetThing', { id }, env);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stderr).not.toContain('using the running sandbox');
    expect(JSON.parse(fresh.stdout).value.name).not.toBe('Kept between calls');
  }, 60_000);

  it('leaves a toolkit it was not given to an emulator of the call, and says so', async () => {
    const env = dataEnv();
    const sandbox = await startSandbox([], env);
    expect(sandbox.stdout()).not.toMatch(/^Things\s/m);
    const created = await call('Things.CreateThing', { name: 'Not kept' }, env);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toContain("the running sandbox does not emulate Things (give it the toolkit path): this command's own emulator serves Things");
    const read = await call('Things.GetThing', { id: JSON.parse(created.stdout).value.id }, env);
    expect(JSON.parse(read.stdout).value.name).not.toBe('Not kept');
    sandbox.child.kill('SIGTERM');
    expect(await sandbox.exit).toBe(0);
  }, 60_000);

  it('refuses a toolkit path it cannot load, as the other commands do (exit 2)', async () => {
    const run = await runCli(['sandbox', '--toolkit-path', join(scratch, 'missing')], dataEnv());
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/toolkit path '.*missing' \(--toolkit-path\): no folder/);
  });
});
