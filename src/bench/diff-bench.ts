import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { count } from '../human.js';
import { createLogger } from '../log.js';
import { DEFAULT_PART_POLICY } from '../runner/resource-export.js';
import { SnapshotCommitter } from '../runner/snapshot-committer.js';
import { API_VERSION } from '../shopify/resources.js';
import { formatShopTime } from '../simulator/index.js';
import { resolveShopOptions } from '../simulator/options.js';
import { ShopState } from '../simulator/shop-state.js';
import { serialize } from '../simulator/store.js';
import { childProcessConverter, type ParquetConverter } from '../sink/parquet-converter.js';
import { RawArchiveWriter } from '../sink/raw-archive-writer.js';
import { RecordIndexWriter } from '../sink/record-index-writer.js';
import { CHECKPOINT_FORMAT, checkpointKey } from '../snapshot/checkpoint.js';
import {
  MANIFEST_FORMAT,
  MANIFEST_NAME,
  type Manifest,
  type ResourceSummary,
  serializeManifest,
} from '../snapshot/manifest.js';
import { newSnapshotId } from '../snapshot/snapshot-id.js';
import { LocalDirStorage } from '../storage/local-dir-storage.js';
import type { Storage } from '../storage/storage.js';
import { SCHEMA_VERSION } from '../transform/index.js';
import { type ProcessUsage, spawnMeasuredCli } from './child-process.js';

/**
 * `npm run bench -- diff [orders]`: `shopsnap diff` of two snapshots of one shop's orders (default 1,000,000 each,
 * the size), between which 1% of the orders changed, 0.1% were deleted and 0.1% created. Measured: the diff's
 * wall time, CPU (every process) and peak RSS, once with counts only and once with `--details` (every changed field).
 *
 * How the two snapshots are made: not by two backups (one of 1,000,000 orders takes over 500 s on this machine, see
 * the snapshot bench) but by writing what a raw-only backup writes, through the same pieces. The orders are the
 * simulated shop's generated ones, each as the shop serves it (its own serializer), in id order as a crawl finds them.
 * Each snapshot's records go through a RawArchiveWriter with its RecordIndexWriter (256 KiB gzip members, an index row
 * per record with its member's offset), parts rotated at the backup's default size, committed by the SnapshotCommitter
 * (index converted to Parquet by the converter process, every file re-read and hashed, put into a LocalDirStorage),
 * and closed by a manifest as backup writes it: `shopsnap verify` passes them. The second snapshot holds every 100th
 * order changed (a note and an updated_at a day later), lacks every 1000th, and holds 0.1% more orders, copies under
 * new ids above all others. Changes are spread evenly over the shop: the most gzip members to read.
 */

export interface DiffBenchRun {
  orders: number;
  changed: number;
  removed: number;
  added: number;
  /** Writing both snapshots, wall seconds. */
  setupSeconds: number;
  counts: DiffRun;
  details: DiffRun & { lines: number };
}

interface DiffRun {
  wallSeconds: number;
  usage: ProcessUsage;
  /** One-minute load average when the diff started and when it ended (2 cores shared with other work). */
  load: { before: number; after: number };
}

export const DIFF_BENCH_ORDERS = 1_000_000;
const CHANGED_EVERY = 100;
const REMOVED_EVERY = 1_000;
const ADDED_EVERY = 1_000;
/** Ids of the created orders: above every generated id, big ids (beyond 2^53) included. */
const FIRST_NEW_ID = 2n ** 62n;
const SHOP = 'bench-diff.myshopify.com';

