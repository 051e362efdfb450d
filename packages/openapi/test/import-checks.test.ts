/**
 * No catalog an import writes fails its own checks: a tool that fails the strict catalog checks is left out,
 * skipped with the checks' message as its reason, and the rest is written and stamped; what the conversion can
 * make right (an enum that repeats a value, values listed in prose, an undeclared path parameter, a bare
 * scheme in the text) it makes right. And shapes of real documents that used to give no tool at all.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonSchema, ToolData } from '@quiver/core';
import {
  catalogDigest,
  catalogProblems,
  catalogProblemsByTool,
  importDocument,
  modeParameters,
  plainText,
  writeToolkitFolder,
  type ImportedToolkit,
} from '@quiver/openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const scratch = mkdtempSync(join(tmpdir(), 'quiver-import-checks-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The document written to a file of its own, imported. */
async function imported(name: string, document: object): Promise<ImportedToolkit> {
  const file = join(scratch, `${name}.json`);
  writeFileSync(file, JSON.stringify(document));
  return importDocument(file, { name });
}

const ok = { '200': { description: 'The widgets.', content: { 'application/json': { schema: { type: 'object' } } } } };
const query = (name: string, schema: object, description = `The ${name} to look for, as the store knows it.`) => ({
  name,
  in: 'query',
  description,
  schema,
});

const widgets = {
  openapi: '3.0.3',
  info: { title: 'Widgets', version: '1.0.0', description: 'A store of widgets.' },
  servers: [{ url: 'https://widgets.example.com' }],
  paths: {
    '/widgets': {
      get: { operationId: 'listWidgets', summary: 'List the widgets of the store', responses: ok },
      post: {
        operationId: 'createWidget',
        summary: 'Create a widget in the store',
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  // A value listed twice: the enum keeps it once.
                  color: { type: 'string', enum: ['red', 'red', 'blue'], description: 'The color of the widget.' },
                  // Values in prose: an enum, and the prose without them.
                  kind: { type: 'string', description: 'The kind of the widget. One of: <code>SMALL</code>, <code>LARGE</code> or <code>ANY</code>.' },
                  url: { type: 'string', description: 'Where the widget lives. The URL must begin with <code>https://</code> and name a host.' },
                },
              },
            },
          },
        },
        responses: ok,
      },
    },
    '/widgets/{widgetId}/parts/{partId}': {
      get: {
        operationId: 'getPart',
        summary: 'Read one part of a widget',
        // partId is not declared, and a header parameter has no name.
        parameters: [
          { name: 'widgetId', in: 'path', required: true, description: 'The widget the part belongs to.', schema: { type: 'string' } },
          { name: '', in: 'header', schema: { type: 'string' } },
        ],
        responses: ok,
      },
    },
    '/gadgets': {
      // A schema no validator compiles (a negative length): the tool fails the checks, and is left out.
      get: {
        operationId: 'findGadgets',
        summary: 'Find the gadgets of the store',
        parameters: [query('code', { type: 'string', minLength: -1 })],
        responses: ok,
      },
    },
    '/gizmos': {
      // Values in prose that are not single words: no enum can be made, and the tool fails the checks.
      get: {
        operationId: 'findGizmos',
        summary: 'Find the gizmos of the store',
        parameters: [query('shape', { type: 'string' }, 'The shape of the gizmo. One of: round thing, square thing.')],
        responses: ok,
      },
    },
  },
};

const param = (tool: ToolData, name: string) => tool.parameters.find((parameter) => parameter.name === name)!;

let widgetStore: ImportedToolkit;
beforeAll(async () => {
  widgetStore = await imported('Widgets', widgets);
});

