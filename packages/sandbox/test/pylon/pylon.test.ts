/**
 * The Pylon emulator over HTTP, as a client would drive it: auth, request validation, the issue
 * window and its 30-day limit, keyset paging, issue updates (Pylon's seven states, assignee and
 * team checks), notes, teams, users, contacts and the contact-search filter, and Pylon's error body.
 */
import { clientFor, TEST_TOKEN, type Call } from '@quiver/test-support/json-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startPylonEmulator, type PylonEmulator } from '../../src/pylon/emulator.js';
import { ISSUE_STATES } from '../../src/pylon/issues.js';
import { TEAM_PAGE_SIZE } from '../../src/pylon/teams.js';
import { supportWorkspace } from '../../src/pylon/workspace.js';

const DAY = 86_400_000;
let emulator: PylonEmulator;
let call: Call;

beforeAll(async () => {
  emulator = await startPylonEmulator();
  call = clientFor(emulator.url, emulator.issueToken(TEST_TOKEN));
});
afterAll(() => emulator.close());
beforeEach(() => emulator.reset());

const iso = (ms: number) => new Date(ms).toISOString();
const window = (days: number, endAgoDays = 0) => {
  const end = Date.now() - endAgoDays * DAY;
  return { start_time: iso(end - days * DAY), end_time: iso(end) };
};

function expectPylonError(reply: { status: number; body: any }, status: number, message: RegExp) {
  expect(reply.status).toBe(status);
  expect(reply.body.errors).toEqual([expect.stringMatching(message)]);
  expect(typeof reply.body.request_id).toBe('string');
}

describe('auth and the service account', () => {
  it('refuses a request without a bearer token with a 401 in Pylon error shape', async () => {
    expectPylonError(await call('GET', '/me', { headers: { authorization: null } }), 401, /Bearer/);
    expectPylonError(await call('GET', '/me', { headers: { authorization: 'Basic abc' } }), 401, /Bearer/);
  });

  it('answers /me with the service account each token belongs to', async () => {
    emulator.serviceAccountFor(emulator.issueToken('token-one'), 'Support automation');
    emulator.issueToken('token-two');
    const one = await clientFor(emulator.url, 'token-one')('GET', '/me');
    const two = await clientFor(emulator.url, 'token-two')('GET', '/me');
    expect(one.body.data.name).toBe('Support automation');
    expect(two.body.data.name).toMatch(/^API token \d+$/);
    expect(two.body.data.id).not.toBe(one.body.data.id);
    expect((await clientFor(emulator.url, 'token-two')('GET', '/me')).body.data).toEqual(two.body.data);
  });
});

describe('issue listing', () => {
  it('requires both ends of the window in RFC 3339 and refuses unknown parameters', async () => {
    expectPylonError(await call('GET', '/issues', { query: { end_time: iso(Date.now()) } }), 400, /start_time/);
    expectPylonError(await call('GET', '/issues', { query: { start_time: 'yesterday', end_time: iso(Date.now()) } }), 400, /start_time/);
    expectPylonError(await call('GET', '/issues', { query: { ...window(1), state: 'open' } }), 400, /unknown query parameter 'state'/);
  });

  it('refuses a window longer than 30 days or ending before it starts', async () => {
    expectPylonError(await call('GET', '/issues', { query: window(30.01) }), 400, /30 days/);
    expect((await call('GET', '/issues', { query: window(30) })).status).toBe(200);
    const { start_time, end_time } = window(2);
    expectPylonError(await call('GET', '/issues', { query: { start_time: end_time, end_time: start_time } }), 400, /before start_time/);
  });

  it('lists the issues created in the window, newest first, a page at a time with a keyset cursor', async () => {
    const loaded = emulator.load(supportWorkspace({ recentIssues: 60, olderIssues: 10, contacts: 0 }));
    const query = window(30);
    const expected = loaded.issues
      .filter((issue) => Date.parse(issue.created_at) >= Date.parse(query.start_time))
      .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || b.number - a.number)
      .map((issue) => issue.id);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; ; pages++) {
      const reply = await call('GET', '/issues', { query: { ...query, limit: 25, ...(cursor && { cursor }) } });
      expect(reply.status).toBe(200);
      seen.push(...reply.body.data.map((issue: any) => issue.id));
      if (pages === 0) emulator.addIssue({ title: 'Created between pages', body_html: '<p>new</p>' });
      if (!reply.body.pagination.has_next_page) {
        expect(reply.body.pagination.cursor).toBe('');
        break;
      }
      cursor = reply.body.pagination.cursor;
    }
    // An issue created meanwhile is newer than the first page, so it neither repeats nor shifts any.
    expect(seen).toEqual(expected);
    expect(expected).toHaveLength(60);
  });

  it('refuses a cursor it did not hand out and a limit out of range', async () => {
    expectPylonError(await call('GET', '/issues', { query: { ...window(1), cursor: 'not-a-cursor' } }), 400, /cursor/);
    expectPylonError(await call('GET', '/issues', { query: { ...window(1), limit: 0 } }), 400, /limit/);
  });
});

