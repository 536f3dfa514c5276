import { readdir, readFile, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { hashFile } from '../local-file.js';
import { countRows } from '../sink/count-rows.js';
import { readNdjsonSql, sqlString, withDuckDb } from '../sink/duckdb.js';
import { copyOptions } from '../sink/parquet.js';
import type { FileFormat } from '../sink/written-file.js';
import { tableByName } from '../transform/index.js';

/** CPU seconds of the steps issue 4 requires of every snapshot, each done the cheapest way we know, on one snapshot. */
export interface SnapshotFloor {
  /** gzip at level 1 (zlib's fastest) of the text of every NDJSON and raw file, in one call per file. */
  gzip: number;
  /** The re-read before the manifest: line count after gunzip, or Parquet footer, and sha256 of every file. */
  reread: number;
  /** DuckDB writing each Parquet part, with our settings, from rows it already holds in memory (no JSON to read). */
  parquetWrite: number;
}

const EXTENSIONS: [string, FileFormat][] = [
  ['.ndjson.gz', 'ndjson'],
  ['.jsonl.gz', 'raw'],
  ['.parquet', 'parquet'],
];

/**
 * What no implementation of the snapshot stage can spend less CPU on, measured on a finished snapshot's own files.
 * Flattening records into rows, serialising the NDJSON, handing rows to DuckDB, HTTP and garbage collection come on
 * top; so does parsing, which the bench measures as bare JSON.parse.
 */
export async function measureSnapshotFloor(snapshot: string): Promise<SnapshotFloor> {
  const files = await filesOf(snapshot);
  const floor: SnapshotFloor = { gzip: 0, reread: 0, parquetWrite: 0 };
  for (const { path, format } of files) {
    floor.reread += await cpuSeconds(async () => {
      await countRows(path, format);
      await hashFile(path);
    });
    if (format === 'parquet') continue;
    const text = gunzipSync(await readFile(path));
    floor.gzip += await cpuSeconds(async () => gzipSync(text, { level: 1, chunkSize: 1024 * 1024 }));
    if (format === 'ndjson') floor.parquetWrite += await parquetWriteSeconds(path);
  }
  return floor;
}

/** Loads the NDJSON part into a DuckDB table (not timed), then times only its COPY into Parquet. */
async function parquetWriteSeconds(ndjson: string): Promise<number> {
  const table = tableByName(basename(dirname(ndjson)));
  if (table === undefined) throw new Error(`${ndjson}: no such table`);
  const target = `${ndjson}.floor.parquet`;
  try {
    return await withDuckDb({ memoryLimit: '8GB' }, async (connection) => {
      await connection.run(`CREATE TABLE held AS ${readNdjsonSql(ndjson, table)}`);
      return cpuSeconds(() => connection.run(`COPY held TO ${sqlString(target)} ${copyOptions()}`));
    });
  } finally {
    await rm(target, { force: true });
  }
}

/** Process CPU (every thread: zlib's pool and DuckDB's included) while `work` runs; nothing else runs meanwhile. */
async function cpuSeconds(work: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / 1e6;
}

async function filesOf(dir: string): Promise<{ path: string; format: FileFormat }[]> {
  const found: { path: string; format: FileFormat }[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const format = EXTENSIONS.find(([extension]) => entry.name.endsWith(extension))?.[1];
    if (format !== undefined) found.push({ path: join(entry.parentPath, entry.name), format });
  }
  return found;
}
