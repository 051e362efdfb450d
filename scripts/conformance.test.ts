/**
 * The official MCP conformance suite against both servers, `/v1/mcp` (the engine, `quiver serve --sandbox`,
 * through a proxy that adds the API key and the acting user) and `quiver mcp` (through the stdio bridge),
 * each held to the expected table, scripts/conformance/expected.json: a scenario expected to pass that does
 * not fails the test, and so does one not applicable that passes, so that the table stays true. The README
 * lists the same table. See scripts/conformance/suite.ts for the eras run and loopback.ts for the bridges.
 *
 * The suite is not part of the checkout's install: its first run installs it into scripts/conformance
 * (`npm ci`, some 240 MB with the Node 22 it runs on). Where it cannot be had (no network, no Node 22 for
 * this platform) the runs are skipped with a message, unless QUIVER_CONFORMANCE=required says they must run;
 * .ci/run installs the folder before `npm test`, so that there a failed install stops the run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { differences, expectedTable, locateSuite, repoRoot, resultOf, runAll, type Suite, type Target, targetNames } from './conformance/suite.js';
import { conformanceTable } from './conformance/table.js';
import { startEngineTarget, startStdioTarget } from './conformance/targets.js';

const required = process.env.QUIVER_CONFORMANCE === 'required';
const located = locateSuite();
const missing = 'missing' in located ? located.missing : undefined;
if (missing) console.warn(`MCP conformance: ${required ? 'required, and' : 'runs skipped:'} ${missing}`);

it('the README lists the expected table as scripts/conformance/table.ts prints it', () => {
  expect(readFileSync(join(repoRoot, 'README.md'), 'utf8')).toContain(conformanceTable());
});

describe.skipIf(missing !== undefined && !required)('MCP conformance suite', () => {
  it('is installed', () => {
    expect(missing).toBeUndefined();
  });

  const start: Record<Target, () => Promise<{ url: string; close(): Promise<void> }>> = { http: startEngineTarget, stdio: startStdioTarget };
  for (const target of ['http', 'stdio'] as const) {
    it.skipIf(missing !== undefined)(
      `${targetNames[target]} passes what the table says it passes, and only that`,
      async () => {
        const server = await start[target]();
        try {
          const { outcomes, seconds, skipped } = await runAll(located as Suite, server.url, target);
          const counts: Record<string, number> = {};
          for (const outcome of outcomes) counts[resultOf(outcome)] = (counts[resultOf(outcome)] ?? 0) + 1;
          const times = Object.entries(seconds).map(([revision, time]) => `${revision} in ${time.toFixed(0)} s`);
          const notRun = skipped.map(({ revision, reason }) => `; ${revision} not run: ${reason}`).join('');
          console.log(`MCP conformance, ${targetNames[target]}: ${times.join(', ')} (${JSON.stringify(counts)})${notRun}`);
          expect(outcomes.length).toBeGreaterThan(0);
          expect(differences(expectedTable(), target, outcomes)).toEqual([]);
        } finally {
          await server.close();
        }
      },
      900_000,
    );
  }
});
