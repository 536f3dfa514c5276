import type { DuckDBConnection, DuckDBType } from '@duckdb/node-api';
import { requireCommonJs } from '../commonjs.js';
import { count, plural, textTable } from '../human.js';
import { sqlString } from '../sink/duckdb.js';
import { queryError } from './sql-error.js';

const { DuckDBTypeId } = requireCommonJs('@duckdb/node-api') as typeof import('@duckdb/node-api');

export const RESULT_FORMATS = ['table', 'csv', 'json', 'ndjson', 'parquet'] as const;
export type ResultFormat = (typeof RESULT_FORMATS)[number];

/** DuckDB's writer for each file format: JSON as one array, NDJSON a row a line, Parquet as shopsnap writes it. */
const COPY_OPTIONS: Readonly<Record<Exclude<ResultFormat, 'table'>, string>> = {
  csv: 'FORMAT csv, HEADER true',
  json: 'FORMAT json, ARRAY true',
  ndjson: 'FORMAT json',
  parquet: 'FORMAT parquet, COMPRESSION zstd',
};

/**
 * Writes the result of `sql` (one statement) to `path` with DuckDB's own writer, so every value keeps its type: ids
 * above 2^53 and money exact, timestamps in UTC. DuckDB binds the statement alone first, so an error in it names its
 * place in the user's text rather than in the COPY around it.
 */
export async function copyResult(
  connection: DuckDBConnection,
  sql: string,
  format: Exclude<ResultFormat, 'table'>,
  path: string,
): Promise<void> {
  try {
    await connection.prepare(sql);
    // On its own line: a trailing `-- comment` must not swallow the closing parenthesis.
    await connection.run(`COPY (SELECT * FROM (\n${sql}\n)) TO ${sqlString(path)} (${COPY_OPTIONS[format]})`);
  } catch (error) {
    throw queryError(error, sql);
  }
}

/** Longest text of a cell on a terminal; longer ones end in `...` (the file formats hold them whole). */
const CELL_CHARS = 48;

const FIGURES = new Set([
  DuckDBTypeId.TINYINT,
  DuckDBTypeId.SMALLINT,
  DuckDBTypeId.INTEGER,
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UTINYINT,
  DuckDBTypeId.USMALLINT,
  DuckDBTypeId.UINTEGER,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.UHUGEINT,
  DuckDBTypeId.FLOAT,
  DuckDBTypeId.DOUBLE,
  DuckDBTypeId.DECIMAL,
]);

/**
 * The result of `sql` as an aligned table: the first `maxRows` rows (0: all), then the total, counted by streaming
 * the rest (never held). Within `width` characters (a terminal's) the leading columns that fit are shown, and the
 * others named.
 */
export async function resultTable(
  connection: DuckDBConnection,
  sql: string,
  options: { maxRows: number; width?: number | undefined },
): Promise<string> {
  const shown: string[][] = [];
  let total = 0;
  let names: string[];
  let types: DuckDBType[];
  try {
    const result = await connection.stream(sql);
    names = result.columnNames();
    types = result.columnTypes();
    for (
      let chunk = await result.fetchChunk();
      chunk !== null && chunk.rowCount > 0;
      chunk = await result.fetchChunk()
    ) {
      const room = options.maxRows === 0 ? chunk.rowCount : Math.max(0, options.maxRows - shown.length);
      if (room > 0) {
        for (const row of chunk.getRows().slice(0, room)) shown.push(row.map((value) => cellText(value)));
      }
      total += chunk.rowCount;
    }
  } catch (error) {
    throw queryError(error, sql);
  }
  const figures = new Set(types.flatMap((type, i) => (FIGURES.has(type.typeId) ? [i] : [])));
  const rows = [names, ...shown];
  const fitting = fittingColumns(rows, options.width);
  const table = textTable(
    rows.map((row) => row.slice(0, fitting)),
    figures,
  );
  const notes = [
    total > shown.length
      ? `${count(total)} rows, the first ${count(shown.length)} shown (--max-rows; --format csv for all)`
      : plural(total, 'row'),
    ...(fitting < names.length
      ? [`${plural(names.length - fitting, 'more column')} not shown: ${names.slice(fitting).join(', ')}`]
      : []),
  ];
  return `${table}\n${notes.join('\n')}\n`;
}

/** A value as a cell: NULL spelled out, line breaks and tabs escaped, long text cut. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  const text = String(value).replace(/[\n\r\t]/g, (c) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\t'));
  return text.length > CELL_CHARS ? `${text.slice(0, CELL_CHARS - 3)}...` : text;
}

/** How many leading columns fit in `width` characters, two apart (at least one). */
function fittingColumns(rows: readonly (readonly string[])[], width: number | undefined): number {
  const columns = rows[0]?.length ?? 0;
  if (width === undefined) return columns;
  let used = 0;
  for (let i = 0; i < columns; i++) {
    used += (i === 0 ? 0 : 2) + Math.max(...rows.map((row) => (row[i] ?? '').length));
    if (used > width) return Math.max(1, i);
  }
  return columns;
}
