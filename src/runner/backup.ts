import { createHash } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import PQueue from 'p-queue';
import type { ShopAddress } from '../cli/shop-address.js';
import type { Logger } from '../log.js';
import { API_VERSION, type ResourceName } from '../shopify/resources.js';
import { countRows } from '../sink/count-rows.js';
import { convertToParquet } from '../sink/parquet.js';
import { RawArchiveWriter } from '../sink/raw-archive-writer.js';
import { TableWriter } from '../sink/table-writer.js';
import type { WrittenFile } from '../sink/written-file.js';
import { checkCounts } from '../snapshot/count-check.js';
import { acquireLease } from '../snapshot/lease.js';
import type { Manifest, ManifestFile, ResourceSummary } from '../snapshot/manifest.js';
import { MANIFEST_FORMAT, MANIFEST_NAME, serializeManifest } from '../snapshot/manifest.js';
import { detectShrink, findPreviousManifest } from '../snapshot/previous.js';
import { newSnapshotId } from '../snapshot/snapshot-id.js';
import type { CrawlProgress, ShopSession } from '../source/index.js';
import { openShopSession } from '../source/index.js';
import { hashFile } from '../storage/local-dir-storage.js';
import type { Storage } from '../storage/storage.js';
import { SCHEMA_VERSION, tablesFor } from '../transform/index.js';
import { toRows } from '../transform/to-rows.js';

export type OutputFormat = 'parquet' | 'ndjson' | 'raw';

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
  onProgress?: (progress: CrawlProgress) => void;
  now?: () => Date;
}

export interface BackupResult {
  manifest: Manifest;
  /** Where the snapshot lives, e.g. '/data/snapshots/shop.myshopify.com/20261122T050623123Z'. */
  location: string;
}

export class IntegrityError extends Error {
  override name = 'IntegrityError';
  readonly code = 'ERR_INTEGRITY';
}

/**
 * One snapshot of one shop: crawl every resource in parallel, write rows and raw records into staging, convert to
 * Parquet, re-read every file, commit the files to storage, and write manifest.json last. Any failure before the
 * manifest leaves no manifest: the snapshot does not exist.
 */
export async function runBackup(options: BackupOptions): Promise<BackupResult> {
  const now = options.now ?? (() => new Date());
  const startedAt = now();
  const snapshotId = newSnapshotId(startedAt);
  const prefix = `${options.shop.key}/${snapshotId}`;
  const staging = join(options.stagingRoot, options.shop.key, snapshotId);
  const logger = options.logger.child({ shop: options.shop.key, snapshot: snapshotId });
  const lease = await acquireLease(options.storage, options.shop.key);
  try {
    // Holding the lease, no other run uploads for this shop: unfinished uploads are a killed run's leftovers.
    const aborted = await options.storage.abortIncompleteUploads?.(`${options.shop.key}/`);
    if (aborted) logger.info({ aborted }, 'aborted unfinished uploads of an earlier run');
    await mkdir(staging, { recursive: true });
    const session = openShopSession({
      shopUrl: options.shop.origin,
      token: options.token,
      depth: options.depth,
      signal: options.signal,
      onProgress: options.onProgress,
      logger,
    });
    // DuckDB conversions run one at a time across resources so memory stays bounded.
    const conversions = new PQueue({ concurrency: 1 });
    const exported = await Promise.all(
      options.resources.map((resource) => exportResource(session, resource, staging, options.formats, conversions)),
    );
    options.signal?.throwIfAborted();
    const written = exported.flatMap((result) => result.files);
    const files: ManifestFile[] = [];
    for (const file of written) files.push(await reread(file, staging));
    for (const file of files) {
      options.signal?.throwIfAborted();
      await options.storage.putFile(`${prefix}/${file.path}`, join(staging, ...file.path.split('/')), {
        sha256: file.sha256,
      });
      logger.debug({ path: file.path, bytes: file.bytes }, 'committed file');
    }
    const resources: Partial<Record<ResourceName, ResourceSummary>> = {};
    for (const result of exported) resources[result.resource] = result.summary;
    const tables: Record<string, { rows: number }> = {};
    for (const file of files.filter((f) => f.format !== 'raw' && f.format === firstTableFormat(options.formats))) {
      tables[file.table] = { rows: (tables[file.table]?.rows ?? 0) + file.rows };
    }
    const shrink = detectShrink(await findPreviousManifest(options.storage, options.shop.key, snapshotId), resources);
    const countsHold = exported.every((result) => result.summary.check !== 'mismatch');
    const manifest: Manifest = {
      format: MANIFEST_FORMAT,
      // A shrunken snapshot is kept but not promoted: the next run still compares against the last good one.
      status: countsHold && shrink.length === 0 ? 'complete' : 'incomplete',
      shop: options.shop.key,
      api_version: API_VERSION,
      snapshot_id: snapshotId,
      schema_version: SCHEMA_VERSION,
      started_at: startedAt.toISOString(),
      finished_at: now().toISOString(),
      resources,
      tables,
      files,
      ...(shrink.length > 0 ? { suspicious_shrink: shrink } : {}),
    };
    options.signal?.throwIfAborted();
    const body = serializeManifest(manifest);
    await options.storage.putBytes(`${prefix}/${MANIFEST_NAME}`, body, {
      sha256: createHash('sha256').update(body).digest('hex'),
      ifNoneMatch: true,
    });
    logger.info({ status: manifest.status }, 'snapshot committed');
    return { manifest, location: `${options.storage.location}/${prefix}` };
  } finally {
    await rm(staging, { recursive: true, force: true });
    await lease.release();
  }
}

