/**
 * The Figma emulator over HTTP: auth, validation against Figma's published description, error shapes,
 * the team library cursors, the 32-megapixel export limit, and the image host.
 */
import { clientFor, type Call } from '@quiver/test-support/json-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClock } from '../../src/emulator/clock.js';
import { seedFigmaDemo } from '../../src/figma/demo.js';
import { startFigmaEmulator, type FigmaEmulator } from '../../src/figma/emulator.js';
import { sampleFile } from '../../src/figma/samples.js';

let emulator: FigmaEmulator;
let call: Call;

beforeAll(async () => {
  emulator = await startFigmaEmulator({ clock: createClock(Date.UTC(2025, 0, 1)) });
  call = clientFor(emulator.url, emulator.issueToken('figma-token'));
});

afterAll(() => emulator.close());

beforeEach(() => {
  emulator.reset();
  emulator.seed({
    team: { id: '5', name: 'Team' },
    project: { id: '6', name: 'Project' },
    files: [sampleFile('KEY1', 'One'), sampleFile('KEY2', 'Two'), sampleFile('KEY3', 'Three')],
    publisherToken: 'figma-token',
  });
});

describe('auth and validation', () => {
  it('refuses a call without a bearer token as Figma does: 403 Invalid token', async () => {
    const reply = await call('GET', '/v1/me', { headers: { authorization: null } });
    expect(reply).toMatchObject({ status: 403, body: { status: 403, err: 'Invalid token' } });
  });

  it.each([
    ['an unknown query parameter', 'GET', '/v1/files/KEY1', { query: { deep: 'yes' } }, /unknown query parameter 'deep'/],
    ['a scale above 4', 'GET', '/v1/images/KEY1', { query: { ids: '1:2', scale: 5 } }, /scale/],
    ['an unknown format', 'GET', '/v1/images/KEY1', { query: { ids: '1:2', format: 'gif' } }, /format/],
    ['a missing ids', 'GET', '/v1/files/KEY1/nodes', {}, /query parameter 'ids' is required/],
    ['a comment without message', 'POST', '/v1/files/KEY1/comments', { body: { comment_id: '1' } }, /message is required/],
    ['a comment with an unknown field', 'POST', '/v1/files/KEY1/comments', { body: { message: 'm', pinned: true } }, /pinned is not a known field/],
    ['a position of no documented shape', 'POST', '/v1/files/KEY1/comments', { body: { message: 'm', client_meta: { node_id: '1:2' } } }, /client_meta/],
  ] as const)('refuses %s with a 400 naming it', async (_case, method, path, options, message) => {
    const reply = await call(method, path, options as never);
    expect(reply.status).toBe(400);
    expect(reply.body.err).toMatch(message);
  });

  it('takes node ids in the API’s colon form only', async () => {
    const reply = await call('GET', '/v1/files/KEY1/nodes', { query: { ids: '1-2' } });
    expect(reply).toMatchObject({ status: 400, body: { err: 'Invalid node id in ids: 1-2; node ids look like 1:2' } });
    expect((await call('GET', '/v1/images/KEY1', { query: { ids: '1:2,1-3' } })).status).toBe(400);
  });

  it('answers the library routes’ errors in their own shape', async () => {
    expect(await call('GET', '/v1/components/nope')).toMatchObject({ status: 404, body: { status: 404, error: true, message: 'Component not found' } });
    expect(await call('GET', '/v1/teams/5/styles', { query: { after: 1, before: 9 } })).toMatchObject({
      status: 400,
      body: { error: true, message: 'after and before are exclusive; give one' },
    });
    expect(await call('GET', '/v1/files/NOPE')).toMatchObject({ status: 404, body: { status: 404, err: 'File not found' } });
  });

  it('a reply takes no position of its own', async () => {
    const top = await call('POST', '/v1/files/KEY1/comments', { body: { message: 'top', client_meta: { x: 10, y: 20 } } });
    expect(top.body.client_meta).toEqual({ x: 10, y: 20 });
    const reply = await call('POST', '/v1/files/KEY1/comments', { body: { message: 'reply', comment_id: top.body.id, client_meta: { x: 1, y: 1 } } });
    expect(reply).toMatchObject({ status: 400, body: { err: expect.stringMatching(/a reply takes no client_meta/) } });
  });
});

describe('team libraries', () => {
  const keys = (reply: { body: any }) => reply.body.meta.components.map((c: any) => c.key);

  it('pages with Figma’s default of 30, and with after and before cursors', async () => {
    const all = await call('GET', '/v1/teams/5/components');
    expect(keys(all)).toHaveLength(9);
    expect(all.body.meta.cursor).toEqual({});

    const first = await call('GET', '/v1/teams/5/components', { query: { page_size: 4 } });
    expect(keys(first)).toEqual(['KEY1-button', 'KEY1-badge-info', 'KEY1-badge-warning', 'KEY2-button']);
    expect(Object.keys(first.body.meta.cursor)).toEqual(['after']);
    const second = await call('GET', '/v1/teams/5/components', { query: { page_size: 4, after: first.body.meta.cursor.after } });
    expect(keys(second)).toEqual(['KEY2-badge-info', 'KEY2-badge-warning', 'KEY3-button', 'KEY3-badge-info']);
    const back = await call('GET', '/v1/teams/5/components', { query: { page_size: 2, before: second.body.meta.cursor.before } });
    expect(keys(back)).toEqual(['KEY1-badge-warning', 'KEY2-button']);
    expect((await call('GET', '/v1/teams/5/components', { query: { page_size: 1001 } })).status).toBe(400);
    expect((await call('GET', '/v1/teams/404/components')).status).toBe(404);
  });
});

describe('exports and the image host', () => {
  it('scales a render above 32 megapixels down, as Figma does', async () => {
    const { body } = await call('GET', '/v1/images/KEY1', { query: { ids: '1:2', scale: 4 } });
    const image = Buffer.from(await (await fetch(body.images['1:2'])).arrayBuffer());
    const [width, height] = [image.readUInt32BE(16), image.readUInt32BE(20)];
    expect(width * height).toBeLessThanOrEqual(32_000_000);
    expect(width / height).toBeCloseTo(1440 / 900, 2);
  });

  it('serves only what it exported, and only to GET and HEAD', async () => {
    const { body } = await call('GET', '/v1/images/KEY1', { query: { ids: '1:3', format: 'svg' } });
    const head = await fetch(body.images['1:3'], { method: 'HEAD' });
    expect([head.status, head.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
    expect((await fetch(body.images['1:3'], { method: 'DELETE' })).status).toBe(405);
    const unknown = await fetch(`${emulator.imagesUrl}/images/00000000-0000-0000-0000-000000000000`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('<Code>NoSuchKey</Code>');
  });
});

describe('demo data', () => {
  it('the sandbox demo holds team 1001, project 2001 and the file DEMOFILE with its library', async () => {
    emulator.reset();
    seedFigmaDemo(emulator, 'figma-token');
    expect((await call('GET', '/v1/teams/1001/projects')).body).toEqual({ name: 'Quiver Design', projects: [{ id: '2001', name: 'Website' }] });
    expect((await call('GET', '/v1/projects/2001/files')).body.files.map((f: any) => f.key)).toEqual(['DEMOFILE']);
    expect((await call('GET', '/v1/files/DEMOFILE/styles')).body.meta.styles.map((s: any) => s.name)).toEqual(['Brand/Primary']);
  });
});
