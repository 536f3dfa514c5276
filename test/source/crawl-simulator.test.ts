import { setMaxListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/log.js';
import { RESOURCES, type ResourceName } from '../../src/shopify/resources.js';
import { LATENCY_PRESETS, type ShopOptions, startShop, uniformLatency } from '../../src/simulator/index.js';
import { openShopSession, type ResourceCrawlReport } from '../../src/source/index.js';

type RunningShop = Awaited<ReturnType<typeof startShop>>;
const shops: RunningShop[] = [];
afterEach(async () => {
  for (const shop of shops.splice(0)) await shop.close();
});

const FAST_RETRIES = { baseDelayMs: 5, maxDelayMs: 50, maxAttempts: 10, maxThrottledAttempts: 40 };

async function shopWith(options: ShopOptions): Promise<RunningShop> {
  const shop = await startShop(options);
  shops.push(shop);
  return shop;
}

function idsOf(shop: RunningShop, resource: ResourceName): string[] {
  return [...shop.records(resource)].map((record) => String(record.id));
}

/** Crawls all three resources at once and returns every emitted id (duplicates kept, to prove there are none). */
async function crawlAll(shop: RunningShop, depth = 20) {
  const session = openShopSession({ shopUrl: shop.url, token: shop.token, depth, retry: FAST_RETRIES });
  const results = await Promise.all(
    RESOURCES.map(async (resource) => {
      const { records, report } = session.crawl(resource);
      const ids: string[] = [];
      for await (const record of records) {
        expect(record.bytes.toString()).toContain(`"id":${record.id}`);
        ids.push(record.id);
      }
      return [resource, { ids, report: await report }] as const;
    }),
  );
  session.close();
  return Object.fromEntries(results) as Record<ResourceName, { ids: string[]; report: ResourceCrawlReport }>;
}

function expectExactly(crawled: { ids: string[] }, expected: string[]) {
  expect(crawled.ids.length).toBe(new Set(crawled.ids).size);
  expect([...crawled.ids].sort()).toEqual([...expected].sort());
}

// Real HTTP with simulated latency, retries and Retry-After pauses: far above vitest's default 5 s.
describe('crawl against the simulated shop', { timeout: 60_000 }, () => {
  it('exports exactly every record of an unlimited shop, ids above 2^53 included', async () => {
    const shop = await shopWith({ seed: 3, products: 700, customers: 1100, orders: 2600, bigIdShare: 0.05 });
    const crawled = await crawlAll(shop);
    for (const resource of RESOURCES) {
      const expected = idsOf(shop, resource);
      expect(expected.some((id) => BigInt(id) > BigInt(Number.MAX_SAFE_INTEGER))).toBe(true);
      expectExactly(crawled[resource], expected);
      const report = crawled[resource].report;
      expect(report.countBefore).toBe(expected.length);
      expect(report.countAfter).toBe(expected.length);
      expect(report.exported).toBe(expected.length);
      expect(report.strategy).toMatch(/since_id/);
    }
    // Orders were split into several windows that ran in parallel.
    expect(crawled.orders.report.strategy).not.toMatch(/in 1 created_at window$/);
  });

  it.each([
    ['standard (40 @ 2/s)', 'standard' as const],
    ['plus (400 @ 20/s)', 'plus' as const],
  ])('exports exactly every record of a %s shop', async (_name, rate) => {
    const shop = await shopWith({ seed: 4, products: 300, customers: 400, orders: 800, rate, bigIdShare: 0.02 });
    const crawled = await crawlAll(shop);
    for (const resource of RESOURCES) expectExactly(crawled[resource], idsOf(shop, resource));
    expect(shop.stats().throttled).toBe(0);
  });

  it('keeps a small, fast bucket nearly full without overflowing it', async () => {
    const shop = await shopWith({
      seed: 5,
      products: 1500,
      customers: 1500,
      orders: 1500,
      rate: { bucket: 8, leakPerSecond: 40 },
      latency: uniformLatency(20),
    });
    const crawled = await crawlAll(shop);
    for (const resource of RESOURCES) expectExactly(crawled[resource], idsOf(shop, resource));
    const stats = shop.stats();
    expect(stats.throttled).toBeLessThanOrEqual(Math.ceil(stats.requests * 0.05));
  });

  it.each([
    ['80 @ 8/s', { bucket: 80, leakPerSecond: 8 }],
    ['320 @ 16/s', { bucket: 320, leakPerSecond: 16 }],
    ['40 @ 20/s', { bucket: 40, leakPerSecond: 20 }],
  ])('paces a bucket no tier lists (%s) through long-tailed, reordered answers without a 429', async (_name, rate) => {
    // The realistic model at a tenth of its times: counts 15 ms, pages of 250 orders 190 ms, each stretched by a
    // lognormal factor (p95 three times the median), so answers come back in another order than their requests left.
    const tenth = LATENCY_PRESETS.realistic;
    const shop = await shopWith({
      seed: 9,
      products: 800,
      customers: 2500,
      orders: 5000,
      rate,
      latency: {
        ...tenth,
        countMs: tenth.countMs / 10,
        listMs: tenth.listMs / 10,
        perRecordMs: { products: 0.4, customers: 0.3, orders: 0.7 },
        perVariantMs: tenth.perVariantMs / 10,
        stallMs: tenth.stallMs / 10,
      },
      prerender: true,
    });
    const crawled = await crawlAll(shop);
    for (const resource of RESOURCES) expectExactly(crawled[resource], idsOf(shop, resource));
    expect(shop.stats().throttled).toBe(0);
  });

  // Counts: one per resource, plus the bucket probe's where the tier guess has the leak decide (the products count that
  // is the second, which `late` answers so much later). Placed by the probe: every resource's windows cut before its
  // first full page came back.
  it.each([
    [
      '40 @ 20/s, which no tier leaks: proved so by a count, it gets its chains from placement probes',
      40,
      20,
      0,
      true,
      4,
    ],
    ['the same with the count back 200 ms late: slow, it still proves a drain up to its answer', 40, 20, 200, true, 4],
    ['Basic 40 @ 2/s: the count proves nothing, and the leak keeps deciding', 40, 2, 0, false, 4],
    ['Basic with the count back late: no more proof', 40, 2, 200, false, 4],
    ['Plus 400 @ 20/s: the tier guess leaves the chains to decide, no count needed', 400, 20, 0, true, 3],
  ])('%s', async (_name, bucket, leakPerSecond, late, chainsDecide, counts) => {
    // Counts at once, pages in 1.15 s: the first answers of every bucket look alike (requests sent together).
    const shop = await shopWith({
      seed: 6,
      products: 500,
      customers: 2500,
      orders: 12_000,
      rate: { bucket, leakPerSecond },
      latency: { ...LATENCY_PRESETS.none, listMs: 150, perRecordMs: { products: 4, customers: 4, orders: 4 } },
      faults: { lateAnswers: { requests: ['GET /products/count.json#2'], ms: late } },
    });
    const { windows: planned, placedByProbe } = await windowsWhenPlanned(shop);
    // Orders hold 48 pages: with the chains deciding, the depth of 20 goes mostly to them. Where the leak decides,
    // orders get the chains that fill it at the round trip measured: 4 or 5 on a quiet machine, a few more where load
    // slows the answers (then fewer requests a second leave per chain).
    if (chainsDecide) expect(planned.orders).toBeGreaterThanOrEqual(10);
    else expect(planned.orders).toBeLessThan(10);
    expect(placedByProbe).toEqual(RESOURCES.map(() => chainsDecide));
    const countPaths = Object.entries(shop.stats().byPath).filter(([path]) => path.endsWith('/count.json'));
    expect(countPaths.reduce((sum, [, n]) => sum + n, 0)).toBe(counts);
  });

  it('asks for smaller pages where the shop cannot answer large ones, grows them back, and exports every record once', async () => {
    // Orders 1,000 to 1,600 by id are too heavy for pages of more than 60 (a 5xx, every time); the rest are not.
    const shop = await shopWith({ seed: 12, products: 0, customers: 0, orders: 3000, bigIdShare: 0.02 });
    const ids = idsOf(shop, 'orders')
      .map(BigInt)
      .sort((a, b) => (a < b ? -1 : 1));
    shop.setFaults({
      oversizedPages: { resource: 'orders', aboveLimit: 60, minId: ids[1000] as bigint, maxId: ids[1600] as bigint },
    });
    // One chain, so the pages after the heavy stretch are this chain's too.
    const crawled = await crawlAll(shop, 1);
    expectExactly(crawled.orders, idsOf(shop, 'orders'));
    expect(shop.stats().faults.oversizedPages).toBeGreaterThan(0);
    // Pages of 31 through the heavy stretch, then growing back to 250: about 50 requests, failures included, where
    // pages of 31 from the first failure on take about 80.
    expect(crawled.orders.report.requests).toBeLessThan(65);
  });

  it('survives 5xx bursts, resets, truncated bodies and a 429 storm with the exact record set', async () => {
    const shop = await shopWith({
      seed: 6,
      products: 600,
      customers: 600,
      orders: 1200,
      bigIdShare: 0.02,
      faults: {
        serverErrorRate: 0.1,
        serverErrorBurst: 2,
        resetRate: 0.08,
        truncateRate: 0.08,
        throttleStormRate: 0.04,
      },
    });
    const crawled = await crawlAll(shop);
    for (const resource of RESOURCES) expectExactly(crawled[resource], idsOf(shop, resource));
    const retries = RESOURCES.reduce((sum, resource) => sum + crawled[resource].report.retries, 0);
    expect(retries).toBeGreaterThan(0);
  });

  it('falls back to one Link chain when the shop ignores filters, without losing or duplicating', async () => {
    const shop = await shopWith({
      seed: 7,
      products: 500,
      customers: 700,
      orders: 900,
      faults: { ignoreFilters: true },
    });
    const crawled = await crawlAll(shop);
    for (const resource of RESOURCES) {
      expectExactly(crawled[resource], idsOf(shop, resource));
      expect(crawled[resource].report.strategy).toMatch(/Link chain/);
    }
  });

  it('misses no record that existed throughout while records change during the crawl', async () => {
    const shop = await shopWith({
      seed: 8,
      products: 600,
      customers: 900,
      orders: 1500,
      latency: uniformLatency(5),
      faults: { churn: { everyRequests: 1 } },
    });
    const before = Object.fromEntries(RESOURCES.map((r) => [r, new Set(idsOf(shop, r))]));
    const crawled = await crawlAll(shop, 6);
    let changed = 0;
    for (const resource of RESOURCES) {
      const after = new Set(idsOf(shop, resource));
      changed += [...after].filter((id) => !before[resource]?.has(id)).length;
      const emitted = crawled[resource].ids;
      expect(emitted.length).toBe(new Set(emitted).size);
      const throughout = [...(before[resource] as Set<string>)].filter((id) => after.has(id));
      const missing = throughout.filter((id) => !emitted.includes(id));
      expect(missing).toEqual([]);
      const invented = emitted.filter((id) => !before[resource]?.has(id) && !after.has(id));
      expect(invented).toEqual([]);
    }
    // The shop really changed under the crawl.
    expect(changed).toBeGreaterThan(5);
  });
});

/**
 * The windows each resource's crawl cut when it was planned (the "crawl planned" line), and whether that came before
 * its first full page was answered (planned from the placement probe); the crawl is aborted once every resource
 * planned, before anything else.
 */
async function windowsWhenPlanned(
  shop: RunningShop,
): Promise<{ windows: Record<ResourceName, number>; placedByProbe: boolean[] }> {
  const planned: Partial<Record<ResourceName, number>> = {};
  const fullPageAnswered = new Set<ResourceName>();
  const placedByProbe: Partial<Record<ResourceName, boolean>> = {};
  const abort = new AbortController();
  // Every request listens to the signal, as in a backup (runner/backup.ts lifts the limit the same way).
  setMaxListeners(0, abort.signal);
  const note = (fields: object, message?: string) => {
    const line = fields as { resource?: ResourceName; windows?: number; url?: string };
    if (line.resource === undefined) return;
    if (message === 'request answered' && line.url?.includes('limit=250')) fullPageAnswered.add(line.resource);
    if (message !== 'crawl planned') return;
    planned[line.resource] = line.windows;
    placedByProbe[line.resource] = !fullPageAnswered.has(line.resource);
    if (Object.keys(planned).length === RESOURCES.length) abort.abort();
  };
  const logger = { debug: note, info: note, warn: note, error: note, child: () => logger } as unknown as Logger;
  const session = openShopSession({
    shopUrl: shop.url,
    token: shop.token,
    retry: FAST_RETRIES,
    logger,
    signal: abort.signal,
  });
  await Promise.all(
    RESOURCES.map(async (resource) => {
      for await (const _ of session.crawl(resource).records);
    }),
  ).catch((error: unknown) => {
    if (!abort.signal.aborted) throw error;
  });
  session.close();
  return {
    windows: planned as Record<ResourceName, number>,
    placedByProbe: RESOURCES.map((resource) => placedByProbe[resource] as boolean),
  };
}
