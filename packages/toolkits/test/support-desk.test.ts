/**
 * End-to-end tests of every SupportDesk tool through the core Runtime against the Pylon emulator,
 * over a generated workspace of 480 issues (440 of the last 30 days) plus planted ones whose search
 * results are known: BM25 ranking, stems, AND / OR / NOT, the 30-day and 400-issue index, fuzzy
 * matching of users, teams and contacts with their thresholds, cursors, the 7-day default of
 * ListIssues, the seven states, assignment, notes, WhoAmI, and bad input with nothing sent. The last
 * test checks that all 13 tools were called successfully.
 */
import { ISSUE_STATES, startPylonEmulator, supportWorkspace, TEAM_PAGE_SIZE, type LoadedWorkspace, type PylonEmulator, type PylonIssue } from '@quiver/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog, DAY, planted, supportClient, type PlantedName } from './support-desk.helpers.js';
import type { ToolClient } from './tool-client.helpers.js';

const TOKEN = 'pylon-api-token-0123456789';
const covered = new Set<string>();
let emulator: PylonEmulator;
let desk: ToolClient;
let workspace: LoadedWorkspace;
const issues = {} as Record<PlantedName, PylonIssue>;

beforeAll(async () => {
  emulator = await startPylonEmulator();
  workspace = emulator.load(supportWorkspace());
  const now = emulator.clock.now();
  for (const [name, { age, ...issue }] of Object.entries(planted)) {
    issues[name as PlantedName] = emulator.addIssue({ ...issue, created_at: now - age * DAY, tags: ['planted'] });
  }
  desk = supportClient(emulator, { SUPPORT_API_TOKEN: TOKEN }, covered);
});

afterAll(async () => {
  await desk?.close();
  await emulator?.close();
});

/** Runs `work` and asserts that the emulator received no request meanwhile. */
async function expectNothingSent<T>(work: () => Promise<T>): Promise<T> {
  const before = emulator.requests.length;
  const result = await work();
  expect(emulator.requests.slice(before), 'requests the emulator received').toEqual([]);
  return result;
}

/** Runs `work` and returns the method and path of each request it made. */
async function requestsOf(work: () => Promise<unknown>): Promise<string[]> {
  const before = emulator.requests.length;
  await work();
  return emulator.requests.slice(before).map((request) => `${request.method} ${request.path}`);
}

const user = (email: string) => workspace.users.find((candidate) => candidate.email === email)!;
const stateOf = (issue: PylonIssue) => (emulator.db.prepare('SELECT state FROM issues WHERE id = ?').get(issue.id) as { state: string }).state;
const assigneeOf = (issue: PylonIssue) =>
  (emulator.db.prepare('SELECT assignee_id FROM issues WHERE id = ?').get(issue.id) as { assignee_id: string | null }).assignee_id;

describe('WhoAmI', () => {
  it("reports the API token's service account, sending the token as a bearer credential", async () => {
    emulator.serviceAccountFor(TOKEN, 'Support automation');
    const me = await desk.call('WhoAmI');
    expect(me.data).toEqual({ id: emulator.serviceAccountFor(TOKEN).id, name: 'Support automation' });
    const other = supportClient(emulator, { SUPPORT_API_TOKEN: 'another-token-value' }, covered);
    expect((await other.call('WhoAmI')).data.id).not.toBe(me.data.id);
    await other.close();
  });

  it('needs the API token, and sends nothing without it', async () => {
    const bare = supportClient(emulator, {}, covered);
    const error = await expectNothingSent(() => bare.fail('WhoAmI', {}));
    expect(error).toMatchObject({ kind: 'TOOL_REQUIREMENTS_NOT_MET', message: expect.stringContaining('SUPPORT_API_TOKEN') });
    await bare.close();
  });
});

