/**
 * The conformance run by hand, as the test does it: `npx tsx scripts/conformance/run.ts` after `npm install`
 * (which builds the packages). Prints each scenario's outcome per revision and what differs from
 * expected.json, and ends with status 1 on any difference.
 *
 *   --target http|stdio    one target only (default both: /v1/mcp, then quiver mcp)
 *   --revision <date>      one revision only (2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28); repeatable
 *   --verbose              every check that did not succeed, under its scenario
 */
import { parseArgs } from 'node:util';
import { differences, expectedTable, formatOutcomes, locateSuite, type Revision, runAll, type Target, targetNames } from './suite.js';
import { startEngineTarget, startStdioTarget } from './targets.js';

const { values } = parseArgs({ options: { target: { type: 'string' }, revision: { type: 'string', multiple: true }, verbose: { type: 'boolean' } } });
const targets = (values.target ? [values.target] : ['http', 'stdio']) as Target[];
const suite = locateSuite();
if ('missing' in suite) {
  console.error(`conformance: ${suite.missing}`);
  process.exit(2);
}
console.log(`@modelcontextprotocol/conformance ${suite.version}, run with ${suite.node}`);
let failed = false;
for (const target of targets) {
  const server = target === 'http' ? await startEngineTarget() : await startStdioTarget();
  try {
    const { outcomes, seconds, skipped } = await runAll(suite, server.url, target, { revisions: values.revision as Revision[] | undefined });
    const times = Object.entries(seconds).map(([revision, time]) => `${revision} ${time.toFixed(1)} s`);
    console.log(`\n${targetNames[target]} (${times.join(', ')})`);
    for (const { revision, reason } of skipped) console.log(`${revision}: not run, ${reason}`);
    console.log(formatOutcomes(outcomes));
    if (values.verbose)
      for (const outcome of outcomes) {
        const shown = outcome.checks.filter((check) => check.status !== 'SUCCESS');
        if (outcome.crashed || shown.length) console.log(`\n${outcome.scenario} ${outcome.revision}${outcome.crashed ? `: ${outcome.crashed}` : ''}`);
        for (const check of shown) console.log(`  ${check.status} ${check.id}: ${check.message}`);
      }
    const problems = differences(expectedTable(), target, outcomes);
    if (problems.length) {
      failed = true;
      console.log(`\ndifferences from expected.json:\n- ${problems.join('\n- ')}`);
    }
  } finally {
    await server.close();
  }
}
process.exit(failed ? 1 : 0);
