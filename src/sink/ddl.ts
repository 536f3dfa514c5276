import { SCHEMA_VERSION } from '../transform/describe.js';
import {
  type Column,
  type ColumnType,
  DECIMAL_PRECISION,
  DECIMAL_SCALE,
  LINEAGE_COLUMNS,
  SQL_TYPES,
  type TableSchema,
} from '../transform/schema.js';
import { TABLES } from '../transform/tables/index.js';
import { sqlIdentifier, sqlString } from './duckdb.js';

export type DdlDialect = 'duckdb' | 'bigquery' | 'athena';

/**
 * Each dialect's type for each column type, as its Parquet reader maps the file's type. BigQuery: BIGINT and INTEGER
 * to INT64, TIMESTAMP (UTC) to TIMESTAMP, DECIMAL(18,4) to NUMERIC (38 digits, 9 decimals: every value exact). Athena
 * (Hive types): the file's types by their Hive names.
 */
const TYPES: Readonly<Record<Exclude<DdlDialect, 'duckdb'>, Readonly<Record<ColumnType, string>>>> = {
  bigquery: {
    int64: 'INT64',
    int32: 'INT64',
    boolean: 'BOOL',
    timestamp: 'TIMESTAMP',
    decimal: 'NUMERIC',
    double: 'FLOAT64',
    string: 'STRING',
    json: 'STRING',
  },
  athena: {
    int64: 'bigint',
    int32: 'int',
    boolean: 'boolean',
    timestamp: 'timestamp',
    decimal: `decimal(${DECIMAL_PRECISION},${DECIMAL_SCALE})`,
    double: 'double',
    string: 'string',
    json: 'string',
  },
};

/** A column's type in a dialect's DDL. */
export function ddlType(dialect: DdlDialect, type: ColumnType): string {
  return dialect === 'duckdb' ? SQL_TYPES[type] : TYPES[dialect][type];
}

/** The columns of a table's Parquet files, in their order: the declared ones, `_extra`, then the lineage. */
export function parquetColumns(table: TableSchema): readonly Column[] {
  return [...table.columns, ...LINEAGE_COLUMNS];
}

export interface DdlOptions {
  /** BigQuery's dataset, Athena's database: qualifies the table names. */
  dataset?: string;
  /** Athena (required there): the destination (`s3://bucket/prefix`) whose snapshots the tables read. */
  location?: string;
}

/**
 * A `CREATE TABLE` for every table, with the columns and types its Parquet files hold (`shopsnap schema --format`):
 * DuckDB's types as written; BigQuery's for load jobs; for Athena an external table over every snapshot of a
 * destination, partitioned by shop and snapshot id through partition projection (a query names both).
 */
export function schemaDdl(dialect: DdlDialect, options: DdlOptions = {}): string {
  const statements = TABLES.map((table) => {
    const columns = parquetColumns(table).map(
      (column) => `${identifier(dialect, column.name)} ${ddlType(dialect, column.type)}`,
    );
    const body = `(\n  ${columns.join(',\n  ')}\n)`;
    if (dialect === 'duckdb') return `CREATE TABLE IF NOT EXISTS ${sqlIdentifier(table.name)} ${body};`;
    const dataset = options.dataset ?? 'shopsnap';
    if (dialect === 'bigquery') {
      return `CREATE TABLE IF NOT EXISTS ${identifier(dialect, `${dataset}.${table.name}`)} ${body};`;
    }
    const name = `${identifier(dialect, dataset)}.${identifier(dialect, table.name)}`;
    const destination = (options.location ?? '').replace(/\/$/, '');
    return [
      `CREATE EXTERNAL TABLE IF NOT EXISTS ${name} ${body}`,
      'PARTITIONED BY (`shop` string, `snapshot_id` string)',
      'STORED AS PARQUET',
      `LOCATION ${sqlString(`${destination}/`)}`,
      'TBLPROPERTIES (',
      `  'projection.enabled' = 'true',`,
      `  'projection.shop.type' = 'injected',`,
      `  'projection.snapshot_id.type' = 'injected',`,
      `  'storage.location.template' = ${sqlString(`${destination}/\${shop}/\${snapshot_id}/parquet/${table.name}/`)}`,
      ');',
    ].join('\n');
  });
  const about = `-- shopsnap schema version ${SCHEMA_VERSION}: one table per folder …/parquet/<table>/ of a snapshot, with its files' columns`;
  return `${[about, ...statements].join('\n\n')}\n`;
}

function identifier(dialect: DdlDialect, name: string): string {
  return dialect === 'duckdb' ? sqlIdentifier(name) : `\`${name.replaceAll('`', '``')}\``;
}
