/**
 * Property-based fuzzing (fast-check) of every tool's input through the real dispatcher against the
 * emulators: values of the declared types, values of the wrong type, hostile strings (path climbers,
 * header breakers, placeholders, NUL, control characters, lone surrogates, emoji), missing required and
 * unknown parameters. Whatever the input, a call must end in a value or a named error: never
 * TOOL_RUNTIME_FATAL, never a refusal that does not say which parameter was wrong, never a credential in
 * the output. Then every tool with handler code against an upstream whose answers are of the wrong shape:
 * never TOOL_RUNTIME_FATAL, never a credential. Seeded and bounded, so the run is repeatable and fast.
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
const hostile = [
  '',
  '.',
  '..',
  '../..',
  '../../admin',
  '%2e%2e',
  '{id}',
  'a\r\nX-Injected: 1',
  'a\nb',
  'nul\u0000byte',
  'soh\u0001',
  'del\u007f',
  'high\ud800',
  '\udfffLow',
  'emoji \u{1F600}',
  ' ',
  '\u202e',
  'x'.repeat(5_000),
];

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

/*
 * Strange upstream answers. Every tool with handler code (CommerceTools keeps its own data and calls no
 * upstream) is called with an input that reaches its upstream, and one answer of the call is broken: a
 * field left out or set to null, a list, an empty object, text, a number, a lone surrogate or the call's
 * own credential put in its place, or the whole answer not JSON, empty, binary or a bare scalar; Dropbox's
 * Dropbox-API-Result header likewise. Whatever comes, the call ends in a value or a named error, never
 * TOOL_RUNTIME_FATAL, and never hands out a credential.
 */

/** Broken answers per tool with handler code. */
const ANSWER_RUNS = 24;
const STRANGE_TOKEN = 'fuzz-strange-oauth-token-5e1d';
const strangeSecrets = {
  SUPPORT_API_TOKEN: 'fuzz-strange-support-token-8a2c',
  TRACKING_SITE_ID: 'fuzz-strange-site-3b9f',
  TRACKING_API_KEY: 'fuzz-strange-tracking-key-c47e',
};
const strangeCredentials = [
  STRANGE_TOKEN,
  ...Object.values(strangeSecrets),
  Buffer.from(`${strangeSecrets.TRACKING_SITE_ID}:${strangeSecrets.TRACKING_API_KEY}`).toString('base64'),
];

