import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_PREFIX, COMPLETE_LIST_FILTERS, type ResourceName } from '../shopify/resources.js';
import { type ProcessUsage, spawnMeasuredCli, startSimulatorProcess } from './child-process.js';
import { measureSnapshotFloor, type SnapshotFloor } from './snapshot-floor.js';
import { measureSnapshotStages, type SnapshotStages } from './snapshot-stages.js';

export interface SnapshotBenchRun {
  resource: ResourceName;
  records: number;
  wallSeconds: number;
  recordsPerSecond: number;
  /** CPU seconds per 1,000 records of the backup's CLI process, of the converter process it starts, and both. */
  cpuPer1000: { cli: number; converter: number; total: number };
  /** The backup: its CLI process and the converter process it starts. */
  backup: ProcessUsage;
  /** CPU seconds per 1,000 records the simulated shop spent serving the backup (it shares the machine's cores). */
  shopCpuPer1000: number;
  simulatorMaxRssMb: number;
  jsonParseCpuSecondsPer1000: number;
  /** CPU seconds of the required steps at their cheapest, on this run's snapshot (see snapshot-floor.ts). */
  floor: SnapshotFloor;
  /** Where the backup's CPU goes, stage by stage, on a sample of the snapshot (see snapshot-stages.ts). */
  stages: SnapshotStages;
  /** One-minute load average when the backup started and when it ended (2 cores shared with other work). */
  load: { before: number; after: number };
}

/** `npm run bench -- snapshot`: orders at two sizes (1,000,000 within 1.2× the memory of 100,000), then the others. */
export const SNAPSHOT_BENCH_RUNS: readonly { resource: ResourceName; records: number }[] = [
  { resource: 'orders', records: 100_000 },
  { resource: 'orders', records: 1_000_000 },
  { resource: 'products', records: 100_000 },
  { resource: 'customers', records: 100_000 },
];

/** Records the stage breakdown replays: per-record costs do not depend on the shop's size. */
const STAGE_SAMPLE = 10_000;

/** The simulated shop's sizes: the benched resource at `records`, the others small. */
function shopSizes(resource: ResourceName, records: number): string[] {
  const sizes: Record<ResourceName, number> = { products: 1000, customers: 1000, orders: 1000 };
  sizes[resource] = records;
  return Object.entries(sizes).flatMap(([name, size]) => [`--${name}`, `${size}`]);
}

/**
 * End-to-end cost of a snapshot of one resource of an unlimited shop (no rate limit, no latency: the pipeline is the
 * bottleneck), every format, with the backup and the simulated shop in separate processes so CPU and memory belong to
 * one side each. Then bare JSON.parse on the same pages of the same shop, the floor, and the stage breakdown.
 */
