/**
 * `quiver toolkit import`: an OpenAPI document becomes a toolkit folder (catalog.json, toolkit.json,
 * openapi.json, report.md), with clear refusals; and, through the built command, the imported tools run
 * against a local upstream with the credentials the document declares.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '@quiver/test-support/run-cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../src/usage-error.js';
import { importToolkit } from '../src/toolkit-import.js';
import { catalogDigest } from '@quiver/openapi';

const fixture = (name: string) => new URL(`../../openapi/test/fixtures/${name}`, import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'quiver-import-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('importToolkit', () => {
  it('writes the four files and tells the report', async () => {
    const lines: string[] = [];
    const result = await importToolkit({ document: fixture('petstore-3.0.yaml'), name: 'PetStore', cwd: work, log: (text) => lines.push(text) });
    expect(result).toMatchObject({ folder: join(work, 'PetStore'), tools: 7, skipped: 3 });
    for (const file of ['catalog.json', 'toolkit.json', 'openapi.json', 'report.md']) expect(existsSync(join(work, 'PetStore', file)), file).toBe(true);
    const catalog = JSON.parse(readFileSync(join(work, 'PetStore', 'catalog.json'), 'utf8'));
    expect(catalog).toMatchObject({ name: 'PetStore', version: '2.1.0', baseUrl: 'https://eu.pets.example.com/v2' });
    // One tool per line: diffs stay per tool, and the file is less than half its indented size.
    const rows = readFileSync(join(work, 'PetStore', 'catalog.json'), 'utf8').split('\n');
    expect(rows[0]).toMatch(/^\{"name":"PetStore",.*"tools":\[$/);
    expect(rows.slice(1, -2).map((row) => JSON.parse(row.replace(/,$/, '')).name)).toEqual(catalog.tools.map((tool: { name: string }) => tool.name));
    expect(rows.slice(-3)).toEqual([JSON.stringify(catalog.tools.at(-1)), ']}', '']);
    const manifest = JSON.parse(readFileSync(join(work, 'PetStore', 'toolkit.json'), 'utf8'));
    expect(manifest.source).toBe(fixture('petstore-3.0.yaml'));
    expect(manifest.authProviders[0].id).toBe('petstore');
    // The catalog passed the strict checks as written: its digest is stamped, so loading it does not check it again.
    expect(manifest.checked).toBe(catalogDigest(readFileSync(join(work, 'PetStore', 'catalog.json'), 'utf8')));
    // What a command needs to start without reading the catalog.
    expect(manifest.summary).toEqual({
      name: 'PetStore',
      version: '2.1.0',
      description: catalog.description,
      baseUrl: 'https://eu.pets.example.com/v2',
      bytes: statSync(join(work, 'PetStore', 'catalog.json')).size,
      tools: 7,
      needs: { providers: ['petstore'], secrets: expect.any(Array) },
    });
    expect(JSON.parse(readFileSync(join(work, 'PetStore', 'openapi.json'), 'utf8')).openapi).toBe('3.0.3');
    const report = readFileSync(join(work, 'PetStore', 'report.md'), 'utf8');
    expect(lines[0]).toBe(report.trimEnd());
    expect(lines.at(-2)).toBe('quiver: wrote catalog.json, toolkit.json, openapi.json, report.md in PetStore: 7 tool(s), 3 skipped');
  });

  it('refuses a name that is not PascalCase, a document it cannot read, and a folder that is not empty', async () => {
    const quiet = { cwd: work, log: () => {} };
    await expect(importToolkit({ document: fixture('zoo-2.0.yaml'), name: 'zoo api', ...quiet })).rejects.toThrow(UsageError);
    await expect(importToolkit({ document: fixture('zoo-2.0.yaml'), name: 'zoo api', ...quiet })).rejects.toThrow(/PascalCase/);
    // A built-in toolkit's name, in any letter case, could never be loaded beside it: refused before anything is written.
    await expect(importToolkit({ document: fixture('zoo-2.0.yaml'), name: 'Repohostapi', ...quiet })).rejects.toThrow(
      new UsageError('the toolkit name Repohostapi is taken by the built-in toolkit RepoHostApi: choose another'),
    );
    expect(existsSync(join(work, 'Repohostapi'))).toBe(false);
    await expect(importToolkit({ document: join(work, 'nowhere.yaml'), name: 'Zoo', ...quiet })).rejects.toThrow(
      /cannot read the OpenAPI document .*nowhere\.yaml: no such file/,
    );
    writeFileSync(join(work, 'not-openapi.json'), '{"hello": "world"}');
    await expect(importToolkit({ document: join(work, 'not-openapi.json'), name: 'Zoo', ...quiet })).rejects.toThrow(UsageError);
    mkdirSync(join(work, 'Full'));
    writeFileSync(join(work, 'Full', 'keep.txt'), 'mine');
    await expect(importToolkit({ document: fixture('zoo-2.0.yaml'), name: 'Zoo', out: 'Full', ...quiet })).rejects.toThrow(/is not empty \(pass --force/);
    const forced = await importToolkit({ document: fixture('zoo-2.0.yaml'), name: 'Zoo', out: 'Full', force: true, ...quiet });
    expect(forced.tools).toBe(4);
    expect(readFileSync(join(work, 'Full', 'keep.txt'), 'utf8')).toBe('mine');
    // A folder with code of its own is loaded by its code: an import there would never be served, so none is written.
    mkdirSync(join(work, 'Coded'));
    writeFileSync(join(work, 'Coded', 'index.js'), 'export default {};');
    await expect(importToolkit({ document: fixture('zoo-2.0.yaml'), name: 'Zoo', out: 'Coded', force: true, ...quiet })).rejects.toThrow(
      /holds a toolkit with code of its own \(index\.js\), which is loaded instead of a catalog: import into another folder$/,
    );
    expect(existsSync(join(work, 'Coded', 'catalog.json'))).toBe(false);
  });
});

/** B wires `quiver toolkit import` in main.ts; until then only the module is tested. */
const wired = readFileSync(new URL('../src/main.ts', import.meta.url), 'utf8').includes("command('import')");