/** An input that reaches the upstream, for each tool with handler code: here the answers vary, not the inputs. */
const reaching: Record<string, Record<string, unknown>> = {
  'MailClient.CreateAndSendEmail': { subject: 's', body: 'b', to_recipients: ['a@example.com'] },
  'MailClient.CreateDraftEmail': { subject: 's', body: 'b', to_recipients: ['a@example.com'] },
  'MailClient.ListEmails': {},
  'MailClient.ListEmailsByProperty': { property: 'subject', operator: 'eq', value: 'x' },
  'MailClient.ListEmailsInFolder': { well_known_folder_name: 'inbox' },
  'MailClient.ReplyToEmail': { message_id: 'm1', body: 'b' },
  'MailClient.UpdateDraftEmail': { message_id: 'm1', body: 'new', to_add: ['b@example.com'], to_remove: ['a@example.com'] },
  'MailClient.WhoAmI': {},
  'FileStore.DownloadFile': { file_path: '/a.txt' },
  'FileStore.ListItemsInFolder': { folder_path: '/' },
  'FileStore.SearchFilesAndFolders': { keywords: 'a' },
  'Design.AddCommentOrReply': { file_key: 'f1', message: 'm', node_id: '1:2' },
  'Design.ExportImage': { file_key: 'f1', node_ids: ['1:2'] },
  'Design.GetComments': { file_key: 'f1' },
  'Design.GetComponentSets': { source: 'team', source_id: 't1' },
  'Design.GetComponents': { source: 'file', source_id: 'f1' },
  'Design.GetFileNodes': { file_key: 'f1', node_ids: ['1:2'] },
  'Design.GetPages': { file_key: 'f1' },
  'Design.GetStyles': { source: 'file', source_id: 'f1' },
  'TaskboardApi.CreateChecklist': { mode: 'execute', task_id: 't1', request_body: JSON.stringify({ name: 'c', items: [{ name: 'one' }, { name: 'two' }] }) },
  'TaskboardApi.CreateTaskInList': { mode: 'execute', list_id: 'l1', request_body: JSON.stringify({ name: 't' }) },
  'TaskboardApi.GetTasksInList': { list_identifier: 'l1', filter_by_statuses: 'open' },
  'TaskboardApi.RetrieveTaskDetails': { task_identifier: 't1' },
  'TaskboardApi.TrackTimeEntry': { mode: 'execute', task_identifier: 't1', request_body: JSON.stringify({ start: 1, end: 2, time: 1 }) },
  'TrackingApi.AddDeviceToCustomerProfile': {
    mode: 'execute',
    unique_person_identifier: 'trk_a',
    request_body: JSON.stringify({ device: { id: 'd1', platform: 'ios' } }),
  },
  'TrackingApi.AddPeopleToSegment': { mode: 'execute', segment_identifier: 1, identifier_type: 'trk_id', request_body: JSON.stringify({ ids: ['trk_a'] }) },
  'TrackingApi.BatchProcessRequests': {
    mode: 'execute',
    request_body: JSON.stringify({ batch: [{ type: 'person', identifiers: { trk_id: 'trk_a' }, action: 'identify' }] }),
  },
  'TrackingApi.DeleteCustomer': { customer_identifier: 'trk_a' },
  'TrackingApi.ManageEntity': { mode: 'execute', request_body: JSON.stringify({ type: 'person', identifiers: { id: 'p1' }, action: 'identify' }) },
  'TrackingApi.MergeCustomerProfiles': { mode: 'execute', request_body: JSON.stringify({ primary: { id: 'p1' }, secondary: { trk_id: 'trk_b' } }) },
  'TrackingApi.RemoveCustomerDevice': { customer_identifier: 'p1', device_unique_id: 'd1' },
  'TrackingApi.RemoveUserFromSegment': { mode: 'execute', segment_identifier: 1, request_body: JSON.stringify({ ids: ['p1'] }) },
  'TrackingApi.SendCustomerEvent': { mode: 'execute', customer_identifier: 'p1', request_body: JSON.stringify({ name: 'signed_up' }) },
  'TrackingApi.SuppressCustomerProfile': { unique_person_identifier: 'p1' },
  'TrackingApi.UnsuppressCustomerProfile': { customer_identifier: 'p1' },
  'TrackingApi.UpdateOrAddPerson': { mode: 'execute', person_identifier: 'p1', request_body: JSON.stringify({ email: 'a@example.com' }) },
  'SupportDesk.AddInternalNote': { issue_id: 'i1', body: 'note' },
  'SupportDesk.AssignIssue': {
    issue_lookup_by: 'search',
    issue_value: 'refund',
    user_lookup_by: 'name',
    user_value: 'Ada Lovelace',
    auto_accept_matches: true,
  },
  'SupportDesk.GetIssue': { lookup_by: 'search', value: 'refund', auto_accept_matches: true },
  'SupportDesk.GetTeamAndAssignment': { lookup_by: 'name', value: 'Billing', auto_accept_matches: true },
  'SupportDesk.ListContacts': {},
  'SupportDesk.ListIssues': { tags: ['billing'] },
  'SupportDesk.ListUsers': {},
  'SupportDesk.SearchContacts': { query: 'ada@example.com', auto_accept_matches: true },
  'SupportDesk.SearchIssues': { query: 'refund', auto_accept_matches: true },
  'SupportDesk.SearchUsers': { query: 'ada@example.com', auto_accept_matches: true },
  'SupportDesk.UpdateIssueStatus': { state: 'closed', lookup_by: 'search', value: 'refund', auto_accept_matches: true },
};

