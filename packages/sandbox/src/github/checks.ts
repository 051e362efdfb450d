import type Database from 'better-sqlite3';
import { idParam, iso, minimalRepository, nodeId, numberParam, page, repoUrl, textParam, WEB } from './common.js';
import { GithubError, notFound, type GithubContext, type GithubRequest, type Handler, type Repository } from './context.js';
import { branchesAt, createGitDataTables, readCommit, resolveCommit } from './git-data.js';

/**
 * Check runs and check suites.
 *
 * Checks are written by GitHub Apps; the emulator's tokens belong to users, so every check is
 * credited to one emulated app (EMULATOR_APP). A suite is that app's container for one commit:
 * creating a run for a commit without a suite creates the suite, and create-suite answers 200
 * with the existing suite rather than making a second one.
 *
 * A run's status and conclusion move together: a conclusion completes the run, and a run is only
 * completed with a conclusion. A suite's status and conclusion are derived from its runs.
 */

export const EMULATOR_APP_ID = 1;

export function createChecksTables(db: Database.Database): void {
  createGitDataTables(db);
  db.exec(`
    CREATE TABLE IF NOT EXISTS check_suites (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      repo_id INTEGER NOT NULL,
      head_sha TEXT NOT NULL,
      app_id INTEGER NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      UNIQUE (repo_id, head_sha, app_id)
    );
    CREATE TABLE IF NOT EXISTS check_runs (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      suite_id INTEGER NOT NULL,
      repo_id INTEGER NOT NULL,
      head_sha TEXT NOT NULL,
      name TEXT NOT NULL,
      external_id TEXT,
      details_url TEXT,
      status TEXT NOT NULL,
      conclusion TEXT,
      started_at INTEGER,
      completed_at INTEGER,
      output_title TEXT,
      output_summary TEXT,
      output_text TEXT
    );
    CREATE INDEX IF NOT EXISTS check_runs_by_commit ON check_runs (repo_id, head_sha);
    CREATE TABLE IF NOT EXISTS check_annotations (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      run_id INTEGER NOT NULL,
      path TEXT NOT NULL,
      start_line INTEGER NOT NULL,
      end_line INTEGER NOT NULL,
      start_column INTEGER,
      end_column INTEGER,
      annotation_level TEXT NOT NULL,
      title TEXT,
      message TEXT NOT NULL,
      raw_details TEXT
    );
    CREATE TABLE IF NOT EXISTS check_suite_preferences (
      repo_id INTEGER NOT NULL,
      app_id INTEGER NOT NULL,
      setting INTEGER NOT NULL,
      PRIMARY KEY (repo_id, app_id)
    );
  `);
}

type RunStatus = 'queued' | 'in_progress' | 'completed';

interface CheckSuite {
  id: number;
  repo_id: number;
  head_sha: string;
  app_id: number;
  created_at: number;
  updated_at: number;
}

interface CheckRun {
  id: number;
  suite_id: number;
  repo_id: number;
  head_sha: string;
  name: string;
  external_id: string | null;
  details_url: string | null;
  status: RunStatus;
  conclusion: string | null;
  started_at: number | null;
  completed_at: number | null;
  output_title: string | null;
  output_summary: string | null;
  output_text: string | null;
}

interface Annotation {
  path: string;
  start_line: number;
  end_line: number;
  start_column?: number | null;
  end_column?: number | null;
  annotation_level: 'notice' | 'warning' | 'failure';
  title?: string | null;
  message: string;
  raw_details?: string | null;
}

const EPOCH = Date.UTC(2024, 0, 1);

const emulatorApp = {
  id: EMULATOR_APP_ID,
  slug: 'quiver-checks',
  node_id: nodeId('App', EMULATOR_APP_ID),
  owner: null,
  name: 'Quiver Checks',
  description: 'The app the emulator credits check runs and suites to.',
  external_url: WEB,
  html_url: `${WEB}/apps/quiver-checks`,
  created_at: iso(EPOCH),
  updated_at: iso(EPOCH),
  permissions: { checks: 'write', metadata: 'read', statuses: 'write' },
  events: ['check_run', 'check_suite'],
};

