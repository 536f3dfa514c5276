import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { RESOURCES } from '../shopify/resources.js';
import type { ShopOptions } from '../simulator/index.js';
import { RATE_PRESETS, type RatePreset, uniformLatency } from '../simulator/index.js';
import { type ProcessUsage, spawnMeasuredCli } from './child-process.js';
import { expectedCrawl, pageSizes, scheduleFinishMs } from './crawl-bound.js';

const SHOPS = 30;
/** Index of the one large Basic-plan shop, mid-list so it has no head start in job order. */
const SLOWEST = 17;
const LATENCY = { baseMs: 150, perRecordMs: 0.2 };
const DEPTH = 20;
const PARALLEL_SHOPS = 4;
const PAGE_LIMIT = 250;
const RATES: RatePreset[] = ['standard', 'plus', 'unlimited'];

interface FleetShop {
  options: ShopOptions & { rate: RatePreset };
  url: string;
  token: string;
}

export interface FleetBenchRun {
  /** 'shop 17 alone', or the fleet on this many workers, cold or nightly. */
  label: string;
  workers: number;
  wallSeconds: number;
  overBound: number;
  usage: ProcessUsage[];
  served: ServedStats;
}

export interface FleetBenchResult {
  boundSeconds: number;
  slowest: string;
  runs: FleetBenchRun[];
}

/**
 * A nightly fleet in miniature: 30 shops on the three rate-limit plans with 150 ms + 0.2 ms/record latency, most of
 * them small, one large Basic-plan shop (bucket 40 leaking 2/s) whose own rate limit makes it the slowest. Every
 * shop is served by one separate process; each run starts it afresh (a nightly run on the same ports), so no bucket
 * carries over. The shops are prerendered (their pages built before the clock starts): building pages on demand
 * took about 4 s of CPU per run from the workers' two cores, a shop's CPU that is Shopify's in production.
 */
export function fleetOptions(): (ShopOptions & { rate: RatePreset })[] {
  return Array.from({ length: SHOPS }, (_, i) => {
    const scale = 1 + ((i * 7) % 10);
    const size =
      i === SLOWEST
        ? { products: 2_500, customers: 12_500, orders: 5_000 }
        : { products: 20 * scale, customers: 60 * scale, orders: 40 * scale };
    const rate = i === SLOWEST ? 'standard' : (RATES[i % 3] as RatePreset);
    return {
      seed: i + 1,
      ...size,
      rate,
      latency: uniformLatency(LATENCY.baseMs, LATENCY.perRecordMs),
      prerender: true,
    };
  });
}

/**
 * The fleet cannot finish before its slowest shop does on its own: the best schedule of that shop's minimum requests
 * under its bucket, leak and latency (crawl-bound.ts), the largest over all shops.
 */
export function shopBoundMs(rate: RatePreset, counts: readonly number[]): number {
  const { bucket, leakPerSecond } = RATE_PRESETS[rate];
  return scheduleFinishMs({
    ...expectedCrawl(
      uniformLatency(LATENCY.baseMs, LATENCY.perRecordMs),
      RESOURCES.map((resource, i) => ({
        resource,
        pages: pageSizes(counts[i] ?? 0, PAGE_LIMIT).map((records) => ({ records })),
      })),
    ),
    bucket,
    leakPerSecond,
    depth: DEPTH,
  });
}

const tokenEnv = (shop: FleetShop) => `TOKEN_${new URL(shop.url).port}`;

interface ServedStats {
  requests: number;
  throttled: number;
}

