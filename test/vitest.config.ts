import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Files whose assertions hang on timing: the crawl's choices of chains, windows and second copies against a shop in
 * the test's process, and `check`'s estimate against a backup's wall time. They run one at a time after the rest,
 * with no other file beside them: beside a second file three of their tests failed (README, "Node 20").
 */
const TIMED_ALONE = ['test/source/crawl-requests.test.ts', 'test/cli-e2e/check.test.ts'];

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    setupFiles: ['test/helpers/no-network.ts'],
    projects: [
      {
        extends: true,
        // vitest's own default is one fewer than the cores: one file at a time on a 2-vCPU machine.
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: TIMED_ALONE,
          maxWorkers: Math.max(2, availableParallelism() - 1),
        },
      },
      { extends: true, test: { name: 'alone', include: TIMED_ALONE, maxWorkers: 1 } },
    ],
  },
});
