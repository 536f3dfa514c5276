import { rm } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { crashPoint } from '../crash-point.js';
import type { Logger } from '../log.js';
import type { ResourceName } from '../shopify/resources.js';
import type { ParquetConverter } from '../sink/parquet-converter.js';
import { partNumberOf } from '../sink/part-writer.js';
import { recordIndexTable } from '../sink/record-index-writer.js';
import type { WrittenFile } from '../sink/written-file.js';
import { type Checkpoint, type ResourceProgress, writeCheckpoint } from '../snapshot/checkpoint.js';
import type { ManifestFile, ResourceSummary } from '../snapshot/manifest.js';
import type { CrawlResumeState } from '../source/index.js';
import type { Storage } from '../storage/storage.js';
import { tablesFor } from '../transform/index.js';
import type { Lineage } from '../transform/schema.js';
import type { OutputFormat } from './output-format.js';

export class IntegrityError extends Error {
  override name = 'IntegrityError';
  readonly code = 'ERR_INTEGRITY';
}

/** A set of parts of one resource, finished together at a crawl barrier, with where the crawl stood then. */
export interface PartBatch {
  resource: ResourceName;
  /** NDJSON parts of the resource's tables and raw archive parts, in staging. */
  parts: WrittenFile[];
  /** Undefined: the crawl cannot resume (it follows one Link chain), so the parts wait in staging until the end. */
  crawl: CrawlResumeState | undefined;
}

/**
 * Moves finished parts from staging into the snapshot while the crawl goes on: converts NDJSON parts to Parquet,
 * re-reads every file (never trusting the writer's counters), uploads it, frees the staging space, and then records
 * the new durable progress in the checkpoint. Batches of one resource commit in order; a checkpoint is written only
 * after every file it lists is in storage, so a crash at any point leaves a checkpoint that is true.
 */
export class SnapshotCommitter {
  readonly #chains = new Map<ResourceName, Promise<void>>();
  readonly #held = new Map<ResourceName, WrittenFile[]>();
  /** Conversions and re-reads started ahead of their commit (see convertAhead), by the part's path. */
  readonly #ahead = new Map<string, Promise<CheckedOutput[]>>();
  #checkpointWrite: Promise<void> = Promise.resolve();
  #announced: Promise<void> | undefined;

  constructor(
    private readonly options: {
      storage: Storage;
      /** `<shop>/<snapshot id>`: where the files go. */
      prefix: string;
      /** The shop and snapshot every Parquet row of a table names. */
      lineage: Lineage;
      staging: string;
      formats: readonly OutputFormat[];
      checkpoint: Checkpoint;
      /** Converts one part at a time, across resources and any backups sharing it, so memory stays bounded. */
      converter: ParquetConverter;
      logger: Logger;
      signal?: AbortSignal | undefined;
      /** Requests the run has sent so far, recorded in each checkpoint. */
      requestsSent: () => number;
    },
  ) {}

  progressOf(resource: ResourceName): ResourceProgress {
    const resources = this.options.checkpoint.resources;
    resources[resource] ??= { done: false, files: [], next_part: {}, unknown_fields: 0 };
    return resources[resource];
  }

  /** Batches this resource has queued and not yet committed. */
  pending(resource: ResourceName): Promise<void> {
    return this.#chains.get(resource) ?? Promise.resolve();
  }