describe('a tool that fails the strict catalog checks', () => {
  it('is left out, skipped with the checks message as its reason; the rest passes them', () => {
    expect(widgetStore.toolkit.tools.map((tool) => tool.name)).toEqual(['ListWidgets', 'CreateWidget', 'GetPart']);
    expect(widgetStore.made.map((made) => made.tool)).toEqual(['ListWidgets', 'CreateWidget', 'GetPart']);
    expect(widgetStore.skipped).toEqual([
      {
        method: 'GET',
        path: '/gadgets',
        operationId: 'findGadgets',
        reason: expect.stringMatching(/^fails the catalog checks: Widgets\.FindGadgets: the input schema does not compile: .*minLength/),
      },
      {
        method: 'GET',
        path: '/gizmos',
        operationId: 'findGizmos',
        reason: 'fails the catalog checks: Widgets.FindGizmos.shape: allowed values in prose, not an enum',
      },
    ]);
    expect(widgetStore.problems).toEqual([]);
    expect(catalogProblems(widgetStore.toolkit, { strict: true })).toEqual([]);
    expect(widgetStore.report).toContain('5 operation(s): 3 tool(s) made (0 mode-driven), 2 skipped.');
    expect(widgetStore.report).toContain(
      '| GET | /gizmos | findGizmos | fails the catalog checks: Widgets.FindGizmos.shape: allowed values in prose, not an enum |',
    );
    expect(widgetStore.report).not.toContain('| FindGadgets |');
  });

  it('leaves a catalog that is written and stamped as checked', () => {
    const folder = join(scratch, 'widgets-folder');
    writeToolkitFolder(folder, widgetStore);
    const catalog = readFileSync(join(folder, 'catalog.json'), 'utf8');
    expect(JSON.parse(catalog).tools.map((tool: ToolData) => tool.name)).toEqual(['ListWidgets', 'CreateWidget', 'GetPart']);
    expect(JSON.parse(readFileSync(join(folder, 'toolkit.json'), 'utf8')).checked).toBe(catalogDigest(catalog));
    expect(readFileSync(join(folder, 'report.md'), 'utf8')).toBe(widgetStore.report);
  });

  it('is not stamped when changed after the import, and fails the checks (they run again on what is written)', () => {
    const changed = { ...widgetStore, toolkit: structuredClone(widgetStore.toolkit) };
    changed.toolkit.tools[0]!.description = 'Too short.';
    const folder = join(scratch, 'changed-folder');
    writeToolkitFolder(folder, changed);
    expect(JSON.parse(readFileSync(join(folder, 'toolkit.json'), 'utf8')).checked).toBeUndefined();
  });

  it('is told apart from the others by catalogProblemsByTool, in the order of the tools', () => {
    const broken = structuredClone(widgetStore.toolkit);
    broken.tools[1]!.description = 'Too short.';
    expect(catalogProblemsByTool(broken, { strict: true })).toEqual({
      toolkit: [],
      tools: [[], ['Widgets.CreateWidget: description has fewer than 6 words'], []],
    });
  });
});

describe('what the conversion makes right rather than leave out', () => {
  it('lists a repeated enum value once', () => {
    expect(param(widgetStore.toolkit.tools[1]!, 'color').schema).toEqual({ type: 'string', enum: ['red', 'blue'] });
  });

  it('makes values listed in prose (`One of: A, B or C`) an enum, and takes them out of the description', () => {
    const kind = param(widgetStore.toolkit.tools[1]!, 'kind');
    expect(kind.schema).toEqual({ type: 'string', enum: ['SMALL', 'LARGE', 'ANY'] });
    expect(kind.description).toBe('The kind of the widget.');
  });

  it('declares a path placeholder the document does not, as a required string, and leaves out a parameter without a name', () => {
    const part = widgetStore.toolkit.tools[2]!;
    expect(part.parameters.map((parameter) => [parameter.name, parameter.in, parameter.required])).toEqual([
      ['widgetId', 'path', true],
      ['partId', 'path', true],
    ]);
    expect(param(part, 'partId')).toMatchObject({ schema: { type: 'string' }, description: 'The partId path parameter.', upstream: 'partId' });
    expect(widgetStore.report).toContain('GET /widgets/{widgetId}/parts/{partId}: the path parameter partId is not declared; it is taken as a string.');
  });

  it('keeps the name of a bare scheme (`begin with https://`) and no URL', () => {
    expect(param(widgetStore.toolkit.tools[1]!, 'url').description).toBe('Where the widget lives. The URL must begin with https and name a host.');
  });
});

describe('a problem of the toolkit as a whole', () => {
  it('is reported, and leaves the catalog unstamped (its tools are kept)', async () => {
    const unplaced = await imported('Unplaced', { ...widgets, servers: [{ url: '{scheme}://widgets.example.com' }] });
    expect(unplaced.toolkit.tools.map((tool) => tool.name)).toEqual(['ListWidgets', 'CreateWidget', 'GetPart']);
    expect(unplaced.problems).toEqual(['base URL {scheme}://widgets.example.com is neither an http(s) URL nor a path']);
    expect(unplaced.report).toContain('## Problems');
    expect(unplaced.report).toContain('- base URL {scheme}://widgets.example.com is neither an http(s) URL nor a path');
    const folder = join(scratch, 'unplaced-folder');
    writeToolkitFolder(folder, unplaced);
    expect(JSON.parse(readFileSync(join(folder, 'toolkit.json'), 'utf8')).checked).toBeUndefined();
  });

  it('is a server variable without a default, left in the host: no request could reach it', async () => {
    const tenant = { url: 'https://{tenant}.widgets.example.com', variables: { tenant: { enum: ['a', 'b'] } } };
    const unfilled = await imported('Tenanted', { ...widgets, servers: [tenant] });
    expect(unfilled.toolkit.tools).toHaveLength(3);
    expect(unfilled.problems).toEqual([
      'base URL https://{tenant}.widgets.example.com holds {tenant}, a server variable without a default: set the base URL in the configuration',
    ]);
  });
});

