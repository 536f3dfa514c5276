import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PQueue from 'p-queue';
import { parseJson } from '../shopify/json.js';
import { type FieldChange, fieldChanges } from '../shopify/json-diff.js';
import { RESOURCES, type ResourceName } from '../shopify/resources.js';
import { sqlString, withDuckDb } from '../sink/duckdb.js';
import { lineSha256, rawLine } from '../sink/raw-archive-writer.js';
import { type ArchiveLine, readArchiveLines } from '../snapshot/archive-lines.js';
import type { Manifest } from '../snapshot/manifest.js';
import {
  type ArchivePlace,
  copyIndex,
  indexFilesOf,
  placeColumns,
  placeOf,
  placesSql,
} from '../snapshot/record-index.js';
import type { ShopClient } from '../source/shop-client.js';
import { type FetchedRecord, fetchRecord } from '../source/single-record.js';
import type { Storage } from '../storage/storage.js';

/**
 * What became of a sampled record: the shop serves the same content (`equal`), a newer version (`changed`), nothing
 * (`gone`: deleted, or hidden from the token), or other content under the same updated_at (`differs`: the snapshot
 * does not hold what the shop served, a defect). `unchecked`: the text differs under the same updated_at, and the
 * snapshot has no raw archive to compare its content with.
 */
export type LiveOutcome = 'equal' | 'changed' | 'gone' | 'differs' | 'unchecked';
export const LIVE_OUTCOMES: readonly LiveOutcome[] = ['equal', 'changed', 'gone', 'differs', 'unchecked'];

export interface LiveFinding {
  resource: ResourceName;
  /** Exact decimal id. */
  id: string;
  outcome: 'differs' | 'unchecked';
  reason: string;
  /** For content that differs: where, snapshot (`before`) against shop (`after`). */
  fields?: FieldChange[];
}

export interface LiveCheckReport {
  location: string;
  /** Per resource: its records in the snapshot, those sampled, and the outcome of each. */
  resources: Partial<Record<ResourceName, { records: number; sampled: number } & Record<LiveOutcome, number>>>;
  findings: LiveFinding[];
}

export function liveCheckPassed(report: LiveCheckReport): boolean {
  return report.findings.every((finding) => finding.outcome !== 'differs');
}

export class LiveCheckError extends Error {
  override name = 'LiveCheckError';
  readonly code = 'ERR_LIVE_CHECK';
}

/** A record of the index: where the snapshot holds it, and what it held. */
interface IndexedRecord {
  id: string;
  updatedMs: number | undefined;
  sha256: string;
  /** Undefined in a snapshot without a raw archive. */
  place: ArchivePlace | undefined;
}

/** Requests in flight at once: the pacer keeps them within the shop's bucket; more would only queue there. */
const FETCHES_AT_ONCE = 4;

/** A record's outcome, with why for the findings. */
interface Verdict {
  outcome: LiveOutcome;
  reason?: string;
  fields?: FieldChange[];
}

/**
 * Fetches a random sample of the snapshot's records one by one from the shop and compares each with the snapshot's
 * record index (id, updated_at, sha256 of the raw text): a cheap proof that the pipeline writes what the shop serves.
 * Only where the text differs under the same updated_at is the record's line read from the raw archive, and then its
 * content compared, not its bytes (key order, escapes and number spelling may legitimately differ).
 */
