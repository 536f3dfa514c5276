import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseShopAddress } from '../../src/cli/shop-address.js';
import { createLogger } from '../../src/log.js';
import { runBackup } from '../../src/runner/backup.js';
import { startShop } from '../../src/simulator/index.js';
import { LocalDirStorage } from '../../src/storage/local-dir-storage.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('the late checkpoint', { timeout: 60_000 }, () => {
  it.each([
    ['a resource past the threshold: the parts after the last page hold the rest only', 1_000, 2],
    ['a smaller one: one part', 3_000, 1],
  ])('%s', async (_name, lateCheckpointMinRecords, parts) => {
    const shop = await startShop({ seed: 41, products: 0, customers: 0, orders: 2_600 });
    const work = await mkdtemp(join(tmpdir(), 'shopsnap-late-'));
    closers.push(
      () => shop.close(),
      () => rm(work, { recursive: true, force: true }),
    );
    const { manifest } = await runBackup({
      shop: parseShopAddress(shop.url),
      token: shop.token,
      storage: new LocalDirStorage(join(work, 'out')),
      resources: ['orders'],
      formats: ['parquet', 'raw'],
      depth: 4,
      stagingRoot: join(work, 'staging'),
      logger: createLogger({ level: 'silent' }),
      parts: { lateCheckpointShare: 0.5, lateCheckpointMinRecords },
    });
    const raw = manifest.files.filter((file) => file.format === 'raw');
    const orders = manifest.files.filter((file) => file.format === 'parquet' && file.table === 'orders');
    expect(raw.map((file) => file.path)).toHaveLength(parts);
    expect(orders).toHaveLength(parts);
    expect(raw.reduce((sum, file) => sum + file.rows, 0)).toBe(2_600);
    // Finished once half the counted records were in: the first part holds at least that half.
    expect(raw[0]?.rows).toBeGreaterThanOrEqual(parts === 1 ? 2_600 : 1_300);
    expect(manifest.status).toBe('complete');
  });
});
