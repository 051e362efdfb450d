/**
 * The README's conformance table, from expected.json: `npx tsx scripts/conformance/table.ts` prints it, and
 * the conformance test checks that the README holds it as printed.
 */
import { pathToFileURL } from 'node:url';
import { type Era, type EraExpectation, type Expectation, type ExpectedTable, expectedTable, targetNames } from './suite.js';

function cell(expectation: Expectation): string {
  if (expectation === 'pass') return 'pass';
  if ('na' in expectation) return `n/a: ${expectation.na}`;
  // Not held against anything in the test, and to a reader simply not applicable.
  if ('unchecked' in expectation) return `n/a: ${expectation.unchecked}`;
  if (!expectation.except) return `pass (${expectation.pass})`;
  // Checks excepted for one reason are named together.
  const byReason = new Map<string, string[]>();
  for (const [id, reason] of Object.entries(expectation.except)) byReason.set(reason, [...(byReason.get(reason) ?? []), `\`${id}\``]);
  return `pass, ${[...byReason].map(([reason, ids]) => `but not ${ids.join(', ')} (${reason})`).join(', ')}`;
}

function eraCell(entry: EraExpectation | undefined): string {
  if (entry === undefined) return '—';
  if (typeof entry === 'string' || !('http' in entry)) return cell(entry);
  const [http, stdio] = [cell(entry.http), cell(entry.stdio)];
  return http === stdio ? http : `${targetNames.http}: ${http}; ${targetNames.stdio}: ${stdio}`;
}

/** The table in Markdown: a row per scenario, a column per era. */
export function conformanceTable(table: ExpectedTable = expectedTable()): string {
  const eras: Era[] = ['2025', '2026-07-28'];
  const rows = Object.entries(table.scenarios).map(
    ([scenario, entry]) => `| \`${scenario}\` | ${eras.map((era) => eraCell(entry[era]).replaceAll('|', '\\|')).join(' | ')} |`,
  );
  return ['| scenario | 2025 revisions (`initialize`) | 2026-07-28 (stateless) |', '|---|---|---|', ...rows].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) console.log(conformanceTable());
