import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Files that need the machine to themselves, run one at a time after the rest: those whose assertions hang on timing
 * (the crawl's choices of chains, windows and second copies against a shop in the test's process; `check`'s estimate
 * against a backup's wall time), three of whose tests failed with a second file running (two of them only on a machine
 * also busy with two more processes), and the fleet's, whose 30 shops on three worker processes took 77 s of their
 * test's 120 s beside a second file and more than 120 s beside two (README, "Node 20").
 */
const ALONE = ['test/source/crawl-requests.test.ts', 'test/cli-e2e/check.test.ts', 'test/fleet/fleet.test.ts'];

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
        // vitest's own default is one fewer than the cores: one file at a time on a 2-vCPU machine. Much of an
        // end-to-end file's time is its CLI child's or its shop's, not its worker's: a second file uses that core.
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: ALONE,
          maxWorkers: Math.max(2, availableParallelism() - 1),
        },
      },
      // A higher groupOrder runs after the lower ones have finished.
      { extends: true, test: { name: 'alone', include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
