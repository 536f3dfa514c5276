export const OUTPUT_FORMATS = ['parquet', 'ndjson', 'raw'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
