import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Vitest runs one file fewer than the cores at once: one on a 2-vCPU CI machine. Much of an end-to-end file's time
    // is its CLI child's or its shop's, not its own worker's, so two files at once use the second core (README, "Node 20").
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 60_000,
    hookTimeout: 60_000,
    setupFiles: ['test/helpers/no-network.ts'],
  },
});
