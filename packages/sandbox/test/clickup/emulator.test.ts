/**
 * The ClickUp emulator over HTTP, for what the tools never send: requests without credentials, with
 * unknown fields or parameters, on unknown routes, and custom task ids without a team. Behaviour the
 * tools reach is tested end to end in packages/toolkits/test/taskboard.test.ts.
 */
import { clientFor, type Call } from '@quiver/test-support/json-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startClickupEmulator, type ClickupEmulator } from '../../src/clickup/emulator.js';

let emulator: ClickupEmulator;
let call: Call;
let space: string;

beforeAll(async () => {
  emulator = await startClickupEmulator();
  call = clientFor(emulator.url, emulator.issueToken('member'));
});
afterAll(() => emulator.close());
beforeEach(() => {
  emulator.reset();
  space = emulator.createSpace(emulator.createWorkspace('Acme', [emulator.userFor('member')]), 'Space', { customTaskIdPrefix: 'AC' });
});

const newTask = async () => {
  const list = (await call('POST', `/v2/space/${space}/list`, { body: { name: 'L' } })).body;
  return { list: list.id as string, task: (await call('POST', `/v2/list/${list.id}/task`, { body: { name: 'T' } })).body };
};

describe('requests', () => {
  it('refuses a request without credentials with ClickUp’s error body', async () => {
    const reply = await call('GET', '/v2/task/x', { headers: { authorization: null } });
    expect(reply).toMatchObject({ status: 401, body: { err: 'Authorization header required', ECODE: 'OAUTH_017' } });
  });

  it('takes the token bare, as ClickUp’s own form, or as a bearer token: the same user', async () => {
    const { task } = await newTask();
    expect((await call('GET', `/v2/task/${task.id}`, { headers: { authorization: 'member' } })).status).toBe(200);
    expect(task.creator.id).toBe(emulator.userFor('member'));
  });

  it('names an unknown body field, a bad query value and an unknown query parameter', async () => {
    const { list } = await newTask();
    const unknown = await call('POST', `/v2/list/${list}/task`, { body: { name: 'T', title: 'x' } });
    expect(unknown).toMatchObject({ status: 400, body: { err: expect.stringContaining('title is not a known field'), ECODE: 'INPUT_UNKNOWN_FIELD' } });
    const order = await call('GET', `/v2/list/${list}/task`, { query: { order_by: 'name' } });
    expect(order).toMatchObject({ status: 400, body: { err: expect.stringContaining("query parameter 'order_by' must be one of") } });
    expect((await call('GET', `/v2/list/${list}/task`, { query: { statuses: 'open' } })).body.err).toContain("unknown query parameter 'statuses'");
    expect((await call('GET', `/v2/list/${list}/task`, { query: { custom_fields: 'not json' } })).body).toEqual({
      err: 'custom_fields must be a JSON array of filters',
      ECODE: 'FILTER_001',
    });
  });

  it('refuses custom task ids without a team id, and finds them with one', async () => {
    const { task } = await newTask();
    expect((await call('GET', `/v2/task/${task.custom_id}`, { query: { custom_task_ids: true } })).body).toMatchObject({ ECODE: 'ITEM_058' });
    const team = (
      await call('GET', `/v2/task/${task.custom_id}`, {
        query: { custom_task_ids: true, team_id: emulator.db.prepare('SELECT team_id FROM spaces WHERE id = ?').pluck().get(space) as string },
      })
    ).body;
    expect(team.id).toBe(task.id);
  });

  it('answers 404 for an unknown route and 405 for a wrong method', async () => {
    expect((await call('GET', '/v2/nothing')).status).toBe(404);
    expect((await call('DELETE', '/v2/task/x')).status).toBe(405);
  });

  it('reset empties the state and the request log', async () => {
    await newTask();
    emulator.reset();
    expect(emulator.requests).toEqual([]);
    expect(emulator.db.prepare('SELECT COUNT(*) FROM tasks').pluck().get()).toBe(0);
  });
});
