import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { SinkError } from './errors.js';
import { parquetFooterRows } from './parquet-footer.js';
import type { FileFormat } from './written-file.js';

/**
 * Large reads and gunzip chunks: with the defaults (64 KiB reads, 16 KiB chunks) the stream machinery per chunk cost
 * 3× the CPU of the decompression itself (measured on 262 MB of simulated orders: 0.83 → 0.28 s).
 */
const READ_BYTES = 1024 * 1024;
const GUNZIP_CHUNK_BYTES = 256 * 1024;

/**
 * Re-counts the rows of a finished file from its bytes, never from a writer's counter: a Parquet file by its footer,
 * an NDJSON or raw part by its lines after gunzip, a snapshot's record index (Parquet) by its footer. A truncated or corrupt file rejects with SinkError
 * 'ERR_SINK_COUNT' (the cause says why).
 */
export async function countRows(path: string, format: FileFormat): Promise<number> {
  try {
    if (format === 'parquet' || format === 'index') return await parquetFooterRows(path);
    let lines = 0;
    await pipeline(
      createReadStream(path, { highWaterMark: READ_BYTES }),
      createGunzip({ chunkSize: GUNZIP_CHUNK_BYTES }),
      async (source: AsyncIterable<Buffer>) => {
        for await (const chunk of source) {
          for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
        }
      },
    );
    return lines;
  } catch (error) {
    throw new SinkError(
      'ERR_SINK_COUNT',
      `cannot count the rows of ${format} file ${path}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}
