import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countRows } from '../../src/sink/count-rows.js';
import { convertToParquet } from '../../src/sink/parquet.js';
import { TableWriter } from '../../src/sink/table-writer.js';
import type { WrittenFile } from '../../src/sink/written-file.js';
import { EVERY_TYPE } from './row-sink.contract.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shopsnap-count-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function tableFiles(rows: number): Promise<{ ndjson: WrittenFile; parquet: WrittenFile }> {
  const writer = new TableWriter({ dir: join(dir, 'ndjson'), table: EVERY_TYPE });
  for (let i = 0; i < rows; i++) await writer.write({ order_id: i, position: 1, title: `row ${i}\nwith a newline` });
  const [ndjson] = (await writer.close()) as [WrittenFile];
  return { ndjson, parquet: await convertToParquet(ndjson, EVERY_TYPE, join(dir, 'parquet')) };
}

describe('countRows', () => {
  it.each([0, 1, 1234])('counts %i rows in NDJSON by lines and in Parquet by its footer', async (rows) => {
    const files = await tableFiles(rows);
    expect(await countRows(files.ndjson.path, 'ndjson')).toBe(rows);
    expect(await countRows(files.parquet.path, 'parquet')).toBe(rows);
  });

  it('counts raw lines after gunzip', async () => {
    const path = join(dir, 'raw.jsonl.gz');
    await writeFile(path, gzipSync('{"a":1}\n{"a":2}\n'));
    expect(await countRows(path, 'raw')).toBe(2);
  });

  it.each(['ndjson', 'parquet'] as const)('rejects a truncated %s file', async (format) => {
    const file = (await tableFiles(500))[format];
    await truncate(file.path, Math.floor(file.bytes / 2));
    await expect(countRows(file.path, format)).rejects.toMatchObject({ code: 'ERR_SINK_COUNT' });
  });

  it('counts a file whatever its name, as verify downloads it', async () => {
    const { parquet, ndjson } = await tableFiles(7);
    await writeFile(join(dir, 'file'), await readFile(parquet.path));
    expect(await countRows(join(dir, 'file'), 'parquet')).toBe(7);
    await writeFile(join(dir, 'file'), await readFile(ndjson.path));
    expect(await countRows(join(dir, 'file'), 'ndjson')).toBe(7);
  });

  it('rejects a Parquet file whose bytes are not Parquet', async () => {
    const { parquet, ndjson } = await tableFiles(3);
    await writeFile(parquet.path, await readFile(ndjson.path));
    await expect(countRows(parquet.path, 'parquet')).rejects.toMatchObject({ code: 'ERR_SINK_COUNT' });
  });
});
