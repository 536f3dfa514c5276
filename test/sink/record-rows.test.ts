import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type JsonObject, stringifyJson } from '../../src/shopify/json.js';
import { openRecordRows, type RecordRows, type RecordRowsOptions } from '../../src/sink/record-rows.js';
import { RowThread } from '../../src/sink/row-thread.js';
import { type DeclaredTable, tableByName, toRows } from '../../src/transform/index.js';
import { apiFixture } from '../helpers/api-fixtures.js';
import { listFiles, readBack } from './read-back.js';

/** The thread runs the built JavaScript: `npm test` builds before it tests. */
const BUILT_WORKER = fileURLToPath(new URL('../../dist/sink/row-thread-worker.js', import.meta.url));

const ORDERS = tableByName('orders') as DeclaredTable;
const LINE_ITEMS = tableByName('order_line_items') as DeclaredTable;

/** Orders as the shop serves them: ids from just above 2^53 up to 2^63 - 1, an unknown field, a lone surrogate. */
function orders(count: number): { records: JsonObject[]; bytes: Buffer[] } {
  const records = Array.from({ length: count }, (_, i): JsonObject => {
    const id = i === count - 1 ? 9_223_372_036_854_775_807n : 9_007_199_254_740_993n + BigInt(i);
    return { ...apiFixture('orders'), id, note: `order ${i} \ud800`, [`field_new_in_${i % 3}`]: i };
  });
  return { records, bytes: records.map((record) => Buffer.from(stringifyJson(record))) };
}

/** Orders' rows into gzip parts under `dir`. */
function ordersInto(dir: string, overrides: Partial<RecordRowsOptions> = {}): RecordRowsOptions {
  return { resource: 'orders', dir, writeRows: true, gzipLevel: 1, textCopy: false, firstParts: {}, ...overrides };
}

describe.each([
  ['in this thread', () => ({ open: openRecordRows, close: async () => undefined })],
  [
    'on a thread of its own',
    () => {
      const thread = new RowThread(BUILT_WORKER);
      return { open: (options: RecordRowsOptions) => thread.open(options), close: () => thread.close() };
    },
  ],
])('RecordRows %s', (_name, start) => {
  let dir: string;
  let implementation: ReturnType<typeof start>;
  const options = (overrides: Partial<RecordRowsOptions> = {}) => ordersInto(dir, overrides);
  const addAll = async (rows: RecordRows, bytes: Buffer[]) => {
    for (const record of bytes) await rows.add(record, /\d{16}/.test(record.toString()));
  };

  beforeAll(() => {
    expect(existsSync(BUILT_WORKER), 'run `npm run build` first').toBe(true);
  });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'shopsnap-record-rows-'));
    implementation = start();
  });
  afterEach(async () => {
    await implementation.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes every record added before a rotate into the parts it finishes, ids exact, unknown fields counted', async () => {
    // Several megabytes: more batches than a thread lets wait unanswered.
    const { records, bytes } = orders(1_200);
    const rows = implementation.open(options({ firstParts: { orders: 7 } }));
    await addAll(rows, bytes.slice(0, 700));
    const first = await rows.rotate(false);
    await addAll(rows, bytes.slice(700));
    const last = await rows.close();

    const unknownIn = (some: JsonObject[]) =>
      some.reduce((sum, record) => sum + toRows('orders', record).unknownFields, 0);
    expect(first.unknownFields).toBe(unknownIn(records.slice(0, 700)));
    expect(last.unknownFields).toBe(unknownIn(records));
    const firstOrders = first.files.filter((file) => file.table === 'orders');
    expect(firstOrders.map((file) => [file.path.endsWith('part-00007.ndjson.gz'), file.rows])).toEqual([[true, 700]]);
    const lastOrders = last.files.filter((file) => file.table === 'orders');
    expect(lastOrders.map((file) => [file.path.endsWith('part-00008.ndjson.gz'), file.rows])).toEqual([[true, 500]]);

    const back = await readBack([...firstOrders, ...lastOrders], ORDERS);
    expect(back.rows.map((row) => row.id)).toEqual(records.map((record) => String(record.id)));
    const lineItems = [...first.files, ...last.files].filter((file) => file.table === LINE_ITEMS.name);
    const expectedLineItems = records.reduce(
      (sum, record) => sum + toRows('orders', record).rows.filter(({ table }) => table === LINE_ITEMS.name).length,
      0,
    );
    expect((await readBack(lineItems, LINE_ITEMS)).rows).toHaveLength(expectedLineItems);
  });

  it('only counts the unknown fields when it writes no rows (a raw-only run)', async () => {
    const { records, bytes } = orders(50);
    const rows = implementation.open(options({ writeRows: false }));
    await addAll(rows, bytes);
    const parts = await rows.close();
    expect(parts.files).toEqual([]);
    expect(parts.unknownFields).toBe(records.reduce((sum, record) => sum + toRows('orders', record).unknownFields, 0));
    expect(await listFiles(dir)).toEqual([]);
  });

  it('fails with the cause its exit code is chosen by (code and path), and goes on failing', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, '');
    const rows = implementation.open(options({ dir: join(file, 'ndjson') }));
    const failure = (async () => {
      await addAll(rows, orders(400).bytes);
      return rows.rotate(false);
    })();
    await expect(failure).rejects.toMatchObject({ code: 'ENOTDIR', path: expect.stringContaining('a-file') });
    await expect(rows.close()).rejects.toMatchObject({ code: 'ENOTDIR' });
    await rows.abort();
  });

  it('abort removes the parts not handed out', async () => {
    const rows = implementation.open(options());
    const handedOut = await (async () => {
      await addAll(rows, orders(10).bytes);
      return rows.rotate(false);
    })();
    await addAll(rows, orders(600).bytes);
    await rows.abort();
    const left = await listFiles(dir);
    expect(left.sort()).toEqual(handedOut.files.map((file) => file.path.slice(dir.length + 1)).sort());
    expect(await readFile(handedOut.files[0]?.path as string)).not.toHaveLength(0);
  });
});

describe('RowThread', () => {
  it('fails what is unanswered when its thread fails, with the reason', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'shopsnap-row-thread-'));
    const script = join(dir, 'broken-worker.mjs');
    await writeFile(script, "throw new Error('the thread broke');\n");
    const thread = new RowThread(script);
    try {
      const rows = thread.open(ordersInto(dir));
      await expect(rows.close()).rejects.toThrow(/the row thread failed: the thread broke/);
    } finally {
      await thread.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
