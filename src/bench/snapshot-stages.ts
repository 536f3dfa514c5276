import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import type { JsonObject } from '../shopify/json.js';
import type { ResourceName } from '../shopify/resources.js';
import { rereadFile } from '../sink/count-rows.js';
import { convertToParquet } from '../sink/parquet.js';
import { RawArchiveWriter } from '../sink/raw-archive-writer.js';
import { RecordIndexWriter, recordIndexTable } from '../sink/record-index-writer.js';
import { LineEncoder } from '../sink/row-serializer.js';
import { TableWriter } from '../sink/table-writer.js';
import type { WrittenFile } from '../sink/written-file.js';
import { MANIFEST_NAME, parseManifest } from '../snapshot/manifest.js';
import { type ListedRecord, scanListPage } from '../source/list-page.js';
import { tablesFor } from '../transform/index.js';
import { createRecordWalker, type UnknownFields } from '../transform/to-rows.js';
import { cpuSeconds } from './snapshot-floor.js';

/** CPU seconds each stage of the crawl process and of the converter spends on the sample (see measureSnapshotStages). */
export interface SnapshotStages {
  /** Records the stages ran on. */
  records: number;
  /** Finding the records, their ids and timestamps in page bodies. */
  scan: number;
  /** Decoding and parsing each record losslessly. */
  parse: number;
  /** Flattening parsed records into cells of their tables. */
  flatten: number;
  /** Encoding the cells as NDJSON lines. */
  encode: number;
  /** Writing the lines into gzip (level 1) NDJSON parts. */
  ndjson: number;
  /** The raw archive (gzip members) and the record index rows, sha256 of each record included. */
  raw: number;
  /** DuckDB converting the NDJSON parts and the index into Parquet. */
  convert: number;
  /** Re-reading every file before the manifest: rows counted, sha256 re-hashed. */
  reread: number;
}

const PAGE_RECORDS = 250;

/**
 * Where the CPU of a snapshot goes, stage by stage: the first `limit` records of a snapshot's raw archive, replayed
 * in this process through the same code the backup runs (page scan, lossless parse, flattening, NDJSON encoding and
 * parts, raw archive and index, DuckDB conversion, re-read), each stage timed on its own. Per-record costs do not
 * depend on the shop's size, so a sample tells them; each stage's figure is the least of three rounds. What a backup
 * spends beyond their sum is HTTP, the crawl's own bookkeeping, committing and uploading, garbage collection outside
 * the stages and the processes' start.
 */
export async function measureSnapshotStages(
  snapshot: string,
  resource: ResourceName,
  limit: number,
): Promise<SnapshotStages> {
  const manifestPath = join(snapshot, MANIFEST_NAME);
  const { files } = parseManifest(await readFile(manifestPath, 'utf8'), manifestPath);
  const rawParts = files.filter((file) => file.format === 'raw' && file.table === resource);
  const pages: Buffer[] = [];
  let records = 0;
  for await (const page of pagesOf(
    rawParts.map((part) => join(snapshot, ...part.path.split('/'))),
    limit,
  )) {
    pages.push(Buffer.from(`{"${resource}":[${page.join(',')}]}`));
    records += page.length;
  }
  // The machine is shared: each stage's least of a few rounds is the one least disturbed by other work.
  const rounds: SnapshotStages[] = [];
  for (let round = 0; round < ROUNDS; round++) rounds.push(await replay(pages, resource, records));
  const least = (key: keyof SnapshotStages) => Math.min(...rounds.map((stages) => stages[key]));
  return {
    records,
    scan: least('scan'),
    parse: least('parse'),
    flatten: least('flatten'),
    encode: least('encode'),
    ndjson: least('ndjson'),
    raw: least('raw'),
    convert: least('convert'),
    reread: least('reread'),
  };
}

const ROUNDS = 3;

