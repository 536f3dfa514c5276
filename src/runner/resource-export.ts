import { join } from 'node:path';
import { count, duration, plural } from '../human.js';
import type { Logger } from '../log.js';
import type { ResourceName } from '../shopify/resources.js';
import { lineSha256, RawArchiveWriter, rawLine } from '../sink/raw-archive-writer.js';
import { RecordIndexWriter } from '../sink/record-index-writer.js';
import { openRecordRows, type RecordRows, type RecordRowsOptions } from '../sink/record-rows.js';
import type { WrittenFile } from '../sink/written-file.js';
import { type CountEvidence, checkCounts, needsChangeCount } from '../snapshot/count-check.js';
import type { CrawlBarrier, ShopSession } from '../source/index.js';
import { tablesFor } from '../transform/index.js';
import type { OutputFormat } from './output-format.js';
import type { ProgressBoard } from './progress-board.js';
import { partSeries, type SnapshotCommitter } from './snapshot-committer.js';

export interface PartPolicy {
  /** A checkpoint (parts finished, committed, progress recorded) at least this often while a resource is crawled. */
  checkpointIntervalMs: number;
  /**
   * The parts are also finished and converted ahead once this share of the records counted before the crawl is in, if
   * they are at least `lateRotationMinRecords`: the parts finished after the last page then hold only the rest, and
   * the snapshot is done sooner after it (the earlier parts convert while the crawl waits on the shop). Ahead, not at
   * a checkpoint: a crawl barrier there held every chain until the slowest page in flight came back, up to a page's
   * time (2 s for orders, more in a tail) in the last seconds of the crawl.
   */
  lateRotationShare: number;
  lateRotationMinRecords: number;
  /** A part is finished once it holds this many rows or this many bytes of text. */
  maxRowsPerPart: number;
  maxBytesPerPart: number;
  /**
   * Between checkpoints, the parts are also finished once this share of the records counted before the crawl came in
   * since the last ones, if that is at least `aheadMinRecords`, and converted and re-read ahead of the checkpoint that
   * commits them (SnapshotCommitter.convertAhead): no barrier, the crawl goes on. Without it, DuckDB converted 90% of a
   * fast crawl's rows after the late checkpoint, a quarter of the backup's wall time.
   */
  aheadShare: number;
  aheadMinRecords: number;
}

export const DEFAULT_PART_POLICY: PartPolicy = {
  checkpointIntervalMs: 120_000,
  lateRotationShare: 0.9,
  lateRotationMinRecords: 2_000,
  maxRowsPerPart: 1_000_000,
  maxBytesPerPart: 512 * 1024 * 1024,
  aheadShare: 0.1,
  aheadMinRecords: 10_000,
};

/** Checking every writer's part size per record would cost more than it saves; parts overshoot by at most this. */
const SIZE_CHECK_EVERY = 256;

/**
 * Crawls one resource into rows and raw records, in parts. At crawl barriers (the crawl pauses with every record it
 * handed over written) the parts are finished and handed to the committer together with the crawl position, so the
 * snapshot grows in storage while the crawl runs and a crashed run resumes from the last committed barrier.
 * A resource the checkpoint already holds as done is not crawled again.
 */