function repositoryOf(req: GithubRequest, ctx: GithubContext): Repository {
  const repo = ctx.repository(req.params.owner ?? '', req.params.repo ?? '');
  createChecksTables(ctx.db);
  return repo;
}

function headCommit(ctx: GithubContext, repo: Repository, given: string): string {
  const sha = /^[0-9a-f]{40}$/i.test(given) ? resolveCommit(ctx, repo, given) : undefined;
  if (!sha) throw new GithubError(422, `No commit found for SHA: ${given}`, [{ resource: 'CheckRun', field: 'head_sha', code: 'invalid' }]);
  return sha;
}

function suiteFor(ctx: GithubContext, repo: Repository, sha: string): { suite: CheckSuite; created: boolean } {
  const find = () =>
    ctx.db.prepare('SELECT * FROM check_suites WHERE repo_id = ? AND head_sha = ? AND app_id = ?').get(repo.id, sha, EMULATOR_APP_ID) as CheckSuite | undefined;
  const existing = find();
  if (existing) return { suite: existing, created: false };
  const now = ctx.clock.now();
  ctx.db
    .prepare('INSERT INTO check_suites (repo_id, head_sha, app_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)')
    .run(repo.id, sha, EMULATOR_APP_ID, now, now);
  return { suite: find()!, created: true };
}

function runOf(req: GithubRequest, ctx: GithubContext): { repo: Repository; run: CheckRun } {
  const repo = repositoryOf(req, ctx);
  const run = ctx.db.prepare('SELECT * FROM check_runs WHERE id = ? AND repo_id = ?').get(idParam(req, 'check_run_id'), repo.id) as CheckRun | undefined;
  if (!run) throw notFound();
  return { repo, run };
}

function suiteOf(req: GithubRequest, ctx: GithubContext): { repo: Repository; suite: CheckSuite } {
  const repo = repositoryOf(req, ctx);
  const suite = ctx.db.prepare('SELECT * FROM check_suites WHERE id = ? AND repo_id = ?').get(idParam(req, 'check_suite_id'), repo.id) as
    | CheckSuite
    | undefined;
  if (!suite) throw notFound();
  return { repo, suite };
}

const runsOfSuite = (db: Database.Database, suiteId: number) =>
  db.prepare('SELECT * FROM check_runs WHERE suite_id = ? ORDER BY id DESC').all(suiteId) as CheckRun[];

// ---------------------------------------------------------------------------------------------
// Views

function runView(db: Database.Database, repo: Repository, run: CheckRun) {
  const url = `${repoUrl(repo)}/check-runs/${run.id}`;
  const { n } = db.prepare('SELECT COUNT(*) AS n FROM check_annotations WHERE run_id = ?').get(run.id) as { n: number };
  return {
    id: run.id,
    head_sha: run.head_sha,
    node_id: nodeId('CheckRun', run.id),
    external_id: run.external_id,
    url,
    html_url: `${WEB}/${repo.fullName}/runs/${run.id}`,
    details_url: run.details_url,
    status: run.status,
    conclusion: run.conclusion,
    started_at: run.started_at === null ? null : iso(run.started_at),
    completed_at: run.completed_at === null ? null : iso(run.completed_at),
    output: {
      title: run.output_title,
      summary: run.output_summary,
      text: run.output_text,
      annotations_count: n,
      annotations_url: `${url}/annotations`,
    },
    name: run.name,
    check_suite: { id: run.suite_id },
    app: emulatorApp,
    pull_requests: [],
  };
}

/** The most telling conclusion among the runs wins; all-skipped suites are skipped. */
const CONCLUSION_ORDER = ['action_required', 'cancelled', 'timed_out', 'failure', 'stale', 'success', 'neutral', 'skipped'];

function suiteState(runs: CheckRun[]): { status: RunStatus; conclusion: string | null } {
  if (runs.length === 0 || runs.every((r) => r.status === 'queued')) return { status: 'queued', conclusion: null };
  if (runs.some((r) => r.status !== 'completed')) return { status: 'in_progress', conclusion: null };
  const conclusion = CONCLUSION_ORDER.find((c) => runs.some((r) => r.conclusion === c)) ?? null;
  return { status: 'completed', conclusion };
}

