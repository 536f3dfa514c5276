import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RESOURCES } from '../shopify/resources.js';
import type { BucketShape, LatencyOptions, ShopOptions } from '../simulator/index.js';
import { LATENCY_PRESETS, type LatencyModel } from '../simulator/latency.js';
import { type ProcessUsage, spawnMeasured, spawnMeasuredCli, startShopProcess } from './child-process.js';
import { drawnFinishes, drawnFinishMs, expectedCrawl, meanOf, scheduleFinishMs } from './crawl-bound.js';

/**
 * `npm run bench -- crawl`: the built CLI as a user runs it (`shopsnap backup`, default formats, into a local folder)
 * against a simulated shop in its own process, over a matrix of buckets and latencies. Every row has 40,000 records.
 * Per row: the bound (the best schedule of the fewest requests under the row's bucket, leak, depth 20 and expected
 * latencies: crawl-bound.ts), the shop's busy span (first request in to last answer out), bound / span, the whole
 * process's wall time, requests against the fewest, the most requests the shop held at once, and 429s. Beside the
 * bound, what the latency's spread alone makes of it (drawnFinishMs over DRAWN_ROUNDS rounds): the same schedule when
 * every request takes a draw of the row's latency model instead of its mean, and the same again with late requests
 * asked for twice as the crawl asks for them (hedged-requests.ts): what a schedule of independent pages can get back,
 * and in how many of its rounds that schedule itself meets TARGET (one run of a realistic row is one round's draws).
 * A realistic row runs once per seed of REALISTIC_SEEDS (each seed a shop of its own: its records and its draws) and
 * prints the means, with bound / busy's range: one run's draws move it by ±0.05, more than most changes to the crawl.
 */
const SIZES = { products: 8_000, customers: 12_000, orders: 20_000 } as const;
const DEPTH = 20;
const DRAWN_ROUNDS = 200;
/** The shops of a realistic row. A fixed row's latency has no draws: one shop, the first seed. */
const REALISTIC_SEEDS = [7, 8, 9, 10, 11];
/** Issue 14's target: bound / busy at least this on every rate-limited row. */
const TARGET = 0.9;

interface Row {
  name: string;
  rate: BucketShape | 'unlimited';
  /** Also run `--formats raw` (the crawl without the sink's CPU) and shopify-api-node on this row. */
  compare?: boolean;
}

const ROWS: Row[] = [
  { name: 'Basic 40 @ 2/s', rate: { bucket: 40, leakPerSecond: 2 } },
  { name: 'Advanced 80 @ 4/s', rate: { bucket: 80, leakPerSecond: 4 } },
  { name: 'Plus 400 @ 20/s', rate: { bucket: 400, leakPerSecond: 20 }, compare: true },
  { name: '40 @ 20/s (no tier leaks so)', rate: { bucket: 40, leakPerSecond: 20 } },
  { name: 'unlimited', rate: 'unlimited' },
];

/** The independent server of issue 14: counts at once, a page 150 ms + 7 ms per record, exactly. */
const FIXED: LatencyModel = {
  ...LATENCY_PRESETS.none,
  listMs: 150,
  perRecordMs: { products: 7, customers: 7, orders: 7 },
};

const LATENCIES: Array<{ name: string; latency: LatencyOptions; model: LatencyModel; seeds: number[] }> = [
  { name: 'realistic', latency: 'realistic', model: LATENCY_PRESETS.realistic, seeds: REALISTIC_SEEDS },
  {
    name: 'fixed (counts at once, pages 150 ms + 7 ms/record)',
    latency: FIXED,
    model: FIXED,
    seeds: REALISTIC_SEEDS.slice(0, 1),
  },
];

