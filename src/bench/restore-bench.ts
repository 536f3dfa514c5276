import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RestoreReport } from '../restore/report.js';
import { parseJson } from '../shopify/json.js';
import { expectedLatencyMs, LATENCY_PRESETS } from '../simulator/latency.js';
import { spawnMeasuredCli, startSimulatorProcess } from './child-process.js';
import { scheduleFinishMs } from './crawl-bound.js';

/**
 * `npm run bench -- restore`: the built CLI restores a snapshot of a small shop (taken from an unlimited shop in its
 * own process) into an empty shop in its own process, with realistic latency, on a Basic and a Plus bucket (a shop ten
 * times larger on Plus, so its burst does not hold the whole restore). Per row:
 * the writes sent against the fewest (the plan's: one per record plus its follow-ups and state changes), and the
 * writing stage's wall against the bound of those writes: their best schedule under the bucket, its leak, the
 * restore's writes in flight and the mean write latency (crawl-bound.ts; a state change goes after its order's create).
 * The crawl of the target before and the reading back after are timed on their own.
 */
const ROWS = [
  // 122 writes: a third of them in the burst, the rest at the leak (about a minute, and as long again to read back).
  { name: 'Basic 40 @ 2/s', rate: '40@2', bucket: 40, leakPerSecond: 2, shop: [10, 30, 60] },
  // 1,260 writes: the burst holds a third of them, so the leak decides here too.
  { name: 'Plus 400 @ 20/s', rate: '400@20', bucket: 400, leakPerSecond: 20, shop: [100, 300, 600] },
];
/** The restore's writes in flight (restore.ts WRITES_AT_ONCE). */
const DEPTH = 32;

export async function runRestoreBench(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'shopsnap-restore-bench-'));
  try {
    process.stdout.write(
      '| bucket | records | writes sent / fewest | write wall | bound | bound / wall | crawl of the target and plan | read back | CPU | load |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n',
    );
    for (const row of ROWS) {
      const [products, customers, orders] = row.shop as [number, number, number];
      const location = await snapshotOf(work, row.rate, [
        ...['--products', String(products), '--customers', String(customers), '--orders', String(orders)],
        ...['--seed', '5', '--big-id-share', '0.01'],
      ]);
      const target = await startSimulatorProcess([
        ...['--products', '0', '--customers', '0', '--orders', '0'],
        ...['--rate', row.rate, '--latency', 'realistic'],
      ]);
      const load = loadavg()[0] ?? 0;
      const restore = spawnMeasuredCli(
        ['restore', location, '--shop', target.url, '--state', join(work, `state-${row.rate}`), '--yes', '--json'],
        { SHOPSNAP_TOKEN: target.token },
      );
      const { usage } = await restore.finished().finally(() => target.stop());
      const report = parseJson(restore.stdout().trim().split('\n').at(-1) ?? '') as unknown as RestoreReport;
      const seconds = report.seconds as NonNullable<RestoreReport['seconds']>;
      const sent = report.requests?.writes ?? 0;
      const fewest = report.estimate.writes;
      const bound = writesBoundSeconds(report, row);
      process.stdout.write(
        `| ${row.name} | ${products + customers + orders} | ${sent} / ${fewest} (${(sent / fewest).toFixed(3)}) | ${seconds.write.toFixed(1)} s | ${bound.toFixed(1)} s | **${(bound / seconds.write).toFixed(2)}** | ${seconds.plan.toFixed(1)} s | ${seconds.verify.toFixed(1)} s | ${usage.cpuSeconds.toFixed(1)} s | ${load.toFixed(1)} |\n`,
      );
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** A snapshot of an unlimited simulated shop of these sizes, in its own process: its location. */
async function snapshotOf(work: string, name: string, shop: string[]): Promise<string> {
  const source = await startSimulatorProcess(shop);
  try {
    const backup = spawnMeasuredCli(
      ['backup', '--shop', source.url, '--out', join(work, `snapshots-${name}`), '--json'],
      {
        SHOPSNAP_TOKEN: source.token,
      },
    );
    await backup.finished();
    return (JSON.parse(backup.stdout()) as { location: string }).location;
  } finally {
    await source.stop();
  }
}

/** The best schedule of the plan's writes at their mean latency: states after their order's create, the rest free. */
function writesBoundSeconds(report: RestoreReport, row: { bucket: number; leakPerSecond: number }): number {
  const writeMs = expectedLatencyMs(LATENCY_PRESETS.realistic, { kind: 'write' });
  const latenciesMs: number[] = [];
  const closing: Array<{ latencyMs: number; after: number[] }> = [];
  let states = 0;
  for (const planned of report.rows) {
    if (planned.class !== 'create' && planned.class !== 'update') continue;
    const index = latenciesMs.push(writeMs) - 1;
    for (const _ of planned.states ?? []) {
      closing.push({ latencyMs: writeMs, after: [index] });
      states++;
    }
  }
  // The plan's other writes (image links, lost variants) go at any time.
  for (let extra = latenciesMs.length + states; extra < report.estimate.writes; extra++) latenciesMs.push(writeMs);
  return (
    scheduleFinishMs({ latenciesMs, closing, bucket: row.bucket, leakPerSecond: row.leakPerSecond, depth: DEPTH }) /
    1000
  );
}
