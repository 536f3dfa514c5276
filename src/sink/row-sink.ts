import type { Row } from '../transform/cells.js';
import type { WrittenFile } from './written-file.js';

/**
 * Something that turns the rows of one table into finished files.
 *
 * Contract (test/sink/row-sink.contract.ts runs it against the NDJSON and the Parquet path):
 * - write() accepts rows whose cells match the table's declared column types (as toRows produces them); a cell of
 *   the wrong type rejects with SinkError 'ERR_SINK_ROW_TYPE'. Columns the table does not declare are not written.
 * - write() resolves once the row is buffered; it waits when the disk is slower than the producer (backpressure).
 * - close() finishes every part: each is written to a temp name, fsynced and renamed, so a final name only ever
 *   holds a whole file. It resolves to the parts in order, at least one (possibly with 0 rows) so every table has a
 *   file. After close() or abort(), write() rejects with 'ERR_SINK_CLOSED'.
 * - abort() removes the temp file of the part in progress; parts already renamed stay (the caller owns staging).
 */
export interface RowSink {
  write(row: Row): Promise<void>;
  close(): Promise<WrittenFile[]>;
  abort(): Promise<void>;
}
