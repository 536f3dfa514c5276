import { appendFileSync } from 'node:fs';

/**
 * Loaded with `node --import` into a benchmarked child process: at exit it appends the process's own CPU time and peak
 * RSS as one line to the file named by BENCH_USAGE_FILE. Processes the CLI starts itself (the Parquet converter)
 * inherit the import and the variable, so each process of a run adds its own line.
 */
const target = process.env.BENCH_USAGE_FILE;
if (target !== undefined) {
  const report = () => {
    const usage = process.resourceUsage();
    appendFileSync(
      target,
      `${JSON.stringify({
        cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6,
        maxRssMb: usage.maxRSS / 1024,
      })}\n`,
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
