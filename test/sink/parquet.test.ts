import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashFile } from '../../src/local-file.js';
import { RESOURCES } from '../../src/shopify/resources.js';
import { countRows } from '../../src/sink/count-rows.js';
import { SinkError } from '../../src/sink/errors.js';
import { convertToParquet } from '../../src/sink/parquet.js';
import { TableWriter } from '../../src/sink/table-writer.js';
import type { WrittenFile } from '../../src/sink/written-file.js';
import { tablesFor, toRows } from '../../src/transform/index.js';
import { apiFixture } from '../helpers/api-fixtures.js';
import { describedType, listFiles, readBack } from './read-back.js';
import { EVERY_TYPE } from './row-sink.contract.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shopsnap-parquet-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function handWrittenPart(lines: string[], rows: number): Promise<WrittenFile> {
  const path = join(dir, 'ndjson', 'every_type', 'part-00000.ndjson.gz');
  await mkdir(join(dir, 'ndjson', 'every_type'), { recursive: true });
  await writeFile(path, gzipSync(lines.map((line) => `${line}\n`).join('')));
  return { path, table: 'every_type', format: 'ndjson', rows, bytes: 0, sha256: '' };
}

describe('convertToParquet', () => {
  it.each(RESOURCES)(
    '%s: every table of a real record reads back from Parquet with its declared types',
    async (resource) => {
      const record = apiFixture(resource);
      for (const table of tablesFor(resource)) {
        const writer = new TableWriter({ dir: join(dir, 'ndjson'), table });
        const rows = toRows(resource, record).rows.filter((entry) => entry.table === table.name);
        for (const { row } of rows) await writer.write(row);
        const [part] = await writer.close();
        const parquet = await convertToParquet(part as WrittenFile, table, join(dir, 'parquet'));
        expect(parquet).toMatchObject({ table: table.name, format: 'parquet', rows: rows.length });
        expect(parquet.path).toBe(join(dir, 'parquet', table.name, 'part-00000.parquet'));
        expect(await hashFile(parquet.path)).toEqual({ sha256: parquet.sha256, bytes: parquet.bytes });
        const back = await readBack([parquet], table);
        for (const column of table.columns) {
          expect([column.name, back.types[column.name]]).toEqual([column.name, describedType(column)]);
        }
        expect(back.rows).toHaveLength(rows.length);
      }
    },
  );

  it('keeps the money of a real order exact', async () => {
    const table = tablesFor('orders')[0];
    if (table === undefined) throw new Error('no orders table');
    const writer = new TableWriter({ dir: join(dir, 'ndjson'), table });
    await writer.write(toRows('orders', apiFixture('orders')).rows[0]?.row ?? {});
    const [part] = await writer.close();
    const back = await readBack([await convertToParquet(part as WrittenFile, table, join(dir, 'parquet'))], table);
    expect(back.rows[0]).toMatchObject({
      id: '450789469',
      total_price: '598.9400',
      current_total_tax_set_presentment_money_amount: '3.9800',
      created_at: '2008-01-10 16:00:00+00',
      billing_address_latitude: '45.41634',
    });
  });

  it("makes the same Parquet rows from a part's uncompressed text copy as from the part itself", async () => {
    const resource = 'orders';
    for (const table of tablesFor(resource)) {
      const writer = new TableWriter({ dir: join(dir, 'ndjson'), table, textCopy: true });
      for (const { row } of toRows(resource, apiFixture(resource)).rows.filter((entry) => entry.table === table.name)) {
        await writer.write(row);
      }
      const [part] = (await writer.close()) as [WrittenFile];
      expect(await readFile(part.text as string)).toEqual(gunzipSync(await readFile(part.path)));
      const fromText = await convertToParquet(part, table, join(dir, 'from-text'));
      const fromGzip = await convertToParquet({ ...part, text: undefined }, table, join(dir, 'from-gzip'));
      expect((await readBack([fromText], table)).rows).toEqual((await readBack([fromGzip], table)).rows);
      expect(fromText.rows).toBe(part.rows);
    }
  });

  it('leaves no Parquet file when DuckDB cannot read the part', async () => {
    const part = await handWrittenPart(['{"order_id":1,"position":1,"at":"not a time"}'], 1);
    const error = await convertToParquet(part, EVERY_TYPE, join(dir, 'parquet')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SinkError);
    expect((error as SinkError).code).toBe('ERR_SINK_PARQUET');
    expect((error as SinkError).message).toContain(part.path);
    expect((await listFiles(dir)).filter((path) => path.startsWith('parquet/'))).toEqual([]);
  });

  it('leaves no Parquet file when the row count differs from the NDJSON part', async () => {
    const part = await handWrittenPart(['{"order_id":1,"position":1}', '{"order_id":1,"position":2}'], 3);
    await expect(convertToParquet(part, EVERY_TYPE, join(dir, 'parquet'))).rejects.toMatchObject({
      code: 'ERR_SINK_PARQUET_COUNT',
    });
    expect((await listFiles(dir)).filter((path) => path.startsWith('parquet/'))).toEqual([]);
  });

  it('converts a part of many rows in row groups and counts it from the footer', async () => {
    const writer = new TableWriter({ dir: join(dir, 'ndjson'), table: EVERY_TYPE });
    for (let i = 0; i < 25_000; i++) {
      await writer.write({
        order_id: i,
        position: 1,
        id: BigInt(i) * 1_000_000_007n,
        price: `${i}.01`,
        title: `t${i}`,
      });
    }
    const [part] = await writer.close();
    const parquet = await convertToParquet(part as WrittenFile, EVERY_TYPE, join(dir, 'parquet'), {
      rowGroupSize: 10_000,
    });
    expect(parquet.rows).toBe(25_000);
    expect(await countRows(parquet.path, 'parquet')).toBe(25_000);
  });
});
