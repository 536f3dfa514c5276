import { type JsonObject, parseJson } from '../shopify/json.js';
import type { ResourceName } from '../shopify/resources.js';
import { tablesFor } from '../transform/index.js';
import { createRecordWalker, type UnknownFields } from '../transform/to-rows.js';
import { TableWriter } from './table-writer.js';
import type { WrittenFile } from './written-file.js';

/** What a RecordRows is opened with; plain data, so that it can cross to a thread. */
export interface RecordRowsOptions {
  resource: ResourceName;
  /** Parts go to `<dir>/<table>/part-NNNNN.ndjson.gz`. */
  dir: string;
  /** false: the records are only flattened, to count the fields the schema does not know (a raw-only run). */
  writeRows: boolean;
  gzipLevel: number;
  /** Also an uncompressed copy of each part, for the Parquet conversion (see TextCopy). */
  textCopy: boolean;
  /** Number of each table's first part, by table name: a resumed run continues its series. Absent: 0. */
  firstParts: Record<string, number>;
}

/** The parts a rotate or close finished, and the unknown fields counted in every record added since the open. */
export interface RowParts {
  files: WrittenFile[];
  unknownFields: number;
}

/**
 * Flattens the records of one resource, each given as its exact bytes, into NDJSON parts of the resource's tables.
 * Implemented in this thread (openRecordRows) and on a thread of its own (RowThread); one contract suite runs on both.
 */
export interface RecordRows {
  /**
   * Adds one record (`mayHoldLongIntegers`: false only where the record's bytes are known to hold no run of 16 digits
   * outside strings, see parseJson); what it resolves with is room for more (its rows may not be written yet).
   */
  add(bytes: Buffer, mayHoldLongIntegers: boolean): Promise<void>;
  /** Finishes the parts being written with every record added so far (see PartWriter.rotate). */
  rotate(evenIfEmpty: boolean): Promise<RowParts>;
  close(): Promise<RowParts>;
  /** Removes every part not yet handed out; the RecordRows is unusable afterwards. */
  abort(): Promise<void>;
  /** The largest rows and text bytes of any table's part being written (from a thread: as of its last answer). */
  readonly part: { rows: number; bytes: number };
}

export function openRecordRows(options: RecordRowsOptions): RecordRows {
  return new RecordRowsHere(options);
}

class RecordRowsHere implements RecordRows {
  readonly #writers: TableWriter[];
  readonly #walk: (record: JsonObject, unknowns: UnknownFields) => void;
  readonly #unknowns: UnknownFields = { count: 0, paths: undefined };
  #unknownFields = 0;

  constructor(options: RecordRowsOptions) {
    const writers = new Map(
      (options.writeRows ? tablesFor(options.resource) : []).map((table) => [
        table.name,
        new TableWriter({
          dir: options.dir,
          table,
          maxRowsPerPart: Number.POSITIVE_INFINITY,
          maxBytesPerPart: Number.POSITIVE_INFINITY,
          firstPart: options.firstParts[table.name] ?? 0,
          gzipLevel: options.gzipLevel,
          textCopy: options.textCopy,
        }),
      ]),
    );
    this.#writers = [...writers.values()];
    this.#walk = createRecordWalker(options.resource, ({ table, cells }) => writers.get(table.name)?.add(cells));
  }

  async add(bytes: Buffer, mayHoldLongIntegers: boolean): Promise<void> {
    this.#unknowns.count = 0;
    this.#walk(parseJson(bytes.toString('utf8'), mayHoldLongIntegers) as JsonObject, this.#unknowns);
    this.#unknownFields += this.#unknowns.count;
    for (const writer of this.#writers) if (writer.pending > 0) await writer.flush();
  }

  async rotate(evenIfEmpty: boolean): Promise<RowParts> {
    const files = await Promise.all(this.#writers.map((writer) => writer.rotate(evenIfEmpty)));
    return { files: files.flat(), unknownFields: this.#unknownFields };
  }

  async close(): Promise<RowParts> {
    const files = await Promise.all(this.#writers.map((writer) => writer.close()));
    return { files: files.flat(), unknownFields: this.#unknownFields };
  }

  async abort(): Promise<void> {
    await Promise.all(this.#writers.map((writer) => writer.abort()));
  }

  get part(): { rows: number; bytes: number } {
    let rows = 0;
    let bytes = 0;
    for (const writer of this.#writers) {
      rows = Math.max(rows, writer.part.rows);
      bytes = Math.max(bytes, writer.part.bytes);
    }
    return { rows, bytes };
  }
}