/** An answer as the upstream would give it: the JSON body (text for a download) and Dropbox's metadata header. */
interface Answer {
  body: unknown;
  'Dropbox-API-Result'?: unknown;
}

const person = { id: 'u1', name: 'Ada Lovelace', email: 'ada@example.com', emails: ['ada@example.com'] };
const pylonIssue = {
  id: 'i1',
  number: 1,
  title: 'Refund for a double charge',
  body_html: '<p>Please refund the second charge.</p>',
  state: 'new',
  assignee: { id: 'u1' },
  team: { id: 't1' },
  tags: ['billing'],
  created_at: '2030-01-01T00:00:00Z',
};
const figmaNode = {
  id: '1:2',
  name: 'Frame',
  type: 'FRAME',
  absoluteBoundingBox: { x: 0, y: 0, width: 10, height: 10 },
  children: [{ id: '1:3', name: 'Label', type: 'TEXT', characters: 'hi', visible: false }],
};
const lastPage = { cursor: '', has_next_page: false };

/** A well-formed answer to each request of the toolkits with handler code, by toolkit, method and path. */
function plausibleAnswer(toolkit: string, method: string, path: string): Answer {
  switch (toolkit) {
    case 'MailClient':
      if (method !== 'GET') return { body: { id: 'm2' } };
      if (path.endsWith('/messages'))
        return { body: { value: [{ id: 'm1', subject: 's' }], '@odata.nextLink': 'https://graph.microsoft.com/v1.0/me/messages?$skip=5' } };
      if (path.startsWith('/me/messages/'))
        return {
          body: {
            isDraft: true,
            body: { contentType: 'text', content: 'x' },
            toRecipients: [{ emailAddress: { address: 'a@example.com', name: 'A' } }],
            ccRecipients: [],
            bccRecipients: [],
          },
        };
      return { body: { '@odata.context': 'x', displayName: 'Ada', mailboxSettings: { timeZone: 'UTC', automaticRepliesSetting: { status: 'disabled' } } } };
    case 'Design':
      if (path.endsWith('/comments')) return { body: { comments: [{ id: 'c1', message: 'm' }] } };
      if (path.endsWith('/nodes')) return { body: { name: 'F', version: '1', lastModified: '2030-01-01', nodes: { '1:2': { document: figmaNode } } } };
      if (/^\/v1\/files\/[^/]+$/.test(path))
        return {
          body: { name: 'F', version: '1', lastModified: '2030-01-01', document: { id: '0:0', type: 'DOCUMENT', children: [{ id: '0:1', name: 'Page 1' }] } },
        };
      return { body: { meta: { components: [] } } };
    case 'TaskboardApi':
      return { body: path.includes('checklist') ? { checklist: { id: 'cl1', name: 'c', items: [] } } : { id: 't1', name: 't' } };
    case 'FileStore':
      if (path === '/2/files/download') return { body: 'file', 'Dropbox-API-Result': { name: 'a.txt', id: 'id:1', path_display: '/a.txt', size: 4 } };
      return { body: { entries: [{ '.tag': 'file', name: 'a.txt' }], matches: [], cursor: 'c1', has_more: false } };
    case 'SupportDesk':
      if (/^\/issues\/[^/]+$/.test(path)) return { body: { data: pylonIssue } };
      if (/^\/teams\/[^/]+$/.test(path)) return { body: { data: { id: 't1', name: 'Billing', users: [person] } } };
      if (path === '/issues') return { body: { data: [pylonIssue], pagination: lastPage } };
      if (path === '/teams') return { body: { data: [{ id: 't1', name: 'Billing' }], pagination: lastPage } };
      if (path === '/contacts/search') return { body: { data: [person] } };
      if (path === '/users' || path === '/contacts') return { body: { data: [person], pagination: lastPage } };
      return { body: { data: { id: 'n1' } } };
    default:
      return { body: {} };
  }
}