function firstTableFormat(formats: readonly OutputFormat[]): OutputFormat | undefined {
  return formats.find((format) => format !== 'raw');
}

interface ResourceExport {
  resource: ResourceName;
  files: WrittenFile[];
  summary: ResourceSummary;
}

async function exportResource(
  session: ShopSession,
  resource: ResourceName,
  staging: string,
  formats: readonly OutputFormat[],
  conversions: PQueue,
): Promise<ResourceExport> {
  const crawl = session.crawl(resource);
  const writers = new Map(
    tablesFor(resource).map((table) => [table.name, new TableWriter({ dir: join(staging, 'ndjson'), table })]),
  );
  const raw = formats.includes('raw') ? new RawArchiveWriter({ dir: join(staging, 'raw'), resource }) : undefined;
  let unknownFields = 0;
  for await (const crawled of crawl.records) {
    await raw?.write(crawled.raw);
    const shaped = toRows(resource, crawled.record);
    unknownFields += shaped.unknownFields;
    for (const { table, row } of shaped.rows) await writers.get(table)?.write(row);
  }
  const report = await crawl.report;
  const ndjson = (await Promise.all([...writers.values()].map((writer) => writer.close()))).flat();
  const parquet: WrittenFile[] = [];
  if (formats.includes('parquet')) {
    for (const file of ndjson) {
      const table = tablesFor(resource).find((t) => t.name === file.table);
      if (table === undefined) continue;
      parquet.push(await conversions.add(() => convertToParquet(file, table, join(staging, 'parquet'))));
    }
  }
  if (!formats.includes('ndjson')) await Promise.all(ndjson.map((file) => rm(file.path, { force: true })));
  const files = [...(formats.includes('ndjson') ? ndjson : []), ...parquet, ...(raw ? await raw.close() : [])];
  return {
    resource,
    files,
    summary: {
      count_before: report.countBefore,
      count_after: report.countAfter,
      exported: report.exported,
      check: checkCounts({ before: report.countBefore, after: report.countAfter, exported: report.exported }),
      drift: report.countAfter - report.countBefore,
      duplicates_dropped: report.duplicatesDropped,
      unknown_fields: unknownFields,
      requests: report.requests,
      filters: report.filters,
    },
  };
}

/** Re-reads a finished file (never trusting the writer's counters) before it may be listed in a manifest. */
async function reread(file: WrittenFile, staging: string): Promise<ManifestFile> {
  const path = relative(staging, file.path).split(sep).join('/');
  const { sha256, bytes } = await hashFile(file.path);
  const rows = await countRows(file.path, file.format);
  if (sha256 !== file.sha256 || bytes !== file.bytes || rows !== file.rows) {
    throw new IntegrityError(
      `${path} changed after it was written: ${rows} rows / ${bytes} bytes / sha256 ${sha256}, written as ${file.rows} / ${file.bytes} / ${file.sha256}`,
    );
  }
  return { path, table: file.table, format: file.format, rows, bytes, sha256 };
}
