import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_PREFIX } from '../shopify/resources.js';
import { type ProcessUsage, spawnMeasuredCli, startSimulatorProcess } from './child-process.js';
import { measureSnapshotFloor, type SnapshotFloor } from './snapshot-floor.js';

export interface SnapshotBenchRun {
  orders: number;
  wallSeconds: number;
  ordersPerSecond: number;
  backupCpuSecondsPer1000: number;
  jsonParseCpuSecondsPer1000: number;
  cpuRatio: number;
  /** The backup: its CLI process and the Parquet converter it starts. */
  backup: ProcessUsage;
  simulator: ProcessUsage;
  /** CPU seconds of the required steps at their cheapest, on this run's snapshot (see snapshot-floor.ts). */
  floor: SnapshotFloor;
  /** One-minute load average when the backup started and when it ended (2 cores shared with other work). */
  load: { before: number; after: number };
}

/** The default sizes of `npm run bench -- snapshot`; issue 4 asks for both. */
export const SNAPSHOT_BENCH_SIZES = [100_000, 1_000_000];

/**
 * End-to-end cost of a snapshot of the orders of an unlimited shop (no rate limit, no latency: the pipeline is the
 * bottleneck), every format, with the backup and the simulated shop in separate processes so CPU and memory belong to
 * one side each. Then bare JSON.parse on the same order pages of the same shop, as the baseline of the CPU figure.
 */
export async function runSnapshotBench(orders: number): Promise<SnapshotBenchRun> {
  const sim = await startSimulatorProcess([
    '--orders',
    `${orders}`,
    '--customers',
    '1000',
    '--products',
    '1000',
    '--rate',
    'unlimited',
    '--big-id-share',
    '0.01',
  ]);
  const out = await mkdtemp(join(tmpdir(), 'shopsnap-bench-'));
  try {
    const loadBefore = loadavg()[0] as number;
    const started = process.hrtime.bigint();
    const backup = spawnMeasuredCli(['backup', '--shop', sim.url, '--out', out, '--resources', 'orders'], {
      SHOPSNAP_TOKEN: sim.token,
    });
    const { usage } = await backup.finished();
    const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    const loadAfter = loadavg()[0] as number;
    // The CLI prints the snapshot's location as its last line of stdout.
    const floor = await measureSnapshotFloor(backup.stdout().trim().split('\n').at(-1) as string);
    const baseline = await jsonParseEveryOrderPage(sim.url, sim.token);
    const simulator = await sim.stop();
    if (baseline.records !== orders)
      throw new Error(`the JSON.parse pass read ${baseline.records} orders of ${orders}`);
    const backupCpuSecondsPer1000 = (usage.cpuSeconds / orders) * 1000;
    const jsonParseCpuSecondsPer1000 = (baseline.cpuSeconds / orders) * 1000;
    return {
      orders,
      wallSeconds,
      ordersPerSecond: orders / wallSeconds,
      backupCpuSecondsPer1000,
      jsonParseCpuSecondsPer1000,
      cpuRatio: backupCpuSecondsPer1000 / jsonParseCpuSecondsPer1000,
      backup: usage,
      simulator,
      floor,
      load: { before: loadBefore, after: loadAfter },
    };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

/**
 * CPU seconds that bare JSON.parse spends on every order page of the shop, one page at a time (the shop serves the
 * same records as the same text to the backup, which pages through them in other slices).
 */
async function jsonParseEveryOrderPage(url: string, token: string): Promise<{ records: number; cpuSeconds: number }> {
  let records = 0;
  let cpuMicros = 0;
  let next: string | undefined = `${url}${API_PREFIX}/orders.json?limit=250&status=any`;
  while (next !== undefined) {
    const response: Response = await fetch(next, { headers: { 'X-Shopify-Access-Token': token } });
    if (!response.ok) throw new Error(`${next}: HTTP ${response.status}`);
    const body = await response.text();
    const before = process.cpuUsage();
    const page = JSON.parse(body) as { orders: unknown[] };
    const spent = process.cpuUsage(before);
    cpuMicros += spent.user + spent.system;
    records += page.orders.length;
    next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
  }
  return { records, cpuSeconds: cpuMicros / 1e6 };
}

export function formatSnapshotBench(runs: SnapshotBenchRun[]): string {
  const lines = [
    '| orders | wall s | orders/s | CPU s / 1k orders | JSON.parse CPU s / 1k | ratio (target ≤ 4) | largest process peak RSS MB | processes | simulator peak RSS MB | load (1 min) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...runs.map((run) =>
      row([
        run.orders.toLocaleString('en-US'),
        run.wallSeconds.toFixed(1),
        run.ordersPerSecond.toFixed(0),
        run.backupCpuSecondsPer1000.toFixed(3),
        run.jsonParseCpuSecondsPer1000.toFixed(4),
        run.cpuRatio.toFixed(2),
        run.backup.maxRssMb.toFixed(0),
        `${run.backup.processes}`,
        run.simulator.maxRssMb.toFixed(0),
        `${run.load.before.toFixed(2)} → ${run.load.after.toFixed(2)}`,
      ]),
    ),
    '',
    'Floor: CPU s per 1k orders that the required steps cost at their cheapest, on the same snapshot, as multiples of JSON.parse:',
    '',
    '| orders | JSON.parse | gzip -1 of NDJSON + raw text | re-read (count, sha256) | Parquet write from held rows | floor | floor ratio |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    ...runs.map((run) => {
      const per1000 = (seconds: number) => (seconds / run.orders) * 1000;
      const parts = [run.floor.gzip, run.floor.reread, run.floor.parquetWrite].map(per1000);
      const floor = run.jsonParseCpuSecondsPer1000 + parts.reduce((sum, part) => sum + part, 0);
      return row([
        run.orders.toLocaleString('en-US'),
        run.jsonParseCpuSecondsPer1000.toFixed(4),
        ...parts.map((part) => part.toFixed(4)),
        floor.toFixed(4),
        (floor / run.jsonParseCpuSecondsPer1000).toFixed(2),
      ]);
    }),
  ];
  const [small, large] = runs;
  if (small !== undefined && large !== undefined) {
    lines.push(
      '',
      `Largest process peak RSS: ${small.backup.maxRssMb.toFixed(0)} MB at ${small.orders} orders, ${large.backup.maxRssMb.toFixed(0)} MB at ${large.orders} (ratio ${(large.backup.maxRssMb / small.backup.maxRssMb).toFixed(2)}, target ≤ 1.2; target ≤ 400 MB).`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function row(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}
