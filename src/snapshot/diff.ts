import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseJson } from '../shopify/json.js';
import { type FieldChange, fieldChanges } from '../shopify/json-diff.js';
import { RESOURCES } from '../shopify/resources.js';
import { withDuckDb } from '../sink/duckdb.js';
import type { Storage } from '../storage/storage.js';
import { ArchiveIndexError, type ArchiveLine, readArchiveLines } from './archive-lines.js';
import { type ChangeCounts, compareIndexes, type RecordDifference } from './index-compare.js';
import type { Manifest } from './manifest.js';
import { type ArchivePlace, copyIndex, indexFilesOf } from './record-index.js';

/** A snapshot to compare: where it lives (`key`: `<shop>/<id>` in `storage`) and its manifest. */
export interface SnapshotRef {
  storage: Storage;
  key: string;
  manifest: Manifest;
}

/** One line of `diff --details`: a record that differs, and for a changed one, the fields that did. */
export interface DiffDetail {
  resource: string;
  /** Exact decimal id. */
  id: string;
  change: RecordDifference['change'];
  /** Changed records of snapshots that both have a raw archive. */
  fields?: FieldChange[];
}

export interface SnapshotDiff {
  /** Per resource both snapshots hold, in the order of RESOURCES. */
  resources: Record<string, ChangeCounts>;
  /** Resources only one of the two holds: not compared. */
  onlyBefore: string[];
  onlyAfter: string[];
}

/** Differences reported at a time: their raw texts (two of some 10 KB each for an order) are held until then. */
const REPORT_BATCH = 256;

export class DiffError extends Error {
  override name = 'DiffError';
  readonly code = 'ERR_DIFF';
}

/**
 * What differs between two snapshots, per resource both hold: records added, removed, changed (another sha256 of
 * their raw text) and unchanged, by the comparison of their record indexes that every backup makes against the
 * previous one (index-compare.ts). With `details`, every differing record is reported in id order, and a changed
 * record's fields are found by reading its raw text in both archives: only the gzip member holding it, which the
 * index locates.
 */
export async function diffSnapshots(
  before: SnapshotRef,
  after: SnapshotRef,
  details?: (detail: DiffDetail) => Promise<void>,
): Promise<SnapshotDiff> {
  const held = (snapshot: SnapshotRef) => RESOURCES.filter((r) => snapshot.manifest.resources[r] !== undefined);
  const [heldBefore, heldAfter] = [held(before), held(after)];
  const common = heldAfter.filter((resource) => heldBefore.includes(resource));
  if (common.length === 0) {
    throw new DiffError(`${where(before)} and ${where(after)} have no resource in common`);
  }
  const result: SnapshotDiff = {
    resources: {},
    onlyBefore: heldBefore.filter((resource) => !common.includes(resource)),
    onlyAfter: heldAfter.filter((resource) => !common.includes(resource)),
  };
  const scratch = await mkdtemp(join(tmpdir(), 'shopsnap-diff-'));
  try {
    for (const resource of common) {
      const [a, b] = await Promise.all(
        [before, after].map((snapshot, side) =>
          copyIndex(snapshot.storage, snapshot.key, indexOf(snapshot, resource), join(scratch, `${resource}-${side}`)),
        ),
      );
      // Past 64 MB DuckDB spills its join to disk: at its usual 256 MB the join of two 1,000,000-row indexes alone
      // took 250 MB of RSS (see the README, Diff throughput).
      const duckDb = { memoryLimit: '64MB', tempDirectory: join(scratch, 'duckdb') };
      result.resources[resource] = await withDuckDb(duckDb, async (connection) => {
        const comparison = await compareIndexes(connection, a as string[], b as string[]);
        if (details !== undefined) {
          for await (const batch of comparison.differences()) {
            for (let at = 0; at < batch.length; at += REPORT_BATCH) {
              await report(resource, batch.slice(at, at + REPORT_BATCH), before, after, details);
            }
          }
        }
        return comparison.counts;
      });
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return result;
}

function where(snapshot: SnapshotRef): string {
  return `${snapshot.storage.location}/${snapshot.key}`;
}

function indexOf(snapshot: SnapshotRef, resource: string) {
  const files = indexFilesOf(snapshot.manifest.files, resource);
  if (files.length === 0) {
    throw new DiffError(
      `${where(snapshot)} has no record index of ${resource} (written before shopsnap kept one): it cannot be compared`,
    );
  }
  return files;
}

/** Reports a batch of differences in order; changed records with text on both sides get their changed fields. */
async function report(
  resource: string,
  batch: readonly RecordDifference[],
  before: SnapshotRef,
  after: SnapshotRef,
  emit: (detail: DiffDetail) => Promise<void>,
): Promise<void> {
  const readable = batch.filter((d) => d.change === 'changed' && d.before !== undefined && d.after !== undefined);
  const texts = (snapshot: SnapshotRef, places: ArchivePlace[]) =>
    readArchiveLines(
      snapshot.storage,
      snapshot.key,
      snapshot.manifest.files.filter((file) => file.format === 'raw' && file.table === resource),
      places,
    );
  const [old, now] = await Promise.all([
    texts(
      before,
      readable.map((d) => d.before as ArchivePlace),
    ),
    texts(
      after,
      readable.map((d) => d.after as ArchivePlace),
    ),
  ]);
  const content = (snapshot: SnapshotRef, line: ArchiveLine | undefined) => {
    // A line that is not what its index row says: the snapshot is damaged, and no field can be named.
    if (line === undefined || 'problem' in line) {
      throw new ArchiveIndexError(
        `${where(snapshot)}: ${line?.problem ?? 'a line was not read'} (run shopsnap verify)`,
      );
    }
    return parseJson(line.text.toString('utf8'));
  };
  const fields = new Map(readable.map((d, i) => [d.id, fieldChanges(content(before, old[i]), content(after, now[i]))]));
  for (const { id, change } of batch) {
    const changed = fields.get(id);
    await emit({ resource, id, change, ...(changed === undefined ? {} : { fields: changed }) });
  }
}
