import type { ResourceName } from '../shopify/resources.js';

/**
 * Column types of the flat tables. Each maps to exactly one DuckDB/Parquet type (`SQL_TYPES`), and `to-rows.ts`
 * guarantees a cell of a column is either null or a value DuckDB parses into that type without rounding.
 */
export type ColumnType = 'int64' | 'int32' | 'boolean' | 'timestamp' | 'decimal' | 'double' | 'string' | 'json';

/**
 * Money arrives as a decimal string ("199.00"). DECIMAL(18,4) holds every amount Shopify sends exactly: two decimals
 * for most currencies, three for KWD/BHD/JOD/OMR/TND, a fourth to spare, and up to 10^14 before the point. Precision
 * 18 keeps the Parquet physical type INT64, which every reader supports. A value with more digits is never rounded:
 * it goes to the row's `_extra` column instead.
 */
export const DECIMAL_PRECISION = 18;
export const DECIMAL_SCALE = 4;

export const SQL_TYPES: Readonly<Record<ColumnType, string>> = {
  int64: 'BIGINT',
  int32: 'INTEGER',
  boolean: 'BOOLEAN',
  // Stored as UTC instants (Parquet TIMESTAMP isAdjustedToUTC, microseconds); the API's offset is applied on parse.
  timestamp: 'TIMESTAMPTZ',
  decimal: `DECIMAL(${DECIMAL_PRECISION},${DECIMAL_SCALE})`,
  double: 'DOUBLE',
  string: 'VARCHAR',
  json: 'VARCHAR',
};

export interface Column {
  readonly name: string;
  readonly type: ColumnType;
}

/**
 * How the API shapes one object: a field is either a column type or a nested object, which is flattened into
 * `<field>_<inner field>` columns (`billing_address: { city }` → `billing_address_city`).
 */
export type Shape = { readonly [field: string]: ColumnType | Shape };

export interface TableSchema {
  readonly name: string;
  readonly resource: ResourceName;
  /** Child tables hold one row per element of an array of their parent's records. */
  readonly parent?: { readonly table: string; readonly key: string };
  /** In output order: parent key and `position` first for child tables, `_extra` always last. */
  readonly columns: readonly Column[];
}

/** The declaration of a table: its schema plus where its rows come from. */
export interface DeclaredTable extends TableSchema {
  /** The fields of one source object, as declared. */
  readonly shape: Shape;
  /** For a child table: the array field of the parent record its rows come from (`line_items`). */
  readonly field?: string;
}

/** JSON text of every field a row's source object had that the schema does not know or could not type exactly. */
export const EXTRA_COLUMN = '_extra';
/**
 * Where a Parquet row comes from: every Parquet file of a table ends with these two constant columns after `_extra`
 * (schema version 2 on), so a warehouse table over many snapshots' files can tell them apart. Constant columns cost a
 * few bytes per row group in Parquet; NDJSON and the record index do not carry them.
 */
export const LINEAGE_COLUMNS: readonly Column[] = [
  { name: '_shop', type: 'string' },
  { name: '_snapshot_id', type: 'string' },
];

/** The values of the lineage columns: the shop's folder name (the manifest's `shop`) and the snapshot id. */
export interface Lineage {
  readonly shop: string;
  readonly snapshotId: string;
}

/** Child tables: the 1-based place of the element in its array. */
export const POSITION_COLUMN = 'position';

export interface TableDeclaration {
  name: string;
  resource: ResourceName;
  shape: Shape;
  /** For child tables: the parent table, the key column holding the parent's `id`, and the parent's array field. */
  parent?: { table: string; key: string; field: string };
}

export class SchemaDeclarationError extends Error {
  override name = 'SchemaDeclarationError';
  readonly code = 'ERR_SCHEMA_DECLARATION';
}

/** Flattens a declaration into its ordered column list; throws when two fields would share a column name. */
export function createTable(declaration: TableDeclaration): DeclaredTable {
  const columns: Column[] = [];
  if (declaration.parent) {
    columns.push({ name: declaration.parent.key, type: 'int64' }, { name: POSITION_COLUMN, type: 'int32' });
  }
  flattenShape(declaration.shape, '', columns);
  columns.push({ name: EXTRA_COLUMN, type: 'json' });
  const seen = new Set<string>();
  for (const column of columns) {
    if (seen.has(column.name)) {
      throw new SchemaDeclarationError(`table ${declaration.name} declares column ${column.name} twice`);
    }
    seen.add(column.name);
  }
  return {
    name: declaration.name,
    resource: declaration.resource,
    columns,
    shape: declaration.shape,
    ...(declaration.parent
      ? { parent: { table: declaration.parent.table, key: declaration.parent.key }, field: declaration.parent.field }
      : {}),
  };
}

function flattenShape(shape: Shape, prefix: string, columns: Column[]): void {
  for (const [field, type] of Object.entries(shape)) {
    if (typeof type === 'string') columns.push({ name: prefix + field, type });
    else flattenShape(type, `${prefix}${field}_`, columns);
  }
}

/** Removes fields from a shared shape, e.g. the parent key and position that a child table takes from its array. */
export function omitFields(shape: Shape, ...fields: string[]): Shape {
  return Object.fromEntries(Object.entries(shape).filter(([field]) => !fields.includes(field)));
}
