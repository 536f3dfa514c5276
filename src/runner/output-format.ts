export type OutputFormat = 'parquet' | 'ndjson' | 'raw';