describe('SearchIssues', () => {
  it('ranks with BM25: the issue with every query word, in title and description, comes first', async () => {
    const found = await desk.call('SearchIssues', { query: 'duplicate charge refund' });
    expect(found.results[0].id).toBe(issues.duplicateCharge.id);
    expect(found.results[0].score).toBeGreaterThan(found.results[1].score);
    expect(found.auto_accepted).toBe(false);
    expect(found.indexed_issues).toBe(400);
    expect(found.results.length).toBeLessThanOrEqual(10);
    expect(found.total_matches).toBeGreaterThan(10);
  });

  it('matches stems: billing finds an issue that only says billed, refund one that says refunded', async () => {
    const billing = await desk.call('SearchIssues', { query: 'billing AND growth AND invoice' });
    expect(billing.results.map((result: any) => result.id)).toContain(issues.duplicateCharge.id);
    expect(issues.duplicateCharge.title + issues.duplicateCharge.body_html).not.toMatch(/billing/i);
    const refunded = await desk.call('SearchIssues', { query: 'refunded AND chargeback' });
    expect(refunded.results).toEqual([]);
    const refundedDuplicate = await desk.call('SearchIssues', { query: 'refunds AND duplicates' });
    expect(refundedDuplicate.results.map((result: any) => result.id)).toEqual([issues.duplicateCharge.id]);
  });

  it('applies AND, OR and NOT', async () => {
    const ids = async (query: string) => (await desk.call('SearchIssues', { query })).results.map((result: any) => result.id).sort();
    expect(await ids('chargeback OR unused')).toEqual([issues.chargeback.id, issues.unusedSeat.id].sort());
    expect(await ids('refund AND duplicate')).toEqual([issues.duplicateCharge.id]);
    expect(await ids('(refund OR chargeback) AND (duplicate OR acme)')).toEqual([issues.duplicateCharge.id, issues.chargeback.id].sort());
    const withoutDuplicate = await desk.call('SearchIssues', { query: 'refund NOT duplicate' });
    const allRefunds = await desk.call('SearchIssues', { query: 'refund' });
    expect(withoutDuplicate.total_matches).toBe(allRefunds.total_matches - 1);
    expect(withoutDuplicate.results.map((result: any) => result.id)).not.toContain(issues.duplicateCharge.id);
    expect(allRefunds.results.map((result: any) => result.id)).toContain(issues.duplicateCharge.id);
  });

  it('indexes only the newest 400 issues of the last 30 days', async () => {
    expect((await desk.call('SearchIssues', { query: 'wombat' })).results).toEqual([]);
    expect((await desk.call('SearchIssues', { query: 'quokka' })).results).toEqual([]);
    const requests = await requestsOf(() => desk.call('SearchIssues', { query: 'zebrafish' }));
    // Four pages of 100, newest first, then no more.
    expect(requests).toEqual(Array(4).fill('GET /issues'));
    const window = emulator.requests.at(-1)!.query;
    expect(Date.parse(window.end_time as string) - Date.parse(window.start_time as string)).toBe(30 * DAY);
    // A newer issue with the same word is found: the window, not the word, kept the others out.
    const fresh = emulator.addIssue({ title: 'Another wombat', body_html: '<p>seen again</p>' });
    expect((await desk.call('SearchIssues', { query: 'wombat' })).results.map((result: any) => result.id)).toEqual([fresh.id]);
    emulator.db.prepare('DELETE FROM issues WHERE id = ?').run(fresh.id);
  });

  it('auto-accepts the best result only with auto_accept_matches and an 85 percent score gap', async () => {
    const lone = await desk.call('SearchIssues', { query: 'chargeback', auto_accept_matches: true });
    expect(lone).toMatchObject({ auto_accepted: true, issue: { id: issues.chargeback.id, title: planted.chargeback.title }, score_gap: 1 });
    const notAsked = await desk.call('SearchIssues', { query: 'chargeback' });
    expect(notAsked.auto_accepted).toBe(false);
    expect(notAsked.issue).toBeUndefined();
    const close = await desk.call('SearchIssues', { query: 'refund', auto_accept_matches: true });
    expect(close.auto_accepted).toBe(false);
    expect(close.message).toMatch(/85% is required/);
  });

  it('refuses a malformed query naming the parameter, and sends nothing', async () => {
    const error = await expectNothingSent(() => desk.fail('SearchIssues', { query: 'refund AND' }));
    expect(error).toMatchObject({ kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE', message: expect.stringMatching(/parameter 'query'.*AND needs a term/) });
  });
});

describe('GetIssue', () => {
  it('gets an issue by id and by number', async () => {
    expect((await desk.call('GetIssue', { lookup_by: 'id', value: issues.chargeback.id })).issue).toEqual(issues.chargeback);
    expect((await desk.call('GetIssue', { lookup_by: 'id', value: String(issues.chargeback.number) })).issue.id).toBe(issues.chargeback.id);
    const missing = await desk.fail('GetIssue', { lookup_by: 'id', value: '987654' });
    expect(missing).toMatchObject({ kind: 'UPSTREAM_RUNTIME_NOT_FOUND', message: 'No issue has the id or number 987654.' });
  });

  it('gets a searched issue when auto-accepted, else proposes candidates with scores', async () => {
    const found = await desk.call('GetIssue', { lookup_by: 'search', value: 'chargeback', auto_accept_matches: true });
    expect(found).toMatchObject({ issue: { id: issues.chargeback.id }, match: { score_gap: 1 } });
    const proposed = await desk.call('GetIssue', { lookup_by: 'search', value: 'chargeback' });
    expect(proposed).toMatchObject({
      issue: null,
      candidates: [{ id: issues.chargeback.id, score: expect.any(Number) }],
      message: expect.stringMatching(/auto_accept_matches is false.*lookup_by "id"/),
    });
    const none = await desk.call('GetIssue', { lookup_by: 'search', value: 'platypus', auto_accept_matches: true });
    expect(none).toMatchObject({ issue: null, candidates: [], message: expect.stringMatching(/No issue created in the last 30 days matches/) });
  });
});

describe('the score-gap thresholds', () => {
  it('accept a lead between 85 and 90 percent for GetIssue and UpdateIssueStatus but not for AssignIssue', async () => {
    const search = await desk.call('SearchIssues', { query: 'zebrafish', auto_accept_matches: true });
    expect(search.results.map((result: any) => result.id)).toEqual([issues.zebrafishTracker.id, issues.labMove.id]);
    const gap = 1 - search.results[1].score / search.results[0].score;
    expect(gap).toBeGreaterThanOrEqual(0.85);
    expect(gap).toBeLessThan(0.9);
    expect(search).toMatchObject({ auto_accepted: true, issue: { id: issues.zebrafishTracker.id } });

    expect((await desk.call('GetIssue', { lookup_by: 'search', value: 'zebrafish', auto_accept_matches: true })).issue.id).toBe(issues.zebrafishTracker.id);
    const assign = await desk.call('AssignIssue', {
      issue_lookup_by: 'search',
      issue_value: 'zebrafish',
      user_lookup_by: 'id',
      user_value: user('alan@quiver-support.test').id,
      auto_accept_matches: true,
    });
    expect(assign).toMatchObject({
      issue: null,
      unresolved: 'issue',
      candidates: [{ id: issues.zebrafishTracker.id }, { id: issues.labMove.id }],
      message: expect.stringMatching(/90% is required.*Nothing was changed/),
    });
    expect(assigneeOf(issues.zebrafishTracker)).toBeNull();
  });
});

describe('UpdateIssueStatus', () => {
  it.each(ISSUE_STATES)('sets the state %s by id, showing the change', async (state) => {
    const target = issues.unusedSeat;
    const before = stateOf(target);
    const requests = await requestsOf(async () => {
      const updated = await desk.call('UpdateIssueStatus', { lookup_by: 'id', value: target.id, state });
      expect(updated).toMatchObject({ issue: { id: target.id, state }, previous_state: before });
    });
    expect(requests).toEqual([`GET /issues/${target.id}`, `PATCH /issues/${target.id}`]);
    expect(stateOf(target)).toBe(state);
  });

  it('sets the state of an issue by number and of a searched issue when auto-accepted', async () => {
    await desk.call('UpdateIssueStatus', { lookup_by: 'id', value: String(issues.chargeback.number), state: 'waiting_on_customer' });
    expect(stateOf(issues.chargeback)).toBe('waiting_on_customer');
    const updated = await desk.call('UpdateIssueStatus', { lookup_by: 'search', value: 'chargeback', state: 'on_hold', auto_accept_matches: true });
    expect(updated).toMatchObject({ issue: { id: issues.chargeback.id, state: 'on_hold' }, previous_state: 'waiting_on_customer', match: { score_gap: 1 } });
    expect(stateOf(issues.chargeback)).toBe('on_hold');
  });

  it('changes nothing for a search that is not accepted', async () => {
    const before = stateOf(issues.duplicateCharge);
    const requests = await requestsOf(async () => {
      const answer = await desk.call('UpdateIssueStatus', { lookup_by: 'search', value: 'refund', state: 'closed', auto_accept_matches: true });
      expect(answer).toMatchObject({ issue: null, candidates: expect.any(Array), message: expect.stringMatching(/Nothing was changed/) });
    });
    expect(requests.some((request) => request.startsWith('PATCH'))).toBe(false);
    expect(stateOf(issues.duplicateCharge)).toBe(before);
  });
});

describe('AssignIssue', () => {
  it('assigns by issue id and user id', async () => {
    const alan = user('alan@quiver-support.test');
    const assigned = await desk.call('AssignIssue', { issue_lookup_by: 'id', issue_value: issues.labMove.id, user_lookup_by: 'id', user_value: alan.id });
    expect(assigned).toMatchObject({
      issue: { id: issues.labMove.id, assignee: { id: alan.id } },
      assignee: { id: alan.id, name: 'Alan Turing', email: alan.email },
      previous_assignee_id: null,
    });
    expect(assigneeOf(issues.labMove)).toBe(alan.id);
  });

  it('assigns a searched issue to a fuzzily named user when both are accepted', async () => {
    const grace = user('grace@quiver-support.test');
    const assigned = await desk.call('AssignIssue', {
      issue_lookup_by: 'search',
      issue_value: 'chargeback',
      user_lookup_by: 'name',
      user_value: 'hopper grace',
      auto_accept_matches: true,
    });
    expect(assigned).toMatchObject({ assignee: { id: grace.id }, issue_match: { score_gap: 1 }, user_match: { confidence: 1 } });
    expect(assigneeOf(issues.chargeback)).toBe(grace.id);
    const typo = await desk.call('AssignIssue', {
      issue_lookup_by: 'id',
      issue_value: issues.chargeback.id,
      user_lookup_by: 'name',
      user_value: 'Katherine Jonson',
      auto_accept_matches: true,
    });
    expect(typo.assignee.name).toBe('Katherine Johnson');
    expect(typo.user_match.confidence).toBeGreaterThanOrEqual(0.9);
  });

  it('changes nothing for a user name below 90 percent, or when matches are not auto-accepted', async () => {
    const before = assigneeOf(issues.unusedSeat);
    const partial = await desk.call('AssignIssue', {
      issue_lookup_by: 'id',
      issue_value: issues.unusedSeat.id,
      user_lookup_by: 'name',
      user_value: 'Grace',
      auto_accept_matches: true,
    });
    expect(partial).toMatchObject({
      issue: null,
      unresolved: 'user',
      candidates: [{ name: 'Grace Hopper', confidence: 0.5 }],
      message: expect.stringMatching(/50% confidence.*Nothing was changed/),
    });
    const notAsked = await desk.call('AssignIssue', {
      issue_lookup_by: 'id',
      issue_value: issues.unusedSeat.id,
      user_lookup_by: 'name',
      user_value: 'Grace Hopper',
    });
    expect(notAsked).toMatchObject({ issue: null, unresolved: 'user', candidates: [{ name: 'Grace Hopper', confidence: 1 }] });
    expect(assigneeOf(issues.unusedSeat)).toBe(before);
  });

  it('refuses an unknown user id without changing the issue', async () => {
    const requests = await requestsOf(async () => {
      const error = await desk.fail('AssignIssue', {
        issue_lookup_by: 'id',
        issue_value: issues.unusedSeat.id,
        user_lookup_by: 'id',
        user_value: 'no-such-user',
      });
      expect(error).toMatchObject({ kind: 'UPSTREAM_RUNTIME_NOT_FOUND', message: expect.stringMatching(/No user has the id no-such-user/) });
    });
    expect(requests).toEqual([`GET /issues/${issues.unusedSeat.id}`, 'GET /users']);
  });
});

describe('AddInternalNote', () => {
  it('adds plain text as escaped HTML, and HTML as written', async () => {
    const note = await desk.call('AddInternalNote', { issue_id: String(issues.duplicateCharge.number), body: 'Refunded <1 seat> & closed.\nSee the ledger.' });
    expect(note.data).toEqual({ id: expect.any(String), issue_id: issues.duplicateCharge.id });
    const stored = (id: string) =>
      emulator.db.prepare('SELECT body_html, author_id FROM issue_notes WHERE id = ?').get(id) as { body_html: string; author_id: string };
    expect(stored(note.data.id)).toEqual({
      body_html: '<p>Refunded &lt;1 seat&gt; &amp; closed.<br>See the ledger.</p>',
      author_id: emulator.serviceAccountFor(TOKEN).id,
    });
    const html = await desk.call('AddInternalNote', { issue_id: issues.duplicateCharge.id, body: '<p><b>Escalated</b></p>', as_html: true });
    expect(stored(html.data.id).body_html).toBe('<p><b>Escalated</b></p>');
  });

  it('reports a missing issue', async () => {
    expect(await desk.fail('AddInternalNote', { issue_id: '999999', body: 'x' })).toMatchObject({ kind: 'UPSTREAM_RUNTIME_NOT_FOUND', status_code: 404 });
  });
});

describe('ListIssues', () => {
  /** Every page; the window goes with the first call only, as the cursor carries it on. */
  async function listAll(filters: Record<string, unknown>, window: Record<string, unknown> = {}) {
    const seen: any[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await desk.call('ListIssues', { ...filters, ...(cursor ? { cursor } : window) });
      seen.push(...page.issues);
      if (!page.pagination.has_next_page) {
        expect(page.pagination.cursor).toBeNull();
        return { issues: seen, window: page.window };
      }
      cursor = page.pagination.cursor;
    }
  }

  it('lists the issues of the last 7 days by default, newest first, across pages', async () => {
    const { issues: listed, window } = await listAll({});
    expect(Date.parse(window.end_time) - Date.parse(window.start_time)).toBe(7 * DAY);
    const since = Date.parse(window.start_time);
    const expected = (
      emulator.db.prepare('SELECT id FROM issues WHERE created_at >= ? ORDER BY created_at DESC, number DESC').all(since) as Array<{ id: string }>
    ).map((row) => row.id);
    expect(listed.map((issue) => issue.id)).toEqual(expected);
    expect(expected.length).toBeGreaterThan(100);
    expect(expected.length).toBeLessThan(200);
  });

  it('filters by state, assignee, team and tags (issues must carry all the tags)', async () => {
    const billing = workspace.teams.find((team) => team.name === 'Billing Support')!;
    const ada = user('ada@quiver-support.test');
    const start = new Date(Date.now() - 20 * DAY).toISOString();
    const { issues: listed } = await listAll({ team_id: billing.id, tags: ['billing', 'urgent'] }, { start_time: start });
    const expected = workspace.issues.filter(
      (issue) => Date.parse(issue.created_at) >= Date.parse(start) && issue.team?.id === billing.id && issue.tags.includes('urgent'),
    );
    expect(listed.map((issue) => issue.id).sort()).toEqual(expected.map((issue) => issue.id).sort());
    expect(expected.length).toBeGreaterThan(0);
    const { issues: adas } = await listAll({ assignee_id: ada.id, state: 'open' }, { start_time: start });
    expect(adas.length).toBeGreaterThan(0);
    expect(adas.every((issue) => issue.assignee.id === ada.id && issue.state === 'open')).toBe(true);
  });

  it('takes an explicit window of at most 30 days, and its cursor keeps that window', async () => {
    const end = new Date(Date.now() - 25 * DAY).toISOString();
    const start = new Date(Date.now() - 35 * DAY).toISOString();
    const first = await desk.call('ListIssues', { start_time: start, end_time: end });
    expect(first.window).toEqual({ start_time: start, end_time: end });
    const older = (await listAll({}, { start_time: start, end_time: end })).issues.map((issue) => issue.id);
    expect(older).toContain(issues.quokkaOld.id);
    if (first.pagination.has_next_page) {
      const next = await desk.call('ListIssues', { cursor: first.pagination.cursor });
      expect(next.window).toEqual(first.window);
    }
    const error = await expectNothingSent(() => desk.fail('ListIssues', { start_time: new Date(Date.now() - 31 * DAY).toISOString() }));
    expect(error.message).toMatch(/more than 30 days/);
    expect((await expectNothingSent(() => desk.fail('ListIssues', { start_time: end, end_time: start }))).message).toMatch(/after end_time/);
    expect((await expectNothingSent(() => desk.fail('ListIssues', { cursor: first.pagination.cursor ?? 'x', start_time: start }))).message).toMatch(/cursor/);
    expect((await expectNothingSent(() => desk.fail('ListIssues', { cursor: 'not-ours' }))).message).toMatch(/not a cursor ListIssues returned/);
  });
});

describe('users', () => {
  it('lists users 20 to a page by default, and follows the cursor', async () => {
    for (let i = 0; i < 12; i++) emulator.addUser({ name: `Temp Agent ${i}`, email: `temp${i}@quiver-support.test` });
    const first = await desk.call('ListUsers');
    expect(first.data).toHaveLength(20);
    expect(emulator.requests.at(-1)!.query).toEqual({ limit: '20' });
    const second = await desk.call('ListUsers', { cursor: first.pagination.cursor, limit: 50 });
    expect(second.pagination.has_next_page).toBe(false);
    expect(first.data.length + second.data.length).toBe(workspace.users.length + 12);
  });

  it('finds users by fuzzy name or email, accepting one that alone reaches 90 percent', async () => {
    const exact = await desk.call('SearchUsers', { query: 'ada lovelace', auto_accept_matches: true });
    expect(exact).toMatchObject({ auto_accepted: true, user: { name: 'Ada Lovelace', email: 'ada@quiver-support.test' }, confidence: 1 });
    const byEmail = await desk.call('SearchUsers', { query: 'radia@quiver-support.test', auto_accept_matches: true });
    expect(byEmail).toMatchObject({ auto_accepted: true, user: { name: 'Radia Perlman' }, confidence: 1 });
    // Another address at the same domain is not nearly the same address.
    expect(byEmail.results.find((result: any) => result.name === 'Ada Lovelace')?.confidence ?? 0).toBeLessThan(0.9);
    const partial = await desk.call('SearchUsers', { query: 'Donald', auto_accept_matches: true });
    expect(partial).toMatchObject({
      auto_accepted: false,
      results: [{ name: 'Donald Knuth', confidence: 0.5 }],
      message: expect.stringMatching(/50% confidence/),
    });
    const notAsked = await desk.call('SearchUsers', { query: 'Ada Lovelace' });
    expect(notAsked.auto_accepted).toBe(false);
    expect(notAsked.results[0]).toMatchObject({ name: 'Ada Lovelace', confidence: 1 });
  });

  it('accepts no name that another user also matches at 90 percent', async () => {
    emulator.addUser({ name: 'John Smith', email: 'john@quiver-support.test' });
    emulator.addUser({ name: 'Jon Smith', email: 'jon@quiver-support.test' });
    const ambiguous = await desk.call('SearchUsers', { query: 'Jon Smith', auto_accept_matches: true });
    expect(ambiguous.auto_accepted).toBe(false);
    expect(ambiguous.results.slice(0, 2)).toEqual([
      expect.objectContaining({ name: 'Jon Smith', confidence: 1 }),
      expect.objectContaining({ name: 'John Smith', confidence: 0.9 }),
    ]);
    expect(ambiguous.message).toMatch(/Several candidates reach 90%/);
  });
});

describe('teams', () => {
  it('lists teams with members, and gets a team by id', async () => {
    const listed = await desk.call('ListTeams');
    expect(listed.data.map((team: any) => team.name)).toEqual(['Billing Support', 'Technical Support', 'Customer Success', 'Enterprise Accounts']);
    expect(listed.pagination.has_next_page).toBe(false);
    const billing = workspace.teams[0]!;
    const team = await desk.call('GetTeamAndAssignment', { lookup_by: 'id', value: billing.id });
    expect(team.team).toEqual(billing);
    expect(team.team.users.map((member: any) => member.email)).toEqual([
      'ada@quiver-support.test',
      'grace@quiver-support.test',
      'katherine@quiver-support.test',
    ]);
    expect(await desk.fail('GetTeamAndAssignment', { lookup_by: 'id', value: 'no-team' })).toMatchObject({
      kind: 'UPSTREAM_RUNTIME_NOT_FOUND',
      message: 'No team has the id no-team.',
    });
  });

  it('finds a team by fuzzy name at 90 percent, else proposes candidates', async () => {
    const typo = await desk.call('GetTeamAndAssignment', { lookup_by: 'name', value: 'technical suport', auto_accept_matches: true });
    expect(typo).toMatchObject({ team: { name: 'Technical Support', users: expect.any(Array) }, match: { confidence: expect.any(Number) } });
    expect(typo.match.confidence).toBeGreaterThanOrEqual(0.9);
    const partial = await desk.call('GetTeamAndAssignment', { lookup_by: 'name', value: 'Billing', auto_accept_matches: true });
    expect(partial).toMatchObject({ team: null, message: expect.stringMatching(/lookup_by "id"/) });
    expect(partial.candidates[0]).toMatchObject({ name: 'Billing Support', confidence: 0.5 });
    const notAsked = await desk.call('GetTeamAndAssignment', { lookup_by: 'name', value: 'Billing Support' });
    expect(notAsked.team).toBeNull();
    expect(notAsked.candidates[0]).toMatchObject({ name: 'Billing Support', confidence: 1 });
  });

  it('follows team pages while matching names', async () => {
    const crowded = await startPylonEmulator();
    const client = supportClient(crowded, { SUPPORT_API_TOKEN: TOKEN }, covered);
    for (let i = 0; i < TEAM_PAGE_SIZE; i++) crowded.addTeam(`Regional Team ${i}`);
    const last = crowded.addTeam('Night Shift');
    const found = await client.call('GetTeamAndAssignment', { lookup_by: 'name', value: 'night shift', auto_accept_matches: true });
    expect(found.team.id).toBe(last.id);
    const page = await client.call('ListTeams', {});
    const next = await client.call('ListTeams', { cursor: page.pagination.cursor });
    expect(next.data.map((team: any) => team.name)).toEqual(['Night Shift']);
    await client.close();
    await crowded.close();
  });
});

describe('contacts', () => {
  it('lists contacts 20 to a page by default, and by limit', async () => {
    const first = await desk.call('ListContacts');
    expect(first.data).toHaveLength(20);
    const second = await desk.call('ListContacts', { cursor: first.pagination.cursor, limit: 100 });
    expect(second.data).toHaveLength(40);
    expect(second.pagination.has_next_page).toBe(false);
  });

  it('looks an email address up exactly with one search call', async () => {
    const contact = workspace.contacts[5]!;
    const requests = await requestsOf(async () => {
      const found = await desk.call('SearchContacts', { query: contact.email, auto_accept_matches: true });
      expect(found).toMatchObject({ auto_accepted: true, contact: { id: contact.id }, confidence: 1, pages_scanned: 0 });
    });
    expect(requests).toEqual(['POST /contacts/search']);
    expect(emulator.requests.at(-1)!.body).toEqual({ filter: { field: 'email', operator: 'equals', value: contact.email }, limit: 10 });
  });

  it('matches names fuzzily over scanned pages', async () => {
    const found = await desk.call('SearchContacts', { query: 'Wei Chen', auto_accept_matches: true });
    expect(found).toMatchObject({ auto_accepted: true, contact: { name: 'Wei Chen' }, pages_scanned: 1, scan_complete: true });
    const partial = await desk.call('SearchContacts', { query: 'Garcia', auto_accept_matches: true });
    expect(partial.auto_accepted).toBe(false);
    // More Garcias than the ten candidates shown: every one shown is a Garcia, none sure enough to take.
    expect(workspace.contacts.filter((contact) => contact.name.endsWith(' Garcia')).length).toBeGreaterThan(10);
    expect(partial.results).toHaveLength(10);
    for (const result of partial.results) {
      expect(result.name).toMatch(/ Garcia$/);
      expect(result.confidence).toBeGreaterThanOrEqual(0.5);
      expect(result.confidence).toBeLessThan(0.9);
    }
  });

  it('scans at most max_pages pages of 100 (10 by default)', async () => {
    const crowded = await startPylonEmulator();
    const client = supportClient(crowded, { SUPPORT_API_TOKEN: TOKEN }, covered);
    for (let i = 0; i < 1050; i++) crowded.addContact({ name: `Customer ${i}`, email: `customer${i}@example.test` });
    crowded.addContact({ name: 'Wilhelmina Oyelaran', email: 'w.oyelaran@example.test' });
    const limited = await client.call('SearchContacts', { query: 'Wilhelmina Oyelaran', max_pages: 2 });
    expect(limited).toMatchObject({ pages_scanned: 2, scan_complete: false });
    expect(limited.results.map((result: any) => result.name)).not.toContain('Wilhelmina Oyelaran');
    const byDefault = await client.call('SearchContacts', { query: 'Wilhelmina Oyelaran' });
    expect(byDefault).toMatchObject({ pages_scanned: 10, scan_complete: false });
    const all = await client.call('SearchContacts', { query: 'Wilhelmina Oyelaran', max_pages: 11, auto_accept_matches: true });
    expect(all).toMatchObject({ pages_scanned: 11, scan_complete: true, auto_accepted: true, contact: { name: 'Wilhelmina Oyelaran' } });
    await client.close();
    await crowded.close();
  });
});

describe('bad input is refused with the parameter named, and nothing is sent', () => {
  const cases: Array<[string, string, Record<string, unknown>, RegExp]> = [
    ['missing required', 'GetIssue', { lookup_by: 'id' }, /value/],
    ['missing required', 'AssignIssue', { issue_lookup_by: 'id', issue_value: 'x', user_lookup_by: 'id' }, /user_value/],
    ['wrong type', 'ListUsers', { limit: 'ten' }, /limit/],
    ['wrong type', 'AddInternalNote', { issue_id: 'x', body: 'y', as_html: 'yes' }, /as_html/],
    ['wrong type', 'ListIssues', { tags: 'billing' }, /tags/],
    ['bad enum', 'UpdateIssueStatus', { lookup_by: 'id', value: 'x', state: 'resolved' }, /state/],
    ['bad enum', 'GetTeamAndAssignment', { lookup_by: 'email', value: 'x' }, /lookup_by/],
    ['bad enum', 'ListIssues', { state: 'pending' }, /state/],
    ['unknown parameter', 'WhoAmI', { verbose: true }, /verbose/],
    ['unknown parameter', 'SearchUsers', { query: 'ada', limit: 5 }, /limit/],
    ['bad format', 'ListIssues', { start_time: 'last week' }, /start_time/],
    ['out of range', 'ListContacts', { limit: 0 }, /limit/],
    ['out of range', 'SearchContacts', { query: 'x', max_pages: 0 }, /max_pages/],
    ['empty', 'SearchIssues', { query: '' }, /query/],
    ['blank', 'AddInternalNote', { issue_id: 'x', body: '   ' }, /body/],
  ];
  it.each(cases)('%s: %s %j', async (_shape, tool, input, parameter) => {
    const error = await expectNothingSent(() => desk.fail(tool, input));
    expect(error.kind).toBe('TOOL_RUNTIME_BAD_INPUT_VALUE');
    expect(error.message).toMatch(parameter);
  });

  it('refuses input that is not an object', async () => {
    expect((await expectNothingSent(() => desk.fail('ListTeams', []))).kind).toBe('TOOL_RUNTIME_BAD_INPUT_VALUE');
  });
});

describe('coverage', () => {
  it('called every tool of the catalog successfully', () => {
    const names = catalog.tools.map((tool) => tool.name).sort();
    expect(names).toHaveLength(13);
    expect([...covered].sort()).toEqual(names);
  });
});
