import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseShopAddress } from '../../src/cli/shop-address.js';
import { createLogger } from '../../src/log.js';
import { type BackupOptions, runBackup } from '../../src/runner/backup.js';
import { startShop } from '../../src/simulator/index.js';
import { sqlString, withDuckDb } from '../../src/sink/duckdb.js';
import { inProcessConverter } from '../../src/sink/parquet-converter.js';
import { openRecordRows, type RecordRows } from '../../src/sink/record-rows.js';
import { checkpointKey } from '../../src/snapshot/checkpoint.js';
import { LocalDirStorage } from '../../src/storage/local-dir-storage.js';
import { expectIndexMatchesArchive } from '../helpers/snapshot-files.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/**
 * A backup of the 2,600 orders of a simulated shop, as Parquet and raw, into a temp folder removed afterwards;
 * `checkpointWrites` counts the checkpoint's writes: one per batch of parts committed.
 */
async function backupOrders(options: Pick<BackupOptions, 'parts' | 'parquetConverter' | 'openRows'>) {
  const shop = await startShop({ seed: 41, products: 0, customers: 0, orders: 2_600 });
  const work = await mkdtemp(join(tmpdir(), 'shopsnap-parts-'));
  closers.push(
    () => shop.close(),
    () => rm(work, { recursive: true, force: true }),
  );
  const storage = new LocalDirStorage(join(work, 'out'));
  const checkpoint = checkpointKey(parseShopAddress(shop.url).key);
  let checkpointWrites = 0;
  const putBytes = storage.putBytes.bind(storage);
  storage.putBytes = (key, body, putOptions) => {
    if (key === checkpoint) checkpointWrites++;
    return putBytes(key, body, putOptions);
  };
  const result = await runBackup({
    shop: parseShopAddress(shop.url),
    token: shop.token,
    storage,
    resources: ['orders'],
    formats: ['parquet', 'raw'],
    depth: 4,
    stagingRoot: join(work, 'staging'),
    logger: createLogger({ level: 'silent' }),
    ...options,
  });
  return { ...result, checkpointWrites };
}

describe('the late rotation', { timeout: 60_000 }, () => {
  it.each([
    ['a resource past the threshold: the parts after the last page hold the rest only', 1_000, 2],
    ['a smaller one: one part', 3_000, 1],
  ])('%s', async (_name, lateRotationMinRecords, parts) => {
    const { manifest } = await backupOrders({ parts: { lateRotationShare: 0.5, lateRotationMinRecords } });
    const raw = manifest.files.filter((file) => file.format === 'raw');
    const orders = manifest.files.filter((file) => file.format === 'parquet' && file.table === 'orders');
    expect(raw.map((file) => file.path)).toHaveLength(parts);
    expect(orders).toHaveLength(parts);
    expect(raw.reduce((sum, file) => sum + file.rows, 0)).toBe(2_600);
    // Finished once half the counted records were in: the first part holds at least that half.
    expect(raw[0]?.rows).toBeGreaterThanOrEqual(parts === 1 ? 2_600 : 1_300);
    expect(manifest.status).toBe('complete');
  });

  it('is no checkpoint: the crawl goes on while its parts are finished (no batch of its own is committed)', async () => {
    // A checkpoint's crawl barrier held every chain until the slowest page in flight came back.
    const rotated = await backupOrders({ parts: { lateRotationShare: 0.5, lateRotationMinRecords: 1_000 } });
    const whole = await backupOrders({ parts: { lateRotationShare: 0.5, lateRotationMinRecords: 3_000 } });
    const rawParts = (run: typeof whole) => run.manifest.files.filter((file) => file.format === 'raw').length;
    expect([rawParts(rotated), rawParts(whole)]).toEqual([2, 1]);
    expect(rotated.checkpointWrites).toBe(whole.checkpointWrites);
  });
});

describe('table parts converted ahead of their checkpoint', { timeout: 60_000 }, () => {
  it('finishes the table parts every share of the records and converts them while the crawl goes on', async () => {
    const events: string[] = [];
    const converter = inProcessConverter();
    const { manifest, location } = await backupOrders({
      // No checkpoint but the last: only the parts finished ahead can have been converted before the crawl ended.
      parts: { aheadShare: 0.2, aheadMinRecords: 500, lateRotationMinRecords: 10_000 },
      parquetConverter: {
        ...converter,
        convert: (ndjson, table, outDir, lineage) => {
          events.push(`convert ${table.name}`);
          return converter.convert(ndjson, table, outDir, lineage);
        },
      },
      openRows: (options): RecordRows => {
        const rows = openRecordRows(options);
        return {
          add: (bytes, mayHoldLongIntegers) => rows.add(bytes, mayHoldLongIntegers),
          rotate: (evenIfEmpty) => rows.rotate(evenIfEmpty),
          close: () => {
            events.push('crawl over');
            return rows.close();
          },
          abort: () => rows.abort(),
          get part() {
            return rows.part;
          },
        };
      },
    });
    const raw = manifest.files.filter((file) => file.format === 'raw');
    const orders = manifest.files.filter((file) => file.format === 'parquet' && file.table === 'orders');
    // A part per 520 records (a fifth of the count), checked as the crawl's batches are written, and the rest: raw
    // archive and tables. Four parts or five on a quiet machine; three where load makes the batches coarser.
    expect(orders.length).toBeGreaterThanOrEqual(3);
    expect(raw).toHaveLength(orders.length);
    expect(raw.reduce((sum, file) => sum + file.rows, 0)).toBe(2_600);
    await expectIndexMatchesArchive(location, 'orders');
    expect(events.slice(0, events.indexOf('crawl over'))).toContain('convert orders');
    const ids = await withDuckDb({}, async (db) =>
      (
        await db.runAndReadAll(
          `SELECT count(*)::INTEGER AS n, count(DISTINCT id)::INTEGER AS ids FROM read_parquet(${sqlString(join(location, 'parquet/orders/*.parquet'))})`,
        )
      ).getRowObjectsJS(),
    );
    expect(ids).toEqual([{ n: 2_600, ids: 2_600 }]);
    expect(manifest.status).toBe('complete');
  });
});
