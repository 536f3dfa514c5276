import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type Chain, type CrawlContext, ResourceCrawl } from '../../src/source/resource-crawl.js';

const HOUR = 3_600_000;
const START = Date.UTC(2020, 0, 1);
const ORDERS = 1_000;

/**
 * A crawl of 1,000 orders, one an hour, through a context that answers at once, except the chain's second page, which
 * it holds once that page has gone on the wire (CrawlRequestOptions.onSent). The planner never cuts (rebalance does
 * nothing): the test cuts by hand, with `pageMs` as the page's expected round trip.
 */
async function crawlWithPageInFlight(pageMs: number): Promise<{ crawl: ResourceCrawl; chain: Chain }> {
  let onSecondPage: (() => void) | undefined;
  const secondPageSent = new Promise<void>((resolve) => {
    onSecondPage = resolve;
  });
  let pagesAsked = 0;
  const context: CrawlContext = {
    apiUrl: (path, query) => {
      const url = new URL(`http://shop.test/admin/api/2022-01/${path}`);
      for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
      return url;
    },
    pageMs: () => pageMs,
    pageLimit: () => 250,
    placementWorthAsking: async () => false,
    depth: 20,
    rebalance: () => undefined,
    request: async (url, read, { onSent }) => {
      onSent?.();
      const answer = (body: string) => ({
        url,
        headers: {},
        value: read(Buffer.from(body), url.href),
        retries: 0,
        elapsedMs: 1,
      });
      if (url.pathname.endsWith('/count.json')) return answer(`{"count":${ORDERS}}`);
      pagesAsked++;
      if (pagesAsked === 2) {
        onSecondPage?.();
        return new Promise(() => undefined);
      }
      const since = Number(url.searchParams.get('since_id') ?? 0);
      const limit = Number(url.searchParams.get('limit'));
      const orders = Array.from({ length: ORDERS }, (_, i) => i + 1)
        .filter((id) => id > since)
        .slice(0, limit)
        .map((id) => `{"id":${id},"created_at":"${new Date(START + id * HOUR).toISOString()}"}`);
      return answer(`{"orders":[${orders.join(',')}]}`);
    },
  };
  const crawl = new ResourceCrawl('orders', context);
  void crawl.run().catch(() => undefined);
  await secondPageSent;
  const [chain] = crawl.chains;
  if (chain === undefined) throw new Error('no chain');
  return { crawl, chain };
}

/** The order (by its hour) at which the chain's own window now ends. */
const firstWindowEnd = (chain: Chain) => ((chain.window.maxMs ?? Number.NaN) - START) / HOUR;

describe('cutting a chain whose page is in flight', () => {
  // 750 orders ahead of the chain after its first page, 250 of them on its page in flight: cut in two.
  it('shares the records ahead equally while the page has just gone', async () => {
    const { crawl, chain } = await crawlWithPageInFlight(60_000);
    crawl.split(chain, 2);
    expect(crawl.chains.size).toBe(2);
    expect(firstWindowEnd(chain)).toBeGreaterThan(600);
    expect(firstWindowEnd(chain)).toBeLessThan(650);
  });

  it('counts the page as behind the chain once its round trip has passed: a full share after it', async () => {
    const { crawl, chain } = await crawlWithPageInFlight(20);
    await sleep(40);
    crawl.split(chain, 2);
    expect(crawl.chains.size).toBe(2);
    expect(firstWindowEnd(chain)).toBeGreaterThan(725);
    expect(firstWindowEnd(chain)).toBeLessThan(775);
  });
});
