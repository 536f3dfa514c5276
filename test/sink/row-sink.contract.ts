import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashFile } from '../../src/local-file.js';
import { SinkError } from '../../src/sink/errors.js';
import type { PartLimits } from '../../src/sink/part-writer.js';
import type { RowSink } from '../../src/sink/row-sink.js';
import type { Row } from '../../src/transform/cells.js';
import { createTable, SQL_TYPES, type TableSchema } from '../../src/transform/schema.js';
import { listFiles, readBack } from './read-back.js';

/** One column of every type, as a child table so the parent key and position columns are covered too. */
export const EVERY_TYPE = createTable({
  name: 'every_type',
  resource: 'orders',
  parent: { table: 'orders', key: 'order_id', field: 'every_type' },
  shape: {
    id: 'int64',
    count: 'int32',
    flag: 'boolean',
    at: 'timestamp',
    price: 'decimal',
    rate: 'double',
    title: 'string',
    default: 'string',
    data: 'json',
  },
});

const ROWS: Row[] = [
  {
    order_id: 9007199254740993n,
    position: 1,
    id: 9223372036854775807n,
    count: 2147483647,
    flag: true,
    at: '2008-01-10T11:00:00-05:00',
    price: '0.29',
    rate: 0.0825,
    title: 'Für Oma ❤ 株式会社 😀',
    default: 'quotes " and \\ backslash',
    data: '{"id":9223372036854775807,"s":"x"}',
    _extra: null,
  },
  {
    order_id: 1,
    position: 2,
    id: -9223372036854775808n,
    count: -2147483648,
    flag: false,
    at: '2024-10-18T18:44:12.123456Z',
    price: '4.35',
    rate: -1.25,
    title: 'line one\nline two\ttabbed\r\n',
    default: '',
    data: '[]',
    _extra: '{"new_field":1}',
  },
  {
    order_id: 2,
    position: 3,
    id: 0,
    count: 0,
    flag: null,
    at: null,
    price: '1.15',
    rate: null,
    title: null,
    default: null,
    data: null,
    _extra: null,
  },
  {
    order_id: 3,
    position: 4,
    id: 4503599627370495,
    count: 7,
    flag: true,
    at: '2022-02-28T23:59:59+14:00',
    price: '-99999999999999.9999',
    rate: 1e21,
    title: 'x',
    default: 'y',
    data: '"text"',
    _extra: null,
  },
];

/** What DuckDB reads back for ROWS, cast to VARCHAR (timestamps as UTC instants, decimals at scale 4). */
const EXPECTED: Record<string, string | null>[] = [
  {
    order_id: '9007199254740993',
    position: '1',
    id: '9223372036854775807',
    count: '2147483647',
    flag: 'true',
    at: '2008-01-10 16:00:00+00',
    price: '0.2900',
    rate: '0.0825',
    title: 'Für Oma ❤ 株式会社 😀',
    default: 'quotes " and \\ backslash',
    data: '{"id":9223372036854775807,"s":"x"}',
    _extra: null,
  },
  {
    order_id: '1',
    position: '2',
    id: '-9223372036854775808',
    count: '-2147483648',
    flag: 'false',
    at: '2024-10-18 18:44:12.123456+00',
    price: '4.3500',
    rate: '-1.25',
    title: 'line one\nline two\ttabbed\r\n',
    default: '',
    data: '[]',
    _extra: '{"new_field":1}',
  },
  {
    order_id: '2',
    position: '3',
    id: '0',
    count: '0',
    flag: null,
    at: null,
    price: '1.1500',
    rate: null,
    title: null,
    default: null,
    data: null,
    _extra: null,
  },
  {
    order_id: '3',
    position: '4',
    id: '4503599627370495',
    count: '7',
    flag: 'true',
    at: '2022-02-28 09:59:59+00',
    price: '-99999999999999.9999',
    rate: '1e+21',
    title: 'x',
    default: 'y',
    data: '"text"',
    _extra: null,
  },
];

export type OpenRowSink = (dir: string, table: TableSchema, limits?: PartLimits) => RowSink;