function suiteView(ctx: GithubContext, repo: Repository, suite: CheckSuite) {
  const runs = runsOfSuite(ctx.db, suite.id);
  const commit = readCommit(ctx, repo, suite.head_sha);
  const url = `${repoUrl(repo)}/check-suites/${suite.id}`;
  return {
    id: suite.id,
    node_id: nodeId('CheckSuite', suite.id),
    head_branch: branchesAt(ctx, repo, suite.head_sha)[0] ?? null,
    head_sha: suite.head_sha,
    ...suiteState(runs),
    url,
    before: null,
    after: suite.head_sha,
    pull_requests: [],
    app: emulatorApp,
    repository: minimalRepository(ctx, repo),
    created_at: iso(suite.created_at),
    updated_at: iso(suite.updated_at),
    head_commit: {
      id: suite.head_sha,
      tree_id: commit?.tree ?? '',
      message: commit?.message ?? '',
      timestamp: commit ? iso(Date.parse(commit.committer.date)) : iso(suite.created_at),
      author: commit ? { name: commit.author.name, email: commit.author.email } : null,
      committer: commit ? { name: commit.committer.name, email: commit.committer.email } : null,
    },
    latest_check_runs_count: latestOnly(runs).length,
    check_runs_url: `${url}/check-runs`,
    rerequestable: true,
    runs_rerequestable: true,
  };
}

// ---------------------------------------------------------------------------------------------
// Runs

interface RunInput {
  name?: string;
  head_sha?: string;
  details_url?: string;
  external_id?: string;
  status?: RunStatus;
  started_at?: string;
  conclusion?: string;
  completed_at?: string;
  output?: { title: string; summary: string; text?: string; annotations?: Annotation[] };
}

const invalid = (field: string, message: string) => new GithubError(422, message, [{ resource: 'CheckRun', field, code: 'invalid', message }]);

/** The run's status fields after `input`: a conclusion completes it, completion needs a conclusion. */
function nextState(current: Pick<CheckRun, 'status' | 'conclusion' | 'started_at' | 'completed_at'>, input: RunInput, now: number) {
  if (input.conclusion === 'stale') throw invalid('conclusion', 'Only GitHub can set a check run conclusion to stale.');
  const completing = input.conclusion !== undefined || input.status === 'completed' || input.completed_at !== undefined;
  if (completing && input.conclusion === undefined && !(input.status === undefined && current.conclusion)) {
    throw invalid('conclusion', 'conclusion is required when status is completed or completed_at is given.');
  }
  if (input.conclusion !== undefined && input.status !== undefined && input.status !== 'completed') {
    throw invalid('status', `A check run with a conclusion is completed; status ${input.status} contradicts it.`);
  }
  const started_at = input.started_at !== undefined ? Date.parse(input.started_at) : current.started_at;
  if (completing) {
    const completed_at = input.completed_at !== undefined ? Date.parse(input.completed_at) : (current.completed_at ?? now);
    return { status: 'completed' as const, conclusion: input.conclusion ?? current.conclusion, started_at, completed_at };
  }
  // Moving a completed run back to queued or in_progress starts it over.
  const status = input.status ?? current.status;
  return status === 'completed' ? { ...current, started_at } : { status, conclusion: null, started_at, completed_at: null };
}

