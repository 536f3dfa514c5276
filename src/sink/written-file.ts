/** 'index': a resource's record index (Parquet in a snapshot; NDJSON in staging, before its conversion). */
export type FileFormat = 'ndjson' | 'parquet' | 'raw' | 'index';

/** What a snapshot records about each of its files. */
export interface FileFacts {
  /** The table (ndjson, parquet) or the resource (raw, index) whose rows the file holds. */
  table: string;
  format: FileFormat;
  rows: number;
  /** Size and hex sha256 of the file as written. */
  bytes: number;
  sha256: string;
}

/** A finished, renamed-into-place file of a snapshot, in staging. */
export interface WrittenFile extends FileFacts {
  /** Absolute path. */
  path: string;
  /**
   * The same lines uncompressed, in staging, for an NDJSON part of a run that converts it to Parquet: what the
   * conversion reads (see TextCopy). Removed with the part.
   */
  text?: string;
}