  /** Commits a batch with the resource's tallies up to its barrier, which resume with it. */
  commit(batch: PartBatch, tallies: Pick<ResourceProgress, 'unknown_fields' | 'changed_seen'>): Promise<void> {
    return this.#enqueue(batch.resource, async () => {
      if (batch.crawl === undefined) {
        this.#held.set(batch.resource, [...(this.#held.get(batch.resource) ?? []), ...batch.parts]);
        return;
      }
      const progress = this.progressOf(batch.resource);
      this.#apply(progress, await this.#commitParts(batch.resource, batch.parts));
      progress.crawl = batch.crawl;
      Object.assign(progress, tallies);
      await this.#saveCheckpoint();
    });
  }

  /**
   * Starts converting and re-reading finished parts before the batch that commits them, so that the converter works
   * while the crawl goes on instead of after its last page; commit() and finish() take them from here, in order.
   */
  convertAhead(resource: ResourceName, parts: readonly WrittenFile[]): void {
    for (const part of parts) {
      const checked = this.#convert(resource, part);
      // Observed by the batch that commits the part (or by settled(), should the run fail before it).
      checked.catch(() => undefined);
      this.#ahead.set(part.path, checked);
    }
  }

  /** Resolves once nothing started ahead still reads staging: the caller's clean-up may remove it then. */
  async settled(): Promise<void> {
    await Promise.allSettled(this.#ahead.values());
  }

  /** The last batch of a resource: after it, the resource is done and its summary final. */
  finish(resource: ResourceName, parts: WrittenFile[], summary: ResourceSummary): Promise<void> {
    return this.#enqueue(resource, async () => {
      const held = this.#held.get(resource) ?? [];
      this.#held.delete(resource);
      const progress = this.progressOf(resource);
      this.#apply(progress, await this.#commitParts(resource, [...held, ...parts]));
      progress.done = true;
      progress.summary = summary;
      progress.unknown_fields = summary.unknown_fields;
      delete progress.crawl;
      await this.#saveCheckpoint();
    });
  }

  files(): ManifestFile[] {
    return Object.values(this.options.checkpoint.resources).flatMap((progress) => progress?.files ?? []);
  }

  #enqueue(resource: ResourceName, work: () => Promise<void>): Promise<void> {
    const next = this.pending(resource).then(work);
    // A failed batch fails every later one of the resource: nothing after a gap may be committed.
    this.#chains.set(resource, next);
    return next;
  }

  /**
   * A batch's files become part of the checkpoint all at once, together with the crawl position they belong to: a
   * checkpoint written meanwhile for another resource must not list them with the older position.
   */
  #apply(progress: ResourceProgress, committed: Committed): void {
    progress.files.push(...committed.files);
    Object.assign(progress.next_part, committed.nextPart);
  }

  async #commitParts(resource: ResourceName, parts: readonly WrittenFile[]): Promise<Committed> {
    const committed: Committed = { files: [], nextPart: {} };
    for (const part of parts) {
      this.options.signal?.throwIfAborted();
      const ahead = this.#ahead.get(part.path);
      this.#ahead.delete(part.path);
      const outputs = await (ahead ?? this.#convert(resource, part));
      for (const output of outputs) {
        committed.files.push(await this.#upload(output));
        crashPoint('between-uploads');
      }
      committed.nextPart[partSeries(part)] = partNumber(part.path) + 1;
      const done = [part, ...outputs.map(({ file }) => file)].flatMap((file) => [
        file.path,
        ...(file.text === undefined ? [] : [file.text]),
      ]);
      await Promise.all(done.map((path) => rm(path, { force: true })));
    }
    return committed;
  }

  /** The files a part becomes in the snapshot (itself, its Parquet, its index's Parquet), each re-read. */
  async #convert(resource: ResourceName, part: WrittenFile): Promise<CheckedOutput[]> {
    const { formats, staging, converter } = this.options;
    const outputs: WrittenFile[] = [];
    if (part.format === 'raw' || (part.format === 'ndjson' && formats.includes('ndjson'))) outputs.push(part);
    if (part.format === 'index') {
      // Every snapshot has its record index, as Parquet, whatever its formats.
      const index = await converter.convert(part, recordIndexTable(resource), join(staging, 'index'));
      outputs.push({ ...index, format: 'index' });
    }
    const table = tablesFor(resource).find((t) => t.name === part.table);
    if (part.format === 'ndjson' && table !== undefined && formats.includes('parquet')) {
      outputs.push(await converter.convert(part, table, join(staging, 'parquet'), this.options.lineage));
    }
    const checked: CheckedOutput[] = [];
    for (const file of outputs) checked.push({ file, facts: await reread(file, staging, converter) });
    return checked;
  }

  async #upload({ file, facts: checked }: CheckedOutput): Promise<ManifestFile> {
    // Before the first upload, the checkpoint names the snapshot: whatever lands in it can be found again.
    this.#announced ??= this.#saveCheckpoint();
    await this.#announced;
    await this.options.storage.putFile(`${this.options.prefix}/${checked.path}`, file.path, { sha256: checked.sha256 });
    this.options.logger.debug({ path: checked.path, bytes: checked.bytes }, 'committed file');
    return checked;
  }

  /** Checkpoint writes go out one at a time, each with everything committed so far. */
  #saveCheckpoint(): Promise<void> {
    const checkpoint = this.options.checkpoint;
    const write = this.#checkpointWrite.then(() =>
      writeCheckpoint(this.options.storage, {
        ...checkpoint,
        updated_at: new Date().toISOString(),
        attempt_requests: this.options.requestsSent(),
      }).then(() => crashPoint('after-checkpoint')),
    );
    this.#checkpointWrite = write.catch(() => undefined);
    return write;
  }
}

/** A file of the snapshot in staging, with what its re-read found. */
interface CheckedOutput {
  file: WrittenFile;
  facts: ManifestFile;
}

interface Committed {
  files: ManifestFile[];
  nextPart: Record<string, number>;
}

/** The numbering a part belongs to: 'ndjson/orders' (Parquet parts share it), 'raw/orders', 'index/orders'. */
export function partSeries(file: { format: string; table: string }): string {
  return `${file.format === 'raw' || file.format === 'index' ? file.format : 'ndjson'}/${file.table}`;
}

function partNumber(path: string): number {
  const number = partNumberOf(path);
  if (number === undefined) throw new IntegrityError(`${path} is not a part file`);
  return number;
}

/** Re-reads a finished file (in the converter's process) before it may be listed in a manifest or checkpoint. */
async function reread(file: WrittenFile, staging: string, converter: ParquetConverter): Promise<ManifestFile> {
  const path = relative(staging, file.path).split(sep).join('/');
  const { sha256, bytes, rows } = await converter.reread(file.path, file.format);
  if (sha256 !== file.sha256 || bytes !== file.bytes || rows !== file.rows) {
    throw new IntegrityError(
      `${path} changed after it was written: ${rows} rows / ${bytes} bytes / sha256 ${sha256}, written as ${file.rows} / ${file.bytes} / ${file.sha256}`,
    );
  }
  return { path, table: file.table, format: file.format, rows, bytes, sha256 };
}
