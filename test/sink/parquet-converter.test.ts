import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashFile } from '../../src/local-file.js';
import { SinkError } from '../../src/sink/errors.js';
import { childProcessConverter, inProcessConverter, type ParquetConverter } from '../../src/sink/parquet-converter.js';
import { RecordIndexWriter, recordIndexTable } from '../../src/sink/record-index-writer.js';
import { TableWriter } from '../../src/sink/table-writer.js';
import type { WrittenFile } from '../../src/sink/written-file.js';
import { type DeclaredTable, tableByName, toRows } from '../../src/transform/index.js';
import { apiFixture } from '../helpers/api-fixtures.js';
import { readBack } from './read-back.js';

/** The child runs the built JavaScript: `npm test` builds before it tests. */
const BUILT_CHILD = fileURLToPath(new URL('../../dist/sink/parquet-child.js', import.meta.url));

const ORDERS = tableByName('orders') as DeclaredTable;

/** Name, factory, and whether close() stops a conversion in progress (a child is ended; this process cannot be). */
const IMPLEMENTATIONS: [string, () => ParquetConverter, boolean][] = [
  ['in this process', inProcessConverter, false],
  ['in a child process', () => childProcessConverter(BUILT_CHILD), true],
];

describe.each(IMPLEMENTATIONS)('ParquetConverter %s', (_name, create, closeStops) => {
  let dir: string;
  let converter: ParquetConverter;

  beforeAll(() => {
    expect(existsSync(BUILT_CHILD), 'run `npm run build` first').toBe(true);
  });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'shopsnap-converter-'));
    converter = create();
  });
  afterEach(async () => {
    await converter.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Real order rows, ids past 2^53 included, as one finished NDJSON part. */
  async function orderPart(count: number, folder = 'ndjson'): Promise<{ part: WrittenFile; ids: string[] }> {
    const writer = new TableWriter({ dir: join(dir, folder), table: ORDERS });
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const id = 9_007_199_254_740_993n + BigInt(i);
      const [first] = toRows('orders', { ...apiFixture('orders'), id }).rows;
      await writer.write(first?.row ?? {});
      ids.push(String(id));
    }
    const [part] = await writer.close();
    return { part: part as WrittenFile, ids };
  }

  it('converts a part into Parquet holding the same rows, exact ids, hashed as written', async () => {
    const { part, ids } = await orderPart(300);
    const parquet = await converter.convert(part, ORDERS, join(dir, 'parquet'));
    expect(parquet).toMatchObject({ table: 'orders', format: 'parquet', rows: 300 });
    expect(parquet.path).toBe(join(dir, 'parquet', 'orders', 'part-00000.parquet'));
    expect(await hashFile(parquet.path)).toEqual({ sha256: parquet.sha256, bytes: parquet.bytes });
    const back = await readBack([parquet], ORDERS);
    expect(back.rows.map((row) => row.id)).toEqual(ids);
  });

  it('converts one part at a time, in call order: a small part waits for a large one', async () => {
    const large = (await orderPart(2_000, 'large')).part;
    const small = (await orderPart(1, 'small')).part;
    const finished: string[] = [];
    const first = converter.convert(large, ORDERS, join(dir, 'first')).then(() => finished.push('first'));
    const second = converter.convert(small, ORDERS, join(dir, 'second')).then(() => finished.push('second'));
    await Promise.all([first, second]);
    expect(finished).toEqual(['first', 'second']);
  });

  it('rejects with the Parquet count error when the part holds other rows than claimed', async () => {
    const { part } = await orderPart(3);
    const error = await converter.convert({ ...part, rows: 4 }, ORDERS, join(dir, 'parquet')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SinkError);
    expect(error).toMatchObject({ code: 'ERR_SINK_PARQUET_COUNT' });
    expect((error as Error).message).toContain('holds 3 rows');
  });

  it('rejects with ERR_SINK_PARQUET naming the part when DuckDB cannot read it, and goes on converting', async () => {
    const path = join(dir, 'ndjson', 'orders', 'part-00007.ndjson.gz');
    await mkdir(join(dir, 'ndjson', 'orders'), { recursive: true });
    await writeFile(path, gzipSync('{"id":1,"created_at":"not a time"}\n'));
    const bad: WrittenFile = { path, table: 'orders', format: 'ndjson', rows: 1, bytes: 0, sha256: '' };
    const error = await converter.convert(bad, ORDERS, join(dir, 'parquet')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SinkError);
    expect(error).toMatchObject({ code: 'ERR_SINK_PARQUET' });
    expect((error as Error).message).toContain(path);
    const { part } = await orderPart(2);
    expect((await converter.convert(part, ORDERS, join(dir, 'parquet'))).rows).toBe(2);
  });

  it('compares two record indexes by id and sha256, exact ids past 2^53 included', async () => {
    /** One resource's index as Parquet: each record an id and the hash its text would have. */
    const indexOf = async (name: string, records: [bigint, string][]) => {
      const writer = new RecordIndexWriter({ dir: join(dir, name), resource: 'orders' });
      for (const [id, text] of records) await writer.add({ id: String(id), updatedAt: undefined }, text, undefined);
      const [part] = await writer.close();
      const converted = await converter.convert(part as WrittenFile, recordIndexTable('orders'), join(dir, name));
      return [converted.path];
    };
    const big = 9_007_199_254_740_993n;
    const before = await indexOf('before', [
      [1n, 'a'],
      [2n, 'b'],
      [big, 'c'],
      [big + 1n, 'd'],
    ]);
    // 2 removed; `big` changed; `big + 1` unchanged; `big + 2` (one past a float's reach of `big`) and 3 added.
    const after = await indexOf('after', [
      [1n, 'a'],
      [big, 'C'],
      [big + 1n, 'd'],
      [big + 2n, 'c'],
      [3n, 'e'],
    ]);
    expect(await converter.countChanges(before, after)).toEqual({ added: 2, removed: 1, changed: 1, unchanged: 2 });
  });

  it('re-reads a finished file: rows counted from its bytes, size and sha256; a damaged one rejects', async () => {
    const { part } = await orderPart(30);
    const parquet = await converter.convert(part, ORDERS, join(dir, 'parquet'));
    for (const file of [part, parquet]) {
      expect(await converter.reread(file.path, file.format)).toEqual({
        rows: 30,
        ...(await hashFile(file.path)),
      });
    }
    const cut = join(dir, 'cut.ndjson.gz');
    await writeFile(cut, (await readFile(part.path)).subarray(0, Math.floor(part.bytes / 2)));
    await expect(converter.reread(cut, 'ndjson')).rejects.toMatchObject({ code: 'ERR_SINK_COUNT' });
    expect((await converter.reread(part.path, 'ndjson')).rows).toBe(30);
  });

  it('re-reads beside a conversion in progress rather than after it', async () => {
    const large = (await orderPart(2_000, 'large')).part;
    const small = (await orderPart(1, 'small')).part;
    const finished: string[] = [];
    const converting = converter.convert(large, ORDERS, join(dir, 'parquet')).then(() => finished.push('convert'));
    const rereading = converter.reread(small.path, small.format).then(() => finished.push('reread'));
    await Promise.all([converting, rereading]);
    expect(finished).toEqual(['reread', 'convert']);
  });

  it('refuses work after close, and close does not hang on a conversion in progress', async () => {
    const { part } = await orderPart(2_000);
    const converting = converter.convert(part, ORDERS, join(dir, 'parquet')).catch((e: unknown) => e);
    await converter.close();
    const outcome = await converting;
    if (closeStops) {
      expect(outcome).toMatchObject({ code: 'ERR_SINK_PARQUET' });
      expect((outcome as Error).message).toContain(part.path);
    } else {
      expect(outcome).toMatchObject({ rows: 2_000 });
    }
    const refused = await converter.convert(part, ORDERS, join(dir, 'parquet')).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'ERR_SINK_CLOSED' });
    await expect(converter.countChanges([], [])).rejects.toMatchObject({ code: 'ERR_SINK_CLOSED' });
  });
});

describe('childProcessConverter', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'shopsnap-converter-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('rejects every waiting conversion, naming its part, when the child ends without answering', async () => {
    const script = join(dir, 'quits.mjs');
    await writeFile(script, 'process.exit(3);\n');
    const converter = childProcessConverter(script);
    const part: WrittenFile = {
      path: join(dir, 'x.ndjson.gz'),
      table: 'orders',
      format: 'ndjson',
      rows: 1,
      bytes: 0,
      sha256: '',
    };
    const error = await converter.convert(part, ORDERS, dir).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ERR_SINK_PARQUET' });
    expect((error as Error).message).toMatch(
      new RegExp(`^converting ${part.path} to Parquet failed: the converter process ended \\(exit code 3\\)`),
    );
    await converter.close();
  });
});