export async function runDiffBench(orders = DIFF_BENCH_ORDERS): Promise<DiffBenchRun> {
  const out = await mkdtemp(join(tmpdir(), 'shopsnap-diff-bench-'));
  try {
    const started = performance.now();
    const expected = await writeSnapshots(out, orders);
    const setupSeconds = (performance.now() - started) / 1000;
    const shopFolder = join(out, SHOP);
    const counts = await measureDiff([shopFolder, '--json']);
    const reported = JSON.parse(counts.stdout).resources.orders;
    const wanted = { ...expected, unchanged: orders - expected.changed - expected.removed };
    if (JSON.stringify(reported) !== JSON.stringify(wanted)) {
      throw new Error(`diff counted ${JSON.stringify(reported)}, the bench made ${JSON.stringify(wanted)}`);
    }
    const detailsFile = join(out, 'details.ndjson');
    const details = await measureDiff([shopFolder, '--details', detailsFile]);
    const lines = (await readFile(detailsFile, 'utf8')).split('\n').length - 1;
    if (lines !== expected.added + expected.removed + expected.changed) {
      throw new Error(`diff --details wrote ${lines} lines, the bench made ${JSON.stringify(expected)}`);
    }
    return { orders, ...expected, setupSeconds, counts: counts.run, details: { ...details.run, lines } };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

async function measureDiff(args: string[]): Promise<{ run: DiffRun; stdout: string }> {
  const loadBefore = loadavg()[0] as number;
  const started = performance.now();
  const diff = spawnMeasuredCli(['diff', ...args]);
  const { usage } = await diff.finished();
  const wallSeconds = (performance.now() - started) / 1000;
  return {
    run: { wallSeconds, usage, load: { before: loadBefore, after: loadavg()[0] as number } },
    stdout: diff.stdout(),
  };
}

/** The two snapshots of SHOP in `out`, a day apart; what differs between them. */
async function writeSnapshots(
  out: string,
  orders: number,
): Promise<{ added: number; removed: number; changed: number }> {
  const state = new ShopState(
    resolveShopOptions({ seed: 7, orders, customers: 1000, products: 1000, bigIdShare: 0.01 }),
  );
  const store = state.stores.orders;
  const storage = new LocalDirStorage(out);
  const converter = childProcessConverter();
  const day = 86_400_000;
  const firstAt = new Date(Date.now() - day);
  try {
    const [before, after] = [
      new SnapshotWriter(storage, converter, firstAt, join(out, '.staging-before')),
      new SnapshotWriter(storage, converter, new Date(firstAt.getTime() + day), join(out, '.staging-after')),
    ];
    const made = { added: 0, removed: 0, changed: 0 };
    for (const index of idOrder(state, orders)) {
      const order = store.recordOf({ facts: store.model.facts(index) });
      const text = Buffer.from(serialize(order));
      const record = { id: String(order.id), updatedAt: String(order.updated_at) };
      await before.write(text, record);
      if (index % REMOVED_EVERY === 7) {
        made.removed++;
        continue;
      }
      if (index % CHANGED_EVERY === 3) {
        made.changed++;
        order.note = `called back about order ${order.name}`;
        order.updated_at = formatShopTime(Date.parse(String(order.updated_at)) + day);
        await after.write(Buffer.from(serialize(order)), { ...record, updatedAt: order.updated_at });
      } else await after.write(text, record);
    }
    for (let index = 500; index < orders; index += ADDED_EVERY) {
      const copy = store.recordOf({ facts: store.model.facts(index) });
      const id = FIRST_NEW_ID + BigInt(made.added++);
      const text = Buffer.from(serialize({ ...copy, id, name: `#N${id}` }));
      await after.write(text, { id: id.toString(), updatedAt: String(copy.updated_at) });
    }
    await before.finish();
    await after.finish();
    return made;
  } finally {
    await converter.close();
  }
}

/** Generated orders in id order: normal ids grow with the index, big ids too, and every big id is above every normal one. */
function* idOrder(state: ShopState, orders: number): Generator<number> {
  const ids = state.ctx.ids.orders;
  for (let index = 0; index < orders; index++) if (!ids.isBig(index)) yield index;
  for (let index = 0; index < orders; index++) if (ids.isBig(index)) yield index;
}

/** One raw-only snapshot of SHOP's orders, written and committed as a backup does (see the file's comment). */
class SnapshotWriter {
  readonly #storage: Storage;
  readonly #committer: SnapshotCommitter;
  readonly #raw: RawArchiveWriter;
  readonly #id: string;
  readonly #startedAt: string;
  #records = 0;
  #sinceSizeCheck = 0;

  constructor(storage: Storage, converter: ParquetConverter, at: Date, staging: string) {
    this.#storage = storage;
    this.#id = newSnapshotId(at);
    this.#startedAt = at.toISOString();
    const index = new RecordIndexWriter({ dir: join(staging, 'index'), resource: 'orders' });
    const unlimited = { maxRowsPerPart: Number.POSITIVE_INFINITY, maxBytesPerPart: Number.POSITIVE_INFINITY };
    this.#raw = new RawArchiveWriter({ dir: join(staging, 'raw'), resource: 'orders', index, ...unlimited });
    this.#committer = new SnapshotCommitter({
      storage,
      prefix: `${SHOP}/${this.#id}`,
      lineage: { shop: SHOP, snapshotId: this.#id },
      staging,
      formats: ['raw'],
      checkpoint: {
        format: CHECKPOINT_FORMAT,
        shop: SHOP,
        snapshot_id: this.#id,
        api_version: API_VERSION,
        schema_version: SCHEMA_VERSION,
        started_at: this.#startedAt,
        updated_at: this.#startedAt,
        requested: { resources: ['orders'], formats: ['raw'] },
        attempts: 0,
        earlier_requests: 0,
        attempt_requests: 0,
        resources: {},
      },
      converter,
      logger: createLogger({ level: 'silent' }),
      requestsSent: () => 0,
    });
  }

  async write(text: Buffer, record: { id: string; updatedAt: string | undefined }): Promise<void> {
    await this.#raw.write(text, record);
    this.#records++;
    // As a backup does (resource-export.ts): a part full by the default policy is finished, and commits at the end.
    if (++this.#sinceSizeCheck >= 256) {
      this.#sinceSizeCheck = 0;
      const part = this.#raw.part;
      if (part.rows >= DEFAULT_PART_POLICY.maxRowsPerPart || part.bytes >= DEFAULT_PART_POLICY.maxBytesPerPart) {
        await this.#committer.commit(
          { resource: 'orders', parts: await this.#raw.rotate(), crawl: undefined },
          {
            unknown_fields: 0,
          },
        );
      }
    }
  }

  async finish(): Promise<void> {
    const n = this.#records;
    const summary: ResourceSummary = {
      count_before: n,
      count_after: n,
      exported: n,
      check: 'ok',
      drift: 0,
      duplicates_dropped: 0,
      unknown_fields: 0,
      requests: 0,
      filters: {},
    };
    await this.#committer.finish('orders', await this.#raw.close(), summary);
    const manifest: Manifest = {
      format: MANIFEST_FORMAT,
      status: 'complete',
      shop: SHOP,
      api_version: API_VERSION,
      snapshot_id: this.#id,
      schema_version: SCHEMA_VERSION,
      started_at: this.#startedAt,
      finished_at: this.#startedAt,
      resources: { orders: summary },
      tables: {},
      files: this.#committer.files(),
    };
    const body = serializeManifest(manifest);
    await this.#storage.putBytes(`${SHOP}/${this.#id}/${MANIFEST_NAME}`, body, {
      sha256: createHash('sha256').update(body).digest('hex'),
      ifNoneMatch: true,
    });
    await this.#storage.delete(checkpointKey(SHOP));
  }
}

export function formatDiffBench(runs: DiffBenchRun[]): string {
  const lines = [
    '| orders per snapshot | changed | removed | added | diff | wall | CPU (all processes) | peak RSS, largest process | processes | load (1 min) | writing both snapshots |',
    '|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|',
    ...runs.flatMap((run) =>
      (
        [
          ['counts (`--json`)', run.counts],
          [`\`--details\` (${count(run.details.lines)} lines)`, run.details],
        ] as const
      ).map(([kind, diff]) =>
        row([
          count(run.orders),
          count(run.changed),
          count(run.removed),
          count(run.added),
          kind,
          `${diff.wallSeconds.toFixed(1)} s`,
          `${diff.usage.cpuSeconds.toFixed(1)} s`,
          `${diff.usage.maxRssMb.toFixed(0)} MB`,
          `${diff.usage.processes}`,
          `${diff.load.before.toFixed(2)} → ${diff.load.after.toFixed(2)}`,
          `${run.setupSeconds.toFixed(0)} s`,
        ]),
      ),
    ),
  ];
  return `${lines.join('\n')}\n`;
}

function row(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}
