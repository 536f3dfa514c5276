import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseShopAddress } from '../../src/cli/shop-address.js';
import { createLogger } from '../../src/log.js';
import { runJob } from '../../src/runner/run-job.js';
import { expectedDurationMs, slowestFirst } from '../../src/runner/shop-order.js';
import { type RunningShop, startShop, uniformLatency } from '../../src/simulator/index.js';
import type { Manifest } from '../../src/snapshot/manifest.js';
import { CHAIN_MARGIN } from '../../src/source/chain-plan.js';
import { expectedCrawlMs } from '../../src/source/shop-probe.js';
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

  it.each([
    [
      'new shops by their estimate, longest first, before the others',
      [1_000, undefined, undefined],
      [5, 90],
      [2, 1, 0],
    ],
    ['a new shop without an estimate before new shops with one', [undefined, undefined], [5_000], [1, 0]],
    ['estimates of shops with a history change nothing', [1_000, 25_000], [90_000, 1], [1, 0]],
  ])('%s', (_name, expected, firstRun, order) => {
    expect(slowestFirst(expected, firstRun)).toEqual(order);
  });
});

describe('expectedCrawlMs', () => {
  const records = [2_500, 12_500, 5_000];
  const even = { countMs: 150, pageMs: [150, 150, 150] };
  it.each([
    ['a Basic bucket: 86 requests, 46 past its room at 2/s', { records, bucketMax: 40, ...even }, 23_000],
    [
      // 9, 49 and 19 pages after the first ones, cut into 3, 12 and 5 windows: the longest chain is a count, a first
      // page, 5 more pages and a count; with the chains' margin. All 20 chains together would take 886 ms.
      'a Plus bucket holds them all: the longest chain of the windows the planner cuts',
      { records, bucketMax: 400, ...even },
      (150 + 150 + 5 * 150 + 150) * CHAIN_MARGIN,
    ],
    [
      'no limit: a count, the one page and a count, one after another',
      { records: [250, 0, 0], bucketMax: undefined, countMs: 400, pageMs: [400, 400, 400] },
      (400 + 400 + 400) * CHAIN_MARGIN,
    ],
    [
      // 4, 6 and 10 pages, 26 requests: the bucket has room for them all, so windows cost no time and may hold half a
      // page. After the first pages the 20 chains go where the work is; orders' 9 pages get 5 or more windows: 2
      // orders pages in a row between two counts decide, with the margin: (300 + 2 × 1,900) × CHAIN_MARGIN.
      'a small Basic shop: its pages, not its counts, decide',
      { records: [1_000, 1_500, 2_500], bucketMax: 40, countMs: 150, pageMs: [1_400, 900, 1_900] },
      (300 + 2 * 1_900) * CHAIN_MARGIN,
    ],
  ])('%s', (_name, probe, expected) => {
    expect(expectedCrawlMs(probe, 20)).toBeCloseTo(expected, 6);
  });

  it('a count is no yardstick for a page: the same small shop measured by its counts looks almost 7× faster', () => {
    const shop = { records: [1_000, 1_500, 2_500], bucketMax: 40, countMs: 150 };
    const byPages = expectedCrawlMs({ ...shop, pageMs: [1_400, 900, 1_900] }, 20);
    const byCounts = expectedCrawlMs({ ...shop, pageMs: [150, 150, 150] }, 20);
    // The same 2 orders pages in a row, at 1,900 ms or at 150 ms each, between two counts.
    expect([byPages, byCounts]).toEqual([(300 + 2 * 1_900) * CHAIN_MARGIN, (300 + 2 * 150) * CHAIN_MARGIN]);
  });

  it('one chain at a time (--depth 1): every round trip in a row, with the margin', () => {
    const probe = { records: [500, 250, 0], bucketMax: undefined, countMs: 100, pageMs: [1_000, 800, 200] };
    // 2 + 1 + 1 pages and 6 counts.
    expect(expectedCrawlMs(probe, 1)).toBeCloseTo((2_000 + 800 + 200 + 600) * CHAIN_MARGIN, 6);
  });
});

/**
 * Runs the job over `shops` (in this job order) into one folder, and returns when each shop's snapshot started, in
 * job order.
 */
async function jobRunner(shops: RunningShop[]): Promise<(parallelShops: number) => Promise<string[]>> {
  const out = await mkdtemp(join(tmpdir(), 'shopsnap-order-'));
  closers.push(...shops.map((shop) => () => shop.close()), () => rm(out, { recursive: true, force: true }));
  const storage = new LocalDirStorage(join(out, 'snapshots'));
  return async (parallelShops) => {
    const { outcomes } = await runJob({
      job: {
        name: 'order',
        shops: shops.map((shop) => ({ shop: shop.url })),
        resources: ['products', 'customers', 'orders'],
        formats: ['raw'],
        depth: 4,
        out: storage.location,
        s3: {},
        parallelShops,
      },
      targets: shops.map((shop) => ({ shop: parseShopAddress(shop.url), token: shop.token })),
      shard: { index: 0, count: 1 },
      storage,
      stagingRoot: join(out, 'staging'),
      logger: createLogger({ level: 'silent' }),
    });
    return Promise.all(
      outcomes.map(async (outcome) => {
        const manifest = await readFile(join(outcome.location as string, 'manifest.json'), 'utf8');
        return (JSON.parse(manifest) as Manifest).started_at;
      }),
    );
  };
}

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
      latency: uniformLatency(150),
    });
    const startedAt = await jobRunner([quick, slow]);
    // The first run starts both at once; the second knows which shop took longer and starts it first.
    await startedAt(2);
    const [quickStarted, slowStarted] = await startedAt(1);
    expect((slowStarted as string) < (quickStarted as string)).toBe(true);
  });

  it('starts the new shop whose counts say it is largest first, when new shops queue', {
    timeout: 60_000,
  }, async () => {
    const small = await startShop({ seed: 33, products: 10, customers: 10, orders: 10 });
    const large = await startShop({ seed: 34, products: 10, customers: 10, orders: 3_000 });
    const [smallStarted, largeStarted] = await (await jobRunner([small, large]))(1);
    expect((largeStarted as string) < (smallStarted as string)).toBe(true);
    // The probe's count of each resource is the only request beyond the backup's own.
    expect(small.stats().byPath['GET /orders/count.json']).toBe(3);
  });
});