export interface CrawlBenchRow {
  latency: string;
  shop: string;
  formats: string;
  seed: number;
  boundMs: number;
  /** The bound's schedule with each request's latency drawn from the row's model (the mean over DRAWN_ROUNDS). */
  drawnMs: number;
  /** The same with late requests hedged as the crawl hedges them (drawnFinishMs, `hedged`). */
  hedgedMs: number;
  /** The share of those hedged rounds whose finish is within the target (bound / finish ≥ TARGET). */
  hedgedAtTarget: number;
  /** The shop's busy span: from the first request's arrival to the last answer. */
  spanMs: number;
  processMs: number;
  requests: number;
  fewest: number;
  mostInFlight: number;
  throttled: number;
  usage: ProcessUsage;
  load: { before: number; after: number };
}

/** The row's shop on one seed, as every run of the row gets it. */
function shopOptions(latency: (typeof LATENCIES)[number], row: Row, seed: number): ShopOptions {
  return {
    seed,
    ...SIZES,
    bigIdShare: 0.01,
    rate: row.rate,
    latency: latency.latency,
    // Pages built before the clock starts: building them on demand costs the shop CPU the crawler competes for.
    prerender: true,
  };
}

async function backupRow(
  latency: (typeof LATENCIES)[number],
  row: Row,
  formats: string | undefined,
  seed: number,
): Promise<CrawlBenchRow> {
  const shop = await startShopProcess(shopOptions(latency, row, seed));
  const out = await mkdtemp(join(tmpdir(), 'shopsnap-crawl-bench-'));
  const before = loadavg()[0] as number;
  const started = performance.now();
  const args = ['backup', '--shop', shop.url, '--out', out, '--depth', String(DEPTH)];
  const backup = spawnMeasuredCli([...args, ...(formats ? ['--formats', formats] : [])], {
    SHOPSNAP_TOKEN: shop.token,
  });
  const { usage } = await backup.finished();
  const processMs = performance.now() - started;
  const after = loadavg()[0] as number;
  const stats = await shop.stop();
  await rm(out, { recursive: true, force: true });
  const crawl = expectedCrawl(
    latency.model,
    RESOURCES.map((resource) => ({ resource, pages: shop.pages[resource] })),
  );
  const bucket = row.rate === 'unlimited' ? { bucket: Infinity, leakPerSecond: Infinity } : row.rate;
  const input = { ...crawl, ...bucket, depth: DEPTH };
  const boundMs = scheduleFinishMs(input);
  const hedged = drawnFinishes(input, latency.model, DRAWN_ROUNDS, 1, { hedged: true });
  return {
    latency: latency.name,
    shop: row.name,
    formats: formats ?? 'default',
    seed,
    boundMs,
    drawnMs: drawnFinishMs(input, latency.model, DRAWN_ROUNDS, 1),
    hedgedMs: meanOf(hedged),
    hedgedAtTarget: hedged.filter((ms) => boundMs / ms >= TARGET).length / hedged.length,
    spanMs: (stats.busy.lastAnswerMs ?? 0) - (stats.busy.firstArrivalMs ?? 0),
    processMs,
    requests: stats.requests,
    fewest: crawl.latenciesMs.length + crawl.closing.length,
    mostInFlight: stats.busy.mostInFlight,
    throttled: stats.throttled,
    usage,
    load: { before, after },
  };
}

