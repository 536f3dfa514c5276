import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlString, withDuckDb } from '../../src/sink/duckdb.js';
import { convertToParquet } from '../../src/sink/parquet.js';
import { RawArchiveWriter } from '../../src/sink/raw-archive-writer.js';
import { TableWriter } from '../../src/sink/table-writer.js';
import type { WrittenFile } from '../../src/sink/written-file.js';
import { MAX_JSON_DEPTH, scanListPage } from '../../src/source/list-page.js';
import { tablesFor, toRows } from '../../src/transform/index.js';
import { gunzipLines } from '../helpers/snapshot-files.js';

/**
 * Strings that are valid JSON but hostile to a careless pipeline: NUL escapes, lone surrogate escapes (valid JSON,
 * but not Unicode text, so not valid UTF-8 once encoded), and look-alikes.
 */
const VALUES: [name: string, value: string][] = [
  ['NUL alone', '\u0000'],
  ['NULs around text', '\u0000a\u0000b\u0000'],
  ['a high surrogate alone', '\ud800'],
  ['a low surrogate alone', 'x\udfff'],
  ['a pair in the wrong order', '\udc00\ud800'],
  ['a lone surrogate next to NUL', '\ud800\u0000'],
  ['a valid pair (🚀)', '\ud83d\ude80'],
  ['the text \\u0000 (a backslash, not NUL)', '\\u0000'],
  ['a leading byte-order mark', '\ufeffx'],
];

/** Served the way Shopify serves them: JSON.stringify escapes NUL as \u0000 and lone surrogates as \udXXX. */
const SERVED = VALUES.map(([, value], i) => JSON.stringify({ id: i + 1, title: value, shopsnap_note: value }));
const products = tablesFor('products')[0];
if (products === undefined) throw new Error('no products table');

let dir: string;
let raw: WrittenFile;
let ndjson: WrittenFile;
let parquet: WrittenFile;
const unknownFields: number[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shopsnap-hostile-strings-'));
  const records = scanListPage(Buffer.from(`{"products":[${SERVED.join(',')}]}`), 'products', 'u');
  const archive = new RawArchiveWriter({ dir: join(dir, 'raw'), resource: 'products' });
  const table = new TableWriter({ dir: join(dir, 'ndjson'), table: products });
  for (const record of records) {
    await archive.write(record.bytes);
    const shaped = toRows('products', record.record);
    unknownFields.push(shaped.unknownFields);
    for (const { row } of shaped.rows.filter((entry) => entry.table === products.name)) await table.write(row);
  }
  [raw] = (await archive.close()) as [WrittenFile];
  [ndjson] = (await table.close()) as [WrittenFile];
  parquet = await convertToParquet(ndjson, products, join(dir, 'parquet'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Title as UTF-8 hex (DuckDB's own bytes: its JS reader drops a leading U+FEFF) and `_extra` of each Parquet row. */
async function parquetRows(): Promise<{ titleHex: string | null; extra: string | null }[]> {
  return withDuckDb({}, async (db) => {
    const sql = `SELECT hex(title) AS "titleHex", _extra AS extra FROM read_parquet(${sqlString(parquet.path)}) ORDER BY id`;
    return (await db.runAndReadAll(sql)).getRowObjectsJS() as { titleHex: string | null; extra: string | null }[];
  });
}

describe.each(VALUES.map(([name, value], i) => ({ name, value, i })))('$name', ({ value, i }) => {
  const wellFormed = value.isWellFormed();

  it('stays in the raw archive exactly as served', async () => {
    expect((await gunzipLines(raw.path))[i]).toBe(SERVED[i]);
  });

  it('is valid JSON in NDJSON, with the exact value in its column, or in `_extra` when not Unicode text', async () => {
    const line = JSON.parse((await gunzipLines(ndjson.path))[i] as string) as { title?: string; _extra: string };
    const extra = JSON.parse(line._extra) as { title?: string; shopsnap_note: string };
    expect(extra.shopsnap_note).toBe(value);
    if (wellFormed) expect([line.title, extra.title]).toEqual([value, undefined]);
    else expect([line.title, extra.title]).toEqual([undefined, value]);
  });

  it('reads back from Parquet with DuckDB: exact in its column, or NULL there and exact in `_extra`, counted', async () => {
    const row = (await parquetRows())[i];
    const extra = JSON.parse(row?.extra ?? '') as { title?: string; shopsnap_note: string };
    expect(extra.shopsnap_note).toBe(value);
    if (wellFormed) {
      expect(row?.titleHex).toBe(Buffer.from(value, 'utf8').toString('hex').toUpperCase());
      expect(extra.title).toBeUndefined();
    } else {
      expect(row?.titleHex).toBeNull();
      expect(extra.title).toBe(value);
    }
    // shopsnap_note is unknown to the schema; a title that is not Unicode text is counted the same way.
    expect(unknownFields[i]).toBe(wellFormed ? 1 : 2);
  });
});

describe(`a record nested to the limit (${MAX_JSON_DEPTH} levels in its page)`, () => {
  it('goes through the transform, NDJSON and Parquet without overflowing the stack', async () => {
    const depth = MAX_JSON_DEPTH - 3; // the page's object, its list and the record hold the other three
    const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const [record] = scanListPage(Buffer.from(`{"products":[{"id":1,"deep":${deep}}]}`), 'products', 'u');
    const writer = new TableWriter({ dir: join(dir, 'deep-ndjson'), table: products });
    for (const { row } of toRows('products', record?.record ?? {}).rows) await writer.write(row);
    const [part] = (await writer.close()) as [WrittenFile];
    const converted = await convertToParquet(part, products, join(dir, 'deep-parquet'));
    const extra = await withDuckDb({}, async (db) => {
      const result = await db.runAndReadAll(`SELECT _extra FROM read_parquet(${sqlString(converted.path)})`);
      return result.getRowsJS()[0]?.[0];
    });
    expect(extra).toBe(`{"deep":${deep}}`);
  });
});
