/**
 * End-to-end tests of every TaskboardApi tool: input validation, request building, HTTP and the answer,
 * through the core Runtime against the ClickUp emulator (which refuses any request that does not match
 * its operation, and checks its own answers against the operation's response schema). The last test
 * checks that all 7 catalog tools were called successfully.
 */
import { readFileSync } from 'node:fs';
import type { ToolError } from '@quiver/core';
import { createClock, startClickupEmulator, type ClickupEmulator } from '@quiver/sandbox';
import { taskboard } from '@quiver/toolkits';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolClient } from './tool-client.helpers.js';

const catalog = JSON.parse(readFileSync(new URL('../src/taskboard/catalog.json', import.meta.url), 'utf8')) as {
  tools: Array<{ name: string; parameters: Array<{ name: string; in?: string }>; requestBody?: { schema: unknown } }>;
};

const START = Date.UTC(2025, 0, 15, 9);
const HOUR = 3_600_000;
const TOKEN = 'taskboard-member-token';
const covered = new Set<string>();
// No retries: every call reaches the emulator at most once, so its request log stays exact.

let emulator: ClickupEmulator;
let me: number;
let teammate: number;
let team: string;
/** A space with custom task ids DEV-1, DEV-2, ... */
let space: string;
/** A space of another workspace, which the caller is not a member of. */
let foreignSpace: string;

beforeAll(async () => {
  emulator = await startClickupEmulator({ clock: createClock(START) });
  for (const token of [TOKEN, 'teammate-token', 'outsider-token']) emulator.issueToken(token);
  me = emulator.userFor(TOKEN);
  teammate = emulator.userFor('teammate-token');
  team = emulator.createWorkspace('Acme', [me, teammate]);
  space = emulator.createSpace(team, 'Engineering', { customTaskIdPrefix: 'DEV' });
  foreignSpace = emulator.createSpace(emulator.createWorkspace('Elsewhere', [emulator.userFor('outsider-token')]), 'Theirs');
});

afterAll(async () => {
  await emulator?.close();
  await Promise.all([...clients.values()].map((client) => client.close()));
});

/** One client per token: the user the emulator knows by it. */
const clients = new Map<string | undefined, ToolClient>();
const as = (token: string | undefined = TOKEN) =>
  clients.get(token) ?? clients.set(token, new ToolClient(taskboard, { upstream: () => emulator, token, covered, verbose: true })).get(token)!;

const call = (tool: string, input: Record<string, unknown>) => as().call(tool, input);
const fail = (tool: string, input: unknown, token?: string): Promise<ToolError> => as(token).fail(tool, input);
const execute = (tool: string, params: Record<string, unknown>, body: unknown) => as().execute(tool, params, body);
const failExecute = (tool: string, params: Record<string, unknown>, body: unknown) => as().failExecute(tool, params, body);

/** Runs `work` and returns what the emulator received meanwhile, as "METHOD path?query". */
async function sentDuring(work: () => Promise<unknown>): Promise<string[]> {
  const before = emulator.requests.length;
  await work();
  return emulator.requests.slice(before).map((request) => {
    const query = new URLSearchParams(
      Object.entries(request.query).flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((item) => [name, item])),
    );
    return `${request.method} ${request.path}${query.size ? `?${decodeURIComponent(query.toString())}` : ''}`;
  });
}

async function expectNothingSent<T>(work: () => Promise<T>): Promise<T> {
  let result: T;
  expect(await sentDuring(async () => (result = await work()))).toEqual([]);
  return result!;
}

let sequence = 0;
const unique = (prefix: string) => `${prefix} ${++sequence}`;

const newList = async (inSpace = space) => (await execute('CreateTaskboardList', { space_identifier: inSpace }, { name: unique('List') })).id as string;
const newTask = (listId: string, body: Record<string, unknown> = {}, params: Record<string, unknown> = {}) =>
  execute('CreateTaskInList', { list_id: listId, ...params }, { name: unique('Task'), ...body });
const tasksOf = async (listId: string, filters: Record<string, unknown> = {}) =>
  ((await call('GetTasksInList', { list_identifier: listId, ...filters })).tasks as Array<{ name: string }>).map((task) => task.name);

// ------------------------------------------------------------------------------------------------