describe('one issue', () => {
  it('reads an issue by id or by number, and answers 404 for neither', async () => {
    const issue = emulator.addIssue({ title: 'Printer on fire', body_html: '<p>Really.</p>', tags: ['hardware'] });
    expect((await call('GET', `/issues/${issue.id}`)).body.data).toEqual(issue);
    expect((await call('GET', `/issues/${issue.number}`)).body.data.id).toBe(issue.id);
    expectPylonError(await call('GET', '/issues/999'), 404, /Issue 999 not found/);
  });

  it.each(ISSUE_STATES)('moves an issue from any state to %s', async (state) => {
    const issue = emulator.addIssue({ title: 'State change', body_html: '<p>x</p>', state: state === 'closed' ? 'snoozed' : 'closed' });
    const reply = await call('PATCH', `/issues/${issue.id}`, { body: { state } });
    expect(reply.status).toBe(200);
    expect(reply.body.data.state).toBe(state);
    expect((await call('GET', `/issues/${issue.number}`)).body.data.state).toBe(state);
  });

  it('refuses a state that is not one of the seven, an unknown assignee or team, and unknown fields', async () => {
    const issue = emulator.addIssue({ title: 'Checks', body_html: '<p>x</p>' });
    expectPylonError(await call('PATCH', `/issues/${issue.id}`, { body: { state: 'resolved' } }), 400, /state must be one of new, open/);
    expectPylonError(await call('PATCH', `/issues/${issue.id}`, { body: { assignee_id: 'nobody' } }), 404, /User nobody/);
    expectPylonError(await call('PATCH', `/issues/${issue.id}`, { body: { team_id: 'no-team' } }), 404, /Team no-team/);
    expectPylonError(await call('PATCH', `/issues/${issue.id}`, { body: { priority: 'high' } }), 400, /priority is not a known field/);
    expect((await call('GET', `/issues/${issue.id}`)).body.data.state).toBe('new');
  });

  it('assigns and unassigns, sets the team and replaces tags', async () => {
    const user = emulator.addUser({ name: 'Ada Lovelace', email: 'ada@example.test' });
    const team = emulator.addTeam('Billing', [user.id]);
    const issue = emulator.addIssue({ title: 'Assign me', body_html: '<p>x</p>', tags: ['a'] });
    const assigned = await call('PATCH', `/issues/${issue.id}`, { body: { assignee_id: user.id, team_id: team.id, tags: ['b', 'b', 'c'] } });
    expect(assigned.body.data).toMatchObject({ assignee: { id: user.id, email: 'ada@example.test' }, team: { id: team.id }, tags: ['b', 'c'] });
    const cleared = await call('PATCH', `/issues/${issue.id}`, { body: { assignee_id: '' } });
    expect(cleared.body.data.assignee).toBeUndefined();
  });

  it('adds an internal note by the token service account, or by a named user', async () => {
    const issue = emulator.addIssue({ title: 'Noted', body_html: '<p>x</p>' });
    const account = emulator.serviceAccountFor('test-token');
    const note = await call('POST', `/issues/${issue.number}/note`, { body: { body_html: '<p>Checked the logs.</p>' } });
    expect(note.body.data).toEqual({ id: expect.any(String), issue_id: issue.id });
    expect(emulator.db.prepare('SELECT body_html, author_id FROM issue_notes WHERE id = ?').get(note.body.data.id)).toEqual({
      body_html: '<p>Checked the logs.</p>',
      author_id: account.id,
    });
    expectPylonError(await call('POST', `/issues/${issue.id}/note`, { body: {} }), 400, /body_html is required/);
    expectPylonError(await call('POST', `/issues/${issue.id}/note`, { body: { body_html: 'x', user_id: 'ghost' } }), 404, /User ghost/);
    expectPylonError(await call('POST', '/issues/4040/note', { body: { body_html: 'x' } }), 404, /Issue 4040/);
  });
});