describe.skipIf(!wired)('quiver toolkit import (the built command)', () => {
  let upstream: Server;
  let baseUrl: string;
  const seen: Array<{ method?: string; url?: string; headers: IncomingMessage['headers']; body: string }> = [];

  beforeAll(async () => {
    upstream = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        seen.push({ method: request.method, url: request.url, headers: request.headers, body });
        response.setHeader('content-type', 'application/json');
        response.end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

  it('imports a document, and the imported tool calls its upstream with the declared credential', async () => {
    const out = join(work, 'cli-zoo');
    const imported = await runCli(['toolkit', 'import', fixture('zoo-2.0.yaml'), '--name', 'Zoo', '--out', out]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain('4 operation(s): 4 tool(s) made (0 mode-driven), 0 skipped.');
    const again = await runCli(['toolkit', 'import', fixture('zoo-2.0.yaml'), '--name', 'Zoo', '--out', out]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('is not empty');

    const call = await runCli(
      [
        'call',
        'Zoo.FeedAnimal',
        '--toolkit-path',
        out,
        '--base-url',
        baseUrl,
        '--secret',
        'ZOO_BASIC_USERNAME=keeper',
        '--secret',
        'ZOO_BASIC_PASSWORD=bananas',
        '--input',
        '{"id":"leo","food":"meat","grams":500}',
      ],
      {},
      work,
    );
    expect(call.code, call.stderr).toBe(0);
    expect(seen.at(-1)).toMatchObject({
      method: 'POST',
      url: '/animals/leo/feed',
      body: 'food=meat&grams=500',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('keeper:bananas').toString('base64')}` },
    });
  });

  it('leaves out a tool that fails the catalog checks, and writes a stamped folder the loader accepts', async () => {
    const document = join(work, 'gadgets.json');
    const ok = { '200': { description: 'The gadgets found.', content: { 'application/json': { schema: { type: 'object' } } } } };
    writeFileSync(
      document,
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'Gadgets', version: '1.0.0' },
        servers: [{ url: 'https://gadgets.example.com' }],
        paths: {
          '/gadgets': { get: { operationId: 'listGadgets', summary: 'List the gadgets of the store', responses: ok } },
          '/gadgets/search': {
            get: {
              operationId: 'searchGadgets',
              summary: 'Search the gadgets of the store',
              parameters: [{ name: 'code', in: 'query', description: 'The code of the gadget.', schema: { type: 'string', minLength: -1 } }],
              responses: ok,
            },
          },
        },
      }),
    );
    const out = join(work, 'cli-gadgets');
    const imported = await runCli(['toolkit', 'import', document, '--name', 'Gadgets', '--out', out]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toMatch(
      /\| GET \| \/gadgets\/search \| searchGadgets \| fails the catalog checks: Gadgets\.SearchGadgets: the input schema does not compile/,
    );
    expect(imported.stderr).toContain('1 tool(s), 1 skipped');
    expect(JSON.parse(readFileSync(join(out, 'toolkit.json'), 'utf8')).checked).toBe(catalogDigest(readFileSync(join(out, 'catalog.json'), 'utf8')));
    const listed = await runCli(['tools', 'list', '--toolkit-path', out]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^Gadgets\.ListGadgets /m);
    expect(listed.stdout).not.toContain('SearchGadgets');
  });

  it('writes nothing when no operation becomes a tool (a toolkit without tools does not load)', async () => {
    const document = join(work, 'nothing.json');
    writeFileSync(
      document,
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'Nothing', version: '1.0.0' },
        paths: { '/things': { options: { responses: { '200': { description: 'The methods.' } } } } },
      }),
    );
    const out = join(work, 'cli-nothing');
    const run = await runCli(['toolkit', 'import', document, '--name', 'Nothing', '--out', out]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('No operation became a tool');
    expect(run.stderr).toMatch(/quiver: no operation of .*nothing\.json became a tool \(1 skipped, each with its reason above\); nothing written/);
    expect(existsSync(out)).toBe(false);
  });

  it('refuses a bad name with a usage error', async () => {
    const run = await runCli(['toolkit', 'import', fixture('zoo-2.0.yaml'), '--name', 'not-pascal', '--out', join(work, 'bad')]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/PascalCase/);
  });
});
