import { runCli } from '@quiver/test-support/run-cli';
import { describe, expect, it } from 'vitest';

describe('quiver tools search', () => {
  it('prints ranked tools: qualified name, score and first sentence', async () => {
    const run = await runCli(['tools', 'search', 'merge a pull request', '--limit', '3']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^RepoHostApi\.MergeRepohostPullRequest\s+\d+\.\d\d\s+Merges a pull request/);
    const scores = lines.map((line) => Number(line.split(/\s+/)[1]));
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(run.stderr).toContain('3 tools');
  });

  it('keeps to one toolkit', async () => {
    const run = await runCli(['tools', 'search', 'delete', '--toolkit', 'crmmarketingapi']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.every((line) => line.startsWith('CrmMarketingApi.'))).toBe(true);
  });

  it.each([
    [['tools', 'search', 'issues', '--limit', '0'], '--limit must be a positive integer'],
    [['tools', 'search', 'issues', '--toolkit', 'Nope'], "unknown toolkit 'Nope'"],
    [['tools', 'search', ' '], 'the query is empty'],
    [['tools', 'search'], "missing required argument 'query'"],
  ])('answers a usage error with exit 2: %j', async (args, message) => {
    const run = await runCli(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  });
});
