import { SQL_TYPES } from './schema.js';
import { TABLES } from './tables/index.js';

/** Bumped whenever a table or column is added, removed, renamed or retyped; recorded in every manifest. */
export const SCHEMA_VERSION = 1;

/**
 * Every table and column with its type, for `shopsnap schema`: aligned text for people, or JSON for tools
 * (`{"schema_version","tables":[{"name","resource","parent","columns":[{"name","type","sql_type"}]}]}`).
 */
export function describeSchema(format: 'text' | 'json'): string {
  if (format === 'json') {
    const tables = TABLES.map((table) => ({
      name: table.name,
      resource: table.resource,
      parent: table.parent ?? null,
      columns: table.columns.map((column) => ({
        name: column.name,
        type: column.type,
        sql_type: SQL_TYPES[column.type],
      })),
    }));
    return `${JSON.stringify({ schema_version: SCHEMA_VERSION, tables }, null, 2)}\n`;
  }
  const lines = [`shopsnap schema version ${SCHEMA_VERSION}`];
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