/** One round: the pages through every stage. */
async function replay(pages: Buffer[], resource: ResourceName, records: number): Promise<SnapshotStages> {
  const stages: SnapshotStages = {
    records,
    scan: 0,
    parse: 0,
    flatten: 0,
    encode: 0,
    ndjson: 0,
    raw: 0,
    convert: 0,
    reread: 0,
  };
  const tables = tablesFor(resource);
  const unknowns: UnknownFields = { count: 0, paths: undefined };
  const dir = await mkdtemp(join(tmpdir(), 'shopsnap-stages-'));
  try {
    // Each stage of the record path alone, page by page: nothing runs on the thread pool meanwhile.
    const encoders = new Map(tables.map((table) => [table.name, new LineEncoder(table)]));
    const flatten = createRecordWalker(resource, () => undefined);
    const encode = createRecordWalker(resource, ({ table, cells }) => encoders.get(table.name)?.add(cells));
    let flattenAndEncode = 0;
    for (const body of pages) {
      let listed: ListedRecord[] = [];
      stages.scan += await cpuSeconds(async () => {
        listed = scanListPage(body, resource, 'bench');
      });
      let parsed: JsonObject[] = [];
      stages.parse += await cpuSeconds(async () => {
        parsed = listed.map((record) => record.record);
      });
      stages.flatten += await cpuSeconds(async () => {
        for (const record of parsed) flatten(record, unknowns);
      });
      flattenAndEncode += await cpuSeconds(async () => {
        for (const record of parsed) encode(record, unknowns);
        for (const encoder of encoders.values()) encoder.take();
      });
    }
    stages.encode = flattenAndEncode - stages.flatten;
    // Writing runs partly on the thread pool, so each writer is timed from its first record to its closed parts, with
    // the stages above (measured alone) taken off.
    const writers = new Map(
      tables.map((table) => [
        table.name,
        new TableWriter({ dir: join(dir, 'ndjson'), table, gzipLevel: 1, textCopy: true }),
      ]),
    );
    const lines = createRecordWalker(resource, ({ table, cells }) => writers.get(table.name)?.add(cells));
    const written: WrittenFile[] = [];
    const ndjson = await cpuSeconds(async () => {
      for (const body of pages) {
        for (const record of scanListPage(body, resource, 'bench')) lines(record.record, unknowns);
        for (const writer of writers.values()) await writer.flush();
      }
      written.push(...(await Promise.all([...writers.values()].map((writer) => writer.close()))).flat());
    });
    stages.ndjson = ndjson - stages.scan - stages.parse - flattenAndEncode;
    const index = new RecordIndexWriter({ dir: join(dir, 'index'), resource });
    const raw = new RawArchiveWriter({ dir: join(dir, 'raw'), resource, index });
    stages.raw =
      (await cpuSeconds(async () => {
        for (const body of pages) {
          for (const record of scanListPage(body, resource, 'bench')) await raw.write(record.bytes, record);
        }
        written.push(...(await raw.close()));
      })) - stages.scan;
    const converted: WrittenFile[] = [];
    stages.convert = await cpuSeconds(async () => {
      for (const file of written) {
        const table = file.format === 'index' ? recordIndexTable(resource) : tables.find((t) => t.name === file.table);
        if (table === undefined || file.format === 'raw') continue;
        converted.push(await convertToParquet(file, table, join(dir, file.format === 'index' ? 'index' : 'parquet')));
      }
    });
    stages.reread = await cpuSeconds(async () => {
      for (const file of [...written.filter((file) => file.format !== 'index'), ...converted]) {
        await rereadFile(file.path, file.format);
      }
    });
    return stages;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The raw archive's lines in pages of PAGE_RECORDS (as text), up to `limit` lines. */
async function* pagesOf(parts: string[], limit: number): AsyncGenerator<string[]> {
  let page: string[] = [];
  let lines = 0;
  for (const part of parts) {
    const reader = createInterface({ input: createReadStream(part).pipe(createGunzip()), crlfDelay: Infinity });
    for await (const line of reader) {
      page.push(line);
      if (++lines >= limit || page.length === PAGE_RECORDS) {
        yield page;
        page = [];
      }
      if (lines >= limit) {
        reader.close();
        return;
      }
    }
  }
  if (page.length > 0) yield page;
}
