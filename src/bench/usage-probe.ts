import { writeFileSync } from 'node:fs';

/**
 * Loaded with `node --import` into a benchmarked child process: at exit it writes the process's own CPU time and peak
 * RSS to the file named by BENCH_USAGE_FILE, so figures belong to exactly one process.
 */
const target = process.env.BENCH_USAGE_FILE;
if (target !== undefined) {
  const report = () => {
    const usage = process.resourceUsage();
    writeFileSync(
      target,
      JSON.stringify({
        cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6,
        maxRssMb: usage.maxRSS / 1024,
      }),
    );
  };
  process.on('exit', report);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      report();
      process.exit(0);
    });
  }
}
