/**
 * Every emulator checks credentials as its service does: a request without them, or with ones the
 * emulator did not issue, is refused in the service's own shape before anything else happens; an
 * issued one is served, and two issued ones are two callers where the service keeps accounts apart.
 */
import { clientFor, type CallOptions, type Reply } from '@quiver/test-support/json-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClickupEmulator } from '../../src/clickup/emulator.js';
import { startCustomerioEmulator } from '../../src/customerio/emulator.js';
import { basic } from '../customerio/customerio.helpers.js';
import { startDropboxEmulator } from '../../src/dropbox/emulator.js';
import { startFigmaEmulator } from '../../src/figma/emulator.js';
import { startGithubEmulator } from '../../src/github/emulator.js';
import { startGraphEmulator } from '../../src/graph/emulator.js';
import { startHubspotEmulator } from '../../src/hubspot/emulator.js';
import { startPylonEmulator } from '../../src/pylon/emulator.js';
import type { Emulator } from '../../src/emulator/define.js';

interface Case {
  start(): Promise<Emulator>;
  /** How the service's clients send a credential in the Authorization header. */
  authorization(credential: string): string;
  /** A credential to issue; tokens are made up by the emulator unless the service's credentials have a shape. */
  credential?(n: number): string;
  /** A request the issued credential may make, and the status it then gets. */
  request: [method: string, path: string, options?: CallOptions];
  served: number;
  /** The refusals: without credentials, and with ones never issued. */
  missing: { status: number; body: unknown };
  bogus: { status: number; body: unknown };
  /** Who the caller is, where the service says; two issued credentials must be two callers. */
  identity?(reply: Reply): unknown;
}

const bearer = (token: string) => `Bearer ${token}`;
const dropboxRefusal = {
  status: 401,
  body: { error_summary: expect.stringMatching(/^invalid_access_token\//), error: { '.tag': 'invalid_access_token' } },
};

const cases: Record<string, Case> = {
  HubSpot: {
    start: startHubspotEmulator,
    authorization: bearer,
    request: ['POST', '/marketing/v3/emails/', { body: { name: 'Hello' } }],
    served: 201,
    missing: { status: 401, body: { status: 'error', category: 'INVALID_AUTHENTICATION', message: expect.stringContaining('not found') } },
    bogus: { status: 401, body: { status: 'error', category: 'INVALID_AUTHENTICATION', message: expect.stringContaining('OAuth 2.0') } },
    identity: (reply) => reply.body.createdById,
  },
  GitHub: {
    start: startGithubEmulator,
    authorization: bearer,
    request: ['GET', '/user'],
    served: 200,
    missing: { status: 401, body: { message: 'Requires authentication', documentation_url: expect.stringContaining('docs.github.com') } },
    bogus: { status: 401, body: { message: 'Bad credentials', documentation_url: expect.stringContaining('docs.github.com') } },
    identity: (reply) => reply.body.login,
  },
  ClickUp: {
    start: startClickupEmulator,
    authorization: (token) => token,
    request: ['GET', '/v2/task/no-such-task'],
    served: 404,
    missing: { status: 401, body: { err: 'Authorization header required', ECODE: 'OAUTH_017' } },
    bogus: { status: 401, body: { err: 'Oauth token not found', ECODE: 'OAUTH_019' } },
  },
  'Customer.io': {
    start: startCustomerioEmulator,
    authorization: (credential) => basic(credential.split(':')[0]!, credential.split(':')[1]!),
    credential: (n) => `site-${n}:key-${n}`,
    request: ['GET', '/api/v1/accounts/region'],
    served: 200,
    missing: { status: 401, body: { meta: { error: expect.stringMatching(/^Unauthorized request/) } } },
    bogus: { status: 401, body: { meta: { error: 'Unauthorized request: unknown site id or API key' } } },
    identity: (reply) => reply.body.environment_id,
  },
  Dropbox: {
    start: startDropboxEmulator,
    authorization: bearer,
    request: ['POST', '/2/files/list_folder', { body: { path: '' } }],
    served: 200,
    missing: dropboxRefusal,
    bogus: dropboxRefusal,
  },
  // Figma answers a missing or unknown token with 403, not 401.
  Figma: {
    start: startFigmaEmulator,
    authorization: bearer,
    request: ['GET', '/v1/me'],
    served: 200,
    missing: { status: 403, body: { status: 403, err: 'Invalid token' } },
    bogus: { status: 403, body: { status: 403, err: 'Invalid token' } },
    identity: (reply) => reply.body.id,
  },
  Graph: {
    start: startGraphEmulator,
    authorization: bearer,
    request: ['GET', '/me'],
    served: 200,
    missing: { status: 401, body: { error: { code: 'InvalidAuthenticationToken', message: 'Access token is empty.' } } },
    bogus: { status: 401, body: { error: { code: 'InvalidAuthenticationToken', message: expect.stringContaining('JWT') } } },
    identity: (reply) => reply.body.id,
  },
  Pylon: {
    start: startPylonEmulator,
    authorization: bearer,
    request: ['GET', '/me'],
    served: 200,
    missing: { status: 401, body: { errors: [expect.stringContaining('Bearer')], request_id: expect.any(String) } },
    bogus: { status: 401, body: { errors: ['Unauthorized: invalid API token'], request_id: expect.any(String) } },
    identity: (reply) => reply.body.data.id,
  },
};

/** Every row of every table: a refused request must leave the state as it was. */
function rows({ db }: Emulator): number {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
  return tables.reduce((sum, table) => sum + (db.prepare(`SELECT COUNT(*) FROM "${table}"`).pluck().get() as number), 0);
}

describe.each(Object.entries(cases))('%s credentials', (_name, service) => {
  let emulator: Emulator;
  const [method, path, options = {}] = service.request;
  const send = (authorization: string | null) => clientFor(emulator.url)(method, path, { ...options, headers: { ...options.headers, authorization } });
  const issue = (n: number) => emulator.issueToken(service.credential?.(n));
  const bogus = service.credential ? 'nosuchsite:nokey' : 'not-a-real-token';

  beforeAll(async () => {
    emulator = await service.start();
  });
  afterAll(() => emulator.close());

  it('refuses a request without credentials in the service’s own shape', async () => {
    expect(await send(null)).toMatchObject(service.missing);
  });

  it('refuses credentials it did not issue, making no account for them', async () => {
    const before = rows(emulator);
    expect(await send(service.authorization(bogus))).toMatchObject(service.bogus);
    expect(rows(emulator)).toBe(before);
  });

  it('serves an issued credential, and keeps on refusing the others', async () => {
    const reply = await send(service.authorization(issue(1)));
    expect(reply.status).toBe(service.served);
    expect(await send(service.authorization(bogus))).toMatchObject(service.bogus);
  });

  it.skipIf(!service.identity)('tells two issued credentials apart as two callers', async () => {
    const [one, two] = [issue(2), issue(3)];
    const [first, second] = [await send(service.authorization(one)), await send(service.authorization(two))];
    expect([first.status, second.status]).toEqual([service.served, service.served]);
    expect(service.identity!(first)).toBeDefined();
    expect(service.identity!(first)).not.toEqual(service.identity!(second));
    expect(service.identity!(await send(service.authorization(one)))).toEqual(service.identity!(first));
  });
});