async function writeAll(sink: RowSink, rows: Row[]) {
  for (const row of rows) await sink.write(row);
  return sink.close();
}

function byOrderId(rows: Record<string, string | null>[]) {
  return [...rows].sort((a, b) => Number(BigInt(a.position ?? 0) - BigInt(b.position ?? 0)));
}

/**
 * The RowSink contract (src/sink/row-sink.ts): rows written are the rows DuckDB reads back, with the declared types,
 * digit for digit; parts rotate; only finished files remain.
 */
export function runRowSinkContract(name: string, format: 'ndjson' | 'parquet', open: OpenRowSink): void {
  describe(`RowSink contract: ${name}`, () => {
    let dir: string;
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'shopsnap-sink-'));
    });
    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('reads back every row with the declared types and exact values', async () => {
      const files = await writeAll(open(dir, EVERY_TYPE), ROWS);
      expect(files.map((file) => [file.format, file.table, file.rows])).toEqual([[format, 'every_type', ROWS.length]]);
      const back = await readBack(files, EVERY_TYPE);
      expect(back.types).toEqual(
        Object.fromEntries(
          EVERY_TYPE.columns.map((column) => [
            column.name,
            SQL_TYPES[column.type] === 'TIMESTAMPTZ' ? 'TIMESTAMP WITH TIME ZONE' : SQL_TYPES[column.type],
          ]),
        ),
      );
      expect(byOrderId(back.rows)).toEqual(EXPECTED);
    });

    it('rotates into numbered parts and leaves only finished files', async () => {
      const rows = Array.from({ length: 5 }, (_, i) => ({ ...(ROWS[i % ROWS.length] as Row), position: i + 1 }));
      const files = await writeAll(open(dir, EVERY_TYPE, { maxRowsPerPart: 2 }), rows);
      expect(files.map((file) => file.rows)).toEqual([2, 2, 1]);
      const extension = format === 'parquet' ? 'parquet' : 'ndjson.gz';
      expect(
        files.map((file) =>
          file.path
            .slice(dir.length + 1)
            .split('/')
            .slice(-2)
            .join('/'),
        ),
      ).toEqual([0, 1, 2].map((i) => `every_type/part-0000${i}.${extension}`));
      expect((await listFiles(dir)).filter((path) => path.includes('.tmp'))).toEqual([]);
      for (const file of files) expect(await hashFile(file.path)).toEqual({ sha256: file.sha256, bytes: file.bytes });
      expect((await readBack(files, EVERY_TYPE)).rows).toHaveLength(5);
    });

    it('writes one empty part for a table without rows', async () => {
      const files = await writeAll(open(dir, EVERY_TYPE), []);
      expect(files.map((file) => file.rows)).toEqual([0]);
      expect((await readBack(files, EVERY_TYPE)).rows).toEqual([]);
    });

    it('rejects a cell of the wrong type', async () => {
      const sink = open(dir, EVERY_TYPE);
      const error = await sink.write({ ...(ROWS[0] as Row), count: '5' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SinkError);
      expect((error as SinkError).code).toBe('ERR_SINK_ROW_TYPE');
      expect((error as SinkError).message).toContain('every_type.count');
      await sink.abort();
    });

    it('rejects writes after close, and abort leaves no temp file behind', async () => {
      const closed = open(dir, EVERY_TYPE);
      await writeAll(closed, ROWS);
      await expect(closed.write(ROWS[0] as Row)).rejects.toMatchObject({ code: 'ERR_SINK_CLOSED' });
      const aborted = open(join(dir, 'aborted'), EVERY_TYPE);
      for (let i = 0; i < 3000; i++) await aborted.write(ROWS[i % ROWS.length] as Row);
      await aborted.abort();
      expect((await listFiles(dir)).filter((path) => path.startsWith('aborted'))).toEqual([]);
      await expect(aborted.write(ROWS[0] as Row)).rejects.toMatchObject({ code: 'ERR_SINK_CLOSED' });
    });
  });
}
