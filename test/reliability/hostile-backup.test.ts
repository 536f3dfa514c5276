import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseShopAddress } from '../../src/cli/shop-address.js';
import { createLogger } from '../../src/log.js';
import { type BackupResult, runBackup } from '../../src/runner/backup.js';
import type { JsonObject } from '../../src/shopify/json.js';
import { RESOURCES } from '../../src/shopify/resources.js';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { serialize } from '../../src/simulator/store.js';
import { sqlString, withDuckDb } from '../../src/sink/duckdb.js';
import type { FileFormat } from '../../src/sink/written-file.js';
import { LocalDirStorage } from '../../src/storage/index.js';
import { gunzipLines } from '../helpers/snapshot-files.js';
import { clientFor } from '../simulator/shop-client.js';
import { recordingProxy } from '../source/recording-proxy.js';

/** Valid JSON, hostile text: on every generated record of every resource, a field the schema does not know. */
const HOSTILE: JsonObject = {
  shopsnap_hostile: { nul: 'a\u0000b', high: '\ud800', low: 'x\udfff', reversed: '\udc00\ud800', both: '\u0000\udfff' },
};
/** Products created with hostile text in known columns: the title and a SKU with NUL, lone surrogates elsewhere. */
const CREATED = [
  {
    title: 'NUL\u0000title',
    body_html: 'lone \ud800 high',
    vendor: '\u0000',
    variants: [{ option1: 'o\udc00', sku: 's\u0000' }],
  },
  {
    title: '\u0000\u0000',
    body_html: '\udfff',
    vendor: 'v\u0000v',
    variants: [{ option1: '\ud800\u0000', sku: '\u0000' }],
  },
];

let shop: RunningShop;
let proxy: Awaited<ReturnType<typeof recordingProxy>>;
let work: string;
let backup: BackupResult;
let damaged = 0;
const createdIds: string[] = [];

beforeAll(async () => {
  shop = await startShop({ seed: 5, products: 6, customers: 5, orders: 5, unknownFields: HOSTILE });
  for (const product of CREATED) {
    const created = await clientFor(shop).post('/products.json', { product });
    expect(created.status).toBe(201);
    createdIds.push(String((created.json as { product: JsonObject }).product.id));
  }
  // The first products page arrives with the first byte of a title turned into 0xFF (never valid UTF-8): decoded
  // leniently, it would still scan as a page, with U+FFFD in that title.
  proxy = await recordingProxy(shop.url, undefined, {
    alter: (resource, body) => {
      if (resource !== 'products' || damaged > 0) return body;
      damaged++;
      const copy = Buffer.from(body);
      copy[body.indexOf('"title":"') + '"title":"'.length] = 0xff;
      return copy;
    },
  });
  work = await mkdtemp(join(tmpdir(), 'shopsnap-hostile-backup-'));
  backup = await runBackup({
    shop: parseShopAddress(proxy.url),
    token: shop.token,
    storage: new LocalDirStorage(join(work, 'out')),
    resources: RESOURCES,
    formats: ['parquet', 'ndjson', 'raw'],
    depth: 2,
    stagingRoot: join(work, 'staging'),
    logger: createLogger({ level: 'silent' }),
  });
});

afterAll(async () => {
  await proxy.close();
  await shop.close();
  await rm(work, { recursive: true, force: true });
});

function pathsOf(format: FileFormat, table: string): string[] {
  return backup.manifest.files
    .filter((file) => file.format === format && file.table === table)
    .map((file) => join(backup.location, ...file.path.split('/')));
}

async function linesOf(format: FileFormat, table: string): Promise<string[]> {
  return (await Promise.all(pathsOf(format, table).map(gunzipLines))).flat();
}

async function queryParquet(table: string, select: string): Promise<Record<string, unknown>[]> {
  const files = pathsOf('parquet', table).map(sqlString).join(', ');
  return withDuckDb({}, async (db) => {
    const result = await db.runAndReadAll(`SELECT ${select} FROM read_parquet([${files}]) ORDER BY ALL`);
    return result.getRowObjectsJS();
  });
}

const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex').toUpperCase();

describe('a backup whose records hold NULs and lone surrogates, through a page damaged once on the way', () => {
  it('is complete; the damaged page was refused and fetched again, not decoded with U+FFFD', () => {
    expect(damaged).toBe(1);
    expect(backup.manifest.status).toBe('complete');
    expect(backup.manifest.resources.products).toMatchObject({ exported: 8, check: 'ok' });
  });

  it.each(RESOURCES)('%s: the raw archive holds every record exactly as served', async (resource) => {
    const expected = [...shop.records(resource)].map(serialize).sort();
    expect((await linesOf('raw', resource)).sort()).toEqual(expected);
  });

  it.each(['products', 'product_variants', 'customers', 'orders'])(
    '%s: every NDJSON line is valid JSON, and DuckDB reads the Parquet',
    async (table) => {
      const lines = await linesOf('ndjson', table);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
      expect(await queryParquet(table, 'count(*) AS rows')).toEqual([{ rows: BigInt(lines.length) }]);
    },
  );

  it.each(['customers', 'orders'])('%s: the hostile unknown field is exact in Parquet `_extra`', async (table) => {
    const rows = await queryParquet(table, '_extra AS extra');
    expect(rows).toHaveLength(5);
    for (const row of rows) expect(JSON.parse(row.extra as string)).toEqual(HOSTILE);
  });

  it('products: NUL text is exact in its Parquet column; text with a lone surrogate is exact in `_extra`, counted', async () => {
    const rows = await queryParquet(
      'products',
      `id::VARCHAR AS id, hex(title) AS title, hex(vendor) AS vendor, body_html, _extra AS extra`,
    );
    const created = rows.filter((row) => createdIds.includes(row.id as string));
    expect(created.map(({ extra, ...row }) => ({ ...row, extra: JSON.parse(extra as string) }))).toEqual(
      CREATED.map((product, i) => ({
        id: createdIds[i],
        title: hex(product.title),
        vendor: hex(product.vendor),
        body_html: null,
        extra: { body_html: product.body_html },
      })),
    );
    // One unknown field on each generated product; on each created one the body and its variant's title and option1.
    expect(backup.manifest.resources.products?.unknown_fields).toBe(6 + CREATED.length * 3);
  });

  it('product_variants: a SKU with NUL is exact; an option with a lone surrogate is exact in `_extra`', async () => {
    const rows = await queryParquet(
      'product_variants',
      `product_id::VARCHAR AS id, hex(sku) AS sku, option1, _extra AS extra`,
    );
    const created = rows.filter((row) => createdIds.includes(row.id as string));
    expect(created.map(({ extra, ...row }) => ({ ...row, extra: JSON.parse(extra as string) }))).toEqual(
      CREATED.map((product, i) => {
        const [variant] = product.variants;
        return {
          id: createdIds[i],
          sku: hex(variant?.sku ?? ''),
          option1: null,
          extra: { title: variant?.option1, option1: variant?.option1 },
        };
      }),
    );
  });
});
