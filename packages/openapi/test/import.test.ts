/**
 * The import rules, one by one, on small hand-written documents (OpenAPI 3.0, 3.1, Swagger 2.0, and one
 * split over two files), and the catalog checks every built-in toolkit passes, on what the import makes.
 */
import { annotationsOf, buildRequest, placeCredentials, validate, type Parameter, type ToolData, type UpstreamRequest } from '@quiver/core';
import { catalogProblems, convertDocument, importDocument, modeParameters, SchemaConverter, type ImportedToolkit } from '@quiver/openapi';
import { toolkits } from '@quiver/toolkits';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';

const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url).pathname;
const tool = (imported: ImportedToolkit, name: string): ToolData => {
  const found = imported.toolkit.tools.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no tool ${name}: ${imported.toolkit.tools.map((t) => t.name).join(', ')}`);
  return found;
};
const param = (t: ToolData, name: string): Parameter => {
  const found = t.parameters.find((p) => p.name === name);
  if (!found) throw new Error(`${t.name} has no parameter ${name}: ${t.parameters.map((p) => p.name).join(', ')}`);
  return found;
};
const built = (t: ToolData, input: Record<string, unknown>, body?: unknown): UpstreamRequest => {
  const request = buildRequest({ ...t, http: t.http! }, input, 'https://api.example.com/v2', body);
  if ('error' in request) throw new Error(request.error.message);
  return request;
};

let pets: ImportedToolkit;
let tasks: ImportedToolkit;
let zoo: ImportedToolkit;
beforeAll(async () => {
  [pets, tasks, zoo] = await Promise.all([
    importDocument(fixture('petstore-3.0.yaml'), { name: 'PetStore' }),
    importDocument(fixture('tasks-3.1.json'), { name: 'Tasks' }),
    importDocument(fixture('zoo-2.0.yaml'), { name: 'Zoo' }),
  ]);
});

describe('names', () => {
  it('are PascalCase from the operationId', () => {
    expect(pets.toolkit.tools.map((t) => t.name)).toEqual(['ListPets', 'CreatePet', 'GetPet', 'ReplacePet', 'DeletePet', 'UploadPhoto', 'AdoptPet']);
    expect(zoo.toolkit.tools.map((t) => t.name)).toEqual(['ListAnimals', 'AddAnimal', 'UploadAnimalPhoto', 'FeedAnimal']);
  });

  it('come from method and path when there is no operationId', () => {
    expect(tool(tasks, 'GetTasks').http).toMatchObject({ method: 'GET', path: '/tasks' });
    expect(tool(tasks, 'PostTasks').http).toMatchObject({ method: 'POST', path: '/tasks' });
    expect(tool(tasks, 'PostTasksByIdLabels').http).toMatchObject({ method: 'POST', path: '/tasks/{id}/labels' });
  });

  it('stay unique, and short enough that Toolkit_Tool is at most 64 characters, and the report says so', () => {
    expect(tool(tasks, 'TaskGet').http?.method).toBe('GET');
    expect(tool(tasks, 'TaskGet2').http?.method).toBe('DELETE');
    const long = tasks.toolkit.tools.find((t) => t.http?.path === '/tasks/{id}/schedule')!;
    expect(long.name).toBe('SetTheScheduleOfATaskWithAVeryLongOperationIdentifierThatG');
    expect(`Tasks_${long.name}`.length).toBe(64);
    expect(tasks.report).toContain('TaskGet2 (TaskGet was taken)');
    expect(tasks.report).toContain('cut to 58 characters, so that Tasks_SetTheScheduleOfATaskWithAVeryLongOperationIdentifierThatG is within 64');
  });
});

describe('descriptions', () => {
  it('are plain text, without markdown, HTML or links, and long enough to choose by', () => {
    expect(pets.toolkit.description).toBe('Pet Store: A sample pet store. See the docs for more.');
    expect(tool(pets, 'ListPets').description).toMatch(/^List pets\. Lists the pets in the store, newest first\./);
    expect(param(tool(pets, 'GetPet'), 'petId').description).toBe("The pet's identifier: the petId path parameter.");
    // Too short alone: the method and path complete it.
    expect(tool(tasks, 'GetTasks').description).toBe('List tasks: GET /tasks of the Tasks API. Paged with cursor, limit.');
    expect(param(tool(tasks, 'GetTasks'), 'done').description).toBe('The done query parameter.');
  });
});

describe('titles', () => {
  it("are the operation's summary, a label for people, kept out of what the model reads", () => {
    expect(tool(pets, 'ListPets').title).toBe('List pets');
    expect(tool(pets, 'GetPet').title).toBe('Get one pet by its identifier');
    expect(tool(tasks, 'PostTasksByIdLabels').title).toBe('Add labels to the task');
    expect(tool(zoo, 'ListAnimals').title).toBeTruthy();
    for (const imported of [pets, tasks, zoo]) {
      for (const made of imported.toolkit.tools) expect(made.title, made.name).toMatch(/^[A-Z0-9][^\n]{0,99}$/);
    }
  });

  it('come from the operationId in words without a summary, and from method and path without either', () => {
    expect(tool(tasks, 'TaskGet').title).toBe('Task get');
    const things = convertDocument(
      {
        openapi: '3.0.3',
        info: { title: 'Things', version: '1' },
        servers: [{ url: 'https://api.example.com' }],
        paths: {
          '/things/{id}': {
            get: { operationId: 'getThingByID', responses: { 200: { description: 'A thing.' } } },
            delete: { responses: { 204: { description: 'Gone.' } } },
            patch: { summary: 'Rename a thing. The new name must be unique.', deprecated: true, responses: { 200: { description: 'Renamed.' } } },
          },
        },
      },
      { name: 'Things', source: 'things.json' },
    ).toolkit.tools;
    expect(things.map((made) => made.title)).toEqual(['Get thing by ID', 'DELETE /things/{id}', 'Rename a thing (deprecated)']);
  });
});

describe('parameters', () => {
  it('places path, query, header and cookie parameters, ignoring Accept and the headers HTTP sets itself', () => {
    const list = tool(pets, 'ListPets');
    expect(list.parameters.map((p) => [p.name, p.in, p.upstream])).toEqual([
      ['status', 'query', 'status'],
      ['page_token', 'query', 'page_token'],
      ['filter_species', 'query', 'filter[species]'],
      ['filter_minAge', 'query', 'filter[minAge]'],
      ['session', 'cookie', 'session'],
      ['X-Request-Id', 'header', 'X-Request-Id'],
    ]);
    expect(param(list, 'status')).toMatchObject({ explode: false, schema: { type: 'array', items: { type: 'string', enum: ['available', 'sold'] } } });
    const request = built(list, { status: ['sold', 'available'], filter_species: 'cat', session: 's1', 'X-Request-Id': 'r-1' });
    expect(request.url).toBe('https://api.example.com/v2/pets?status=sold%2Cavailable&filter%5Bspecies%5D=cat');
    expect(request.headers).toMatchObject({ cookie: 'session=s1', 'x-request-id': 'r-1' });
  });

  it('merges allOf, turns nullable and 3.1 type lists into null types, keeps enums and drops read-only fields', () => {
    const create = tool(pets, 'CreatePet');
    expect(create.parameters.map((p) => [p.name, p.in, p.required])).toEqual([
      ['name', 'body', true],
      ['status', 'body', false],
      ['nickname', 'body', false],
    ]);
    expect(param(create, 'status').schema).toEqual({ type: 'string', enum: ['available', 'sold'] });
    expect(param(create, 'status').description).toContain('Default: "available"');
    expect(param(create, 'nickname').schema).toEqual({ type: ['string', 'null'] });
    expect(param(tool(tasks, 'GetTasks'), 'limit').schema).toEqual({ type: ['integer', 'null'], maximum: 100 });
    expect(param(tool(zoo, 'AddAnimal'), 'legs').schema).toEqual({ type: ['integer', 'null'] });
    const body = tool(tasks, 'PostTasks');
    expect(body.requestBody).toBeUndefined();
    expect(param(body, 'due').schema).toEqual({ type: ['string', 'null'], format: 'date-time' });
    expect(param(body, 'priority').schema).toEqual({ type: ['integer', 'null'], enum: [1, 2, 3, null] });
    expect(param(body, 'kind').schema).toEqual({ const: 'task' });
    expect(built(body, { title: 'Write', priority: 2, labels: ['a'] }).body).toBe('{"title":"Write","priority":2,"labels":["a"]}');
  });

  it('makes a flat JSON object body parameters, and a nested, polymorphic or non-object body mode-driven', () => {
    expect(tool(pets, 'CreatePet').http).toMatchObject({ contentType: 'application/json' });
    for (const [imported, name] of [
      [pets, 'ReplacePet'],
      [tasks, 'SetTheScheduleOfATaskWithAVeryLongOperationIdentifierThatG'],
      [tasks, 'PostTasksByIdLabels'],
    ] as const) {
      const t = tool(imported, name);
      expect(t.requestBody?.contentType, name).toBe('application/json');
      expect(t.parameters[0], name).toEqual(modeParameters.mode);
      expect(t.parameters.at(-1), name).toEqual(modeParameters.request_body);
      expect(JSON.stringify(t.requestBody), name).not.toContain('$ref');
    }
    const replace = tool(pets, 'ReplacePet').requestBody!.schema;
    expect(validate(replace, { name: 'Rex', owner: { email: 'a@example.com', pets: [] } })).toEqual([]);
    expect(validate(replace, { name: 'Rex', id: 4 }).map((issue) => issue.message)).toEqual(['is not a known field']);
    const schedule = tasks.toolkit.tools.find((t) => t.http?.path === '/tasks/{id}/schedule')!.requestBody!.schema;
    expect(validate(schedule, { at: 'noon' })).toEqual([]);
    expect(validate(schedule, { every: 'day' })).not.toEqual([]);
    expect(built(tool(pets, 'ReplacePet'), { mode: 'execute', petId: 3 }, { name: 'Rex' }).body).toBe('{"name":"Rex"}');
  });

  it('encodes form and multipart bodies as the document says (Swagger 2.0 formData too)', () => {
    const adopt = tool(pets, 'AdoptPet');
    expect(adopt.http?.contentType).toBe('application/x-www-form-urlencoded');
    expect(built(adopt, { petId: 1, adopter: 'Ada Lovelace', tags: ['kind', 'home'] }).body).toBe('adopter=Ada+Lovelace&tags=kind&tags=home');
    const feed = tool(zoo, 'FeedAnimal');
    expect(feed.http?.contentType).toBe('application/x-www-form-urlencoded');
    expect(param(feed, 'food')).toMatchObject({ required: true, schema: { type: 'string', enum: ['meat', 'fish', 'plants'] } });

    for (const [t, file, text] of [
      [tool(pets, 'UploadPhoto'), 'file', 'caption'],
      [tool(zoo, 'UploadAnimalPhoto'), 'photo', 'note'],
    ] as const) {
      expect(t.http?.contentType).toBe('multipart/form-data');
      expect(param(t, file).schema).toEqual({ type: 'string', format: 'binary' });
      const request = built(t, { petId: 1, id: 'x', [file]: 'PNG...', [text]: 'hello' });
      const boundary = /^multipart\/form-data; boundary=(.+)$/.exec(request.headers['content-type']!)![1]!;
      expect(request.body).toBe(
        `--${boundary}\r\ncontent-disposition: form-data; name="${file}"; filename="${file}"\r\ncontent-type: application/octet-stream\r\n\r\nPNG...\r\n` +
          `--${boundary}\r\ncontent-disposition: form-data; name="${text}"\r\ncontent-type: text/plain; charset=utf-8\r\n\r\nhello\r\n--${boundary}--\r\n`,
      );
    }
  });

  it('marks paging parameters and Link-header paging for the paging notes', () => {
    const list = tool(pets, 'ListPets');
    expect(param(list, 'page_token').paging).toBe(true);
    expect(param(list, 'status').paging).toBeUndefined();
    expect(list.description).toContain('each result tells the arguments of the next page');
    const tasksList = tool(tasks, 'GetTasks');
    expect(tasksList.parameters.filter((p) => p.paging).map((p) => p.name)).toEqual(['cursor', 'limit']);
    expect(param(tool(zoo, 'ListAnimals'), 'page').paging).toBe(true);
  });
});

describe('credentials', () => {
  it('makes OAuth 2 flows an auth provider with scopes per operation', () => {
    expect(pets.manifest.authProviders).toEqual([
      { id: 'petstore', authorizeUrl: 'https://auth.example.com/authorize', tokenUrl: 'https://auth.example.com/token', scopes: ['pets:read', 'pets:write'] },
    ]);
    expect(tool(pets, 'CreatePet').requirements).toEqual({ oauth2: { provider: 'petstore', scopes: ['pets:write'] } });
    // The first alternative the document lists wins.
    expect(tool(pets, 'GetPet').requirements).toEqual({ oauth2: { provider: 'petstore', scopes: ['pets:read'] } });
    expect(tool(zoo, 'UploadAnimalPhoto').requirements).toEqual({ oauth2: { provider: 'zoo', scopes: ['animals'] } });
    expect(zoo.manifest.authProviders?.[0]).toMatchObject({
      authorizeUrl: 'https://zoo.example.com/oauth/authorize',
      tokenUrl: 'https://zoo.example.com/oauth/token',
    });
  });

  it('makes API keys (header, query) and HTTP bearer and basic declared secrets placed by the binding', () => {
    const list = tool(pets, 'ListPets');
    expect(list.requirements).toEqual({ secrets: [{ key: 'PET_STORE_API_KEY' }] });
    expect(list.http?.auth).toEqual({ secret: 'PET_STORE_API_KEY', in: 'header', name: 'X-API-Key' });
    const add = tool(zoo, 'AddAnimal');
    expect(add.http?.auth).toEqual({ secret: 'ZOO_KEY', in: 'query', name: 'api_key' });
    const request = built(add, { name: 'Leo' });
    placeCredentials(request, add.http!.auth!, { ZOO_KEY: 'k 1' });
    expect(request.url).toBe('https://api.example.com/v2/animals?api_key=k+1');
    expect(tool(tasks, 'GetTasks').http?.auth).toEqual({ secret: 'TASKS_BEARER', scheme: 'Bearer' });
    expect(tool(zoo, 'ListAnimals').http?.auth).toEqual({ scheme: 'Basic', secrets: ['ZOO_BASIC_USERNAME', 'ZOO_BASIC_PASSWORD'] });
    expect(tool(zoo, 'ListAnimals').requirements.secrets).toEqual([{ key: 'ZOO_BASIC_USERNAME' }, { key: 'ZOO_BASIC_PASSWORD' }]);
    // `security: []` on the operation: no credential.
    const open = tasks.toolkit.tools.find((t) => t.http?.path === '/tasks/{id}/schedule')!;
    expect(open.requirements).toEqual({});
    expect(open.http?.auth).toBeUndefined();
  });
});

describe('servers, hints and the report', () => {
  it('takes the base URL from the first server, variables filled with their defaults', () => {
    expect(pets.toolkit.baseUrl).toBe('https://eu.pets.example.com/v2');
    expect(tasks.toolkit.baseUrl).toBe('https://tasks.example.com/api');
    expect(zoo.toolkit.baseUrl).toBe('https://zoo.example.com/v3');
    expect(pets.report).toContain('Server variable region is "eu"');
  });

  it('derives read-only, destructive and idempotent hints from the method', () => {
    expect(annotationsOf(tool(pets, 'ListPets'))).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    expect(annotationsOf(tool(pets, 'CreatePet'))).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(annotationsOf(tool(pets, 'ReplacePet'))).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    expect(annotationsOf(tool(pets, 'DeletePet'))).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
  });

  it('names every skipped operation with its reason', () => {
    expect(pets.skipped).toEqual([
      { method: 'OPTIONS', path: '/pets/{petId}', operationId: 'petOptions', reason: expect.stringContaining('OPTIONS is not a method tools call') },
      { method: 'POST', path: '/pets/{petId}/export', operationId: 'exportPet', reason: expect.stringContaining('only application/xml') },
      { method: 'GET', path: '/vets', operationId: 'listVets', reason: expect.stringContaining('security scheme digest is not declared') },
    ]);
    expect(pets.report).toContain('10 operation(s): 7 tool(s) made (1 mode-driven), 3 skipped.');
    expect(pets.report).toContain('| POST | /pets/{petId}/export | exportPet | the request body is only application/xml');
    expect(pets.report).toContain('| ListPets | GET | /pets | parameters | API key in header X-API-Key (PET_STORE_API_KEY) |');
    expect(tasks.report).toContain('1 webhook(s)');
  });

  it('skips an operation whose schema refers to nothing, naming the operation and the reference, and makes the others', () => {
    const body = (ref: string) => ({ content: { 'application/json': { schema: { $ref: ref } } } });
    const converted = convertDocument(
      {
        openapi: '3.0.3',
        info: { title: 'Pets', version: '1' },
        servers: [{ url: 'https://pets.example.com' }],
        components: { schemas: { Pet: { type: 'object', properties: { name: { type: 'string' } } } } },
        paths: {
          '/pets': {
            post: { operationId: 'addPet', requestBody: body('#/components/schemas/Pet'), responses: { 201: { description: 'Added.' } } },
            put: { operationId: 'replacePets', requestBody: body('#/components/schemas/Gone'), responses: { 200: { description: 'Replaced.' } } },
          },
        },
      },
      { name: 'Pets', source: 'pets.json' },
    );
    expect(converted.toolkit.tools.map((made) => made.name)).toEqual(['AddPet']);
    expect(converted.skipped).toEqual([
      { method: 'PUT', path: '/pets', operationId: 'replacePets', reason: 'the reference #/components/schemas/Gone names nothing in the document' },
    ]);
  });

  it('carries the operations tags, and writes the document bundled as OpenAPI 3', async () => {
    expect((tool(pets, 'ListPets') as ToolData & { tags?: string[] }).tags).toEqual(['pets']);
    expect(zoo.document.openapi).toMatch(/^3\.0/);
    expect(zoo.sourceVersion).toBe('2.0');
    const split = await importDocument(fixture('split/main.yaml'), { name: 'Split' });
    expect(JSON.stringify(split.document)).not.toContain('schemas.yaml');
    expect(split.toolkit.tools[0]!.parameters.map((p) => [p.name, p.required])).toEqual([
      ['text', true],
      ['pinned', false],
    ]);
  });

  it('reads a document, and its references, served on this machine; from a private address, says why not', async () => {
    const server = createServer((request, response) => {
      const file = fixture(`split${request.url}`);
      if (!existsSync(file)) return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'application/yaml' }).end(readFileSync(file));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const served = await importDocument(`http://127.0.0.1:${(server.address() as AddressInfo).port}/main.yaml`, { name: 'Served' });
      expect(served.toolkit.tools[0]!.parameters.map((p) => p.name)).toEqual(['text', 'pinned']);
    } finally {
      server.close();
    }
    // Refused before any connection: the address is never asked.
    await expect(importDocument('http://10.255.255.1/openapi.json', { name: 'Private' })).rejects.toThrow(
      /a document is read over http only from a public address or from this machine \(localhost, 127\.0\.0\.1, ::1\)$/,
    );
  });

  it('refuses what is not an OpenAPI document, naming it', async () => {
    await expect(importDocument(fixture('missing.yaml'), { name: 'Missing' })).rejects.toThrow(/cannot read the OpenAPI document .*missing\.yaml/);
    await expect(importDocument(fixture('split/schemas.yaml'), { name: 'Schemas' })).rejects.toThrow(/OpenAPI/);
  });
});

