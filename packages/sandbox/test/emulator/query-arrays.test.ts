/**
 * Array query parameters are read as each upstream reads them, per the operation table: repeated keys
 * where the parameter explodes (ClickUp's `statuses[]=a&statuses[]=b`, in which `a,b` is one status),
 * one comma-separated value where it does not (Graph's `$select=subject,isRead`).
 */
import { clientFor, type Call } from '@quiver/test-support/json-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClickupEmulator, type ClickupEmulator } from '../../src/clickup/emulator.js';
import { startGraphEmulator, type GraphEmulator } from '../../src/graph/emulator.js';

describe('repeated keys (explode), through the ClickUp emulator', () => {
  let emulator: ClickupEmulator;
  let call: Call;
  let list: string;

  beforeAll(async () => {
    emulator = await startClickupEmulator();
    call = clientFor(emulator.url, emulator.issueToken('member'));
    const space = emulator.createSpace(emulator.createWorkspace('Acme', [emulator.userFor('member')]), 'Space');
    list = (await call('POST', `/v2/space/${space}/list`, { body: { name: 'L' } })).body.id;
    for (const [name, status] of [
      ['A', 'to do'],
      ['B', 'in progress'],
    ]) {
      await call('POST', `/v2/list/${list}/task`, { body: { name, status } });
    }
  });
  afterAll(() => emulator.close());

  const names = async (statuses: string[]) => {
    const reply = await call('GET', `/v2/list/${list}/task`, { query: { 'statuses[]': statuses } });
    expect(reply.status).toBe(200);
    return reply.body.tasks.map((task: { name: string }) => task.name).sort();
  };

  it('reads each repeated key as one item, a single key as a list of one', async () => {
    expect(await names(['to do', 'in progress'])).toEqual(['A', 'B']);
    expect(await names(['in progress'])).toEqual(['B']);
  });

  it('does not split a value at its commas: `to do,in progress` is one status, which no task has', async () => {
    expect(await names(['to do,in progress'])).toEqual([]);
  });
});

describe('comma-separated values (explode: false), through the Graph emulator', () => {
  let emulator: GraphEmulator;
  let call: Call;

  beforeAll(async () => {
    emulator = await startGraphEmulator();
    emulator.addMailbox('ada', { displayName: 'Ada', mail: 'ada@contoso.example' });
    call = clientFor(emulator.url, 'ada');
    emulator.receive('ada', { from: { name: 'Bob', address: 'bob@example.com' }, subject: 'Hello', body: 'Hi' });
  });
  afterAll(() => emulator.close());

  it('splits one value at its commas into the items, each checked', async () => {
    const reply = await call('GET', '/me/messages', { query: { $select: 'subject,isRead' } });
    expect(reply.status).toBe(200);
    expect(reply.body.value).toHaveLength(1);
    expect(Object.keys(reply.body.value[0]).sort()).toEqual(['id', 'isRead', 'subject']);
    const unknown = await call('GET', '/me/messages', { query: { $select: 'subject,nonsense' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/\$select/);
  });

  it('refuses the parameter sent as repeated keys, naming it', async () => {
    const reply = await call('GET', '/me/messages', { query: { $select: ['subject', 'isRead'] } });
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toBe("query parameter '$select' must be sent once, its items separated by commas");
  });
});
