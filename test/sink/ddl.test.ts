import { describe, expect, it } from 'vitest';
import { ddlType } from '../../src/sink/ddl.js';
import type { ColumnType } from '../../src/transform/schema.js';

describe('ddlType: each column type in each dialect, as the Parquet file holds it', () => {
  it.each<[ColumnType, string, string, string]>([
    ['int64', 'BIGINT', 'INT64', 'bigint'],
    ['int32', 'INTEGER', 'INT64', 'int'],
    ['boolean', 'BOOLEAN', 'BOOL', 'boolean'],
    ['timestamp', 'TIMESTAMPTZ', 'TIMESTAMP', 'timestamp'],
    ['decimal', 'DECIMAL(18,4)', 'NUMERIC', 'decimal(18,4)'],
    ['double', 'DOUBLE', 'FLOAT64', 'double'],
    ['string', 'VARCHAR', 'STRING', 'string'],
    ['json', 'VARCHAR', 'STRING', 'string'],
  ])('%s: DuckDB %s, BigQuery %s, Athena %s', (type, duckdb, bigquery, athena) => {
    expect([ddlType('duckdb', type), ddlType('bigquery', type), ddlType('athena', type)]).toEqual([
      duckdb,
      bigquery,
      athena,
    ]);
  });
});
