import { mkdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { errnoCode, fsyncPath, hashFile, LocalFileError, writeError } from '../local-file.js';
import type { Lineage, TableSchema } from '../transform/schema.js';
import { type DuckDbLimits, footerRows, ReusedDuckDb, readNdjsonSql, sqlString } from './duckdb.js';
import { SinkError } from './errors.js';
import { tempPathFor } from './gzip-part-file.js';
import type { WrittenFile } from './written-file.js';

export interface ParquetOptions extends DuckDbLimits {
  /**
   * Rows per Parquet row group, at most.
   * @default 100_000
   */
  rowGroupSize?: number;
  /**
   * Bytes per row group, at most: DuckDB buffers a whole row group, and 100,000 rows of the 200-column orders table
   * exceed a 256 MB memory_limit (measured: out of memory at 100,000 rows, 257 MB peak RSS with '16MB').
   * @default '16MB'
   */
  rowGroupBytes?: string;
  /** The table's rows end with the lineage columns holding these values (record indexes have none). */
  lineage?: Lineage;
}

/**
 * Converts one NDJSON part into `<outDir>/<table>/part-NNNNN.parquet` (ZSTD) with DuckDB, reading the NDJSON (its
 * uncompressed text copy where it has one) with the table's declared column types (then the lineage columns, when
 * given). The Parquet is written to a temp name, its footer row count must equal the NDJSON's
 * rows, and only then is it fsynced and renamed: a failed or short conversion leaves no final file. DuckDB spills
 * under `outDir`; with `reused`, the conversion runs on that converter's DuckDB.
 */
export async function convertToParquet(
  ndjson: WrittenFile,
  table: TableSchema,
  outDir: string,
  options: ParquetOptions = {},
  reused?: ReusedDuckDb,
): Promise<WrittenFile> {
  const folder = resolve(outDir, table.name);
  await mkdir(folder, { recursive: true });
  const path = join(folder, basename(ndjson.path).replace(/\.ndjson\.gz$/, '.parquet'));
  const temp = tempPathFor(path);
  const duckdb = reused ?? new ReusedDuckDb();
  try {
    const rows = await duckdb.run(options, outDir, async (connection) => {
      const read =
        ndjson.text === undefined
          ? readNdjsonSql(ndjson.path, table, options.lineage)
          : readNdjsonSql(ndjson.text, table, options.lineage, 'uncompressed');
      await connection.run(`COPY (${read}) TO ${sqlString(temp)} ${copyOptions(options)}`);
      return footerRows(connection, temp);
    });
    if (rows !== ndjson.rows) {
      throw new SinkError(
        'ERR_SINK_PARQUET_COUNT',
        `${path}: Parquet holds ${rows} rows, its NDJSON part ${ndjson.path} ${ndjson.rows}`,
      );
    }
    await fsyncPath(temp);
    const { sha256, bytes } = await hashFile(temp);
    await rename(temp, path);
    await fsyncPath(dirname(path));
    return { path, table: table.name, format: 'parquet', rows, bytes, sha256 };
  } catch (error) {
    await rm(temp, { force: true });
    throw conversionError(error, ndjson, path);
  } finally {
    if (duckdb !== reused) await duckdb.close();
  }
}

/** The options of DuckDB's COPY … TO that write our Parquet files. */
export function copyOptions(options: ParquetOptions = {}): string {
  return (
    `(FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${options.rowGroupSize ?? 100_000}, ` +
    `ROW_GROUP_SIZE_BYTES ${sqlString(options.rowGroupBytes ?? '16MB')})`
  );
}

/**
 * DuckDB writes natively and reports a full disk only in words (`IO Error: Could not write file "…": No space left
 * on device`), the C library's for ENOSPC and EDQUOT.
 */
const DUCKDB_FULL_DISK: [RegExp, string][] = [
  [/: No space left on device/, 'ENOSPC'],
  [/: Disk quota exceeded/, 'EDQUOT'],
];

/** A failed conversion: a full disk as the file-system error it is (it is not the data's fault), else ERR_SINK_PARQUET. */
function conversionError(error: unknown, ndjson: WrittenFile, path: string): unknown {
  if (error instanceof SinkError) return error;
  if (errnoCode(error) !== undefined) return writeError(error, path);
  // DuckDB appends tuning advice on further lines; the first names the problem.
  const reason = (error as Error).message.split('\n')[0] ?? '';
  const fullDisk = DUCKDB_FULL_DISK.find(([words]) => words.test(reason));
  if (fullDisk !== undefined) return new LocalFileError(path, fullDisk[1], { cause: error });
  return new SinkError('ERR_SINK_PARQUET', `converting ${ndjson.path} to Parquet failed: ${reason}`, { cause: error });
}
