import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readNdjsonSql, sqlIdentifier, sqlString, withDuckDb } from '../../src/sink/duckdb.js';
import type { WrittenFile } from '../../src/sink/written-file.js';
import { type Column, SQL_TYPES, type TableSchema } from '../../src/transform/schema.js';

export interface ReadBack {
  /** DuckDB's type of each column, as DESCRIBE reports it. */
  types: Record<string, string>;
  /** Every cell cast to VARCHAR by DuckDB, so exactness is compared digit by digit. */
  rows: Record<string, string | null>[];
}

/** The type DESCRIBE reports for a declared column (DuckDB spells TIMESTAMPTZ out). */
export function describedType(column: Column): string {
  return column.type === 'timestamp' ? 'TIMESTAMP WITH TIME ZONE' : SQL_TYPES[column.type];
}

/** Reads written files back with DuckDB: NDJSON parts with the declared columns, Parquet parts as they are. */
export async function readBack(files: WrittenFile[], table: TableSchema): Promise<ReadBack> {
  const sources = files.map((file) =>
    file.format === 'parquet' ? `SELECT * FROM read_parquet(${sqlString(file.path)})` : readNdjsonSql(file.path, table),
  );
  const union = sources.map((sql) => `(${sql})`).join(' UNION ALL ');
  return withDuckDb({}, async (db) => {
    await db.run(`SET TimeZone = 'UTC'`);
    const described = (await db.runAndReadAll(`DESCRIBE ${union}`)).getRowObjectsJS();
    const types = Object.fromEntries(described.map((row) => [String(row.column_name), String(row.column_type)]));
    const cast = table.columns.map((c) => `${sqlIdentifier(c.name)}::VARCHAR AS ${sqlIdentifier(c.name)}`).join(', ');
    const rows = (await db.runAndReadAll(`SELECT ${cast} FROM (${union})`)).getRowObjectsJS() as Record<
      string,
      string | null
    >[];
    return { types, rows };
  });
}

/** Every file name under `dir`, recursively, relative to it. */
export async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}
