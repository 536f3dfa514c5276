import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { mkdir, rm, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ShopAddress } from '../cli/shop-address.js';
import { crashPoint } from '../crash-point.js';
import type { Logger } from '../log.js';
import { API_VERSION, type ResourceName } from '../shopify/resources.js';
import { inProcessConverter, type ParquetConverter } from '../sink/parquet-converter.js';
import type { RecordRows, RecordRowsOptions } from '../sink/record-rows.js';
import { changeWindowStart } from '../snapshot/count-check.js';
import { acquireLease } from '../snapshot/lease.js';
import type { Manifest, ResourceSummary } from '../snapshot/manifest.js';
import { MANIFEST_FORMAT, MANIFEST_NAME, serializeManifest } from '../snapshot/manifest.js';
import { detectShrink, findPreviousManifest } from '../snapshot/previous.js';
import { openShopSession } from '../source/index.js';
import type { Storage } from '../storage/storage.js';
import { SCHEMA_VERSION } from '../transform/index.js';
import type { OutputFormat } from './output-format.js';
import { ProgressBoard } from './progress-board.js';
import { changesSincePrevious } from './record-changes.js';
import { DEFAULT_PART_POLICY, exportResource, type PartPolicy } from './resource-export.js';
import { discardCheckpoint, openCheckpoint } from './resume.js';
import { SnapshotCommitter } from './snapshot-committer.js';
import { logStatsEvery } from './stats-log.js';

export type { OutputFormat } from './output-format.js';
export { IntegrityError } from './snapshot-committer.js';

export interface BackupOptions {
  shop: ShopAddress;
  token: string;
  storage: Storage;
  resources: readonly ResourceName[];
  formats: readonly OutputFormat[];
  depth: number;
  /** Local scratch space; files live here until they are committed to storage. */
  stagingRoot: string;
  logger: Logger;
  signal?: AbortSignal;
  /** The live state of the crawl, for a display; the backup feeds it (default: its own). */
  board?: ProgressBoard;
  /** Logs one progress line per resource this often (`--stats`); 0 or absent: none. */
  statsIntervalMs?: number;
  now?: () => Date;
  /** Start a new snapshot even when an unfinished one could be resumed (which is then removed). */
  fresh?: boolean;
  /** A suspicious shrink is real: the snapshot is complete all the same, and the new baseline. */
  acceptShrink?: boolean;
  /** An unfinished snapshot started longer ago than this is not resumed but removed (default 24 h). */
  resumeMaxAgeMs?: number;
  /** When parts are finished and progress is checkpointed (tests use small values). */
  parts?: Partial<PartPolicy>;
  /**
   * Converts the run's NDJSON parts to Parquet; the caller owns it (closes it), and backups may share one. Default: a
   * converter in this process (the CLI converts in a child process).
   */
  parquetConverter?: ParquetConverter;
  /** Where records become table rows; backups may share one thread. Default: this thread (the CLI uses a RowThread). */
  openRows?: (options: RecordRowsOptions) => RecordRows;
}

export interface BackupResult {
  manifest: Manifest;
  /** Where the snapshot lives, e.g. '/data/snapshots/shop.myshopify.com/20261122T050623123Z'. */
  location: string;
}

/**
 * One snapshot of one shop: crawl every resource in parallel; while crawling, finish parts at crawl barriers, convert
 * them to Parquet, re-read and commit them to storage and checkpoint the progress; write manifest.json last. Any
 * failure before the manifest leaves no manifest: the snapshot does not exist, and the next run resumes it from its
 * last checkpoint (or starts over with `fresh`).
 */
