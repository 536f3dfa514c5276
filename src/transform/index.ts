export type { Cell, Row } from './cells.js';
export { describeSchema, SCHEMA_VERSION } from './describe.js';
export type { Column, ColumnType, DeclaredTable, TableSchema } from './schema.js';
export { EXTRA_COLUMN, POSITION_COLUMN, SQL_TYPES } from './schema.js';
export { TABLES, tableByName, tablesFor } from './tables/index.js';
export { type ShapedRecord, toRows } from './to-rows.js';