describe('documents that gave no tool at all', () => {
  it("reads a protocol-relative server (`//host`) as https, so that the operations' own servers match it", async () => {
    const relative = await imported('Relative', {
      ...widgets,
      servers: [{ url: '//widgets.example.com' }],
      paths: { '/widgets': { servers: [{ url: 'https://widgets.example.com' }], get: widgets.paths['/widgets'].get } },
    });
    expect(relative.toolkit.baseUrl).toBe('https://widgets.example.com');
    expect(relative.toolkit.tools.map((tool) => tool.name)).toEqual(['ListWidgets']);
  });

  it('reads an optional body that can hold nothing (a closed object without fields) on a GET as no body', async () => {
    const nothing = { type: 'object', properties: {}, additionalProperties: false };
    const reads = await imported('Reads', {
      ...widgets,
      paths: {
        '/widgets': {
          get: { ...widgets.paths['/widgets'].get, requestBody: { content: { 'application/x-www-form-urlencoded': { schema: nothing } } } },
        },
        '/gadgets': {
          get: {
            operationId: 'listGadgets',
            summary: 'List the gadgets of the store',
            requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', properties: { q: { type: 'string' } } } } } },
            responses: ok,
          },
        },
      },
    });
    expect(reads.toolkit.tools.map((tool) => [tool.name, tool.http?.contentType, tool.parameters.length])).toEqual([['ListWidgets', undefined, 0]]);
    expect(reads.skipped).toEqual([
      expect.objectContaining({ operationId: 'listGadgets', reason: 'a GET request with a body, which HTTP clients do not send' }),
    ]);
  });

  it('takes two OAuth schemes of one authorization server, required together (as Google documents them), as one provider', async () => {
    const google = await imported('Google', {
      ...widgets,
      security: [{ Oauth2: ['https://auth.example.com/read'], Oauth2c: ['https://auth.example.com/read'] }],
      components: {
        securitySchemes: {
          Oauth2: {
            type: 'oauth2',
            flows: { implicit: { authorizationUrl: 'https://auth.example.com/o/auth', scopes: { 'https://auth.example.com/read': 'Read' } } },
          },
          Oauth2c: {
            type: 'oauth2',
            flows: {
              authorizationCode: {
                authorizationUrl: 'https://auth.example.com/o/auth',
                tokenUrl: 'https://auth.example.com/o/token',
                scopes: { 'https://auth.example.com/read': 'Read' },
              },
            },
          },
          Other: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://other.example.com/token', scopes: {} } } },
        },
      },
      paths: {
        '/widgets': widgets.paths['/widgets'],
        '/gadgets': {
          get: { operationId: 'listGadgets', summary: 'List the gadgets of the store', security: [{ Oauth2: [], Other: [] }], responses: ok },
        },
      },
    });
    expect(google.toolkit.tools.map((tool) => [tool.name, tool.requirements])).toEqual([
      ['ListWidgets', { oauth2: { provider: 'google', scopes: ['https://auth.example.com/read'] } }],
      ['CreateWidget', { oauth2: { provider: 'google', scopes: ['https://auth.example.com/read'] } }],
    ]);
    expect(google.manifest.authProviders).toEqual([
      {
        id: 'google',
        authorizeUrl: 'https://auth.example.com/o/auth',
        tokenUrl: 'https://auth.example.com/o/token',
        scopes: ['https://auth.example.com/read'],
      },
    ]);
    // Two authorization servers at once stay beyond what a call sends.
    expect(google.skipped).toEqual([
      expect.objectContaining({ operationId: 'listGadgets', reason: expect.stringContaining('two OAuth schemes at once (Other)') }),
    ]);
  });
});

describe('the catalog checks themselves', () => {
  it('take a property named $ref (a schema of schemas) for a name, not a reference', () => {
    const tool = structuredClone(widgetStore.toolkit.tools[1]!);
    const withReference = (schema: JsonSchema) => ({
      ...widgetStore.toolkit,
      tools: [{ ...tool, parameters: [modeParameters.mode, modeParameters.request_body], requestBody: { contentType: 'application/json', schema } }],
    });
    const named = { description: 'A schema.', type: 'object', properties: { $ref: { type: 'string' } }, additionalProperties: false };
    expect(catalogProblems(withReference(named), { strict: true })).toEqual([]);
    const referring = { description: 'A schema.', type: 'object', properties: { a: { $ref: '#/components/schemas/A' } } };
    expect(catalogProblems(withReference(referring), { strict: true })).toContain('Widgets.CreateWidget: the request body schema holds a $ref');
  });

  it('find no emphasis where emphasis ends right before code (`*Types:*`*/*``)', () => {
    expect(plainText('Uploads media: *Accepted types:*`*/*` and *Size:* 5 GB.')).toBe('Uploads media: Accepted types:*/* and Size: 5 GB.');
  });
});
