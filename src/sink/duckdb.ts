import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { requireCommonJs } from '../commonjs.js';
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

type DuckDbOptions = DuckDbLimits & { tempDirectory?: string };
type DuckDbWork<T> = (connection: DuckDBConnection) => Promise<T>;

/**
 * Runs `work` on a fresh in-memory DuckDB with bounded memory, and closes it afterwards whatever happens: one
 * instance per job, nothing cached between jobs. preserve_insertion_order=false lets COPY stream instead of buffering.
 */
export async function withDuckDb<T>(limits: DuckDbOptions, work: DuckDbWork<T>): Promise<T> {
  const instance = await openDuckDb(limits);
  try {
    return await onConnection(instance, work);
  } finally {
    instance.closeSync();
  }
}

/**
 * What a kept DuckDB may have added to the process's resident memory since it opened. A 100-row COPY took about 30
 * ms on a fresh instance (open, connect, close) against 2.5 ms on a kept one (2-vCPU VM), and a small shop's backup
 * converts 20-odd parts of a few KB: kept, 17 such parts convert in 0.25 s instead of 0.85 s. But an instance keeps
 * what its jobs allocated: a 7.5 MB part of orders left the process at 196 MB against 96 MB for a fresh instance,
 * and small parts add about 0.3 MB each.
 */
const KEPT_MEMORY_BYTES = 32 * 1024 * 1024;

/**
 * One DuckDB kept open between jobs that run one after another with the same limits and spill folder (a converter's
 * parts) while it holds little memory (KEPT_MEMORY_BYTES): a job that leaves more closes it, so a large part's memory
 * is returned as a fresh instance's would be. DuckDB cannot move its spill folder once it has spilled, so other limits
 * or another folder close it and open another; so does a failed job, whatever state it left. Each instance spills
 * into a folder of its own under `spillIn` (which must exist), created by DuckDB only if it spills and removed when
 * the instance closes.
 */
export class ReusedDuckDb {
  #open: { key: string; spill: string; instance: Promise<DuckDBInstance>; openedRss?: number } | undefined;

  async run<T>(limits: DuckDbLimits, spillIn: string, work: DuckDbWork<T>): Promise<T> {
    const key = JSON.stringify([limits.memoryLimit, limits.threads, spillIn]);
    if (this.#open?.key !== key) {
      await this.close();
      const spill = join(spillIn, `.duckdb-${randomBytes(6).toString('hex')}`);
      this.#open = { key, spill, instance: openDuckDb({ ...limits, tempDirectory: spill }) };
    }
    const open = this.#open;
    let keep = false;
    try {
      const instance = await open.instance;
      open.openedRss ??= process.memoryUsage.rss();
      const result = await onConnection(instance, work);
      keep = process.memoryUsage.rss() - open.openedRss <= KEPT_MEMORY_BYTES;
      return result;
    } finally {
      if (!keep && this.#open === open) await this.close();
    }
  }

  async close(): Promise<void> {
    const open = this.#open;
    this.#open = undefined;
    if (open === undefined) return;
    await open.instance.then(
      (instance) => instance.closeSync(),
      () => undefined,
    );
    await rm(open.spill, { recursive: true, force: true });
  }
}

async function openDuckDb(limits: DuckDbOptions): Promise<DuckDBInstance> {
  // Loaded when first used: of the 0.49 s that loading the backup command took (2-vCPU VM), the addon was 0.14 s.
  const duckdb = requireCommonJs('@duckdb/node-api') as typeof import('@duckdb/node-api');
  return duckdb.DuckDBInstance.create(':memory:', {
    memory_limit: limits.memoryLimit ?? '256MB',
    threads: String(limits.threads ?? 1),
    preserve_insertion_order: 'false',
    ...(limits.tempDirectory ? { temp_directory: limits.tempDirectory } : {}),
  });
}

async function onConnection<T>(instance: DuckDBInstance, work: DuckDbWork<T>): Promise<T> {
  const connection = await instance.connect();
  try {
    return await work(connection);
  } finally {
    connection.closeSync();
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
