import type { Cell, Row } from '../transform/cells.js';
import type { TableSchema } from '../transform/schema.js';
import { type PartLimits, PartWriter } from './part-writer.js';
import { cellsOf, LineEncoder } from './row-serializer.js';
import type { RowSink } from './row-sink.js';
import type { WrittenFile } from './written-file.js';

/** The rows of one table as gzip NDJSON parts `<dir>/<table>/part-NNNNN.ndjson.gz`, one row a line. */
export class TableWriter implements RowSink {
  readonly #table: TableSchema;
  readonly #encoder: LineEncoder;
  readonly #parts: PartWriter;

  constructor(options: { dir: string; table: TableSchema; textCopy?: boolean } & PartLimits) {
    this.#table = options.table;
    this.#encoder = new LineEncoder(options.table);
    this.#parts = new PartWriter({ ...options, name: options.table.name, format: 'ndjson', extension: 'ndjson.gz' });
  }

  async write(row: Row): Promise<void> {
    this.add(cellsOf(this.#table, row));
    await this.flush();
  }

  /**
   * Encodes a row given as its cells in column order (see LineEncoder.add) without writing it yet: a caller that
   * adds a record's rows synchronously writes them with one flush().
   */
  add(cells: readonly Cell[]): void {
    this.#encoder.add(cells);
  }

  /** Rows added and not flushed yet. */
  get pending(): number {
    return this.#encoder.lines;
  }

  /** Writes the rows added since the last flush. */
  async flush(): Promise<void> {
    const count = this.#encoder.lines;
    if (count > 0) await this.#parts.writeLines(this.#encoder.take(), count);
  }

  async close(): Promise<WrittenFile[]> {
    await this.flush();
    return this.#parts.close();
  }

  abort(): Promise<void> {
    this.#encoder.take();
    return this.#parts.abort();
  }

  /** See PartWriter.rotate: rows added and not flushed go into the next part. */
  async rotate(evenIfEmpty = false): Promise<WrittenFile[]> {
    return this.#parts.rotate(evenIfEmpty);
  }

  /** The part being written, for callers that decide when to rotate. */
  get part(): { rows: number; bytes: number } {
    return { rows: this.#parts.partRows, bytes: this.#parts.partBytes };
  }
}
