export type FileFormat = 'ndjson' | 'parquet' | 'raw';

/** A finished, renamed-into-place file of a snapshot, as a manifest lists it. */
export interface WrittenFile {
  /** Absolute path. */
  path: string;
  /** The table (ndjson, parquet) or the resource (raw) whose rows the file holds. */
  table: string;
  format: FileFormat;
  rows: number;
  /** Size and hex sha256 of the file as written to disk. */
  bytes: number;
  sha256: string;
}
