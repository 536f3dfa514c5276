import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { rereadFile } from '../sink/count-rows.js';
import { readNdjsonSql, sqlString, withDuckDb } from '../sink/duckdb.js';
import { copyOptions } from '../sink/parquet.js';
import { MANIFEST_NAME, parseManifest } from '../snapshot/manifest.js';
import { tableByName } from '../transform/index.js';

/** CPU seconds of the steps issue 4 requires of every snapshot, each done the cheapest way we know, on one snapshot. */
export interface SnapshotFloor {
  /** gzip at level 1 (zlib's fastest) of the text of every NDJSON and raw file, in one call per file. */
  gzip: number;
  /** The re-read before the manifest: line count after gunzip, or Parquet footer, and sha256 of every file (one read). */
  reread: number;
  /** DuckDB writing each Parquet part, with our settings, from rows it already holds in memory (no JSON to read). */
  parquetWrite: number;
}

/**
 * What no implementation of the snapshot stage can spend less CPU on, measured on the files a finished snapshot's
 * manifest lists (`snapshot`: its local folder).
 * Flattening records into rows, serialising the NDJSON, handing rows to DuckDB, HTTP and garbage collection come on
 * top; so does parsing, which the bench measures as bare JSON.parse.
 */
export async function measureSnapshotFloor(snapshot: string): Promise<SnapshotFloor> {
  const manifestPath = join(snapshot, MANIFEST_NAME);
  const { files } = parseManifest(await readFile(manifestPath, 'utf8'), manifestPath);
  const floor: SnapshotFloor = { gzip: 0, reread: 0, parquetWrite: 0 };
  for (const { path: relative, format, table } of files) {
    const path = join(snapshot, ...relative.split('/'));
    floor.reread += await cpuSeconds(() => rereadFile(path, format));
    if (format === 'parquet' || format === 'index') continue;
    const text = gunzipSync(await readFile(path));
    floor.gzip += await cpuSeconds(async () => gzipSync(text, { level: 1, chunkSize: 1024 * 1024 }));
    if (format === 'ndjson') floor.parquetWrite += await parquetWriteSeconds(path, table);
  }
  return floor;
}

/** Loads the NDJSON part into a DuckDB table (not timed), then times only its COPY into Parquet. */
async function parquetWriteSeconds(ndjson: string, name: string): Promise<number> {
  const table = tableByName(name);
  if (table === undefined) throw new Error(`${ndjson}: no such table ${name}`);
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
export async function cpuSeconds(work: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / 1e6;
}
