import { COMPLETE_LIST_FILTERS, type ResourceName } from '../shopify/resources.js';
import { tierLeakPerSecond } from './bucket-model.js';
import {
  CHAIN_MARGIN,
  type ChainPlanInput,
  type ChainWork,
  chainsWorthRunning,
  expectedFinishMs,
  leakDecides,
  minimumRequests,
  minPagesPerWindow,
  spreadChains,
} from './chain-plan.js';
import { readCount } from './list-page.js';
import { PAGE_LIMIT } from './page-size.js';
import { ShopClient } from './shop-client.js';

/** What a shop tells before its crawl: the size of each list, its bucket, and how long each kind of answer takes. */
export interface ShopProbe {
  /** Records of each resource asked for, with the crawl's own filters. */
  records: number[];
  /** The bucket's size from `X-Shopify-Shop-Api-Call-Limit`; undefined for a shop that sends none (no limit). */
  bucketMax: number | undefined;
  /** The round trip of a count: the slowest of the counts, sent together. */
  countMs: number;
  /**
   * The round trip of a full page of each resource, in the order of `records` (of its only page where the list is no
   * longer than a page). A count answers in a fraction of a second, a page of 250 orders in about two (live-shop.md
   * §1): one is no yardstick for the other (round-trips.ts).
   */
  pageMs: number[];
}

/**
 * Asks a shop for the count of every resource, once each, without retrying: a shop that does not answer at once is
 * left unprobed, and its backup reports why. The counts take a few requests of the bucket, which a shop's crawl
 * otherwise starts with anyway.
 */
export async function probeShop(options: {
  shopUrl: string;
  token: string;
  resources: readonly ResourceName[];
  signal?: AbortSignal | undefined;
}): Promise<ShopProbe> {
  const client = new ShopClient({
    shopUrl: options.shopUrl,
    token: options.token,
    depth: options.resources.length,
    signal: options.signal,
    requestTimeoutMs: PROBE_TIMEOUT_MS,
    retry: { maxAttempts: 1, maxThrottledAttempts: 1 },
  });
  try {
    const { records, countMs } = await countResources(client, options.resources);
    // No page is fetched to order shops: a page per resource of hundreds of new shops would hold the fleet's start up
    // for minutes. The count time stands for a page's too, which shortens every shop's round trips alike; the ordering
    // compares shops, and on a limited bucket their requests (their sizes) decide it.
    return { records, bucketMax: client.pacer.state().max, countMs, pageMs: records.map(() => countMs) };
  } finally {
    client.close();
  }
}

/** The count of every resource, with the crawl's own filters, asked for together; the slowest answer's round trip. */
export async function countResources(
  client: ShopClient,
  resources: readonly ResourceName[],
): Promise<{ records: number[]; countMs: number }> {
  const answers = await Promise.all(
    resources.map((resource) =>
      client.get(client.apiUrl(`${resource}/count.json`, COMPLETE_LIST_FILTERS[resource]), readCount, {
        shape: { kind: 'count', resource },
      }),
    ),
  );
  return {
    records: answers.map((answer) => answer.value),
    countMs: Math.max(...answers.map((answer) => answer.elapsedMs)),
  };
}

/** The fewest requests a complete crawl of lists this long needs: full pages, and a count before and after each. */
export function minimumCrawlRequests(records: readonly number[]): number {
  const { pages, counts } = minimumRequests(records, PAGE_LIMIT);
  return pages.reduce((sum, n) => sum + n, counts);
}

/**
 * How long the crawl of a probed shop will take, by the model the crawl plans its windows with (chain-plan.ts), over
 * its minimum requests, each weighed by the round trip of its own kind as the crawl weighs its work ahead
 * (shop-session.ts): a resource's pages by its page, counts by a count. Each resource's chain fetches its first page,
 * which places its records; the planner then cuts what is left into the windows worth running against the bucket's
 * room and Shopify's tier leak (a shop without a limit: its round trips alone), at most `depth`, each of a few pages
 * where the leak decides (minPagesPerWindow). The crawl ends no sooner than the
 * planner's fluid finish, nor than its longest chain: a count, the first page, its window's share of the pages left
 * one after another, a count; stretched by the chains' margin for jitter, as the planner's own limit is.
 */
export function expectedCrawlMs(probe: ShopProbe, depth: number): number {
  const { pages, counts } = minimumRequests(probe.records, PAGE_LIMIT);
  const left: ChainWork[] = pages.map((n, i) => ({ pages: n - 1, pageMs: probe.pageMs[i] ?? 0 }));
  const crawl = {
    requests: minimumCrawlRequests(probe.records),
    chains: left.length,
    room: probe.bucketMax ?? 0,
    leakPerSecond: probe.bucketMax === undefined ? Number.POSITIVE_INFINITY : tierLeakPerSecond(probe.bucketMax),
    workMs: pages.reduce((sum, n, i) => sum + n * (probe.pageMs[i] ?? 0), 0) + counts * probe.countMs,
    depth,
  };
  const minPages = minPagesPerWindow(leakDecides(crawl));
  const input: ChainPlanInput = { ...crawl, open: left, minPages };
  const running = Math.min(depth, chainsWorthRunning(input));
  const windows = spreadChains(left, running - left.length, minPages);
  const longestMs = Math.max(
    0,
    ...left.map((chain, i) => 2 * probe.countMs + chain.pageMs * (1 + Math.ceil(chain.pages / (windows[i] as number)))),
  );
  return Math.max(expectedFinishMs(input, running), longestMs * CHAIN_MARGIN);
}

/** A probe only orders the shops: a shop that takes longer to count is started without an estimate. */
const PROBE_TIMEOUT_MS = 10_000;
