import { isResourceName } from '../shopify/resources.js';
import { runCrawlBench } from './crawl-bench.js';
import { DIFF_BENCH_ORDERS, formatDiffBench, runDiffBench } from './diff-bench.js';
import { runFleetBench } from './fleet-bench.js';
import { runRestoreBench } from './restore-bench.js';
import { formatSnapshotBench, runSnapshotBench, SNAPSHOT_BENCH_RUNS } from './snapshot-bench.js';

/**
 * `npm run bench`: every figure the README reports, measured in one run on this machine. Select parts with
 * arguments: `npm run bench -- crawl`, `npm run bench -- snapshot`, `npm run bench -- fleet`, `npm run bench -- diff`,
 * `npm run bench -- restore`. Numbers choose the sizes: `npm run bench -- snapshot 100000`, `npm run bench -- diff 100000`;
 * resource names the snapshot's resources: `npm run bench -- snapshot products 100000`.
 */
const args = process.argv.slice(2);
const parts = args.filter((arg) => !/^\d+$/.test(arg) && !isResourceName(arg));
const sizes = args.filter((arg) => /^\d+$/.test(arg)).map(Number);
const resources = args.filter(isResourceName);
const wanted = (part: string) => parts.length === 0 || parts.includes(part);

if (wanted('crawl')) {
  process.stdout.write('\n## Crawl (rate-limited shop)\n\n');
  await runCrawlBench();
}
if (wanted('snapshot')) {
  process.stdout.write('\n## Snapshot (unlimited shop)\n\n');
  const chosen =
    sizes.length === 0 && resources.length === 0
      ? SNAPSHOT_BENCH_RUNS
      : (resources.length > 0 ? resources : (['orders'] as const)).flatMap((resource) =>
          (sizes.length > 0 ? sizes : [100_000]).map((records) => ({ resource, records })),
        );
  const runs = [];
  for (const { resource, records } of chosen) runs.push(await runSnapshotBench(resource, records));
  process.stdout.write(formatSnapshotBench(runs));
}
if (wanted('restore')) {
  process.stdout.write('\n## Restore (into an empty shop, realistic latency)\n\n');
  await runRestoreBench();
}
if (wanted('fleet')) {
  process.stdout.write('\n## Fleet (30 rate-limited shops, 1 and 3 workers)\n\n');
  await runFleetBench();
}
if (wanted('diff')) {
  process.stdout.write('\n## Diff (two snapshots of one shop, 1% of its orders changed)\n\n');
  const runs = [];
  for (const orders of sizes.length > 0 ? sizes : [DIFF_BENCH_ORDERS]) runs.push(await runDiffBench(orders));
  process.stdout.write(formatDiffBench(runs));
}
