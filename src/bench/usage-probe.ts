import { appendFileSync } from 'node:fs';
import { basename } from 'node:path';

/**
 * Loaded with `node --import` into a benchmarked child process: at exit it appends the process's own CPU time and peak
 * RSS as one line to the file named by BENCH_USAGE_FILE, with the name of the script it runs. Processes the CLI starts
 * itself (the Parquet converter) inherit the import and the variable, so each process of a run adds its own line.
 * SIGUSR2 appends a line marked `sample` without ending the process: the CPU a long-running process (the simulated
 * shop) spent up to then.
 */
const target = process.env.BENCH_USAGE_FILE;
if (target !== undefined) {
  const report = (sample: boolean) => {
    const usage = process.resourceUsage();
    appendFileSync(
      target,
      `${JSON.stringify({
        script: basename(process.argv[1] ?? ''),
        cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6,
        maxRssMb: usage.maxRSS / 1024,
        ...(sample ? { sample: true } : {}),
      })}\n`,
    );
  };
  process.on('exit', () => report(false));
  process.on('SIGUSR2', () => report(true));
  // Ended by a signal, the process still runs its exit handlers, so it reports once.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));
}
