import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Journal } from '../restore/journal.js';
import type { RestoreReport } from '../restore/report.js';
import { parseJson } from '../shopify/json.js';
import type { RunningShop } from '../simulator/index.js';
import { expectedLatencyMs, LATENCY_PRESETS } from '../simulator/latency.js';
import { spawnMeasuredCli, startShopProcess } from './child-process.js';
import { scheduleFinishMs } from './crawl-bound.js';

/**
 * `npm run bench -- restore`: the built CLI restores a snapshot of a small shop (taken from an unlimited shop in its
 * own process) into an empty shop in its own process, with realistic latency, on a Basic and a Plus bucket (a shop ten
 * times larger on Plus, so its burst does not hold the whole restore). Per row: the write requests the target shop
 * received (counted by the shop, 429s included) against the fewest (the plan's: one per record plus its follow-ups
 * and state changes), and the writing stage's wall against the bound of those writes: their best schedule under the
 * bucket, its leak, the restore's writes in flight and the mean write latency (crawl-bound.ts; a state change goes
 * after its order's create). The crawl of the target before and the reading back after are timed on their own. Last,
 * what one journal line costs on the bench's disk: the line written and flushed (fdatasync), as a restore does twice
 * a write.
 */
const ROWS = [
  // 122 writes: a third of them in the burst, the rest at the leak (about a minute, and as long again to read back).
  { name: 'Basic 40 @ 2/s', bucket: 40, leakPerSecond: 2, shop: { products: 10, customers: 30, orders: 60 } },
  // 1,260 writes: the burst holds a third of them, so the leak decides here too.
  { name: 'Plus 400 @ 20/s', bucket: 400, leakPerSecond: 20, shop: { products: 100, customers: 300, orders: 600 } },
];
/** The restore's writes in flight (restore.ts WRITES_AT_ONCE). */
const DEPTH = 32;
/** Journal lines timed for the cost of one. */
const JOURNAL_LINES = 500;

export async function runRestoreBench(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'shopsnap-restore-bench-'));
  try {
    process.stdout.write(
      '| bucket | records | writes at the shop / fewest | 429s | write wall | bound | bound / wall | crawl of the target and plan | read back | CPU | load |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n',
    );
    for (const row of ROWS) {
      const location = await snapshotOf(work, row.name, row.shop);
      const target = await startShopProcess({
        products: 0,
        customers: 0,
        orders: 0,
        rate: { bucket: row.bucket, leakPerSecond: row.leakPerSecond },
        latency: 'realistic',
      });
      const before = loadavg()[0] ?? 0;
      const restore = spawnMeasuredCli(
        ['restore', location, '--shop', target.url, '--state', join(work, `state-${row.bucket}`), '--yes', '--json'],
        { SHOPSNAP_TOKEN: target.token },
      );
      const finished = await restore.finished().then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      const stats = await target.stop();
      if ('error' in finished) throw finished.error;
      const { usage } = finished.value;
      const after = loadavg()[0] ?? 0;
      const report = parseJson(restore.stdout().trim().split('\n').at(-1) ?? '') as unknown as RestoreReport;
      const seconds = report.seconds as NonNullable<RestoreReport['seconds']>;
      const received = writesReceived(stats);
      const reported = report.requests?.writes ?? 0;
      // The restore's own count must agree with the shop's; a row where it does not says so.
      const disagree = reported === received ? '' : ` (restore counted ${reported})`;
      const fewest = report.estimate.writes;
      const bound = writesBoundSeconds(report, row);
      const records = row.shop.products + row.shop.customers + row.shop.orders;
      process.stdout.write(
        `| ${row.name} | ${records} | ${received} / ${fewest} (${(received / fewest).toFixed(3)})${disagree} | ${stats.throttled} | ${seconds.write.toFixed(1)} s | ${bound.toFixed(1)} s | **${(bound / seconds.write).toFixed(2)}** | ${seconds.plan.toFixed(1)} s | ${seconds.verify.toFixed(1)} s | ${usage.cpuSeconds.toFixed(1)} s | ${before.toFixed(1)} → ${after.toFixed(1)} |\n`,
      );
    }
    const journal = await journalLineMs(join(work, 'journal-cost'));
    process.stdout.write(
      `\nA journal line written and flushed (fdatasync) under ${tmpdir()}: ${journal.toFixed(2)} ms (mean of ${JOURNAL_LINES}).\n`,
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** A snapshot of an unlimited simulated shop of these sizes, in its own process: its location. */
async function snapshotOf(
  work: string,
  name: string,
  shop: { products: number; customers: number; orders: number },
): Promise<string> {
  const source = await startShopProcess({ seed: 5, ...shop, bigIdShare: 0.01 });
  try {
    const backup = spawnMeasuredCli(
      ['backup', '--shop', source.url, '--out', join(work, `snapshots-${name.replace(/\W+/g, '-')}`), '--json'],
      { SHOPSNAP_TOKEN: source.token },
    );
    await backup.finished();
    return (JSON.parse(backup.stdout()) as { location: string }).location;
  } finally {
    await source.stop();
  }
}

/** Write requests the shop received, by its own count: every POST, PUT and DELETE, refused (429) or not. */
function writesReceived(stats: ReturnType<RunningShop['stats']>): number {
  return Object.entries(stats.byPath)
    .filter(([label]) => /^(POST|PUT|DELETE) /.test(label))
    .reduce((sum, [, count]) => sum + count, 0);
}

/**
 * The best schedule of the plan's writes at their mean latency: states after their order's create, the rest free (a
 * product's image links and a guest order's email go at any time here, though they follow a create: a lower bound).
 */
function writesBoundSeconds(report: RestoreReport, row: { bucket: number; leakPerSecond: number }): number {
  const writeMs = expectedLatencyMs(LATENCY_PRESETS.realistic, { kind: 'write' });
  const latenciesMs: number[] = [];
  const closing: Array<{ latencyMs: number; after: number[] }> = [];
  for (const planned of report.rows) {
    if (planned.class !== 'create' && planned.class !== 'update') continue;
    const index = latenciesMs.push(writeMs) - 1;
    for (const _ of planned.states ?? []) closing.push({ latencyMs: writeMs, after: [index] });
  }
  for (let extra = latenciesMs.length + closing.length; extra < report.estimate.writes; extra++) {
    latenciesMs.push(writeMs);
  }
  return (
    scheduleFinishMs({ latenciesMs, closing, bucket: row.bucket, leakPerSecond: row.leakPerSecond, depth: DEPTH }) /
    1000
  );
}

/** The mean time of one journal line appended and flushed, in a fresh journal in `dir`. */
async function journalLineMs(dir: string): Promise<number> {
  const journal = await Journal.open(dir);
  try {
    const started = performance.now();
    for (let k = 0; k < JOURNAL_LINES; k++) {
      journal.append({
        kind: 'intent',
        at: new Date().toISOString(),
        step: 'create',
        resource: 'orders',
        id: String(5_200_000_000_000 + k),
        request: 'POST orders.json',
        payload_sha256: '0'.repeat(64),
      });
    }
    return (performance.now() - started) / JOURNAL_LINES;
  } finally {
    journal.close();
  }
}