export async function runSnapshotBench(resource: ResourceName, records: number): Promise<SnapshotBenchRun> {
  const sim = await startSimulatorProcess([
    ...shopSizes(resource, records),
    '--rate',
    'unlimited',
    '--big-id-share',
    '0.01',
  ]);
  const out = await mkdtemp(join(tmpdir(), 'shopsnap-bench-'));
  try {
    const loadBefore = loadavg()[0] as number;
    const shopBefore = await sim.cpuSecondsNow();
    const started = process.hrtime.bigint();
    const backup = spawnMeasuredCli(['backup', '--shop', sim.url, '--out', out, '--resources', resource], {
      SHOPSNAP_TOKEN: sim.token,
    });
    const { usage } = await backup.finished();
    const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    const loadAfter = loadavg()[0] as number;
    const shopCpu = (await sim.cpuSecondsNow()) - shopBefore;
    // The CLI prints the snapshot's location as its last line of stdout.
    const snapshot = backup.stdout().trim().split('\n').at(-1) as string;
    const floor = await measureSnapshotFloor(snapshot);
    const stages = await measureSnapshotStages(snapshot, resource, STAGE_SAMPLE);
    const baseline = await jsonParseEveryPage(sim.url, sim.token, resource);
    const simulator = await sim.stop();
    if (baseline.records !== records) {
      throw new Error(`the JSON.parse pass read ${baseline.records} ${resource} of ${records}`);
    }
    const perRun = (seconds: number) => per1000(seconds, records);
    const cpuOf = (script: string) =>
      usage.each.filter((line) => line.script === script).reduce((sum, line) => sum + line.cpuSeconds, 0);
    return {
      resource,
      records,
      wallSeconds,
      recordsPerSecond: records / wallSeconds,
      cpuPer1000: {
        cli: perRun(cpuOf('main.js')),
        converter: perRun(cpuOf('parquet-child.js')),
        total: perRun(usage.cpuSeconds),
      },
      backup: usage,
      shopCpuPer1000: perRun(shopCpu),
      simulatorMaxRssMb: simulator.maxRssMb,
      jsonParseCpuSecondsPer1000: perRun(baseline.cpuSeconds),
      floor,
      stages,
      load: { before: loadBefore, after: loadAfter },
    };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

/**
 * CPU seconds that bare JSON.parse spends on every page of the resource, one page at a time (the shop serves the
 * same records as the same text to the backup, which pages through them in other slices).
 */
async function jsonParseEveryPage(
  url: string,
  token: string,
  resource: ResourceName,
): Promise<{ records: number; cpuSeconds: number }> {
  let records = 0;
  let cpuMicros = 0;
  const query = new URLSearchParams({ limit: '250', ...COMPLETE_LIST_FILTERS[resource] });
  let next: string | undefined = `${url}${API_PREFIX}/${resource}.json?${query}`;
  while (next !== undefined) {
    const response: Response = await fetch(next, { headers: { 'X-Shopify-Access-Token': token } });
    if (!response.ok) throw new Error(`${next}: HTTP ${response.status}`);
    const body = await response.text();
    const before = process.cpuUsage();
    const page = JSON.parse(body) as Record<string, unknown[]>;
    const spent = process.cpuUsage(before);
    cpuMicros += spent.user + spent.system;
    records += page[resource]?.length ?? 0;
    next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
  }
  return { records, cpuSeconds: cpuMicros / 1e6 };
}

/** The floor's total, CPU seconds per 1,000 records: JSON.parse and the required steps at their cheapest. */
export function floorPer1000(run: SnapshotBenchRun): number {
  const { gzip, reread, parquetWrite } = run.floor;
  return run.jsonParseCpuSecondsPer1000 + per1000(gzip + reread + parquetWrite, run.records);
}

/** CPU seconds spent on `records` records, per 1,000 of them. */
function per1000(seconds: number, records: number): number {
  return (seconds / records) * 1000;
}

/**
 * The least the backup can cost with the steps it needs beyond the floor, each at its measured cost (table 3): finding
 * each record's exact bytes for the raw archive (page scan), flattening, encoding the NDJSON, and handing the rows to
 * DuckDB, which is the conversion's CPU less the floor's Parquet write. CPU s per 1,000 records.
 */
export function leastPer1000(run: SnapshotBenchRun): { steps: number[]; total: number } {
  const stage = (key: keyof Omit<SnapshotStages, 'records'>) => per1000(run.stages[key], run.stages.records);
  const rowsIntoDuckDb = Math.max(0, stage('convert') - per1000(run.floor.parquetWrite, run.records));
  const steps = [stage('scan'), stage('flatten'), stage('encode'), rowsIntoDuckDb];
  return { steps, total: floorPer1000(run) + steps.reduce((sum, step) => sum + step, 0) };
}

/** Records a second the machine's cores allow when every second of each core goes to the backup and the shop. */
function recordsPerSecondAt(cpuPer1000: number): number {
  return (availableParallelism() * 1000) / cpuPer1000;
}

const STAGE_NAMES: [keyof Omit<SnapshotStages, 'records'>, string][] = [
  ['scan', 'page scan'],
  ['parse', 'parse'],
  ['flatten', 'flatten'],
  ['encode', 'NDJSON encode'],
  ['ndjson', 'NDJSON parts (gzip)'],
  ['raw', 'raw archive + index'],
  ['convert', 'DuckDB → Parquet'],
  ['reread', 're-read'],
];

export function formatSnapshotBench(runs: SnapshotBenchRun[]): string {
  const count = (n: number) => n.toLocaleString('en-US');
  const lines = [
    'CPU s per 1,000 records; the floor is JSON.parse plus the required steps at their cheapest (table 2).',
    '',
    '| resource | records | wall s | records/s (target ≥ 5,000) | CPU CLI | CPU converter | CPU backup | floor | backup ÷ floor (target ≤ 1.5) | CPU shop (same cores) | largest process peak RSS MB | shop peak RSS MB | load (1 min) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...runs.map((run) =>
      row([
        run.resource,
        count(run.records),
        run.wallSeconds.toFixed(1),
        run.recordsPerSecond.toFixed(0),
        run.cpuPer1000.cli.toFixed(3),
        run.cpuPer1000.converter.toFixed(3),
        run.cpuPer1000.total.toFixed(3),
        floorPer1000(run).toFixed(3),
        (run.cpuPer1000.total / floorPer1000(run)).toFixed(2),
        run.shopCpuPer1000.toFixed(3),
        run.backup.maxRssMb.toFixed(0),
        run.simulatorMaxRssMb.toFixed(0),
        `${run.load.before.toFixed(2)} → ${run.load.after.toFixed(2)}`,
      ]),
    ),
    '',
    'Table 2, the floor: CPU s per 1,000 records that the required steps cost at their cheapest, on the same snapshot:',
    '',
    '| resource | records | JSON.parse | gzip -1 of NDJSON + raw text | re-read (count, sha256) | Parquet write from held rows | floor | floor ÷ JSON.parse |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...runs.map((run) => {
      const parts = [run.floor.gzip, run.floor.reread, run.floor.parquetWrite].map((part) =>
        per1000(part, run.records),
      );
      return row([
        run.resource,
        count(run.records),
        run.jsonParseCpuSecondsPer1000.toFixed(4),
        ...parts.map((part) => part.toFixed(4)),
        floorPer1000(run).toFixed(4),
        (floorPer1000(run) / run.jsonParseCpuSecondsPer1000).toFixed(2),
      ]);
    }),
    '',
    `Table 3, where the backup's CPU goes: CPU s per 1,000 records of each stage, replayed in one process (the least of three rounds) on the first ${count(STAGE_SAMPLE)} records of the snapshot; the rest is HTTP, the crawl's bookkeeping, committing, garbage collection outside the stages and the processes' start:`,
    '',
    `| resource | records | ${STAGE_NAMES.map(([, name]) => name).join(' | ')} | stages | rest |`,
    `|---|---:|${STAGE_NAMES.map(() => '---:').join('|')}|---:|---:|`,
    ...runs.map((run) => {
      const stages = STAGE_NAMES.map(([key]) => per1000(run.stages[key], run.stages.records));
      const sum = stages.reduce((total, stage) => total + stage, 0);
      return row([
        run.resource,
        count(run.records),
        ...stages.map((stage) => stage.toFixed(3)),
        sum.toFixed(3),
        (run.cpuPer1000.total - sum).toFixed(3),
      ]);
    }),
  ];
  lines.push(
    '',
    `Table 4, the least with the steps the backup needs beyond the floor, each at its cost in table 3 (rows into DuckDB: DuckDB → Parquet less the floor's Parquet write), and the records a second that CPU allows on this machine's ${availableParallelism()} cores beside the shop's own CPU (table 1):`,
    '',
    '| resource | records | floor | page scan | flatten | NDJSON encode | rows into DuckDB | least | least ÷ floor (target ≤ 1.5) | records/s at the least | records/s at the backup measured |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...runs.map((run) => {
      const least = leastPer1000(run);
      return row([
        run.resource,
        count(run.records),
        floorPer1000(run).toFixed(3),
        ...least.steps.map((step) => step.toFixed(3)),
        least.total.toFixed(3),
        (least.total / floorPer1000(run)).toFixed(2),
        recordsPerSecondAt(least.total + run.shopCpuPer1000).toFixed(0),
        recordsPerSecondAt(run.cpuPer1000.total + run.shopCpuPer1000).toFixed(0),
      ]);
    }),
  );
  const orders = runs.filter((run) => run.resource === 'orders');
  const [small, large] = [orders[0], orders.at(-1)];
  if (small !== undefined && large !== undefined && large !== small) {
    lines.push(
      '',
      `Largest process peak RSS: ${small.backup.maxRssMb.toFixed(0)} MB at ${count(small.records)} orders, ${large.backup.maxRssMb.toFixed(0)} MB at ${count(large.records)} (ratio ${(large.backup.maxRssMb / small.backup.maxRssMb).toFixed(2)}, target ≤ 1.2; target ≤ 400 MB).`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function row(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}
