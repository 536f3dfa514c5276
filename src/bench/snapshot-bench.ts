import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_PREFIX } from '../shopify/resources.js';
import { type ProcessUsage, spawnMeasuredCli, startSimulatorProcess } from './child-process.js';

export interface SnapshotBenchRun {
  orders: number;
  wallSeconds: number;
  ordersPerSecond: number;
  backupCpuSecondsPer1000: number;
  jsonParseCpuSecondsPer1000: number;
  cpuRatio: number;
  backup: ProcessUsage;
  simulator: ProcessUsage;
  largestRssMb: number;
}

const SAMPLE_PAGES = 40;

/**
 * End-to-end cost of a snapshot of an unlimited shop (no rate limit, no latency: the pipeline is the bottleneck),
 * with the backup and the simulated shop in separate processes so CPU and memory belong to one side each.
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
    const jsonParseCpuSecondsPer1000 = await measureJsonParse(sim.url, sim.token);
    const started = process.hrtime.bigint();
    const backup = spawnMeasuredCli(['backup', '--shop', sim.url, '--out', out], { SHOPSNAP_TOKEN: sim.token });
    const { usage } = await backup.finished();
    const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    const simulator = await sim.stop();
    const backupCpuSecondsPer1000 = (usage.cpuSeconds / orders) * 1000;
    return {
      orders,
      wallSeconds,
      ordersPerSecond: orders / wallSeconds,
      backupCpuSecondsPer1000,
      jsonParseCpuSecondsPer1000,
      cpuRatio: backupCpuSecondsPer1000 / jsonParseCpuSecondsPer1000,
      backup: usage,
      simulator,
      largestRssMb: Math.max(usage.maxRssMb, simulator.maxRssMb),
    };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

/** CPU seconds per 1,000 orders that bare JSON.parse spends on the simulator's own order pages (median of 5). */
async function measureJsonParse(url: string, token: string): Promise<number> {
  const bodies: string[] = [];
  let next: string | undefined = `${url}${API_PREFIX}/orders.json?limit=250&status=any`;
  while (next !== undefined && bodies.length < SAMPLE_PAGES) {
    const response: Response = await fetch(next, { headers: { 'X-Shopify-Access-Token': token } });
    bodies.push(await response.text());
    next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
  }
  let records = 0;
  for (const body of bodies) records += (JSON.parse(body) as { orders: unknown[] }).orders.length;
  const runs: number[] = [];
  for (let run = 0; run < 5; run++) {
    const before = process.cpuUsage();
    for (const body of bodies) JSON.parse(body);
    const spent = process.cpuUsage(before);
    runs.push((spent.user + spent.system) / 1e6);
  }
  const median = runs.sort((a, b) => a - b)[2] ?? 0;
  return (median / records) * 1000;
}

export function formatSnapshotBench(runs: SnapshotBenchRun[]): string {
  const lines = [
    '| orders | wall s | orders/s | CPU s / 1k orders | JSON.parse CPU s / 1k | ratio (target ≤ 4) | backup peak RSS MB | simulator peak RSS MB |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...runs
      .map((run) =>
        [
          run.orders,
          run.wallSeconds.toFixed(1),
          run.ordersPerSecond.toFixed(0),
          run.backupCpuSecondsPer1000.toFixed(3),
          run.jsonParseCpuSecondsPer1000.toFixed(3),
          run.cpuRatio.toFixed(2),
          run.backup.maxRssMb.toFixed(0),
          run.simulator.maxRssMb.toFixed(0),
        ].join(' | '),
      )
      .map((row) => `| ${row} |`),
  ];
  const [small, large] = runs;
  if (small !== undefined && large !== undefined) {
    lines.push(
      '',
      `Peak RSS of the largest process: ${small.largestRssMb.toFixed(0)} MB at ${small.orders} orders, ${large.largestRssMb.toFixed(0)} MB at ${large.orders} (ratio ${(large.largestRssMb / small.largestRssMb).toFixed(2)}, target ≤ 1.2; target ≤ 400 MB).`,
    );
  }
  return `${lines.join('\n')}\n`;
}
