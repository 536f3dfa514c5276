import type { DuckDBConnection } from '@duckdb/node-api';
import { type Lineage, SQL_TYPES, type TableSchema } from '../transform/schema.js';

export interface DuckDbLimits {
  /**
   * DuckDB's memory_limit. COPY streams, so parts of any size convert within it as long as one row group fits (see
   * ParquetOptions.rowGroupBytes).
   * @default '256MB'
   */
  memoryLimit?: string;
  /** @default 1 */
  threads?: number;
}

/**
 * Runs `work` on a fresh in-memory DuckDB with bounded memory, and closes it afterwards whatever happens: one
 * instance per job, nothing cached between jobs. preserve_insertion_order=false lets COPY stream instead of buffering.
 */
export async function withDuckDb<T>(
  limits: DuckDbLimits & { tempDirectory?: string },
  work: (connection: DuckDBConnection) => Promise<T>,
): Promise<T> {
  // Loaded when first used: of the 0.49 s that loading the backup command took (2-vCPU VM), the addon was 0.14 s.
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:', {
    memory_limit: limits.memoryLimit ?? '256MB',
    threads: String(limits.threads ?? 1),
    preserve_insertion_order: 'false',
    ...(limits.tempDirectory ? { temp_directory: limits.tempDirectory } : {}),
  });
  try {
    const connection = await instance.connect();
    try {
      return await work(connection);
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}

/** A SQL string literal. */
export function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** A SQL identifier; column names such as `default` are keywords. */
export function sqlIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * `read_json` over one NDJSON part (gzip, or its uncompressed text copy) with every column's type spelled out: DuckDB
 * never guesses (auto-detection reads money as VARCHAR and INT64 min as HUGEINT). With `lineage`, the rows end with
 * the lineage columns.
 */
export function readNdjsonSql(
  path: string,
  table: TableSchema,
  lineage?: Lineage,
  compression: 'gzip' | 'uncompressed' = 'gzip',
): string {
  const columns = table.columns.map((column) => `${sqlString(column.name)}: ${sqlString(SQL_TYPES[column.type])}`);
  const select = [
    ...table.columns.map((column) => sqlIdentifier(column.name)),
    ...(lineage === undefined
      ? []
      : [`${sqlString(lineage.shop)} AS _shop`, `${sqlString(lineage.snapshotId)} AS _snapshot_id`]),
  ].join(', ');
  return `SELECT ${select} FROM read_json(${sqlString(path)}, format = 'newline_delimited', compression = '${compression}', columns = {${columns.join(', ')}})`;
}

/** The row count a Parquet footer declares; reads only the footer. */
export async function footerRows(connection: DuckDBConnection, path: string): Promise<number> {
  const result = await connection.runAndReadAll(`SELECT num_rows FROM parquet_file_metadata(${sqlString(path)})`);
  return Number(result.getRowsJS()[0]?.[0]);
}