export async function liveCheck(options: {
  storage: Storage;
  /** The snapshot's key in the storage. */
  prefix: string;
  manifest: Manifest;
  client: ShopClient;
  /** Records per resource. */
  sample: number;
}): Promise<LiveCheckReport> {
  const { storage, prefix, manifest } = options;
  const location = `${storage.location}/${prefix}`;
  const report: LiveCheckReport = { location, resources: {}, findings: [] };
  const scratch = await mkdtemp(join(tmpdir(), 'shopsnap-live-'));
  try {
    for (const resource of RESOURCES.filter((name) => manifest.resources[name] !== undefined)) {
      const indexFiles = indexFilesOf(manifest.files, resource);
      if (indexFiles.length === 0) {
        throw new LiveCheckError(
          `${location} has no record index of ${resource} (written before shopsnap kept one); the live check needs it`,
        );
      }
      const sampled = await sampleIndex(
        await copyIndex(storage, prefix, indexFiles, join(scratch, resource)),
        options.sample,
      );
      const queue = new PQueue({ concurrency: FETCHES_AT_ONCE });
      const served = await Promise.all(
        sampled.map((record) => queue.add(() => fetchRecord(options.client, resource, record.id))),
      );
      const verdicts = new Map<IndexedRecord, Verdict>();
      const toCompare: Array<{ record: IndexedRecord; live: FetchedRecord }> = [];
      sampled.forEach((record, i) => {
        const live = served[i];
        const verdict = judgeByIndex(record, live);
        if (verdict !== undefined) verdicts.set(record, verdict);
        else if (live !== undefined) toCompare.push({ record, live });
      });
      for (const [record, verdict] of await judgeByArchive(storage, prefix, manifest, resource, toCompare)) {
        verdicts.set(record, verdict);
      }
      const counts = { records: sum(indexFiles.map((file) => file.rows)), sampled: sampled.length, ...noOutcomes() };
      for (const record of sampled) {
        const verdict = verdicts.get(record) as Verdict;
        counts[verdict.outcome]++;
        if (verdict.outcome === 'differs' || verdict.outcome === 'unchecked') {
          report.findings.push({
            resource,
            id: record.id,
            outcome: verdict.outcome,
            reason: verdict.reason ?? '',
            ...(verdict.fields ? { fields: verdict.fields } : {}),
          });
        }
      }
      report.resources[resource] = counts;
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return report;
}

/** What the index alone decides; undefined when the text differs under the same updated_at (its content decides). */
function judgeByIndex(record: IndexedRecord, live: FetchedRecord | undefined): Verdict | undefined {
  if (live === undefined) return { outcome: 'gone' };
  const served = live.updatedAt === undefined ? undefined : Date.parse(live.updatedAt);
  if (record.updatedMs !== undefined && served !== undefined && !Number.isNaN(served)) {
    if (served > record.updatedMs) return { outcome: 'changed' };
    if (served < record.updatedMs) {
      return { outcome: 'differs', reason: `the shop serves it with an older updated_at (${live.updatedAt})` };
    }
  }
  return lineSha256(rawLine(live.bytes)) === record.sha256 ? { outcome: 'equal' } : undefined;
}

/**
 * The records whose text differs under the same updated_at, judged by content against their lines in the raw
 * archive. A line that does not hash to what the index says is damage in the snapshot itself. Without an updated_at
 * on both sides a difference may be a later change, and counts as one.
 */
async function judgeByArchive(
  storage: Storage,
  prefix: string,
  manifest: Manifest,
  resource: ResourceName,
  records: ReadonlyArray<{ record: IndexedRecord; live: FetchedRecord }>,
): Promise<Map<IndexedRecord, Verdict>> {
  const verdicts = new Map<IndexedRecord, Verdict>();
  const readable: Array<{ record: IndexedRecord; live: FetchedRecord; place: ArchivePlace }> = [];
  for (const { record, live } of records) {
    if (record.place === undefined) {
      const reason = 'its text differs under the same updated_at, and the snapshot has no raw archive to compare';
      verdicts.set(record, { outcome: 'unchecked', reason });
    } else readable.push({ record, live, place: record.place });
  }
  const raw = manifest.files.filter((file) => file.format === 'raw' && file.table === resource);
  const lines = await readArchiveLines(
    storage,
    prefix,
    raw,
    readable.map(({ place }) => place),
  );
  readable.forEach(({ record, live }, i) => {
    const line = lines[i] as ArchiveLine;
    if ('problem' in line) {
      verdicts.set(record, { outcome: 'differs', reason: line.problem });
      return;
    }
    const fields = fieldChanges(parseJson(line.text.toString('utf8')), parseJson(live.bytes.toString('utf8')));
    if (fields.length === 0) verdicts.set(record, { outcome: 'equal' });
    else if (record.updatedMs === undefined || live.updatedAt === undefined)
      verdicts.set(record, { outcome: 'changed' });
    else {
      const paths = fields.map((field) => field.path);
      const reason = `the shop serves other content under the same updated_at: ${paths.slice(0, 5).join(', ')}${paths.length > 5 ? ', …' : ''}`;
      verdicts.set(record, { outcome: 'differs', reason, fields });
    }
  });
  return verdicts;
}

/** A uniform random sample of `size` rows of the index (all of them when it holds fewer): DuckDB's reservoir. */
async function sampleIndex(files: readonly string[], size: number): Promise<IndexedRecord[]> {
  return withDuckDb({}, async (connection) => {
    const result = await connection.runAndReadAll(
      `WITH s AS (SELECT id FROM read_parquet([${files.map(sqlString).join(', ')}])
                  USING SAMPLE reservoir(${Math.floor(size)} ROWS)),
            p AS (${placesSql(files, 's')})
       SELECT p.id::VARCHAR, epoch_ms(p.updated_at), p.sha256, ${placeColumns('p')} FROM p`,
    );
    return result.getRowsJS().map(([id, updated, sha, ...place]) => ({
      id: String(id),
      updatedMs: updated === null ? undefined : Number(updated),
      sha256: String(sha),
      place: placeOf(place),
    }));
  });
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function noOutcomes(): Record<LiveOutcome, number> {
  return { equal: 0, changed: 0, gone: 0, differs: 0, unchecked: 0 };
}