describe('users, teams and contacts', () => {
  it('pages users 20 at a time by default, and by limit', async () => {
    for (let i = 0; i < 25; i++) emulator.addUser({ name: `User ${i}`, email: `user${i}@example.test` });
    const first = await call('GET', '/users');
    expect(first.body.data).toHaveLength(20);
    expect(first.body.pagination.has_next_page).toBe(true);
    const rest = await call('GET', '/users', { query: { cursor: first.body.pagination.cursor } });
    expect(rest.body.data.map((user: any) => user.name)).toEqual(['User 20', 'User 21', 'User 22', 'User 23', 'User 24']);
    expect(rest.body.pagination).toEqual({ cursor: '', has_next_page: false });
    expect((await call('GET', '/users', { query: { limit: 3 } })).body.data).toHaveLength(3);
  });

  it('pages teams at its own size and reads one team with its members', async () => {
    const ada = emulator.addUser({ name: 'Ada', email: 'ada@example.test' });
    const alan = emulator.addUser({ name: 'Alan', email: 'alan@example.test' });
    for (let i = 0; i < TEAM_PAGE_SIZE + 1; i++) emulator.addTeam(`Team ${i}`);
    const first = await call('GET', '/teams');
    expect(first.body.data).toHaveLength(TEAM_PAGE_SIZE);
    const rest = await call('GET', '/teams', { query: { cursor: first.body.pagination.cursor } });
    expect(rest.body.data.map((team: any) => team.name)).toEqual([`Team ${TEAM_PAGE_SIZE}`]);
    const team = emulator.addTeam('Escalations', [alan.id, ada.id]);
    expect((await call('GET', `/teams/${team.id}`)).body.data).toEqual({
      id: team.id,
      name: 'Escalations',
      users: [
        { id: alan.id, email: 'alan@example.test' },
        { id: ada.id, email: 'ada@example.test' },
      ],
    });
    expectPylonError(await call('GET', '/teams/nope'), 404, /Team nope/);
  });

  it('searches contacts with the filter operators, without regard to case', async () => {
    const maria = emulator.addContact({ name: 'Maria Garcia', email: 'Maria.Garcia@northwind.example', account_id: 'acct-1' });
    const wei = emulator.addContact({ name: 'Wei Chen', email: 'wei@contoso.example', emails: ['wei.chen@contoso.example'] });
    const lone = emulator.addContact({ name: 'No Email' });
    const names = async (filter: unknown) => {
      const reply = await call('POST', '/contacts/search', { body: { filter } });
      expect(reply.status).toBe(200);
      return reply.body.data.map((contact: any) => contact.name);
    };
    expect(await names({ field: 'email', operator: 'equals', value: 'maria.garcia@NORTHWIND.example' })).toEqual([maria.name]);
    expect(await names({ field: 'email', operator: 'equals', value: 'wei.chen@contoso.example' })).toEqual([wei.name]);
    expect(await names({ field: 'name', operator: 'string_contains', value: 'garc' })).toEqual([maria.name]);
    expect(await names({ field: 'email', operator: 'is_unset' })).toEqual([lone.name]);
    expect(await names({ field: 'id', operator: 'in', values: [maria.id, lone.id] })).toEqual([maria.name, lone.name]);
    expect(
      await names({
        field: 'name',
        operator: 'or',
        subfilters: [
          { field: 'account_id', operator: 'equals', value: 'acct-1' },
          { field: 'name', operator: 'equals', value: 'wei chen' },
        ],
      }),
    ).toEqual([maria.name, wei.name]);
    expect(
      await names({
        field: 'name',
        operator: 'and',
        subfilters: [
          { field: 'email', operator: 'is_set' },
          { field: 'name', operator: 'string_does_not_contain', value: 'maria' },
        ],
      }),
    ).toEqual([wei.name]);
    expectPylonError(
      await call('POST', '/contacts/search', { body: { filter: { field: 'name', operator: 'time_is_after', value: '2025-01-01T00:00:00Z' } } }),
      400,
      /time field/,
    );
    expectPylonError(
      await call('POST', '/contacts/search', { body: { filter: { field: 'phone', operator: 'equals', value: '1' } } }),
      400,
      /phone is not supported/,
    );
    expectPylonError(
      await call('POST', '/contacts/search', { body: { filter: { field: 'name', operator: 'like', value: '1' } } }),
      400,
      /operator must be one of/,
    );
  });

  it('pages contacts and contact searches', async () => {
    for (let i = 0; i < 30; i++) emulator.addContact({ name: `Contact ${i}`, email: `c${i}@example.test` });
    const page = await call('GET', '/contacts');
    expect(page.body.data).toHaveLength(20);
    const found = await call('POST', '/contacts/search', {
      body: { filter: { field: 'email', operator: 'string_contains', value: 'example.test' }, limit: 25 },
    });
    expect(found.body.data).toHaveLength(25);
    const more = await call('POST', '/contacts/search', {
      body: { filter: { field: 'email', operator: 'string_contains', value: 'example.test' }, limit: 25, cursor: found.body.pagination.cursor },
    });
    expect(more.body.data.map((contact: any) => contact.name)).toEqual(['Contact 25', 'Contact 26', 'Contact 27', 'Contact 28', 'Contact 29']);
  });
});

describe('the generated workspace', () => {
  it('is the same for the same seed and differs for another', () => {
    expect(supportWorkspace({ seed: 7 })).toEqual(supportWorkspace({ seed: 7 }));
    expect(supportWorkspace({ seed: 7 }).issues[0]).not.toEqual(supportWorkspace({ seed: 8 }).issues[0]);
    const workspace = supportWorkspace();
    expect(workspace.issues.filter((issue) => issue.age_ms < 30 * DAY)).toHaveLength(440);
    expect(workspace.issues.filter((issue) => issue.age_ms > 30 * DAY)).toHaveLength(40);
    expect(new Set(workspace.issues.flatMap((issue) => issue.tags)).size).toBeGreaterThanOrEqual(8);
  });
});