describe('catalog checks', () => {
  it('pass on every built-in toolkit (RepoHostApi, generated, also under the strict rules)', () => {
    for (const toolkit of toolkits) expect(catalogProblems(toolkit), toolkit.name).toEqual([]);
    expect(catalogProblems(toolkits.find((toolkit) => toolkit.name === 'RepoHostApi')!, { strict: true })).toEqual([]);
  });

  it('pass, strict, on every imported catalog', () => {
    for (const imported of [pets, tasks, zoo]) expect(catalogProblems(imported.toolkit, { strict: true }), imported.toolkit.name).toEqual([]);
  });

  it('find what breaks them', () => {
    const broken = structuredClone(pets.toolkit);
    broken.tools[0]!.name = 'list pets';
    broken.tools[1]!.description = 'See [docs](https://x.example).';
    broken.tools[2]!.parameters[0]!.description = 'Id';
    expect(catalogProblems(broken, { strict: true })).toEqual(
      expect.arrayContaining([
        'PetStore.list pets: name is not PascalCase letters and digits of at most 64 characters',
        'PetStore.CreatePet: description has fewer than 6 words',
        'PetStore.CreatePet: description holds a markdown link',
        'PetStore.CreatePet: description holds a URL',
        'PetStore.GetPet.petId: description has fewer than 4 words',
      ]),
    );
  });
});

describe('schema readings', () => {
  it('reads an allOf of a value and null (which no value meets as written) as the value or null, as the emulator does', () => {
    const converter = new SchemaConverter({ components: { schemas: { Currency: { type: 'string', pattern: '^[A-Z]{3}$' } } } });
    const currency = converter.convert({ allOf: [{ $ref: '#/components/schemas/Currency' }, { type: 'null' }] });
    expect(currency).toEqual({ type: ['string', 'null'], pattern: '^[A-Z]{3}$' });
    expect(validate(currency, 'EUR')).toEqual([]);
    expect(validate(currency, null)).toEqual([]);
    expect(validate(currency, 'euro')).not.toEqual([]);
  });

  it('reads `type: null` beside a oneOf (which no value meets as written) as one of the oneOf or null, as the emulator does', () => {
    const value = new SchemaConverter({}).convert({ type: 'null', oneOf: [{ type: 'string' }, { type: 'number' }] });
    for (const accepted of ['x', 2, null]) expect(validate(value, accepted)).toEqual([]);
    expect(validate(value, true)).not.toEqual([]);
  });
});
