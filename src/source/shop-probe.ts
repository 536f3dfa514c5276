import { COMPLETE_LIST_FILTERS, type ResourceName } from '../shopify/resources.js';
import { tierLeakPerSecond } from './bucket-model.js';
import { expectedFinishMs, minimumRequests } from './chain-plan.js';
import { readCount } from './list-page.js';
import { PAGE_LIMIT } from './page-size.js';
import { ShopClient } from './shop-client.js';

/** What a shop's counts tell before its crawl: the size of each list, its bucket, and how long an answer takes. */
export interface ShopProbe {
  /** Records of each resource asked for, with the crawl's own filters. */
  records: number[];
  /** The bucket's size from `X-Shopify-Shop-Api-Call-Limit`; undefined for a shop that sends none (no limit). */
  bucketMax: number | undefined;
  /** The slowest of the count requests, sent together. */
  roundTripMs: number;
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
    return { ...(await countResources(client, options.resources)), bucketMax: client.pacer.state().max };
  } finally {
    client.close();
  }
}

/** The count of every resource, with the crawl's own filters, asked for together; the slowest answer's round trip. */
export async function countResources(
  client: ShopClient,
  resources: readonly ResourceName[],
): Promise<{ records: number[]; roundTripMs: number }> {
  const answers = await Promise.all(
    resources.map((resource) =>
      client.get(client.apiUrl(`${resource}/count.json`, COMPLETE_LIST_FILTERS[resource]), readCount, {
        shape: { kind: 'count', resource },
      }),
    ),
  );
  return {
    records: answers.map((answer) => answer.value),
    roundTripMs: Math.max(...answers.map((answer) => answer.elapsedMs)),
  };
}

/** The fewest requests a complete crawl of lists this long needs: full pages, and a count before and after each. */
export function minimumCrawlRequests(records: readonly number[]): number {
  const { pages, counts } = minimumRequests(records, PAGE_LIMIT);
  return pages.reduce((sum, n) => sum + n, counts);
}

/**
 * How long the crawl of a probed shop will take at least: the fluid model the crawl plans its windows with
 * (chain-plan.ts) over its minimum requests, with `depth` chains, the bucket's room and Shopify's tier leak. A shop
 * without a limit is bound by its round trips alone.
 */
export function expectedCrawlMs(probe: ShopProbe, depth: number): number {
  const limited = probe.bucketMax !== undefined;
  const requests = minimumCrawlRequests(probe.records);
  return expectedFinishMs(
    {
      requests,
      chains: depth,
      room: probe.bucketMax ?? 0,
      leakPerSecond: limited ? tierLeakPerSecond(probe.bucketMax as number) : Number.POSITIVE_INFINITY,
      workMs: requests * probe.roundTripMs,
      depth,
      splittable: 0,
    },
    depth,
  );
}

/** A probe only orders the shops: a shop that takes longer to count is started without an estimate. */
const PROBE_TIMEOUT_MS = 10_000;
