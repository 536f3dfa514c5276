import type { Row } from '../transform/cells.js';
import type { TableSchema } from '../transform/schema.js';
import { type PartLimits, PartWriter } from './part-writer.js';
import { createRowSerializer } from './row-serializer.js';
import type { RowSink } from './row-sink.js';
import type { WrittenFile } from './written-file.js';

/** The rows of one table as gzip NDJSON parts `<dir>/<table>/part-NNNNN.ndjson.gz`, one row a line. */
export class TableWriter implements RowSink {
  readonly #serialize: (row: Row) => string;
  readonly #parts: PartWriter;

  constructor(options: { dir: string; table: TableSchema } & PartLimits) {
    this.#serialize = createRowSerializer(options.table);
    this.#parts = new PartWriter({ ...options, name: options.table.name, format: 'ndjson', extension: 'ndjson.gz' });
  }

  async write(row: Row): Promise<void> {
    await this.#parts.writeLine(this.#serialize(row));
  }

  close(): Promise<WrittenFile[]> {
    return this.#parts.close();
  }

  abort(): Promise<void> {
    return this.#parts.abort();
  }

  /** See PartWriter.rotate. */
  rotate(evenIfEmpty = false): Promise<WrittenFile[]> {
    return this.#parts.rotate(evenIfEmpty);
  }

  /** The part being written, for callers that decide when to rotate. */
  get part(): { rows: number; bytes: number } {
    return { rows: this.#parts.partRows, bytes: this.#parts.partBytes };
  }
}
