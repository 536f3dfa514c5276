import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { RESOURCES } from '../../src/shopify/resources.js';
import { startShop, uniformLatency } from '../../src/simulator/index.js';
import { openShopSession } from '../../src/source/index.js';
import type { ResourceCrawlReport } from '../../src/source/resource-crawl.js';
import { recordingProxy } from './recording-proxy.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** Crawls every resource of the shop at `url`; returns each resource's report. */
async function crawlReports(url: string, token: string, depth = 20): Promise<ResourceCrawlReport[]> {
  const session = openShopSession({ shopUrl: url, token, depth });
  const reports = await Promise.all(
    RESOURCES.map(async (resource) => {
      const { records, report } = session.crawl(resource);
      for await (const _ of records);
      return report;
    }),
  );
  session.close();
  return reports;
}

/** Crawls every resource of the shop at `url`; returns the records exported per resource. */
async function crawl(url: string, token: string, depth = 20): Promise<number[]> {
  return (await crawlReports(url, token, depth)).map((report) => report.exported);
}

describe('requests a crawl spends', { timeout: 60_000 }, () => {
  it('crawls a slow-leak shop past its burst with the fewest requests: one window per resource', async () => {
    // 16 pages and 6 counts into a bucket of 10 leaking 4/s (its tier guess: 0.5/s): every extra request would cost
    // a quarter second, and one chain per resource outruns the leak unless answers took a third of a second.
    const sizes = { products: 700, customers: 2290, orders: 700 };
    const rate = { bucket: 10, leakPerSecond: 4 };
    const shop = await startShop({ seed: 21, ...sizes, rate, latency: uniformLatency(20), prerender: true });
    closers.push(() => shop.close());
    expect(await crawl(shop.url, shop.token)).toEqual(RESOURCES.map((resource) => sizes[resource]));
    expect(shop.stats()).toMatchObject({ requests: 22, throttled: 0 });
  });

  it('never asks again for a page the shop has not been sent yet: one held back by a pause is not late', async () => {
    // Answers in 20 ms, so a page is late after about a second; another limit's 429 (Retry-After: 2.0) holds every
    // request for 2 s, with slots free and the bucket's room unchanged. The shop answers in this process: pages rendered
    // as they were asked for waited behind each other's rendering on a loaded machine until they counted as late
    // (second copies in 3 of 4 runs beside six busy processes; prerendered, none in 8).
    const sizes = { products: 1500, customers: 1500, orders: 3000 };
    const faults = { seed: 3, throttleStormRate: 0.15 };
    const latency = uniformLatency(20);
    const shop = await startShop({ seed: 24, ...sizes, rate: 'plus', latency, faults, prerender: true });
    closers.push(() => shop.close());
    const reports = await crawlReports(shop.url, shop.token);
    expect(reports.map((report) => report.exported)).toEqual(RESOURCES.map((resource) => sizes[resource]));
    expect(reports.reduce((sum, report) => sum + report.retries, 0)).toBeGreaterThanOrEqual(3);
    expect(reports.map((report) => report.hedges)).toEqual([0, 0, 0]);
  });

  it.each([
    ['a shop that sends next links: a full page without one is the last', false, 2],
    ['a shop that never sends them: an empty page proves the end', true, 3],
  ])('%s', async (_name, dropLinks, orderPages) => {
    // 250 + 250 orders in one chain (depth 1: where windows cost no time, the rest would be cut into windows of half a
    // page), and no placement probe: the first page takes the only slot.
    const shop = await startShop({ seed: 22, products: 0, customers: 0, orders: 500 });
    const proxy = await recordingProxy(shop.url, undefined, { dropLinks });
    closers.push(
      () => shop.close(),
      () => proxy.close(),
    );
    expect(await crawl(proxy.url, shop.token, 1)).toEqual([0, 0, 500]);
    // A count before and after of each resource, the empty first pages of the two without records, and orders' pages.
    expect(shop.stats().requests).toBe(6 + 2 + orderPages);
  });

  it('gives a shop with room for the whole crawl every chain at once, from a probe of 25 records', async () => {
    // Counts answer in 50 ms, the probe in 100, a page of 250 in 550: planned from the first full page, the windows'
    // first pages would come back a full page's round trip after it. The first page goes beside the probe.
    const shop = await startShop({
      seed: 23,
      products: 0,
      customers: 0,
      orders: 12_000,
      latency: uniformLatency(50, 2),
      prerender: true,
    });
    // Full pages asked for before the first one came back: the windows planned from the probe.
    const events: string[] = [];
    const proxy = await recordingProxy(
      shop.url,
      async (resource, query) => {
        if (resource === 'orders') events.push(`answered ${query.get('limit')}`);
      },
      {
        onRequest: (url) =>
          url.pathname.endsWith('orders.json') && events.push(`asked ${url.searchParams.get('limit')}`),
      },
    );
    closers.push(
      () => shop.close(),
      () => proxy.close(),
    );
    expect(await crawl(proxy.url, shop.token)).toEqual([0, 0, 12_000]);
    expect(events.slice(0, 3)).toEqual(['asked 250', 'asked 25', 'answered 25']);
    const firstWave = events.slice(0, events.indexOf('answered 250')).filter((event) => event === 'asked 250');
    expect(firstWave.length).toBeGreaterThanOrEqual(13);
  });

  it('cuts the rest of a crawl by the records still to come, not those of the page in hand', async () => {
    // A bucket that makes each request count (10 leaking 4/s): no probe, the first page places 2,250 evenly spread
    // orders, and two windows are cut for the 2,000 after it when it lands. Its records are in hand then, not to
    // come: counted as still to come, they stretched the open-ended window a page past the end of the data, and the
    // cut fell half a page late (about 1,375 records before it instead of 1,250).
    const rate = { bucket: 10, leakPerSecond: 4 };
    const shop = await startShop({
      seed: 30,
      products: 0,
      customers: 0,
      orders: 2250,
      rate,
      latency: uniformLatency(300),
    });
    const firstWindowEnds: string[] = [];
    const proxy = await recordingProxy(shop.url, undefined, {
      onRequest: (url) => {
        const end = url.searchParams.get('created_at_max');
        if (url.pathname.endsWith('orders.json') && end && !url.searchParams.has('created_at_min')) {
          firstWindowEnds.push(end);
        }
      },
    });
    closers.push(
      () => shop.close(),
      () => proxy.close(),
    );
    expect(await crawl(proxy.url, shop.token, 2)).toEqual([0, 0, 2250]);
    expect(firstWindowEnds.length).toBeGreaterThan(0);
    const cutMs = Date.parse(firstWindowEnds[0] as string);
    const before = [...shop.records('orders')].filter((order) => Date.parse(String(order.created_at)) <= cutMs);
    expect(before.length).toBeGreaterThan(1200);
    expect(before.length).toBeLessThan(1300);
  });

  it('asks again for a late page that holds up its chain where the leak decides, once it is later than the leak', async () => {
    // One chain of 4,000 orders (16 pages of 100 ms) into a bucket of 10 leaking 4/s: the leak decides, so no window
    // is cut and a page more costs a quarter second. The chain's second page is held back for 20 s: the chain's other
    // pages wait for it, which the leak cannot make up for, so its second copy is worth the quarter second once the
    // page has been out longer than the leak needs to send the rest (the chain's 14 pages beyond the bucket's room,
    // at 4/s) plus a round trip. Before, a late page was asked for again only where the leak did not decide.
    const shop = await startShop({
      seed: 31,
      products: 0,
      customers: 0,
      orders: 4000,
      rate: { bucket: 10, leakPerSecond: 4 },
      latency: uniformLatency(100),
    });
    const asked = new Map<string, number>();
    let fullPages = 0;
    let heldAnswered = false;
    const proxy = await recordingProxy(
      shop.url,
      async (resource, query) => {
        if (resource !== 'orders' || query.has('fields') || ++fullPages !== 2) return;
        await sleep(20_000);
        heldAnswered = true;
      },
      {
        onRequest: (url) =>
          url.pathname.endsWith('orders.json') && asked.set(url.search, (asked.get(url.search) ?? 0) + 1),
      },
    );
    closers.push(
      () => shop.close(),
      () => proxy.close(),
    );
    expect(await crawl(proxy.url, shop.token)).toEqual([0, 0, 4000]);
    expect(heldAnswered).toBe(false);
    expect([...asked.values()].filter((times) => times > 1)).toEqual([2]);
  });
});