function addAnnotations(db: Database.Database, runId: number, annotations: Annotation[] = []): void {
  const insert = db.prepare(
    `INSERT INTO check_annotations (run_id, path, start_line, end_line, start_column, end_column, annotation_level, title, message, raw_details)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const a of annotations) {
    // Columns only make sense within one line; GitHub drops them otherwise.
    const sameLine = a.start_line === a.end_line;
    insert.run(
      runId,
      a.path,
      a.start_line,
      a.end_line,
      sameLine ? (a.start_column ?? null) : null,
      sameLine ? (a.end_column ?? null) : null,
      a.annotation_level,
      a.title ?? null,
      a.message,
      a.raw_details ?? null,
    );
  }
}

function saveRun(ctx: GithubContext, _repo: Repository, run: CheckRun, input: RunInput): CheckRun {
  const state = nextState(run, input, ctx.clock.now());
  ctx.db
    .prepare(
      `UPDATE check_runs SET name = ?, external_id = ?, details_url = ?, status = ?, conclusion = ?, started_at = ?, completed_at = ?,
         output_title = ?, output_summary = ?, output_text = ? WHERE id = ?`,
    )
    .run(
      input.name ?? run.name,
      input.external_id ?? run.external_id,
      input.details_url ?? run.details_url,
      state.status,
      state.conclusion,
      state.started_at,
      state.completed_at,
      input.output ? input.output.title : run.output_title,
      input.output ? input.output.summary : run.output_summary,
      input.output ? (input.output.text ?? null) : run.output_text,
      run.id,
    );
  addAnnotations(ctx.db, run.id, input.output?.annotations);
  ctx.db.prepare('UPDATE check_suites SET updated_at = ? WHERE id = ?').run(ctx.clock.now(), run.suite_id);
  return ctx.db.prepare('SELECT * FROM check_runs WHERE id = ?').get(run.id) as CheckRun;
}

function createRun(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const input = req.body as RunInput & { name: string; head_sha: string };
  const sha = headCommit(ctx, repo, input.head_sha);
  const run = ctx.db.transaction(() => {
    const { suite } = suiteFor(ctx, repo, sha);
    const result = ctx.db
      .prepare(`INSERT INTO check_runs (suite_id, repo_id, head_sha, name, status, started_at) VALUES (?, ?, ?, ?, 'queued', ?)`)
      .run(suite.id, repo.id, sha, input.name, ctx.clock.now());
    const created = ctx.db.prepare('SELECT * FROM check_runs WHERE id = ?').get(result.lastInsertRowid) as CheckRun;
    return saveRun(ctx, repo, created, input);
  })();
  return { status: 201, body: runView(ctx.db, repo, run) };
}

function updateRun(req: GithubRequest, ctx: GithubContext) {
  const { repo, run } = runOf(req, ctx);
  const updated = ctx.db.transaction(() => saveRun(ctx, repo, run, req.body as RunInput))();
  return { status: 200, body: runView(ctx.db, repo, updated) };
}

function getRun(req: GithubRequest, ctx: GithubContext) {
  const { repo, run } = runOf(req, ctx);
  return { status: 200, body: runView(ctx.db, repo, run) };
}

function listAnnotations(req: GithubRequest, ctx: GithubContext) {
  const { repo, run } = runOf(req, ctx);
  const rows = ctx.db.prepare('SELECT * FROM check_annotations WHERE run_id = ? ORDER BY id').all(run.id) as Array<Annotation & { id: number }>;
  const body = page(rows, req.query).map((a) => ({
    path: a.path,
    start_line: a.start_line,
    end_line: a.end_line,
    start_column: a.start_column ?? null,
    end_column: a.end_column ?? null,
    annotation_level: a.annotation_level,
    title: a.title ?? null,
    message: a.message,
    raw_details: a.raw_details ?? null,
    blob_href: `${WEB}/${repo.fullName}/blob/${run.head_sha}/${a.path}`,
  }));
  return { status: 200, body };
}

/** The newest run of each name within each suite, as `filter=latest` shows. */
function latestOnly(runs: CheckRun[]): CheckRun[] {
  const seen = new Set<string>();
  return [...runs]
    .sort((a, b) => b.id - a.id)
    .filter((run) => {
      const key = `${run.suite_id}\0${run.name}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

function filterRuns(runs: CheckRun[], query: GithubRequest['query']): CheckRun[] {
  const name = textParam(query.check_name);
  const status = textParam(query.status);
  const selected = textParam(query.filter) === 'all' ? runs : latestOnly(runs);
  return selected.filter((run) => (name === undefined || run.name === name) && (status === undefined || run.status === status));
}

function listRuns(db: Database.Database, repo: Repository, runs: CheckRun[], query: GithubRequest['query']) {
  const appId = numberParam(query.app_id);
  const matching = appId !== undefined && appId !== EMULATOR_APP_ID ? [] : filterRuns(runs, query);
  return { status: 200, body: { total_count: matching.length, check_runs: page(matching, query).map((run) => runView(db, repo, run)) } };
}

function listRunsForRef(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const sha = resolveCommit(ctx, repo, req.params.ref ?? '');
  const runs = sha ? (ctx.db.prepare('SELECT * FROM check_runs WHERE repo_id = ? AND head_sha = ? ORDER BY id DESC').all(repo.id, sha) as CheckRun[]) : [];
  return listRuns(ctx.db, repo, runs, req.query);
}

function listRunsForSuite(req: GithubRequest, ctx: GithubContext) {
  const { repo, suite } = suiteOf(req, ctx);
  return listRuns(ctx.db, repo, runsOfSuite(ctx.db, suite.id), req.query);
}

/** Asks the app to run the check again; the emulated app has nothing to do until it reports back. */
function rerequestRun(req: GithubRequest, ctx: GithubContext) {
  runOf(req, ctx);
  return { status: 201, body: {} };
}

// ---------------------------------------------------------------------------------------------
// Suites

function createSuite(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const sha = headCommit(ctx, repo, (req.body as { head_sha: string }).head_sha);
  const { suite, created } = suiteFor(ctx, repo, sha);
  return { status: created ? 201 : 200, body: suiteView(ctx, repo, suite) };
}

function getSuite(req: GithubRequest, ctx: GithubContext) {
  const { repo, suite } = suiteOf(req, ctx);
  return { status: 200, body: suiteView(ctx, repo, suite) };
}

function listSuitesForRef(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const sha = resolveCommit(ctx, repo, req.params.ref ?? '');
  const appId = numberParam(req.query.app_id);
  const name = textParam(req.query.check_name);
  const suites = sha ? (ctx.db.prepare('SELECT * FROM check_suites WHERE repo_id = ? AND head_sha = ? ORDER BY id').all(repo.id, sha) as CheckSuite[]) : [];
  const matching = suites.filter(
    (suite) => (appId === undefined || suite.app_id === appId) && (name === undefined || runsOfSuite(ctx.db, suite.id).some((run) => run.name === name)),
  );
  return { status: 200, body: { total_count: matching.length, check_suites: page(matching, req.query).map((s) => suiteView(ctx, repo, s)) } };
}

function rerequestSuite(req: GithubRequest, ctx: GithubContext) {
  suiteOf(req, ctx);
  return { status: 201, body: {} };
}

function setPreferences(req: GithubRequest, ctx: GithubContext) {
  const repo = repositoryOf(req, ctx);
  const settings = (req.body as { auto_trigger_checks?: Array<{ app_id: number; setting: boolean }> }).auto_trigger_checks ?? [];
  const upsert = ctx.db.prepare('INSERT OR REPLACE INTO check_suite_preferences (repo_id, app_id, setting) VALUES (?, ?, ?)');
  for (const { app_id, setting } of settings) upsert.run(repo.id, app_id, setting ? 1 : 0);
  const rows = ctx.db.prepare('SELECT app_id, setting FROM check_suite_preferences WHERE repo_id = ? ORDER BY app_id').all(repo.id) as Array<{
    app_id: number;
    setting: number;
  }>;
  return {
    status: 200,
    body: {
      preferences: { auto_trigger_checks: rows.map((r) => ({ app_id: r.app_id, setting: r.setting === 1 })) },
      repository: minimalRepository(ctx, repo),
    },
  };
}

export const checksHandlers: Record<string, Handler> = {
  'checks/create': createRun,
  'checks/update': updateRun,
  'checks/get': getRun,
  'checks/list-annotations': listAnnotations,
  'checks/list-for-ref': listRunsForRef,
  'checks/list-for-suite': listRunsForSuite,
  'checks/rerequest-run': rerequestRun,
  'checks/create-suite': createSuite,
  'checks/get-suite': getSuite,
  'checks/list-suites-for-ref': listSuitesForRef,
  'checks/rerequest-suite': rerequestSuite,
  'checks/set-suites-preferences': setPreferences,
};