/** Starts the fleet's shops, on the given ports when a nightly run must find the shops of an earlier one. */
async function startFleet(
  ports?: readonly number[],
): Promise<{ shops: FleetShop[]; stop: () => Promise<ServedStats> }> {
  const options = fleetOptions().map((shop, i) => (ports === undefined ? shop : { ...shop, port: ports[i] }));
  const script = fileURLToPath(new URL('./fleet-sim.js', import.meta.url));
  const child: ChildProcess = spawn(process.execPath, [script, JSON.stringify(options)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.done) throw new Error('the simulated fleet exited before printing its addresses');
  const started = JSON.parse(first.value) as Omit<FleetShop, 'options'>[];
  return {
    shops: started.map((shop, i) => ({ ...shop, options: options[i] as FleetShop['options'] })),
    stop: async () => {
      child.stdin?.end();
      const last = await lines.next();
      const perShop = last.done ? [] : (JSON.parse(last.value) as ServedStats[]);
      return perShop.reduce((a, b) => ({ requests: a.requests + b.requests, throttled: a.throttled + b.throttled }), {
        requests: 0,
        throttled: 0,
      });
    },
  };
}

function jobYaml(shops: readonly FleetShop[], out: string): string {
  return [
    'name: fleet-bench',
    'shops:',
    ...shops.flatMap((shop) => [`  - shop: "${shop.url}"`, `    token_env: ${tokenEnv(shop)}`]),
    'formats: [parquet, raw]',
    `depth: ${DEPTH}`,
    `parallel_shops: ${PARALLEL_SHOPS}`,
    `out: ${out}`,
    '',
  ].join('\n');
}

/** Where a run backed up to, so that a nightly run can follow it: the same shops (ports) into the same folder. */
interface FleetDestination {
  work: string;
  ports: number[];
}

/**
 * One run of the fleet (or of one shop of it) into a fresh folder, or, `after` an earlier run, into that run's folder
 * with the same shops: a nightly run, which finds every shop's previous snapshot (and so starts the slowest first).
 */
async function runFleet(
  workers: number,
  boundMs: number,
  options: { only?: number; after?: FleetDestination } = {},
): Promise<FleetBenchRun & { destination: FleetDestination }> {
  const { only, after } = options;
  const fleet = await startFleet(after?.ports);
  const work = after?.work ?? (await mkdtemp(join(tmpdir(), 'shopsnap-fleet-bench-')));
  try {
    const job = join(work, 'fleet.yaml');
    const shops = only === undefined ? fleet.shops : fleet.shops.filter((_, i) => i === only);
    await writeFile(job, jobYaml(shops, join(work, 'out')));
    const tokens = Object.fromEntries(fleet.shops.map((shop) => [tokenEnv(shop), shop.token]));
    const started = performance.now();
    const finished = await Promise.all(
      Array.from({ length: workers }, (_, index) =>
        spawnMeasuredCli(['run', job, '--shard', `${index}/${workers}`], tokens).finished(),
      ),
    );
    const wallMs = performance.now() - started;
    const fleetLabel = `${workers} worker${workers > 1 ? 's' : ''}, ${after === undefined ? 'cold' : 'nightly'}`;
    return {
      label: only === undefined ? fleetLabel : `shop ${only} alone`,
      workers,
      wallSeconds: wallMs / 1000,
      overBound: wallMs / boundMs,
      usage: finished.map((run) => run.usage),
      served: await fleet.stop(),
      destination: { work, ports: fleet.shops.map((shop) => Number(new URL(shop.url).port)) },
    };
  } catch (error) {
    await fleet.stop();
    await rm(work, { recursive: true, force: true });
    throw error;
  }
}

export async function runFleetBench(): Promise<FleetBenchResult> {
  const slowest = fleetOptions()
    .map((options, i) => ({
      i,
      rate: options.rate,
      ms: shopBoundMs(options.rate, [options.products ?? 0, options.customers ?? 0, options.orders ?? 0]),
    }))
    .reduce((a, b) => (b.ms > a.ms ? b : a));
  const line = (text: string) => process.stdout.write(`${text}\n`);
  line(
    `fleet bench: ${SHOPS} shops (plans ${RATES.join('/')}, ${LATENCY.baseMs} ms + ${LATENCY.perRecordMs} ms/record), ` +
      `formats parquet+raw, depth ${DEPTH}, parallel_shops ${PARALLEL_SHOPS}; the shops in one process of their own`,
  );
  line(
    `  bound: shop ${slowest.i} (${slowest.rate}) alone needs ${(slowest.ms / 1000).toFixed(2)} s ` +
      '(best schedule of its minimum requests under its bucket, leak and latency)',
  );
  const runs: FleetBenchRun[] = [];
  const report = <T extends FleetBenchRun>(run: T): T => {
    runs.push(run);
    const cpu = run.usage.map((u) => u.cpuSeconds.toFixed(1)).join(' + ');
    const rss = Math.max(...run.usage.map((u) => u.maxRssMb));
    line(
      `  ${run.label}: ${run.wallSeconds.toFixed(2)} s = ${run.overBound.toFixed(2)}× the bound` +
        `${run.workers === 3 ? ' (target ≤ 1.2×)' : ''}; CPU ${cpu} s, peak RSS ${rss.toFixed(0)} MB per worker; ` +
        `${run.served.requests} requests, ${run.served.throttled} throttled; load average ${loadavg()[0]?.toFixed(1)}`,
    );
    return run;
  };
  const folders: string[] = [];
  try {
    // The slowest shop on its own first: what the fleet adds is the difference to it. Then the fleet cold (no earlier
    // snapshot: job order), and nightly after that (every shop's last snapshot known: the slowest start first).
    folders.push(report(await runFleet(1, slowest.ms, { only: slowest.i })).destination.work);
    folders.push(report(await runFleet(1, slowest.ms)).destination.work);
    const cold = report(await runFleet(3, slowest.ms));
    folders.push(cold.destination.work);
    report(await runFleet(3, slowest.ms, { after: cold.destination }));
  } finally {
    await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
  }
  return { boundSeconds: slowest.ms / 1000, slowest: `shop ${slowest.i} (${slowest.rate})`, runs };
}