describe('lists', () => {
  it('creates a folderless list with the space’s statuses', async () => {
    const name = unique('Sprint');
    const list = await execute(
      'CreateTaskboardList',
      { space_identifier: space },
      { name, content: 'Two weeks', priority: 2, assignee: teammate, due_date: START + 14 * 24 * HOUR },
    );
    expect(list).toMatchObject({
      name,
      content: 'Two weeks',
      priority: { priority: 'high' },
      assignee: { id: teammate },
      due_date: String(START + 14 * 24 * HOUR),
      space: { id: space },
      folder: { hidden: true },
    });
    expect(list.statuses.map((status: any) => [status.status, status.type])).toEqual([
      ['to do', 'open'],
      ['in progress', 'custom'],
      ['complete', 'closed'],
    ]);
    expect(await tasksOf(list.id)).toEqual([]);
  });

  it('refuses a list name the space already has (any case)', async () => {
    const name = unique('Backlog');
    await execute('CreateTaskboardList', { space_identifier: space }, { name });
    const error = await failExecute('CreateTaskboardList', { space_identifier: space }, { name: name.toUpperCase() });
    expect(error).toMatchObject({ kind: 'UPSTREAM_RUNTIME_BAD_REQUEST', status_code: 400 });
    expect(error.developer_message).toContain('List name taken');
  });

  it('refuses a priority outside 1 to 4 and an assignee outside the workspace', async () => {
    expect((await failExecute('CreateTaskboardList', { space_identifier: space }, { name: unique('L'), priority: 5 })).developer_message).toContain(
      'Priority must be 1',
    );
    const outsider = emulator.userFor('outsider-token');
    expect((await failExecute('CreateTaskboardList', { space_identifier: space }, { name: unique('L'), assignee: outsider })).developer_message).toContain(
      String(outsider),
    );
  });

  it('a space of a workspace the user is not in answers an auth error; an unknown one not found', async () => {
    expect(await failExecute('CreateTaskboardList', { space_identifier: foreignSpace }, { name: unique('L') })).toMatchObject({
      kind: 'UPSTREAM_RUNTIME_AUTH_ERROR',
      status_code: 401,
    });
    expect(await failExecute('CreateTaskboardList', { space_identifier: '1' }, { name: unique('L') })).toMatchObject({ kind: 'UPSTREAM_RUNTIME_NOT_FOUND' });
  });
});