/** What replaces one value of an answer; `credential` is the Authorization header the request came with. */
const replacements = ['missing', 'null', 'in a list', 'empty object', 'text', 'number', 'true', 'lone surrogate', 'credential'] as const;
type Replacement = (typeof replacements)[number];

/** Whole answers of the wrong kind, whatever was asked. */
const wholeAnswers = [
  { type: 'application/json', body: '{"value": [' },
  { type: 'text/html', body: '<html><body>Service Unavailable</body></html>' },
  { type: 'application/json', body: '' },
  { type: 'application/octet-stream', body: '\u0000\u00ff binary' },
  { type: 'application/json', body: 'null' },
  { type: 'application/json', body: '[]' },
  { type: 'application/json', body: '"text"' },
  { type: 'application/json', body: '42' },
];

/** One broken answer in a call: which answer (calls may ask several times), and how it is broken. */
type Strange = { answer: number } & ({ whole: (typeof wholeAnswers)[number] } | { at: number; replacement: Replacement });

const strangeAnswer: fc.Arbitrary<Strange> = fc
  .tuple(
    fc.nat({ max: 2 }),
    fc.oneof(
      { weight: 1, arbitrary: fc.constantFrom(...wholeAnswers).map((whole) => ({ whole })) },
      { weight: 5, arbitrary: fc.record({ at: fc.nat(), replacement: fc.constantFrom(...replacements) }) },
    ),
  )
  .map(([answer, how]) => ({ answer, ...how }));

/** Every place in a value, as paths of keys; the value itself is []. */
function places(value: unknown, path: string[] = []): string[][] {
  if (!value || typeof value !== 'object') return [path];
  return [path, ...Object.entries(value).flatMap(([key, item]) => places(item, [...path, key]))];
}

/** The answer with the value at one of its places (counted round) replaced. */
function broken(answer: Answer, at: number, replacement: Replacement, credential: string): Answer {
  const copy = structuredClone(answer) as unknown as Record<string, unknown>;
  const all = places(copy).filter((path) => path.length > 0);
  const path = all[at % all.length]!;
  const parent = path.slice(0, -1).reduce<any>((node, key) => node[key], copy);
  const key = path.at(-1)!;
  const old = parent[key];
  const values: Record<Exclude<Replacement, 'missing'>, unknown> = {
    null: null,
    'in a list': [old],
    'empty object': {},
    text: 'text',
    number: 7,
    true: true,
    'lone surrogate': 'lone\ud800',
    credential,
  };
  if (replacement === 'missing') delete parent[key];
  else parent[key] = values[replacement];
  return copy as unknown as Answer;
}