export async function exportResource(options: {
  session: ShopSession;
  resource: ResourceName;
  committer: SnapshotCommitter;
  staging: string;
  formats: readonly OutputFormat[];
  policy: PartPolicy;
  /** Records created or updated from this instant on are change seen during the crawl (see count-check.ts). */
  changesSince: Date;
  board: ProgressBoard;
  logger: Logger;
  /** Where records become table rows: in this thread unless given (see RowThread). */
  openRows?: (options: RecordRowsOptions) => RecordRows;
}): Promise<void> {
  const { resource, committer, policy, changesSince, board, logger } = options;
  const progress = committer.progressOf(resource);
  if (progress.done) {
    const records = progress.summary?.exported ?? 0;
    board.done(resource, { records, expected: progress.summary?.count_before ?? records }, true);
    logger.info({ resource, records }, `${resource}: done by an earlier attempt (${count(records)} records)`);
    return;
  }
  const startedMs = performance.now();
  const resume = progress.crawl;
  if (resume === undefined) {
    progress.files = [];
    progress.next_part = {};
    progress.unknown_fields = 0;
    progress.changed_seen = 0;
  }
  const unlimited = { maxRowsPerPart: Number.POSITIVE_INFINITY, maxBytesPerPart: Number.POSITIVE_INFINITY };
  const rows = (options.openRows ?? openRecordRows)({
    resource,
    dir: join(options.staging, 'ndjson'),
    // A raw-only run still flattens every record, to count the fields the schema does not know, but writes no rows.
    writeRows: options.formats.some((format) => format !== 'raw'),
    // Text only read back by the Parquet conversion is not worth compressing.
    gzipLevel: options.formats.includes('ndjson') ? 1 : 0,
    textCopy: options.formats.includes('parquet'),
    firstParts: Object.fromEntries(
      tablesFor(resource).map((table) => [
        table.name,
        progress.next_part[partSeries({ format: 'ndjson', table: table.name })] ?? 0,
      ]),
    ),
  });
  // Every snapshot indexes its records; with a raw archive, the archive writes the index as it goes.
  const index = new RecordIndexWriter({
    dir: join(options.staging, 'index'),
    resource,
    firstPart: progress.next_part[partSeries({ format: 'index', table: resource })] ?? 0,
  });
  const raw = options.formats.includes('raw')
    ? new RawArchiveWriter({
        dir: join(options.staging, 'raw'),
        resource,
        index,
        ...unlimited,
        firstPart: progress.next_part[partSeries({ format: 'raw', table: resource })] ?? 0,
      })
    : undefined;
  const records = raw ?? index;
  const crawl = options.session.crawl(resource, resume === undefined ? {} : { resume });
  const unknownFieldsBefore = progress.unknown_fields;
  let unknownFields = unknownFieldsBefore;
  let changedSeen = progress.changed_seen ?? 0;
  const sinceMs = changesSince.getTime();
  // After a resume, the first parts are written even when empty: they replace any part a killed run uploaded after
  // its last checkpoint, which would otherwise linger in the snapshot unlisted.
  let firstRotation = resume !== undefined;
  let lastBarrier = Date.now();
  let barrierRequested = false;
  let lateRotation = false;
  let sinceSizeCheck = 0;
  let committing: Promise<void> = Promise.resolve();
  /** Parts finished between barriers (converting ahead), committed with the next batch. */
  let ahead: WrittenFile[] = [];
  let aheadFrom = crawl.progress().exported;
  /** Records written here, those of an earlier attempt included: the crawl's own count runs ahead by its queue. */
  let written = aheadFrom;
  let commitFailure: { error: unknown } | undefined;

  const atBarrier = async (barrier: CrawlBarrier) => {
    const [rowParts, recordParts] = await Promise.all([rows.rotate(firstRotation), records.rotate(firstRotation)]);
    const parts = [...ahead, ...rowParts.files, ...recordParts];
    ahead = [];
    aheadFrom = crawl.progress().exported;
    unknownFields = unknownFieldsBefore + rowParts.unknownFields;
    firstRotation = false;
    // One batch commits while the next is written: staging holds at most two checkpoints' worth of parts.
    await committing;
    committing = committer.commit(
      { resource, parts, crawl: barrier.state },
      { unknown_fields: unknownFields, changed_seen: changedSeen },
    );
    committing.catch((error: unknown) => {
      commitFailure ??= { error };
    });
    lastBarrier = Date.now();
    barrierRequested = false;
    barrier.release();
  };

  try {
    for await (const item of crawl.items) {
      if (commitFailure) throw commitFailure.error;
      if ('barrier' in item) {
        await atBarrier(item);
        continue;
      }
      if (raw) await raw.write(item.bytes, item);
      else await index.add(item, lineSha256(rawLine(item.bytes)), undefined);
      // Date.parse reads the shop's RFC 3339 stamps exactly; anything else is NaN, which is no evidence.
      if (item.updatedAt !== undefined && Date.parse(item.updatedAt) >= sinceMs) changedSeen++;
      await rows.add(item.bytes, item.mayHoldLongIntegers);
      written++;
      if (!barrierRequested && ++sinceSizeCheck >= SIZE_CHECK_EVERY) {
        sinceSizeCheck = 0;
        const full = [rows.part, records.part].some(
          (part) => part.rows >= policy.maxRowsPerPart || part.bytes >= policy.maxBytesPerPart,
        );
        const { exported, expected = Number.POSITIVE_INFINITY } = crawl.progress();
        const late =
          !lateRotation && written >= policy.lateRotationMinRecords && written >= expected * policy.lateRotationShare;
        if (late) lateRotation = true;
        if (full || Date.now() - lastBarrier >= policy.checkpointIntervalMs) {
          barrierRequested = true;
          crawl.requestBarrier();
        } else if (late || exported - aheadFrom >= Math.max(policy.aheadMinRecords, expected * policy.aheadShare)) {
          const [rowParts, recordParts] = await Promise.all([rows.rotate(false), records.rotate(false)]);
          const finished = [...rowParts.files, ...recordParts];
          committer.convertAhead(resource, finished);
          ahead.push(...finished);
          aheadFrom = exported;
        }
      }
    }
    const report = await crawl.report;
    board.done(resource, { records: report.exported, expected: report.countBefore });
    const evidence: CountEvidence = {
      before: report.countBefore,
      after: report.countAfter,
      exported: report.exported,
      changed: changedSeen,
    };
    let requests = report.requests;
    let counted: number | undefined;
    if (needsChangeCount(evidence)) {
      const answer = await options.session.countChangedSince(resource, changesSince);
      counted = answer.count;
      evidence.changed += counted;
      requests += answer.requests;
    }
    await committing;
    const [rowParts, recordParts] = await Promise.all([rows.close(), records.close()]);
    const parts = [...ahead, ...rowParts.files, ...recordParts];
    unknownFields = unknownFieldsBefore + rowParts.unknownFields;
    const check = checkCounts(evidence);
    await committer.finish(resource, parts, {
      count_before: report.countBefore,
      count_after: report.countAfter,
      exported: report.exported,
      check,
      drift: report.countAfter - report.countBefore,
      changes_seen: {
        since: changesSince.toISOString(),
        exported: changedSeen,
        ...(counted === undefined ? {} : { counted }),
      },
      duplicates_dropped: report.duplicatesDropped,
      unknown_fields: unknownFields,
      requests,
      filters: report.filters,
    });
    logger.info(
      {
        resource,
        exported: report.exported,
        count_before: report.countBefore,
        count_after: report.countAfter,
        check,
        pages: report.pages,
        requests,
        retries: report.retries,
        hedges: report.hedges,
        seconds: Math.round((performance.now() - startedMs) / 100) / 10,
      },
      `${resource}: finished, ${count(report.exported)} records (count ${count(report.countBefore)} before, ` +
        `${count(report.countAfter)} after: ${check}), ${plural(report.pages, 'page')}, ${plural(requests, 'request')}, ` +
        `${plural(report.retries, 'retry', 'retries')} in ${duration((performance.now() - startedMs) / 1000)}`,
    );
  } catch (error) {
    // The batch still committing reads staging files: the caller's clean-up must not start under it.
    await committing.catch(() => undefined);
    await committer.settled();
    await Promise.all([rows.abort(), records.abort()]);
    throw error;
  }
}