/** shopify-api-node on the same shop, in its own process: whole process against whole process. */
async function peerRow(latency: (typeof LATENCIES)[number], row: Row, seed: number) {
  const shop = await startShopProcess(shopOptions(latency, row, seed));
  const started = performance.now();
  const peer = spawnMeasured(fileURLToPath(new URL('./crawl-peer.js', import.meta.url)), [shop.url, shop.token]);
  await peer.finished();
  const processMs = performance.now() - started;
  const stats = await shop.stop();
  const { records, requests } = JSON.parse(peer.stdout()) as { records: number; requests: number };
  return { processMs, records, requests, throttled: stats.throttled };
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function line(text: string): void {
  process.stdout.write(`${text}\n`);
}

/**
 * A row over its seeds, as one line of the table: each column's mean, bound / busy with its range over the runs, the
 * most in flight and the 429s of all runs, the load before the first run and after the last.
 */
export function rowLine(runs: readonly CrawlBenchRow[]): string {
  const first = runs[0] as CrawlBenchRow;
  const last = runs.at(-1) as CrawlBenchRow;
  const mean = (of: (run: CrawlBenchRow) => number) => meanOf(runs.map(of));
  const ratios = runs.map((run) => run.boundMs / run.spanMs);
  const range = runs.length > 1 ? ` (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})` : '';
  const seeds = runs.map((run) => run.seed).join(', ');
  return (
    `| ${first.latency} | ${first.shop} | ${first.formats} | ${seeds} | ${s(mean((run) => run.boundMs))} | ` +
    `${s(mean((run) => run.drawnMs))} | ${s(mean((run) => run.hedgedMs))} | ` +
    `${(100 * mean((run) => run.hedgedAtTarget)).toFixed(0)} % | ${s(mean((run) => run.spanMs))} | ` +
    `${meanOf(ratios).toFixed(3)}${range} | ${mean((run) => run.drawnMs / run.spanMs).toFixed(3)} | ` +
    `${s(mean((run) => run.processMs))} | ${mean((run) => run.requests).toFixed(0)} (${first.fewest}) | ` +
    `${Math.max(...runs.map((run) => run.mostInFlight))} | ${runs.reduce((sum, run) => sum + run.throttled, 0)} | ` +
    `${mean((run) => run.usage.cpuSeconds).toFixed(1)} s | ${Math.max(...runs.map((run) => run.usage.maxRssMb)).toFixed(0)} MB | ` +
    `${first.load.before.toFixed(1)} → ${last.load.after.toFixed(1)} |`
  );
}

export async function runCrawlBench(): Promise<CrawlBenchRow[]> {
  const records = SIZES.products + SIZES.customers + SIZES.orders;
  line(
    `crawl bench: shopsnap backup (built CLI, depth ${DEPTH}) of ${records} records (${SIZES.products} products, ` +
      `${SIZES.customers} customers, ${SIZES.orders} orders), the shop in its own process; a row of several seeds ` +
      'gives the means of its runs, bound / busy with its range',
  );
  line('');
  line(
    `| latency | shop | formats | seeds | bound | bound, latencies drawn | drawn, late pages hedged | hedged rounds at ≥ ${TARGET} | shop busy | bound / busy | drawn / busy | process | requests (fewest) | most in flight | 429s | CPU | RSS | load |`,
  );
  line('|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  const rows: CrawlBenchRow[] = [];
  for (const latency of LATENCIES) {
    for (const row of ROWS) {
      const byFormat = (row.compare ? [undefined, 'raw'] : [undefined]).map((formats) => ({
        formats,
        runs: [] as CrawlBenchRow[],
      }));
      // Seed by seed, every format of a seed together: the runs compared share the machine's load.
      for (const seed of latency.seeds) {
        for (const { formats, runs } of byFormat) runs.push(await backupRow(latency, row, formats, seed));
      }
      for (const { runs } of byFormat) {
        rows.push(...runs);
        line(rowLine(runs));
      }
      if (row.compare) {
        // The peer runs on the first seed's shop, against the default formats' run there.
        const ours = byFormat[0]?.runs[0] as CrawlBenchRow;
        const seed = ours.seed;
        const peer = await peerRow(latency, row, seed);
        line(
          `| ${latency.name} | ${row.name} | shopify-api-node (autoLimit, sequential) | ${seed} | | | | | | | | ` +
            `${s(peer.processMs)} | ${peer.requests} | 1 | ${peer.throttled} | | | |`,
        );
        line(
          `|  |  | shopsnap is ${(peer.processMs / ours.processMs).toFixed(1)}× the peer on seed ${seed}, whole process against whole process (target ≥ 6×) | | | | | | | | | | | | | | | |`,
        );
      }
    }
  }
  return rows;
}
