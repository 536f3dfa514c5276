import { createHash } from 'node:crypto';
import PQueue from 'p-queue';
import type { ShopAddress } from '../cli/shop-address.js';
import type { Logger } from '../log.js';
import type { Manifest } from '../snapshot/manifest.js';
import { DAY_MS } from '../snapshot/retention.js';
import { expectedCrawlMs, probeShop } from '../source/index.js';
import type { Storage } from '../storage/storage.js';
import { type BackupOptions, type BackupResult, runBackup } from './backup.js';
import type { JobSpec } from './job-file.js';
import { type PruneReport, prune } from './prune.js';
import type { Shard } from './shard.js';
import { expectedDurations, slowestFirst } from './shop-order.js';

export interface ShopTarget {
  shop: ShopAddress;
  /** The token, or why it could not be had: that shop fails, the others still run. */
  token: string | Error;
  /** See BackupOptions.acceptShrink. */
  acceptShrink?: boolean;
}

export interface ShopOutcome {
  shop: string;
  status: 'complete' | 'incomplete' | 'failed';
  location?: string;
  suspicious_shrink?: Manifest['suspicious_shrink'];
  /** The shrink was accepted: the snapshot is complete and the new baseline. */
  shrink_accepted?: true;
  error?: string;
  /** What the job's retention removed after a complete snapshot (see prune.ts). */
  pruned?: PruneReport['removed'];
  /** Why that pruning failed; the snapshot itself stands. */
  prune_error?: string;
  /** Set for failures (of the backup, or of the pruning after it): the error itself, for the CLI to classify. */
  cause?: unknown;
}

export interface FleetSummary {
  job: string;
  shard: Shard;
  started_at: string;
  finished_at: string;
  shops: Omit<ShopOutcome, 'cause'>[];
}

/**
 * Backs up every shop of this worker's shard, `parallelShops` at a time, slowest first (see shop-order.ts), each with
 * its own session (and so its own rate-limit pacer). A failing shop does not stop the others; the outcome of each is
 * returned, in job order, and written as the fleet summary next to the snapshots.
 */
export async function runJob(options: {
  job: JobSpec;
  targets: readonly ShopTarget[];
  shard: Shard;
  storage: Storage;
  stagingRoot: string;
  logger: Logger;
  signal?: AbortSignal;
  /** Shared by the shops' backups: one conversion at a time per worker. */
  parquetConverter?: BackupOptions['parquetConverter'];
  /** Shared by the shops' backups too (see BackupOptions.openRows). */
  openRows?: BackupOptions['openRows'];
  /** Each backup logs one progress line per resource this often (see BackupOptions.statsIntervalMs). */
  statsIntervalMs?: number;
}): Promise<{ outcomes: ShopOutcome[]; summaryKey: string }> {
  const startedAt = new Date();
  const queue = new PQueue({ concurrency: options.job.parallelShops });
  const durations = await expectedDurations(
    options.storage,
    options.targets.map((target) => target.shop.key),
    startedAt,
  );
  const firstRuns = await firstRunEstimates(options, durations);
  const outcomes: ShopOutcome[] = [];
  await Promise.all(
    slowestFirst(durations, firstRuns).map(async (index) => {
      const target = options.targets[index] as ShopTarget;
      outcomes[index] = await queue.add(async (): Promise<ShopOutcome> => {
        try {
          if (target.token instanceof Error) throw target.token;
          const result: BackupResult = await runBackup({
            shop: target.shop,
            token: target.token,
            storage: options.storage,
            resources: options.job.resources,
            formats: options.job.formats,
            depth: options.job.depth,
            stagingRoot: options.stagingRoot,
            logger: options.logger,
            signal: options.signal,
            parquetConverter: options.parquetConverter,
            openRows: options.openRows,
            statsIntervalMs: options.statsIntervalMs,
            acceptShrink: target.acceptShrink,
          });
          const { status, suspicious_shrink, shrink_accepted } = result.manifest;
          return {
            shop: target.shop.key,
            status,
            location: result.location,
            ...(suspicious_shrink ? { suspicious_shrink } : {}),
            ...(shrink_accepted ? { shrink_accepted } : {}),
            ...(status === 'complete' ? await applyRetention(options, target.shop.key) : {}),
          };
        } catch (error) {
          options.logger.error({ shop: target.shop.key, err: error }, 'shop failed');
          return { shop: target.shop.key, status: 'failed', error: (error as Error).message, cause: error };
        }
      });
    }),
  );
  const summary: FleetSummary = {
    job: options.job.name,
    shard: options.shard,
    started_at: startedAt.toISOString(),
    finished_at: new Date().toISOString(),
    shops: outcomes.map(({ cause: _cause, ...outcome }) => outcome),
  };
  const summaryKey =
    options.shard.count === 1
      ? 'fleet-summary.json'
      : `fleet-summary.shard-${options.shard.index}-of-${options.shard.count}.json`;
  const body = Buffer.from(`${JSON.stringify(summary, null, 2)}\n`);
  await options.storage.putBytes(summaryKey, body, { sha256: createHash('sha256').update(body).digest('hex') });
  return { outcomes, summaryKey };
}

/** The job's retention for one shop, after its complete snapshot: what went, or why pruning failed. */
async function applyRetention(
  options: { job: JobSpec; storage: Storage; logger: Logger },
  shop: string,
): Promise<Pick<ShopOutcome, 'pruned' | 'prune_error' | 'cause'>> {
  const { retention } = options.job;
  if (retention === undefined) return {};
  try {
    const report = await prune({
      catalog: { storage: options.storage, scope: { kind: 'shop', shop } },
      policy: { keepWithinMs: retention.keepWithinDays * DAY_MS, keepLast: retention.keepLast },
      onRemove: ({ entry, reason }) =>
        options.logger.info(
          { shop, snapshot: entry.id, state: entry.state, objects: entry.objects, bytes: entry.bytes, reason },
          'removed snapshot',
        ),
    });
    return { pruned: report.removed };
  } catch (error) {
    options.logger.error({ shop, err: error }, 'pruning failed');
    return { prune_error: (error as Error).message, cause: error };
  }
}

/**
 * Shops never backed up, when more of them than the worker starts at once: their counts, asked for together, say which
 * is largest, so a large new shop does not wait behind small ones. A shop that fails the probe keeps no estimate (and
 * its backup reports the failure); with few new shops nothing is asked, as they all start at once anyway.
 */
async function firstRunEstimates(
  options: { job: JobSpec; targets: readonly ShopTarget[]; logger: Logger; signal?: AbortSignal },
  durations: ReadonlyArray<number | undefined>,
): Promise<Array<number | undefined>> {
  const fresh = options.targets.filter((_, i) => durations[i] === undefined);
  if (fresh.length <= options.job.parallelShops) return [];
  const probes = new PQueue({ concurrency: PROBES_AT_ONCE });
  return Promise.all(
    options.targets.map(async ({ shop, token }, i) => {
      if (durations[i] !== undefined || token instanceof Error) return undefined;
      return probes.add(async () => {
        try {
          const probe = await probeShop({
            shopUrl: shop.origin,
            token,
            resources: options.job.resources,
            signal: options.signal,
          });
          return expectedCrawlMs(probe, options.job.depth);
        } catch (error) {
          options.logger.debug({ shop: shop.key, err: error }, 'shop not probed');
          return undefined;
        }
      });
    }),
  );
}

/** Shops probed at a time: a shard of hundreds of new shops should not open hundreds of connections at once. */
const PROBES_AT_ONCE = 16;
