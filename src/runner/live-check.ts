import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import PQueue from 'p-queue';
import { parseJson } from '../shopify/json.js';
import { type FieldChange, fieldChanges } from '../shopify/json-diff.js';
import { RESOURCES, type ResourceName } from '../shopify/resources.js';
import { sqlString, withDuckDb } from '../sink/duckdb.js';
import { lineSha256, rawLine } from '../sink/raw-archive-writer.js';
import type { Manifest, ManifestFile } from '../snapshot/manifest.js';
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
  part: number | undefined;
  line: number | undefined;
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
      const indexFiles = manifest.files.filter((file) => file.format === 'index' && file.table === resource);
      if (indexFiles.length === 0) {
        throw new LiveCheckError(
          `${location} has no record index of ${resource} (written before shopsnap kept one); the live check needs it`,
        );
      }
      const sampled = await sampleIndex(await download(storage, prefix, indexFiles, scratch), options.sample);
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
  const byPart = new Map<number, Array<{ record: IndexedRecord; live: FetchedRecord }>>();
  for (const entry of records) {
    const { part, line } = entry.record;
    if (part === undefined || line === undefined) {
      const reason = 'its text differs under the same updated_at, and the snapshot has no raw archive to compare';
      verdicts.set(entry.record, { outcome: 'unchecked', reason });
    } else byPart.set(part, [...(byPart.get(part) ?? []), entry]);
  }
  for (const [part, entries] of byPart) {
    const file = rawPart(manifest, resource, part);
    const lines = await readLines(storage, `${prefix}/${file.path}`, new Set(entries.map((e) => e.record.line ?? 0)));
    for (const { record, live } of entries) {
      const text = lines.get(record.line ?? 0);
      if (text === undefined || lineSha256(text) !== record.sha256) {
        const reason = `line ${record.line} of ${file.path} is not the record its index row describes`;
        verdicts.set(record, { outcome: 'differs', reason });
        continue;
      }
      const fields = fieldChanges(parseJson(text.toString('utf8')), parseJson(live.bytes.toString('utf8')));
      if (fields.length === 0) verdicts.set(record, { outcome: 'equal' });
      else if (record.updatedMs === undefined || live.updatedAt === undefined)
        verdicts.set(record, { outcome: 'changed' });
      else {
        const paths = fields.map((field) => field.path);
        const reason = `the shop serves other content under the same updated_at: ${paths.slice(0, 5).join(', ')}${paths.length > 5 ? ', …' : ''}`;
        verdicts.set(record, { outcome: 'differs', reason, fields });
      }
    }
  }
  return verdicts;
}

function rawPart(manifest: Manifest, resource: ResourceName, part: number): ManifestFile {
  const name = `/part-${String(part).padStart(5, '0')}.jsonl.gz`;
  const file = manifest.files.find((f) => f.format === 'raw' && f.table === resource && f.path.endsWith(name));
  if (file === undefined) {
    throw new LiveCheckError(
      `the record index of ${resource} names raw part ${part}, which the manifest does not list`,
    );
  }
  return file;
}

/** The index files, downloaded into `dir` (DuckDB reads local files). */
async function download(
  storage: Storage,
  prefix: string,
  files: readonly ManifestFile[],
  dir: string,
): Promise<string[]> {
  return Promise.all(
    files.map(async (file, i) => {
      const local = join(dir, `index-${i}.parquet`);
      await pipeline(await storage.get(`${prefix}/${file.path}`), createWriteStream(local));
      return local;
    }),
  );
}

/** A uniform random sample of `size` rows of the index (all of them when it holds fewer): DuckDB's reservoir. */
async function sampleIndex(files: readonly string[], size: number): Promise<IndexedRecord[]> {
  return withDuckDb({}, async (connection) => {
    const result = await connection.runAndReadAll(
      `SELECT id::VARCHAR, epoch_ms(updated_at), sha256, part, line
       FROM read_parquet([${files.map(sqlString).join(', ')}]) USING SAMPLE reservoir(${Math.floor(size)} ROWS)`,
    );
    return result.getRowsJS().map(([id, updated, sha, part, line]) => ({
      id: String(id),
      updatedMs: updated === null ? undefined : Number(updated),
      sha256: String(sha),
      part: part === null ? undefined : Number(part),
      line: line === null ? undefined : Number(line),
    }));
  });
}

/** The lines numbered in `wanted` (1-based) of a gzip part, streamed up to the last one wanted. */
async function readLines(storage: Storage, key: string, wanted: ReadonlySet<number>): Promise<Map<number, Buffer>> {
  const found = new Map<number, Buffer>();
  const last = Math.max(...wanted);
  // Stopping after the last line wanted aborts the rest of the download; that abort is no failure.
  const enough = new AbortController();
  const consume = async (source: AsyncIterable<Buffer>) => {
    let number = 1;
    let pending: Buffer[] = [];
    for await (const chunk of source) {
      let from = 0;
      for (let at = chunk.indexOf(10); at !== -1 && number <= last; at = chunk.indexOf(10, from)) {
        if (wanted.has(number)) found.set(number, Buffer.concat([...pending, chunk.subarray(from, at)]));
        pending = [];
        number++;
        from = at + 1;
      }
      if (number > last) {
        enough.abort();
        return;
      }
      if (wanted.has(number)) pending.push(chunk.subarray(from));
    }
  };
  try {
    await pipeline(await storage.get(key), createGunzip(), consume, { signal: enough.signal });
  } catch (error) {
    if (!enough.signal.aborted) throw error;
  }
  return found;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function noOutcomes(): Record<LiveOutcome, number> {
  return { equal: 0, changed: 0, gone: 0, differs: 0, unchecked: 0 };
}
