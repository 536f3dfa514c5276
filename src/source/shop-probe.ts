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
    const answers = await Promise.all(
      options.resources.map((resource) =>
        client.get(client.apiUrl(`${resource}/count.json`, COMPLETE_LIST_FILTERS[resource]), readCount, {
          shape: { kind: 'count', resource },
        }),
      ),
    );
    return {
      records: answers.map((answer) => answer.value),
      bucketMax: client.pacer.state().max,
      roundTripMs: Math.max(...answers.map((answer) => answer.elapsedMs)),
    };
  } finally {
    client.close();
  }
}

/**
 * How long the crawl of a probed shop will take at least: the fluid model the crawl plans its windows with
 * (chain-plan.ts) over its minimum requests, with `depth` chains, the bucket's room and Shopify's tier leak. A shop
 * without a limit is bound by its round trips alone.
 */
export function expectedCrawlMs(probe: ShopProbe, depth: number): number {
  const { pages, counts } = minimumRequests(probe.records, PAGE_LIMIT);
  const limited = probe.bucketMax !== undefined;
  return expectedFinishMs(
    {
      requests: pages.reduce((sum, n) => sum + n, counts),
      chains: depth,
      room: probe.bucketMax ?? 0,
      leakPerSecond: limited ? tierLeakPerSecond(probe.bucketMax as number) : Number.POSITIVE_INFINITY,
      workMs: pages.reduce((sum, n) => sum + n, counts) * probe.roundTripMs,
      depth,
      splittable: 0,
    },
    depth,
  );
}

/** A probe only orders the shops: a shop that takes longer to count is started without an estimate. */
const PROBE_TIMEOUT_MS = 10_000;
