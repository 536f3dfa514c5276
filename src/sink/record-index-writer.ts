import type { ResourceName } from '../shopify/resources.js';
import { isTimestamp } from '../transform/cells.js';
import type { TableSchema } from '../transform/schema.js';
import { SinkError } from './errors.js';
import { PartWriter } from './part-writer.js';
import { LineEncoder } from './row-serializer.js';
import type { WrittenFile } from './written-file.js';

/** What the index keeps of a record besides its text's hash: its exact id and its updated_at as served. */
export interface IndexedRecord {
  /** Exact decimal id. */
  id: string;
  updatedAt: string | undefined;
}

/** Where a record's line lies in the raw archive: part number, line number (1-based) and its gzip member's offset. */
export interface RawPlace {
  part: number;
  line: number;
  offset: number;
}

/**
 * The record index of a resource, one row per record: `index/<resource>/part-NNNNN.parquet`. It lets diff, restore and
 * the live check find and compare records without reading the archive: equal sha256, equal text.
 */
export function recordIndexTable(resource: ResourceName): TableSchema {
  return {
    name: resource,
    resource,
    columns: [
      { name: 'id', type: 'int64' },
      { name: 'updated_at', type: 'timestamp' },
      { name: 'sha256', type: 'string' },
      { name: 'part', type: 'int32' },
      { name: 'line', type: 'int64' },
      { name: 'gzip_offset', type: 'int64' },
    ],
  };
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * The index rows of one resource as NDJSON parts `<dir>/<resource>/part-NNNNN.ndjson.gz` (format 'index'; not
 * compressed: they only feed the Parquet conversion, which the committer does for every snapshot, whatever its
 * formats).
 */
export class RecordIndexWriter {
  readonly #parts: PartWriter;
  readonly #encoder: LineEncoder;

  constructor(options: { dir: string; resource: ResourceName; firstPart?: number }) {
    this.#encoder = new LineEncoder(recordIndexTable(options.resource));
    this.#parts = new PartWriter({
      dir: options.dir,
      name: options.resource,
      format: 'index',
      extension: 'ndjson.gz',
      gzipLevel: 0,
      maxRowsPerPart: Number.POSITIVE_INFINITY,
      maxBytesPerPart: Number.POSITIVE_INFINITY,
      firstPart: options.firstPart ?? 0,
    });
  }

  /** A record's row: `place` in the raw archive, or none when the snapshot has no raw archive. */
  add(record: IndexedRecord, sha256: string, place: RawPlace | undefined): Promise<void> {
    const id = BigInt(record.id);
    if (id < INT64_MIN || id > INT64_MAX) {
      return Promise.reject(
        new SinkError('ERR_SINK_RAW_RECORD', `record id ${record.id} is beyond int64: the record index cannot hold it`),
      );
    }
    const updatedAt = record.updatedAt !== undefined && isTimestamp(record.updatedAt) ? record.updatedAt : null;
    // Cells in the order of recordIndexTable's columns.
    this.#encoder.add([id, updatedAt, sha256, place?.part ?? null, place?.line ?? null, place?.offset ?? null]);
    return this.#parts.writeLines(this.#encoder.take(), 1);
  }

  rotate(evenIfEmpty = false): Promise<WrittenFile[]> {
    return this.#parts.rotate(evenIfEmpty);
  }

  close(): Promise<WrittenFile[]> {
    return this.#parts.close();
  }

  abort(): Promise<void> {
    return this.#parts.abort();
  }

  get part(): { rows: number; bytes: number } {
    return { rows: this.#parts.partRows, bytes: this.#parts.partBytes };
  }
}