describe('custom fields', () => {
  it('creates a drop-down field whose options get ids and order', async () => {
    const { field } = await execute(
      'CreateCustomField',
      { space_identifier: space },
      { name: unique('Stage'), type: 'drop_down', type_config: { options: [{ name: 'Design', color: '#f00' }, { name: 'Build' }] } },
    );
    expect(field.type).toBe('drop_down');
    expect(field.type_config.options.map((option: any) => [option.name, option.orderindex, option.color])).toEqual([
      ['Design', 0, '#f00'],
      ['Build', 1, null],
    ]);
    expect(field.type_config.options[0].id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('requires the settings each type needs', async () => {
    const refused = async (type: string, type_config: Record<string, unknown>, message: string) =>
      expect((await failExecute('CreateCustomField', { space_identifier: space }, { name: unique('F'), type, type_config })).developer_message).toContain(
        message,
      );
    await refused('drop_down', {}, 'type_config.options is required for drop_down');
    await refused('labels', { options: [] }, 'type_config.options is required for labels');
    await refused('currency', { precision: 2 }, 'type_config.currency_type is required');
    await refused('emoji', { code_point: '1f600' }, 'type_config.count is required');
    await refused('manual_progress', { start: 10, end: 0 }, 'start must be below');
    const { field } = await execute(
      'CreateCustomField',
      { space_identifier: space },
      { name: unique('Budget'), type: 'currency', type_config: { currency_type: 'EUR', precision: 2 } },
    );
    expect(field.type_config).toEqual({ currency_type: 'EUR', precision: 2 });
  });

  it('refuses a second field of the same name in the space', async () => {
    const name = unique('Owner');
    await execute('CreateCustomField', { space_identifier: space }, { name, type: 'short_text' });
    expect((await failExecute('CreateCustomField', { space_identifier: space }, { name, type: 'text' })).developer_message).toContain('already exists');
  });
});

describe('tasks', () => {
  it('creates a task with everything set and reads it back', async () => {
    const list = await newList();
    const { field: stage } = await execute(
      'CreateCustomField',
      { space_identifier: space },
      { name: unique('Stage'), type: 'drop_down', type_config: { options: [{ name: 'Design' }, { name: 'Build' }] } },
    );
    const { field: estimate } = await execute('CreateCustomField', { space_identifier: space }, { name: unique('Size'), type: 'number' });
    const created = await newTask(list, {
      name: 'Ship the importer',
      markdown_content: '**Bold** plan',
      assignees: [me, teammate],
      tags: ['Backend', 'urgent'],
      status: 'In Progress',
      priority: 1,
      due_date: START + 48 * HOUR,
      start_date: START,
      time_estimate: 2 * HOUR,
      points: 3,
      custom_fields: [
        { id: stage.id, value: 1 },
        { id: estimate.id, value: '8' },
      ],
    });
    expect(created).toMatchObject({
      name: 'Ship the importer',
      custom_id: expect.stringMatching(/^DEV-\d+$/),
      status: { status: 'in progress', type: 'custom' },
      assignees: [String(me), String(teammate)],
      tags: ['backend', 'urgent'],
      priority: { priority: 'urgent' },
      due_date: String(START + 48 * HOUR),
      time_estimate: String(2 * HOUR),
      points: 3,
      list: { id: list },
      space: { id: space },
      url: `https://app.clickup.com/t/${created.id}`,
    });
    const read = await call('RetrieveTaskDetails', { task_identifier: created.id });
    expect(read).toMatchObject({ id: created.id, description: '**Bold** plan', markdown_description: '**Bold** plan', time_spent: '0', checklists: [] });
    const values = Object.fromEntries(read.custom_fields.filter((f: any) => f.value).map((f: any) => [f.id, f.value.value]));
    expect(values).toEqual({ [stage.id]: 'Build', [estimate.id]: '8' });
  });

  it('numbers tasks DEV-1, DEV-2, ... in a space with custom task ids, and not at all in one without', async () => {
    const list = await newList();
    const first = await newTask(list);
    const second = await newTask(list);
    expect(Number(second.custom_id.split('-')[1])).toBe(Number(first.custom_id.split('-')[1]) + 1);
    const plain = await newTask(await newList(emulator.createSpace(team, unique('Plain'))));
    expect(plain.custom_id).toBeNull();
  });

  it('defaults to the list’s first status and refuses one the list does not have', async () => {
    const list = await newList();
    expect((await newTask(list)).status.status).toBe('to do');
    const error = await failExecute('CreateTaskInList', { list_id: list }, { name: 'x', status: 'blocked' });
    expect(error.status_code).toBe(400);
    expect(error.developer_message).toContain('Status does not exist: blocked');
  });

  it('refuses assignees outside the workspace, an empty name, and bad custom field values', async () => {
    const list = await newList();
    const outsider = emulator.userFor('outsider-token');
    expect((await failExecute('CreateTaskInList', { list_id: list }, { name: 'x', assignees: [outsider] })).developer_message).toContain(
      `Assignees not in the workspace: ${outsider}`,
    );
    expect((await failExecute('CreateTaskInList', { list_id: list }, { name: '  ' })).developer_message).toContain('Task name invalid');
    const { field: size } = await execute('CreateCustomField', { space_identifier: space }, { name: unique('Size'), type: 'number' });
    const { field: mail } = await execute('CreateCustomField', { space_identifier: space }, { name: unique('Contact'), type: 'email' });
    expect(
      (await failExecute('CreateTaskInList', { list_id: list }, { name: 'x', custom_fields: [{ id: size.id, value: 'big' }] })).developer_message,
    ).toContain('must be a number');
    expect(
      (await failExecute('CreateTaskInList', { list_id: list }, { name: 'x', custom_fields: [{ id: mail.id, value: 'nobody' }] })).developer_message,
    ).toContain('an email address');
    expect(
      (await failExecute('CreateTaskInList', { list_id: list }, { name: 'x', custom_fields: [{ id: 'no-such-field', value: 1 }] })).developer_message,
    ).toContain('not found in this space');
    // Nothing of the refused tasks was kept.
    expect(await tasksOf(list)).toEqual([]);
  });

  it('with check_required_custom_fields, refuses a task missing a required field', async () => {
    const fieldSpace = emulator.createSpace(team, unique('Strict'));
    const list = await newList(fieldSpace);
    const { field } = await execute('CreateCustomField', { space_identifier: fieldSpace }, { name: 'Customer', type: 'short_text', required: true });
    const error = await failExecute('CreateTaskInList', { list_id: list }, { name: 'x', check_required_custom_fields: true });
    expect(error.developer_message).toContain('Required custom fields have no value: Customer');
    // Without the check, or with the value, the task is created.
    await newTask(list);
    await newTask(list, { check_required_custom_fields: true, custom_fields: [{ id: field.id, value: 'Acme' }] });
    expect(await tasksOf(list)).toHaveLength(2);
  });

  it('makes a subtask of a parent named by its custom id, with use_custom_task_ids and the team', async () => {
    const list = await newList();
    const parent = await newTask(list);
    const child = await newTask(list, { parent: parent.custom_id }, { use_custom_task_ids: true, team_identifier: team });
    expect(child.parent).toBe(parent.id);
    const withSubtasks = await call('RetrieveTaskDetails', { task_identifier: parent.id, include_subtasks: true });
    expect(withSubtasks.subtasks.map((task: any) => task.id)).toEqual([child.id]);
    expect((await call('RetrieveTaskDetails', { task_identifier: parent.id })).subtasks).toBeUndefined();
    // A parent in another list is refused.
    const elsewhere = await newTask(await newList());
    expect((await failExecute('CreateTaskInList', { list_id: list }, { name: 'x', parent: elsewhere.id })).developer_message).toContain('same list');
  });

  it('sends team_id and custom_task_ids only when given; neither is required in execute', async () => {
    const list = await newList();
    const sent = await sentDuring(() => newTask(list));
    expect(sent).toEqual([`POST /v2/list/${list}/task`]);
    const parent = await newTask(list);
    const withIds = await sentDuring(() => newTask(list, { parent: parent.custom_id }, { use_custom_task_ids: true, team_identifier: team }));
    expect(withIds).toEqual([`POST /v2/list/${list}/task?team_id=${team}&custom_task_ids=true`]);
  });

  it('use_custom_task_ids without a team id is refused before anything is sent', async () => {
    const list = await newList();
    const error = await expectNothingSent(() => failExecute('CreateTaskInList', { list_id: list, use_custom_task_ids: true }, { name: 'x' }));
    expect(error.kind).toBe('TOOL_RUNTIME_BAD_INPUT_VALUE');
    expect(error.message).toMatch(/parameter 'team_identifier' is required when use_custom_task_ids is true/);
  });
});

describe('task details', () => {
  it('finds a task by its custom id within the team, and only with the team', async () => {
    const task = await newTask(await newList());
    const read = await call('RetrieveTaskDetails', { task_identifier: task.custom_id, use_custom_task_ids: true, team_id: team });
    expect(read.id).toBe(task.id);
    const error = await expectNothingSent(() => fail('RetrieveTaskDetails', { task_identifier: task.custom_id, use_custom_task_ids: true }));
    expect(error.message).toMatch(/parameter 'team_id' is required when use_custom_task_ids is true/);
    // As a plain id the custom id names nothing.
    expect((await fail('RetrieveTaskDetails', { task_identifier: task.custom_id })).kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');
    // The workspace must be one the user is in.
    const other = emulator.createWorkspace(unique('Other'), []);
    expect((await fail('RetrieveTaskDetails', { task_identifier: task.custom_id, use_custom_task_ids: true, team_id: other })).kind).toBe(
      'UPSTREAM_RUNTIME_AUTH_ERROR',
    );
  });

  it('a user outside the workspace cannot read the task', async () => {
    const task = await newTask(await newList());
    expect((await fail('RetrieveTaskDetails', { task_identifier: task.id }, 'outsider-token')).kind).toBe('UPSTREAM_RUNTIME_AUTH_ERROR');
  });
});

describe('listing tasks', () => {
  let list: string;
  let sizeField: string;
  let stageField: { id: string; options: Array<{ id: string; name: string }> };
  const names: Record<string, string> = {};

  beforeAll(async () => {
    // The clock runs on from here: each task below is created an hour after the one before.
    emulator.clock.set(START);
    list = await newList();
    sizeField = (await execute('CreateCustomField', { space_identifier: space }, { name: unique('Points'), type: 'number' })).field.id;
    const stage = (
      await execute(
        'CreateCustomField',
        { space_identifier: space },
        { name: unique('Phase'), type: 'drop_down', type_config: { options: [{ name: 'Alpha' }, { name: 'Beta' }] } },
      )
    ).field;
    stageField = { id: stage.id, options: stage.type_config.options };
    const create = async (key: string, body: Record<string, unknown>) => {
      emulator.clock.advance(HOUR);
      names[key] = (await newTask(list, { name: key, ...body })).name;
    };
    await create('a', {
      assignees: [me],
      tags: ['red'],
      due_date: START + 10 * HOUR,
      custom_fields: [
        { id: sizeField, value: 1 },
        { id: stage.id, value: 0 },
      ],
    });
    await create('b', {
      assignees: [teammate],
      tags: ['blue'],
      status: 'in progress',
      due_date: START + 20 * HOUR,
      custom_fields: [{ id: sizeField, value: 5 }],
    });
    await create('c', { tags: ['red', 'blue'], custom_fields: [{ id: stage.id, value: 1 }] });
    await create('closed', { status: 'complete' });
    await create('archived', { archived: true });
    const parent = (await call('GetTasksInList', { list_identifier: list })).tasks.find((task: any) => task.name === 'a');
    await create('sub', { parent: parent.id });
  });

  it('leaves out closed and archived tasks and subtasks unless asked, newest first', async () => {
    expect(await tasksOf(list)).toEqual(['c', 'b', 'a']);
    expect(await tasksOf(list, { include_closed_tasks: true })).toEqual(['closed', 'c', 'b', 'a']);
    expect(await tasksOf(list, { include_archived_tasks: true })).toEqual(['archived', 'c', 'b', 'a']);
    expect(await tasksOf(list, { include_subtasks: true })).toEqual(['sub', 'c', 'b', 'a']);
    expect(await tasksOf(list, { reverse_order: true })).toEqual(['a', 'b', 'c']);
  });

  it('filters by comma-separated statuses, assignees and tags, sent as repeated keys', async () => {
    expect(await tasksOf(list, { filter_by_statuses: 'In Progress, complete', include_closed_tasks: true })).toEqual(['closed', 'b']);
    expect(emulator.requests.at(-1)!.query).toEqual({ 'statuses[]': ['In Progress', 'complete'], include_closed: 'true' });
    expect(await tasksOf(list, { filter_by_assignees: `${me},${teammate}` })).toEqual(['b', 'a']);
    expect(await tasksOf(list, { filter_by_assignees: String(teammate) })).toEqual(['b']);
    expect(await tasksOf(list, { filter_by_tags: 'red' })).toEqual(['c', 'a']);
    expect(await tasksOf(list, { filter_by_tags: 'blue,red', filter_by_assignees: String(me) })).toEqual(['a']);
  });

  it('filters by due, created and updated times in Unix milliseconds, exclusive', async () => {
    expect(await tasksOf(list, { filter_due_date_after: START + 10 * HOUR })).toEqual(['b']);
    expect(await tasksOf(list, { filter_due_date_before: START + 20 * HOUR })).toEqual(['a']);
    // a was created (and last updated) just after START + 1h, b after + 2h, c after + 3h.
    expect(await tasksOf(list, { filter_created_after: START + 1.5 * HOUR, created_before_date: START + 2.5 * HOUR })).toEqual(['b']);
    expect(await tasksOf(list, { filter_date_updated_after: START + 2.5 * HOUR })).toEqual(['c']);
    expect(await tasksOf(list, { filter_tasks_updated_before: START + 1.5 * HOUR })).toEqual(['a']);
  });

  it('filters by custom fields given as a JSON array', async () => {
    const filter = (...filters: unknown[]) => tasksOf(list, { filter_by_custom_fields: JSON.stringify(filters) });
    expect(await filter({ field_id: sizeField, operator: '>', value: 2 })).toEqual(['b']);
    expect(await filter({ field_id: sizeField, operator: '=', value: 1 })).toEqual(['a']);
    expect(await filter({ field_id: sizeField, operator: 'RANGE', value: [0, 10] })).toEqual(['b', 'a']);
    expect(await filter({ field_id: sizeField, operator: 'IS NULL' })).toEqual(['c']);
    expect(await filter({ field_id: stageField.id, operator: 'ANY', value: [stageField.options[1]!.id] })).toEqual(['c']);
    expect(await filter({ field_id: stageField.id, operator: 'IS NOT NULL' }, { field_id: sizeField, operator: '<', value: 5 })).toEqual(['a']);
  });

  it('orders by id, created, updated or due date, and reverses', async () => {
    expect(await tasksOf(list, { order_tasks_by: 'id' })).toEqual(['c', 'b', 'a']);
    expect(await tasksOf(list, { order_tasks_by: 'due_date' })).toEqual(['b', 'a', 'c']);
    expect(await tasksOf(list, { order_tasks_by: 'due_date', reverse_order: true })).toEqual(['a', 'b', 'c']);
    await call('TrackTimeEntry', {
      mode: 'execute',
      task_identifier: (await call('GetTasksInList', { list_identifier: list, filter_by_tags: 'blue', filter_by_assignees: String(teammate) })).tasks[0].id,
      request_body: JSON.stringify({ start: START, end: START + HOUR, time: HOUR }),
    });
    expect((await tasksOf(list, { order_tasks_by: 'updated' }))[0]).toBe('b');
  });

  it('refuses filters it cannot send before anything goes out', async () => {
    const refused = async (input: Record<string, unknown>, message: RegExp) => {
      const error = await expectNothingSent(() => fail('GetTasksInList', { list_identifier: list, ...input }));
      expect(error.kind).toBe('TOOL_RUNTIME_BAD_INPUT_VALUE');
      expect(error.message).toMatch(message);
    };
    await refused({ filter_by_custom_fields: '{"field_id": "x"' }, /parameter 'filter_by_custom_fields' must be a JSON array/);
    await refused({ filter_by_custom_fields: '{"field_id": "x", "operator": "="}' }, /parameter 'filter_by_custom_fields' must be a non-empty JSON array/);
    await refused({ filter_by_custom_fields: '[{"field_id": "x", "operator": "LIKE"}]' }, /item 0 has operator "LIKE"/);
    await refused({ filter_by_assignees: 'ada,grace' }, /parameter 'filter_by_assignees' must be user ids/);
    await refused({ filter_by_statuses: ' , ' }, /parameter 'filter_by_statuses' must name at least one value/);
    await refused({ filter_due_date_after: -1 }, /parameter 'filter_due_date_after' must be >= 0/);
  });

  it('pages 100 tasks at a time, from page 0', async () => {
    const big = await newList();
    for (let i = 0; i < 101; i += 1) await newTask(big);
    const first = await call('GetTasksInList', { list_identifier: big, page_number: 0 });
    const second = await call('GetTasksInList', { list_identifier: big, page_number: 1 });
    expect([first.tasks.length, first.last_page, second.tasks.length, second.last_page]).toEqual([100, false, 1, true]);
    expect(new Set([...first.tasks, ...second.tasks].map((task: any) => task.id)).size).toBe(101);
  });
});

describe('time tracking', () => {
  it('logs time on a task, by id or by custom id, and adds it to time_spent', async () => {
    const task = await newTask(await newList());
    const entry = await execute('TrackTimeEntry', { task_identifier: task.id }, { start: START, end: START + 2 * HOUR, time: HOUR });
    expect(entry.id).toMatch(/^\d+$/);
    await execute(
      'TrackTimeEntry',
      { task_identifier: task.custom_id, use_custom_task_ids: true, team_id: team },
      { start: START, end: START + HOUR, time: 30 * 60_000 },
    );
    expect((await call('RetrieveTaskDetails', { task_identifier: task.id })).time_spent).toBe(String(HOUR + 30 * 60_000));
  });

  it('refuses an end before the start, a non-positive time, and a time longer than the interval', async () => {
    const task = await newTask(await newList());
    const refused = async (body: Record<string, number>, message: string) =>
      expect((await failExecute('TrackTimeEntry', { task_identifier: task.id }, body)).developer_message).toContain(message);
    await refused({ start: START, end: START - 1, time: 1 }, 'end must not be before start');
    await refused({ start: START, end: START + HOUR, time: 0 }, 'time must be more than 0');
    await refused({ start: START, end: START + HOUR, time: 2 * HOUR }, 'time must not exceed');
    expect((await call('RetrieveTaskDetails', { task_identifier: task.id })).time_spent).toBe('0');
  });

  it('use_custom_task_ids without team_id is refused before anything is sent', async () => {
    const error = await expectNothingSent(() =>
      failExecute('TrackTimeEntry', { task_identifier: 'DEV-1', use_custom_task_ids: true }, { start: 0, end: 1, time: 1 }),
    );
    expect(error.message).toMatch(/parameter 'team_id' is required when use_custom_task_ids is true/);
  });
});

describe('checklists', () => {
  it('creates the checklist, then each item in order, and answers the checklist with its items', async () => {
    const task = await newTask(await newList());
    let answer: any;
    const sent = await sentDuring(async () => {
      answer = await execute(
        'CreateChecklist',
        { task_id: task.id },
        { name: 'Release', items: [{ name: 'Tag' }, { name: 'Publish', assignee: teammate }, { name: 'Announce' }] },
      );
    });
    const id = answer.checklist.id;
    expect(sent).toEqual([`POST /v2/task/${task.id}/checklist`, ...Array(3).fill(`POST /v2/checklist/${id}/checklist_item`)]);
    expect(emulator.requests.at(-4)!.body).toEqual({ name: 'Release' });
    expect(answer.checklist).toMatchObject({ task_id: task.id, name: 'Release', resolved: 0, unresolved: 3 });
    expect(answer.checklist.items.map((item: any) => [item.name, item.orderindex, item.assignee, item.resolved])).toEqual([
      ['Tag', 0, null, false],
      ['Publish', 1, teammate, false],
      ['Announce', 2, null, false],
    ]);
    expect((await call('RetrieveTaskDetails', { task_identifier: task.id })).checklists).toEqual([id]);
  });

  it('a checklist without items is one call', async () => {
    const task = await newTask(await newList());
    const sent = await sentDuring(() => execute('CreateChecklist', { task_id: task.id }, { name: 'Empty' }));
    expect(sent).toHaveLength(1);
  });

  it('when an item fails, the error says what was created', async () => {
    const task = await newTask(await newList());
    const outsider = emulator.userFor('outsider-token');
    const error = await failExecute(
      'CreateChecklist',
      { task_id: task.id },
      { name: 'Partly', items: [{ name: 'First' }, { name: 'Second', assignee: outsider }, { name: 'Third' }] },
    );
    expect(error.kind).toBe('UPSTREAM_RUNTIME_BAD_REQUEST');
    expect(error.message).toMatch(/^Checklist [0-9a-f-]{36} \("Partly"\) was created with 1 of 3 items; item 2 \("Second"\) failed: /);
    const [checklist] = (await call('RetrieveTaskDetails', { task_identifier: task.id })).checklists;
    expect(error.message).toContain(checklist);
  });

  it('checks the whole body, items included, before creating anything', async () => {
    const task = await newTask(await newList());
    const error = await expectNothingSent(() => failExecute('CreateChecklist', { task_id: task.id }, { name: 'x', items: [{ title: 'y' }] }));
    expect(error.kind).toBe('TOOL_RUNTIME_RETRY');
    expect(error.message).toMatch(/\/items\/0\/name \(items\[0\]\.name\) is required/);
    const tooMany = await expectNothingSent(() =>
      failExecute('CreateChecklist', { task_id: task.id }, { name: 'x', items: Array.from({ length: 51 }, (_, i) => ({ name: `i${i}` })) }),
    );
    expect(tooMany.message).toMatch(/\/items \(items\) must NOT have more than 50 items/);
  });

  it('an unknown task answers not found', async () => {
    expect((await failExecute('CreateChecklist', { task_id: 'nosuchtask' }, { name: 'x' })).kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');
  });
});

// ------------------------------------------------------------------------------------------------

describe('bad input is refused before anything is sent', () => {
  const cases: Array<[string, string, Record<string, unknown>, RegExp]> = [
    ['missing required', 'GetTasksInList', { page_number: 0 }, /parameter 'list_identifier' is required/],
    ['string given a number', 'RetrieveTaskDetails', { task_identifier: 42 }, /parameter 'task_identifier' must be a string/],
    ['integer given a string', 'GetTasksInList', { list_identifier: 'l', page_number: '1' }, /parameter 'page_number' must be an integer/],
    ['integer given a fraction', 'GetTasksInList', { list_identifier: 'l', created_before_date: 1.5 }, /parameter 'created_before_date' must be an integer/],
    ['boolean given a string', 'RetrieveTaskDetails', { task_identifier: 't', include_subtasks: 'yes' }, /parameter 'include_subtasks' must be a boolean/],
    [
      'bad enum',
      'GetTasksInList',
      { list_identifier: 'l', order_tasks_by: 'name' },
      /parameter 'order_tasks_by' must be one of: 'id', 'created', 'updated', 'due_date'/,
    ],
    ['unknown parameter', 'RetrieveTaskDetails', { task_identifier: 't', task_id: 't' }, /parameter 'task_id' is not a known field/],
    ['bad mode', 'CreateTaskInList', { mode: 'run' }, /parameter 'mode' must be one of/],
    ['missing mode', 'TrackTimeEntry', { task_identifier: 't', request_body: '{}' }, /parameter 'mode' is required/],
    [
      'request_body not a string',
      'CreateCustomField',
      { mode: 'execute', space_identifier: 's', request_body: { name: 'x' } },
      /parameter 'request_body' must be a string/,
    ],
    ['empty path value', 'RetrieveTaskDetails', { task_identifier: '' }, /parameter 'task_identifier' must not be empty/],
  ];

  it.each(cases)('%s (%s)', async (_label, tool, input, message) => {
    const error = await expectNothingSent(() => fail(tool, input));
    expect(error.kind).toBe('TOOL_RUNTIME_BAD_INPUT_VALUE');
    expect(error.message).toMatch(message);
  });

  const modeCases: Array<[string, string, Record<string, unknown>, RegExp]> = [
    ['missing path parameter', 'CreateTaskboardList', { request_body: '{"name":"x"}' }, /^Missing space_identifier: required when mode is "execute"\.$/],
    ['missing path parameter (handler)', 'CreateChecklist', { request_body: '{"name":"x"}' }, /^Missing task_id: required/],
    [
      'missing path parameter (optional query left out)',
      'TrackTimeEntry',
      { request_body: '{"start":0,"end":1,"time":1}' },
      /^Missing task_identifier: required/,
    ],
    ['absent request_body', 'CreateCustomField', { space_identifier: 's' }, /^request_body is required when mode is "execute"\.$/],
    ['invalid JSON', 'CreateTaskInList', { list_id: 'l', request_body: '{"name": "x"' }, /^request_body is not valid JSON: /],
    ['invalid JSON (handler)', 'CreateChecklist', { task_id: 't', request_body: 'name: x' }, /^request_body is not valid JSON: /],
    ['schema: wrong type', 'TrackTimeEntry', { task_identifier: 't', request_body: '{"start":"0","end":1,"time":1}' }, /\/start \(start\) must be an integer/],
    ['schema: missing field', 'CreateTaskInList', { list_id: 'l', request_body: '{}' }, /\/name \(name\) is required/],
    [
      'schema: unknown field',
      'CreateTaskboardList',
      { space_identifier: 's', request_body: '{"name":"x","statuses":[]}' },
      /\/statuses \(statuses\) is not a known field/,
    ],
    ['schema: bad enum', 'CreateCustomField', { space_identifier: 's', request_body: '{"name":"x","type":"rating"}' }, /\/type \(type\) must be one of: 'url'/],
  ];

  it.each(modeCases)('mode execute: %s (%s)', async (_label, tool, input, message) => {
    const error = await expectNothingSent(() => fail(tool, { mode: 'execute', ...input }));
    expect(error.kind).toBe('TOOL_RUNTIME_RETRY');
    expect(error.message).toMatch(message);
    expect(error.additional_prompt_content).toBeTruthy();
  });

  it('without a ClickUp token nothing is sent', async () => {
    const error = await expectNothingSent(() => fail('RetrieveTaskDetails', { task_identifier: 't' }, ''));
    expect(error.kind).toBe('TOOL_REQUIREMENTS_NOT_MET');
    expect(error.message).toContain('clickup');
  });
});

describe('get_request_schema', () => {
  it('returns each mode-driven tool’s schema from the catalog and sends nothing', async () => {
    const modeDriven = catalog.tools.filter((tool) => tool.requestBody);
    expect(modeDriven.map((tool) => tool.name)).toEqual(['CreateChecklist', 'CreateCustomField', 'CreateTaskInList', 'CreateTaskboardList', 'TrackTimeEntry']);
    for (const tool of modeDriven) {
      const value = (await expectNothingSent(() => call(tool.name, { mode: 'get_request_schema' }))) as any;
      expect(value.request_body_schema, tool.name).toEqual(tool.requestBody!.schema);
    }
  });
});

describe('coverage', () => {
  it('every one of the 7 catalog tools was called successfully through the runtime', () => {
    expect(catalog.tools).toHaveLength(7);
    expect(catalog.tools.map((tool) => tool.name).filter((name) => !covered.has(name))).toEqual([]);
  });
});
