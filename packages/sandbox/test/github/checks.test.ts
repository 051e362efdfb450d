import { beforeEach, describe, expect, it } from 'vitest';
import { checksHandlers, createChecksTables } from '../../src/github/checks.js';
import { caller, fakeContext, type Caller, type FakeContext } from './fake-context.helpers.js';
import { gitDataHandlers } from '../../src/github/git-data.js';

let ctx: FakeContext;
let call: Caller;
let sha: string;
const repo = { owner: 'octocat', repo: 'hello-world' };

beforeEach(() => {
  ctx = fakeContext(createChecksTables);
  ctx.addRepository('octocat/hello-world');
  call = caller(ctx, { ...checksHandlers, ...gitDataHandlers });
  sha = call('git/get-ref', { params: { ...repo, ref: 'heads/main' } }).body.object.sha;
});

const create = (body: Record<string, unknown>) => call('checks/create', { params: repo, body: { name: 'build', head_sha: sha, ...body } }).body;
const update = (run: { id: number }, body: Record<string, unknown>) => call('checks/update', { params: { ...repo, check_run_id: String(run.id) }, body }).body;
const suite = (id: number) => call('checks/get-suite', { params: { ...repo, check_suite_id: String(id) } }).body;

describe('check runs', () => {
  it('starts queued, and a conclusion completes the run', () => {
    const run = create({});
    expect(run).toMatchObject({ status: 'queued', conclusion: null, head_sha: sha, completed_at: null });
    expect(update(run, { status: 'in_progress' })).toMatchObject({ status: 'in_progress', conclusion: null });
    const done = update(run, { conclusion: 'success' });
    expect(done).toMatchObject({ status: 'completed', conclusion: 'success' });
    expect(done.completed_at).toBe('2025-01-15T12:00:00Z');
    expect(create({ status: 'completed', conclusion: 'failure' })).toMatchObject({ status: 'completed', conclusion: 'failure' });
  });

  it('needs a conclusion to complete, and refuses stale or contradictory states', () => {
    const run = create({});
    const fails = (body: Record<string, unknown>) => call.fails('checks/update', { params: { ...repo, check_run_id: String(run.id) }, body });
    expect(fails({ status: 'completed' }).status).toBe(422);
    expect(fails({ completed_at: '2025-01-15T12:00:00Z' }).status).toBe(422);
    expect(fails({ conclusion: 'stale' }).status).toBe(422);
    expect(fails({ status: 'in_progress', conclusion: 'success' }).status).toBe(422);
    expect(call.fails('checks/create', { params: repo, body: { name: 'x', head_sha: 'b'.repeat(40) } }).status).toBe(422);
  });

  it('keeps annotations across updates and lists them', () => {
    const annotation = { path: 'src/a.ts', start_line: 3, end_line: 3, start_column: 1, end_column: 4, annotation_level: 'warning', message: 'unused' };
    const run = create({ output: { title: 'Lint', summary: '1 warning', annotations: [annotation] } });
    update(run, {
      output: { title: 'Lint', summary: '2 warnings', annotations: [{ ...annotation, start_line: 5, end_line: 9, annotation_level: 'failure' }] },
    });
    const got = call('checks/get', { params: { ...repo, check_run_id: String(run.id) } }).body;
    expect(got.output).toMatchObject({ title: 'Lint', summary: '2 warnings', annotations_count: 2 });
    const annotations = call('checks/list-annotations', { params: { ...repo, check_run_id: String(run.id) } }).body;
    expect(annotations.map((a: { start_line: number; start_column: number | null }) => [a.start_line, a.start_column])).toEqual([
      [3, 1],
      [5, null],
    ]);
  });

  it('lists runs for a ref and for a suite, latest per name unless filter=all', () => {
    const first = create({ name: 'build', conclusion: 'failure' });
    const second = create({ name: 'build' });
    const lint = create({ name: 'lint', status: 'in_progress' });
    const ids = (op: string, params: Record<string, string>, query: Record<string, string> = {}) =>
      call(op, { params: { ...repo, ...params }, query }).body.check_runs.map((r: { id: number }) => r.id);
    expect(ids('checks/list-for-ref', { ref: 'main' })).toEqual([lint.id, second.id]);
    expect(ids('checks/list-for-ref', { ref: sha }, { filter: 'all' })).toEqual([lint.id, second.id, first.id]);
    expect(ids('checks/list-for-ref', { ref: sha }, { check_name: 'lint' })).toEqual([lint.id]);
    expect(ids('checks/list-for-ref', { ref: sha }, { status: 'queued' })).toEqual([second.id]);
    expect(ids('checks/list-for-ref', { ref: sha }, { app_id: '999' })).toEqual([]);
    expect(ids('checks/list-for-suite', { check_suite_id: String(first.check_suite.id) }, { filter: 'all' })).toHaveLength(3);
  });
});

describe('check suites', () => {
  it('creates one suite per commit and app: 201 first, 200 after', () => {
    const created = call('checks/create-suite', { params: repo, body: { head_sha: sha } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ head_sha: sha, head_branch: 'main', status: 'queued', conclusion: null, latest_check_runs_count: 0 });
    expect(created.body.head_commit.message).toBe('Initial commit');
    const again = call('checks/create-suite', { params: repo, body: { head_sha: sha } });
    expect(again).toMatchObject({ status: 200, body: { id: created.body.id } });
    expect(create({}).check_suite.id).toBe(created.body.id);
  });

  it('derives status and conclusion from its runs', () => {
    const build = create({ name: 'build' });
    const id = build.check_suite.id;
    const lint = create({ name: 'lint', status: 'in_progress' });
    expect(suite(id)).toMatchObject({ status: 'in_progress', conclusion: null, latest_check_runs_count: 2 });
    update(build, { conclusion: 'success' });
    update(lint, { conclusion: 'neutral' });
    expect(suite(id)).toMatchObject({ status: 'completed', conclusion: 'success' });
    update(lint, { conclusion: 'failure' });
    expect(suite(id).conclusion).toBe('failure');
  });

  it('lists suites for a ref, rerequests, and stores preferences', () => {
    const run = create({ name: 'build' });
    const listed = call('checks/list-suites-for-ref', { params: { ...repo, ref: 'main' } }).body;
    expect(listed).toMatchObject({ total_count: 1, check_suites: [{ id: run.check_suite.id }] });
    expect(call('checks/list-suites-for-ref', { params: { ...repo, ref: 'main' }, query: { check_name: 'other' } }).body.total_count).toBe(0);
    expect(call('checks/rerequest-suite', { params: { ...repo, check_suite_id: String(run.check_suite.id) } }).status).toBe(201);
    expect(call('checks/rerequest-run', { params: { ...repo, check_run_id: String(run.id) } }).status).toBe(201);
    expect(call.fails('checks/rerequest-suite', { params: { ...repo, check_suite_id: '999' } }).status).toBe(404);
    call('checks/set-suites-preferences', { params: repo, body: { auto_trigger_checks: [{ app_id: 4, setting: false }] } });
    const prefs = call('checks/set-suites-preferences', { params: repo, body: { auto_trigger_checks: [{ app_id: 2, setting: true }] } }).body;
    expect(prefs.preferences.auto_trigger_checks).toEqual([
      { app_id: 2, setting: true },
      { app_id: 4, setting: false },
    ]);
  });
});
