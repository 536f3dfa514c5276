import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseShopAddress } from '../../src/cli/shop-address.js';
import { createLogger } from '../../src/log.js';
import { runJob } from '../../src/runner/run-job.js';
import { expectedDurationMs, slowestFirst } from '../../src/runner/shop-order.js';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import type { Manifest } from '../../src/snapshot/manifest.js';
import { LocalDirStorage } from '../../src/storage/local-dir-storage.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const times = (started_at: string, finished_at: string, resumed?: Manifest['resumed']) =>
  ({ started_at, finished_at, ...(resumed ? { resumed } : {}) }) as Manifest;

describe('expectedDurationMs', () => {
  it.each([
    ['no earlier snapshot', undefined, undefined],
    ['the last complete snapshot took 25 s', times('2026-11-22T05:00:00.000Z', '2026-11-22T05:00:25.000Z'), 25_000],
    [
      'it was finished by a resumed run: its times include the crash',
      times('2026-11-22T05:00:00.000Z', '2026-11-22T06:00:00.000Z', { attempts: 1, earlier_requests: 9, requests: 3 }),
      undefined,
    ],
    ['its times are unreadable', times('yesterday', '2026-11-22T05:00:25.000Z'), undefined],
  ])('%s', (_name, previous, expected) => {
    expect(expectedDurationMs(previous)).toBe(expected);
  });
});

describe('slowestFirst', () => {
  it.each([
    ['longest expected first', [1_000, 25_000, 3_000], [1, 2, 0]],
    ['shops never backed up before all others, in job order', [1_000, undefined, 25_000, undefined], [1, 3, 2, 0]],
    ['job order among equals', [5, 5, 5], [0, 1, 2]],
    ['no shops', [], []],
  ])('%s', (_name, expected, order) => {
    expect(slowestFirst(expected)).toEqual(order);
  });
});

describe('runJob', () => {
  it('starts the shop whose last snapshot took longest first, with one shop at a time', {
    timeout: 60_000,
  }, async () => {
    const quick = await startShop({ seed: 31, products: 10, customers: 10, orders: 10 });
    // Slower on every request: its snapshot takes longer, and the next run should start with it.
    const slow = await startShop({
      seed: 32,
      products: 10,
      customers: 10,
      orders: 10,
      latency: { baseMs: 150, perRecordMs: 0 },
    });
    const out = await mkdtemp(join(tmpdir(), 'shopsnap-order-'));
    closers.push(
      () => quick.close(),
      () => slow.close(),
      () => rm(out, { recursive: true, force: true }),
    );
    const shops: RunningShop[] = [quick, slow];
    const storage = new LocalDirStorage(join(out, 'snapshots'));
    const run = () =>
      runJob({
        job: {
          name: 'order',
          shops: shops.map((shop) => ({ shop: shop.url })),
          resources: ['products', 'customers', 'orders'],
          formats: ['raw'],
          depth: 4,
          out: storage.location,
          s3: {},
          parallelShops: 1,
        },
        targets: shops.map((shop) => ({ shop: parseShopAddress(shop.url), token: shop.token })),
        shard: { index: 0, count: 1 },
        storage,
        stagingRoot: join(out, 'staging'),
        logger: createLogger({ level: 'silent' }),
      });
    const startedAt = async (): Promise<string[]> => {
      const { outcomes } = await run();
      const manifests = outcomes.map((outcome) => join(outcome.location as string, 'manifest.json'));
      return Promise.all(
        manifests.map(async (path) => (JSON.parse(await readFile(path, 'utf8')) as Manifest).started_at),
      );
    };
    // The first run knows nothing and keeps the job order; the second knows which shop took longer.
    const [quickThenSlow, slowThenQuick] = [await startedAt(), await startedAt()];
    expect(quickThenSlow).toEqual([...quickThenSlow].sort());
    expect(slowThenQuick).toEqual([...slowThenQuick].sort().reverse());
  });
});
