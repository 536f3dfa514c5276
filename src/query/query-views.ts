import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { UsageError } from '../cli/usage-error.js';
import { sqlString, withDuckDb } from '../sink/duckdb.js';
import { type Catalog, listSnapshots } from '../snapshot/catalog.js';
import { LocalDirStorage } from '../storage/index.js';
import { TABLES } from '../transform/index.js';
import { defineCatalogViews } from './catalog-views.js';
import { parquetCopies } from './parquet-copies.js';
import { type Selected, type Selection, selectSnapshots } from './selection.js';
import { queryError } from './sql-error.js';
import { type LineageShown, tableViewSql } from './table-views.js';

/** The views every query sees: one per table (in TABLES' order), then `snapshots` and `files`. */
export const VIEW_NAMES: readonly string[] = [...TABLES.map((table) => table.name), 'snapshots', 'files'];

export interface QueryViews {
  /** The snapshots the table views read, and what a reader might miss in them. */
  selected: Selected;
  shown: LineageShown;
  /** Where the session may write files while it lasts (removed after). */
  scratch: string;
}

/**
 * Runs `work` on an in-process DuckDB holding the views of `catalog` (see the README, `shopsnap query`): a view per
 * table over the selected snapshots' Parquet files, and `snapshots` and `files` over every manifest. `sql` (absent for
 * --schema) says which tables' files a bucket must give: only those its text names are downloaded. Timestamps read
 * and print in UTC. DuckDB may use every core, and spills to the scratch folder past 1 GB.
 */
export async function withQueryViews<T>(
  request: { catalog: Catalog; selection: Selection; sql?: string | undefined },
  work: (connection: DuckDBConnection, views: QueryViews) => Promise<T>,
): Promise<T> {
  const { catalog, selection, sql } = request;
  const scratch = await mkdtemp(join(tmpdir(), 'shopsnap-query-'));
  try {
    const entries = await listSnapshots(catalog);
    const selected = selectSnapshots(catalog, entries, selection, sql !== undefined);
    const shown = {
      shop: new Set(selected.snapshots.map((snapshot) => snapshot.shop)).size > 1,
      snapshotId: selection.kind === 'all',
    };
    const local = catalog.storage instanceof LocalDirStorage;
    const wanted = new Set(
      TABLES.filter((table) => local || (sql !== undefined && names(sql, table.name))).map((table) => table.name),
    );
    const files = await parquetCopies(catalog.storage, selected.snapshots, wanted, scratch);
    const limits = { memoryLimit: '1GB', threads: availableParallelism(), tempDirectory: join(scratch, 'duckdb') };
    return await withDuckDb(limits, async (connection) => {
      await connection.run(`SET TimeZone = ${sqlString('UTC')}`);
      for (const table of TABLES) {
        await connection.run(
          tableViewSql(table, selected.snapshots, wanted.has(table.name) ? files : 'not fetched', shown),
        );
      }
      await defineCatalogViews(connection, entries, catalog.storage.location, scratch);
      return work(connection, { selected, shown, scratch });
    });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Whether the SQL's text names the table as a word (`orders`, `"orders"`; not `order_line_items`). */
function names(sql: string, table: string): boolean {
  return new RegExp(`(^|[^A-Za-z0-9_])${table}($|[^A-Za-z0-9_])`, 'i').test(sql);
}

/** The one statement of `sql`, without a closing semicolon; parse errors name their place. */
export async function singleStatement(connection: DuckDBConnection, sql: string): Promise<string> {
  let statements: number;
  try {
    statements = (await connection.extractStatements(sql)).count;
  } catch (error) {
    throw queryError(error, sql);
  }
  if (statements !== 1) {
    throw new UsageError(`the query must be one SQL statement; this holds ${statements}`);
  }
  return sql.trim().replace(/;\s*$/, '');
}

/** Every view and its columns with their types, in VIEW_NAMES' order. */
export async function viewColumns(
  connection: DuckDBConnection,
): Promise<Array<{ name: string; columns: Array<{ name: string; type: string }> }>> {
  const result = await connection.runAndReadAll(
    `SELECT table_name, column_name, data_type FROM duckdb_columns() WHERE schema_name = 'main' AND NOT internal ORDER BY column_index`,
  );
  const byView = new Map<string, Array<{ name: string; type: string }>>();
  for (const [view, column, type] of result.getRowsJS() as string[][]) {
    byView.set(view as string, [
      ...(byView.get(view as string) ?? []),
      { name: column as string, type: type as string },
    ]);
  }
  return VIEW_NAMES.map((name) => ({ name, columns: byView.get(name) ?? [] }));
}