/** The call under way: its toolkit, how one of its answers is broken, and how many answers it has had. */
let strangeCall: { toolkit: string; strange: Strange; answered: number } | undefined;
const reached = new Set<string>();
const strangeUpstream = createServer((req, res) => {
  req.resume().on('end', () => {
    const call = strangeCall!;
    const index = call.answered++;
    const path = req.url!.split('?')[0]!;
    const strange = call.strange;
    if (index === strange.answer && 'whole' in strange) return void res.writeHead(200, { 'content-type': strange.whole.type }).end(strange.whole.body);
    const plausible = plausibleAnswer(call.toolkit, req.method!, path);
    const answer =
      index === strange.answer && 'at' in strange ? broken(plausible, strange.at, strange.replacement, req.headers.authorization ?? '') : plausible;
    const headers: Record<string, string> = {};
    const metadata = answer['Dropbox-API-Result'];
    // A header is text: a string replacing the metadata is sent as it is (not JSON), anything else as JSON.
    if (metadata !== undefined) headers['dropbox-api-result'] = typeof metadata === 'string' ? metadata : JSON.stringify(metadata);
    // A header value carries no lone surrogate or non-ASCII character; Dropbox escapes them, and so does this stand-in.
    if (headers['dropbox-api-result'])
      headers['dropbox-api-result'] = headers['dropbox-api-result'].replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const download = typeof plausible.body === 'string';
    if (download && typeof answer.body === 'string') res.writeHead(200, { ...headers, 'content-type': 'application/octet-stream' }).end(answer.body);
    else if (answer.body === undefined) res.writeHead(200, headers).end();
    else res.writeHead(200, { ...headers, 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
  });
});
let strangeRuntime: Dispatcher;
const strangeClient = new UpstreamClient({ maxRetries: 0, timeoutMs: 10_000, deadlineMs: 10_000 });
const handlerToolkits = toolkits.filter((toolkit) => toolkit.name !== commerce.name && toolkit.tools.some((tool) => tool.handler));
export const answerFigures = { tools: 0, calls: 0, values: 0, unexpected: 0, otherErrors: 0 };

describe('strange upstream answers', () => {
  beforeAll(async () => {
    await new Promise<void>((resolve) => strangeUpstream.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(strangeUpstream.address() as AddressInfo).port}`;
    strangeRuntime = localDispatcher(handlerToolkits, {
      client: strangeClient,
      baseUrls: Object.fromEntries(handlerToolkits.map((toolkit) => [toolkit.name, url])),
      token: STRANGE_TOKEN,
      secrets: strangeSecrets,
    });
  });
  afterAll(async () => {
    await strangeClient.close();
    await new Promise<void>((resolve) => strangeUpstream.close(() => resolve()));
  });

  it('the inputs cover every tool with handler code that has an upstream', () => {
    const handled = handlerToolkits.flatMap((toolkit) => toolkit.tools.filter((tool) => tool.handler).map((tool) => `${toolkit.name}.${tool.name}`));
    expect(Object.keys(reaching).sort()).toEqual(handled.sort());
  });

  it.each(Object.keys(reaching))(`%s, ${ANSWER_RUNS} broken answers: no fatal error, no credential out`, async (name) => {
    const toolkit = name.split('.')[0]!;
    await fc.assert(
      fc.asyncProperty(strangeAnswer, async (strange) => {
        strangeCall = { toolkit, strange, answered: 0 };
        const result: ToolResult = await strangeRuntime.call(name, reaching[name]);
        if (strangeCall.answered > 0) reached.add(name);
        answerFigures.calls++;
        const text = JSON.stringify(result);
        for (const secret of strangeCredentials) expect(text, `${name} leaked a credential`).not.toContain(secret);
        if ('value' in result) return void answerFigures.values++;
        const { kind, message, stacktrace } = result.error;
        expect(kind, `${name} answered ${JSON.stringify(strange)}: ${message} ${result.error.developer_message ?? ''}`).not.toBe('TOOL_RUNTIME_FATAL');
        expect(stacktrace).toBeUndefined();
        if (kind === 'UPSTREAM_RUNTIME_UNEXPECTED_RESPONSE') {
          answerFigures.unexpected++;
          expect(result.error.can_retry).toBe(false);
        } else answerFigures.otherErrors++;
      }),
      { seed: SEED, numRuns: ANSWER_RUNS, endOnFailure: true },
    );
    expect(reached.has(name), `${name} never reached the upstream: its input is refused before`).toBe(true);
    answerFigures.tools++;
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

  it('every tool with handler code had broken answers', () => {
    expect(answerFigures.tools).toBe(Object.keys(reaching).length);
    console.log(
      `strange answers: ${answerFigures.tools} tools, ${answerFigures.calls} calls, ${answerFigures.values} values, ${answerFigures.unexpected} unexpected responses, ${answerFigures.otherErrors} other errors`,
    );
  });
});
