import { type Column, LINEAGE_COLUMNS, SQL_TYPES } from './schema.js';
import { TABLES } from './tables/index.js';

/**
 * Bumped whenever a table or column is added, removed, renamed or retyped; recorded in every manifest. 2: Parquet files
 * end with the lineage columns.
 */
export const SCHEMA_VERSION = 2;

/**
 * Every table and column with its type, for `shopsnap schema`: aligned text for people, or JSON for tools
 * (`{"schema_version","tables":[{"name","resource","parent","columns":[{"name","type","sql_type"}]}],
 * "lineage_columns":[…]}`). A table's columns are its NDJSON rows'; its Parquet rows end with the lineage columns.
 */
export function describeSchema(format: 'text' | 'json'): string {
  if (format === 'json') {
    const described = (columns: readonly Column[]) =>
      columns.map((column) => ({ name: column.name, type: column.type, sql_type: SQL_TYPES[column.type] }));
    const tables = TABLES.map((table) => ({
      name: table.name,
      resource: table.resource,
      parent: table.parent ?? null,
      columns: described(table.columns),
    }));
    const lineage_columns = described(LINEAGE_COLUMNS);
    return `${JSON.stringify({ schema_version: SCHEMA_VERSION, tables, lineage_columns }, null, 2)}\n`;
  }
  const lineage = LINEAGE_COLUMNS.map((column) => column.name).join(', ');
  const lines = [
    `shopsnap schema version ${SCHEMA_VERSION}`,
    `Every table's Parquet files end with ${lineage} (VARCHAR): the shop and snapshot of the row.`,
  ];
  for (const table of TABLES) {
    const width = Math.max(...table.columns.map((column) => column.name.length));
    const parent = table.parent ? `, child of ${table.parent.table} by ${table.parent.key}` : '';
    lines.push('', `${table.name} (resource ${table.resource}${parent})`);
    for (const column of table.columns) {
      lines.push(`  ${column.name.padEnd(width)}  ${column.type.padEnd(9)}  ${SQL_TYPES[column.type]}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
