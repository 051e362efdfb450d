import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import type { Reporter, TestModule } from 'vitest/node';

/** Ends the run with one plain line, "N passed, N failed, N skipped", that any CI log reader understands. */
const summaryLine: Reporter = {
  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    const count = (state: 'passed' | 'failed' | 'skipped') => modules.reduce((n, m) => n + [...m.children.allTests(state)].length, 0);
    console.log(`\ntests: ${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped`);
  },
};

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'scripts/**/*.test.ts'],
    setupFiles: ['./vitest.setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One file more than there are cores: most suites wait on the processes, sockets and timers they start more
    // than they compute (on two cores, 311 s against 483 s with one a core, every test passing both ways).
    maxWorkers: availableParallelism() + 1,
    reporters: ['default', summaryLine],
  },
});
