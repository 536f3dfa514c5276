import type { Row } from '../transform/cells.js';
import type { ColumnType, TableSchema } from '../transform/schema.js';
import { SinkError } from './errors.js';

/**
 * Builds the NDJSON line writer of one table, driven by its declared columns: int64 and int32 as bare integer
 * literals (bigint digits exact), doubles as JavaScript's shortest round-trip literal, decimals and timestamps as JSON
 * strings (DuckDB casts "0.29" into DECIMAL and "…-05:00" into TIMESTAMPTZ exactly), json columns as a JSON string
 * holding the JSON text. Only declared columns are written, in declaration order. Null cells are left out (a reader
 * given the declared columns reads them as NULL), which keeps lines short. Keys are encoded once here, not per row.
 */
export function createRowSerializer(table: TableSchema): (row: Row) => string {
  const names = table.columns.map((column) => column.name);
  const types = table.columns.map((column) => column.type);
  const keys = names.map((name) => `${JSON.stringify(name)}:`);
  const count = names.length;
  return (row: Row): string => {
    let line = '{';
    let separator = '';
    for (let i = 0; i < count; i++) {
      const value = row[names[i] as string];
      if (value === null || value === undefined) continue;
      line += separator + keys[i] + encode(types[i] as ColumnType, value, table.name, names[i] as string);
      separator = ',';
    }
    return `${line}}`;
  };
}

/** A cell of the wrong type throws instead of producing a line that DuckDB would reject, or misread, later. */
function encode(type: ColumnType, value: string | number | boolean | bigint, table: string, column: string): string {
  switch (type) {
    case 'string':
    case 'json':
    case 'decimal':
    case 'timestamp':
      if (typeof value === 'string') return JSON.stringify(value);
      break;
    case 'int64':
      if (typeof value === 'bigint' || Number.isSafeInteger(value)) return String(value);
      break;
    case 'int32':
      if (Number.isInteger(value) && (value as number) >= -(2 ** 31) && (value as number) < 2 ** 31) {
        return String(value);
      }
      break;
    case 'double':
      if (typeof value === 'number' && Number.isFinite(value)) return String(value);
      break;
    case 'boolean':
      if (typeof value === 'boolean') return value ? 'true' : 'false';
      break;
  }
  throw new SinkError(
    'ERR_SINK_ROW_TYPE',
    `${table}.${column}: a ${typeof value} cell does not fit column type ${type}`,
  );
}