export async function runBackup(options: BackupOptions): Promise<BackupResult> {
  const now = options.now ?? (() => new Date());
  const board = options.board ?? new ProgressBoard(options.resources);
  const baseLogger = options.logger.child({ shop: options.shop.key });
  const lease = await acquireLease(options.storage, options.shop.key, {
    signal: options.signal,
    logger: baseLogger,
  });
  let staging: string | undefined;
  let ownConverter: ParquetConverter | undefined;
  try {
    // Holding the lease, no other run uploads for this shop: unfinished uploads are a killed run's leftovers.
    const aborted = await options.storage.abortIncompleteUploads?.(`${options.shop.key}/`);
    if (aborted) baseLogger.info({ aborted }, 'aborted unfinished uploads of an earlier run');
    const checkpoint = await openCheckpoint({ ...options, now: now(), logger: baseLogger });
    const snapshotId = checkpoint.snapshot_id;
    const logger = baseLogger.child({ snapshot: snapshotId });
    const resumed = checkpoint.attempts > 0;
    logger.info(
      {
        resources: options.resources,
        formats: options.formats,
        destination: options.storage.location,
        resumed,
        attempt: checkpoint.attempts + 1,
      },
      `backing up ${options.shop.key} (${options.resources.join(', ')}) as ${options.formats.join(', ')} to ` +
        `${options.storage.location}: ${resumed ? `resuming snapshot ${snapshotId}, attempt ${checkpoint.attempts + 1}` : `new snapshot ${snapshotId}`}`,
    );
    const prefix = `${options.shop.key}/${snapshotId}`;
    staging = join(options.stagingRoot, options.shop.key, snapshotId);
    // Whatever a killed run left in staging was never committed; the checkpoint knows what was.
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true });
    const stop = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    // Every request in flight listens to it: up to `depth` of them, plus the crawls.
    setMaxListeners(0, signal);
    let apiVersionAnswered: string | undefined;
    let fallForwardWarned = false;
    const session = openShopSession({
      shopUrl: options.shop.origin,
      token: options.token,
      depth: options.depth,
      signal,
      onProgress: (progress) => board.update(progress),
      logger,
      onApiVersion: (version) => {
        apiVersionAnswered = version;
        if (version === API_VERSION || fallForwardWarned) return;
        fallForwardWarned = true;
        warnFallForward(logger, version);
      },
    });
    board.attach({
      bucket: () => {
        const stats = session.stats();
        return { used: stats.bucketUsed, max: stats.bucketMax };
      },
      unanswered: () => session.unanswered(),
    });
    const converter = options.parquetConverter ?? inProcessConverter();
    if (converter !== options.parquetConverter) ownConverter = converter;
    const committer = new SnapshotCommitter({
      storage: options.storage,
      prefix,
      lineage: { shop: options.shop.key, snapshotId },
      staging,
      formats: options.formats,
      checkpoint,
      converter,
      logger,
      signal,
      requestsSent: () => session.stats().requests,
    });
    const policy = { ...DEFAULT_PART_POLICY, ...options.parts };
    const changesSince = changeWindowStart(checkpoint.started_at);
    const stopStats = options.statsIntervalMs ? logStatsEvery(board, logger, options.statsIntervalMs) : () => {};
    const exports = await Promise.allSettled(
      options.resources.map((resource) =>
        exportResource({
          session,
          resource,
          committer,
          staging: staging as string,
          formats: options.formats,
          policy,
          changesSince,
          board,
          logger,
          ...(options.openRows ? { openRows: options.openRows } : {}),
        })
          // One failed resource stops the others: the snapshot cannot complete anyway.
          .catch((error: unknown) => {
            stop.abort(error);
            throw error;
          }),
      ),
    );
    stopStats();
    board.attach(undefined);
    session.close();
    options.signal?.throwIfAborted();
    // The first failure is the cause; the others are mostly the stop it triggered.
    if (stop.signal.aborted) throw stop.signal.reason;
    const failed = exports.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;

    const resources: Partial<Record<ResourceName, ResourceSummary>> = {};
    for (const resource of options.resources) resources[resource] = checkpoint.resources[resource]?.summary;
    const files = committer.files();
    const tableFormat = options.formats.find((format) => format !== 'raw');
    const tables: Record<string, { rows: number }> = {};
    for (const file of files.filter((f) => f.format === tableFormat)) {
      tables[file.table] = { rows: (tables[file.table]?.rows ?? 0) + file.rows };
    }
    const previous = await findPreviousManifest(options.storage, options.shop.key, snapshotId);
    const changes = await changesSincePrevious({
      storage: options.storage,
      previous,
      prefix,
      files,
      resources: options.resources,
      converter,
      scratch: join(staging, 'changes'),
      logger,
    });
    if (changes !== undefined) logger.info({ since: changes.since, changes: changes.resources }, 'changes recorded');
    const shrink = detectShrink(previous, resources, changes);
    for (const { resource, previous, current, removed } of shrink) {
      logger.warn(
        { resource, previous, current, removed, accepted: options.acceptShrink === true },
        options.acceptShrink
          ? 'shrink accepted (--accept-shrink): this snapshot is the new baseline'
          : 'suspicious shrink: most records of the last complete snapshot are gone (a revoked scope or a default filter?)',
      );
    }
    const countsHold = Object.values(resources).every((summary) => summary?.check !== 'mismatch');
    const shrinkHolds = shrink.length === 0 || options.acceptShrink === true;
    const manifest: Manifest = {
      format: MANIFEST_FORMAT,
      // A shrunken snapshot is kept but not promoted (unless accepted): the next run compares against the last good one.
      status: countsHold && shrinkHolds ? 'complete' : 'incomplete',
      shop: options.shop.key,
      api_version: API_VERSION,
      ...(apiVersionAnswered === undefined ? {} : { api_version_answered: apiVersionAnswered }),
      snapshot_id: snapshotId,
      schema_version: SCHEMA_VERSION,
      started_at: checkpoint.started_at,
      finished_at: now().toISOString(),
      resources,
      tables,
      files,
      ...(checkpoint.attempts > 0
        ? {
            resumed: {
              attempts: checkpoint.attempts,
              earlier_requests: checkpoint.earlier_requests,
              requests: session.stats().requests,
            },
          }
        : {}),
      ...(changes === undefined ? {} : { changes }),
      ...(shrink.length > 0 ? { suspicious_shrink: shrink } : {}),
      ...(shrink.length > 0 && options.acceptShrink ? { shrink_accepted: true as const } : {}),
    };
    options.signal?.throwIfAborted();
    const body = serializeManifest(manifest);
    crashPoint('before-manifest');
    await options.storage.putBytes(`${prefix}/${MANIFEST_NAME}`, body, {
      sha256: createHash('sha256').update(body).digest('hex'),
      ifNoneMatch: true,
    });
    crashPoint('after-manifest');
    logger.info({ status: manifest.status }, 'snapshot committed');
    await discardCheckpoint(options.storage, options.shop.key, logger);
    return { manifest, location: `${options.storage.location}/${prefix}` };
  } finally {
    await ownConverter?.close();
    if (staging !== undefined) {
      await rm(staging, { recursive: true, force: true });
      // The shop's and the root's staging folders go too once empty; another run's staging keeps them (rmdir fails).
      for (const dir of [dirname(staging), options.stagingRoot]) await rmdir(dir).catch(() => undefined);
    }
    await lease.release();
  }
}

/** Once per backup: the shop serves another version than the one asked for, so the data has that version's shape. */
function warnFallForward(logger: Logger, answered: string): void {
  logger.warn(
    { api_version: API_VERSION, api_version_answered: answered },
    `the shop answered with API version ${answered}, not the ${API_VERSION} requested: Shopify serves a retired version as the oldest supported one; the manifest records both`,
  );
}
