import { sqlIdentifier, sqlString } from '../sink/duckdb.js';
import { SQL_TYPES, type TableSchema } from '../transform/schema.js';
import type { TableFiles } from './parquet-copies.js';
import type { SelectedSnapshot } from './selection.js';

/** The columns a table view starts with, from the manifests: which shop, and which snapshot. */
export interface LineageShown {
  shop: boolean;
  snapshotId: boolean;
}

/**
 * `CREATE VIEW <table>`: the table's rows in the selected snapshots, with its declared columns (`_extra` last), after
 * `shop` and `snapshot_id` when shown. Shop and snapshot come from the manifest, not from the files' lineage columns,
 * so snapshots written before those (schema version 1) read the same. Where the table's files were not fetched (from a
 * bucket, for a query that does not name the table) reading the view fails saying so.
 */
export function tableViewSql(
  table: TableSchema,
  snapshots: readonly SelectedSnapshot[],
  files: ReadonlyMap<string, TableFiles> | 'not fetched',
  shown: LineageShown,
): string {
  const columns = table.columns.map((column) => sqlIdentifier(column.name));
  const branches: string[] = [];
  for (const snapshot of snapshots) {
    const paths = files === 'not fetched' ? [] : (files.get(snapshot.key)?.get(table.name) ?? []);
    if (paths.length === 0) continue;
    const lineage = [
      ...(shown.shop ? [`${sqlString(snapshot.shop)} AS shop`] : []),
      ...(shown.snapshotId ? [`${sqlString(snapshot.id)} AS snapshot_id`] : []),
    ];
    const read = `read_parquet([${paths.map(sqlString).join(', ')}], union_by_name = true)`;
    branches.push(`SELECT ${[...lineage, ...columns].join(', ')} FROM ${read}`);
  }
  const name = sqlIdentifier(table.name);
  if (branches.length > 0) return `CREATE VIEW ${name} AS ${branches.join('\nUNION ALL ')}`;
  // No file to read: the view's columns and types, and no row (or, not fetched, an error).
  const typed = [
    ...(shown.shop ? ['CAST(NULL AS VARCHAR) AS shop'] : []),
    ...(shown.snapshotId ? ['CAST(NULL AS VARCHAR) AS snapshot_id'] : []),
    ...table.columns.map((column) => `CAST(NULL AS ${SQL_TYPES[column.type]}) AS ${sqlIdentifier(column.name)}`),
  ];
  const condition =
    files === 'not fetched'
      ? `error(${sqlString(`${table.name}: its files were not fetched, because the query does not name the table`)})`
      : 'false';
  return `CREATE VIEW ${name} AS SELECT ${typed.join(', ')} FROM range(1) WHERE ${condition}`;
}
