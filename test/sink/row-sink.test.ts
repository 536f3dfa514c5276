import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { convertToParquet } from '../../src/sink/parquet.js';
import type { PartLimits } from '../../src/sink/part-writer.js';
import type { RowSink } from '../../src/sink/row-sink.js';
import { TableWriter } from '../../src/sink/table-writer.js';
import type { WrittenFile } from '../../src/sink/written-file.js';
import type { Row } from '../../src/transform/cells.js';
import type { TableSchema } from '../../src/transform/schema.js';
import { runRowSinkContract } from './row-sink.contract.js';

runRowSinkContract('gzip NDJSON', 'ndjson', (dir, table, limits) => new TableWriter({ dir, table, ...limits }));

/**
 * The Parquet path as a backup runs it: NDJSON parts, each converted by DuckDB once the table is complete, from the
 * part's uncompressed text copy when written with one (removed after its conversion, as the committer does).
 */
class NdjsonThenParquet implements RowSink {
  readonly #ndjson: TableWriter;
  constructor(
    readonly dir: string,
    readonly table: TableSchema,
    limits: PartLimits = {},
    textCopy = false,
  ) {
    this.#ndjson = new TableWriter({ dir: join(dir, 'ndjson'), table, ...limits, textCopy });
  }
  write(row: Row): Promise<void> {
    return this.#ndjson.write(row);
  }
  async close(): Promise<WrittenFile[]> {
    const converted: WrittenFile[] = [];
    for (const part of await this.#ndjson.close()) {
      converted.push(await convertToParquet(part, this.table, join(this.dir, 'parquet')));
      if (part.text !== undefined) await rm(part.text);
    }
    return converted;
  }
  abort(): Promise<void> {
    return this.#ndjson.abort();
  }
}

runRowSinkContract('Parquet via DuckDB', 'parquet', (dir, table, limits) => new NdjsonThenParquet(dir, table, limits));
runRowSinkContract(
  'Parquet via DuckDB from the text copy',
  'parquet',
  (dir, table, limits) => new NdjsonThenParquet(dir, table, limits, true),
);
