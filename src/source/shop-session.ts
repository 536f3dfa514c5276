import PQueue from 'p-queue';
import type { Logger } from '../log.js';
import type { ResourceName } from '../shopify/resources.js';
import type { CrawlBarrier, CrawlResumeState } from './crawl-state.js';
import { CrawlAbortedError } from './errors.js';
import type { CrawledRecord } from './list-page.js';
import {
  type Chain,
  type CrawlContext,
  type CrawlProgress,
  MIN_PAGES_TO_SPLIT,
  ResourceCrawl,
  type ResourceCrawlReport,
} from './resource-crawl.js';
import type { RetryPolicy } from './retry-policy.js';
import { ShopClient } from './shop-client.js';

/** Extra chains over the bare leak × latency product, against latency jitter. */
const CONCURRENCY_MARGIN = 1.5;

export interface ShopSessionOptions {
  /** Origin of the shop, e.g. https://x.myshopify.com or http://127.0.0.1:1234. */
  shopUrl: string;
  token: string;
  /** Most requests in flight for this shop (default 20). */
  depth?: number;
  signal?: AbortSignal;
  onProgress?(progress: CrawlProgress): void;
  logger?: Logger;
  /** Total deadline of one HTTP exchange in ms (default 120 000). */
  requestTimeoutMs?: number;
  /** Overrides of the retry policy (tests shorten the delays). */
  retry?: Partial<RetryPolicy>;
}

export interface ResourceCrawlHandle {
  /** Each record once, in no particular order; iterate once. A failure of the crawl is thrown from the iteration. */
  records: AsyncIterable<CrawledRecord>;
  /** The same records with the barriers asked for by requestBarrier; iterate this or `records`, not both. */
  items: AsyncIterable<CrawledRecord | CrawlBarrier>;
  /** Asks for a barrier in `items` (see CrawlBarrier): a point where the consumer can checkpoint. */
  requestBarrier(): void;
  /** Settles after the last record was handed over and the count after the crawl was taken. */
  report: Promise<ResourceCrawlReport>;
}

export interface ShopSession {
  /** Crawls a resource from the start, or from the state of a barrier of an earlier run. */
  crawl(resource: ResourceName, options?: { resume?: CrawlResumeState }): ResourceCrawlHandle;
  /** Requests sent so far (retries included) and the pacer's picture of the bucket. */
  stats(): {
    requests: number;
    bucketUsed: number;
    bucketMax: number | undefined;
    leakPerSecond: number | undefined;
    /** Mean duration of the successful HTTP exchanges (pacing and retries excluded). */
    meanRoundTripMs: number | undefined;
  };
  /** Frees the keep-alive sockets. Call after the crawls have settled. */
  close(): void;
}

/**
 * One shop: one got client, one pacer and one queue of `depth` slots shared by every resource crawled, so all three
 * resources page in parallel without overrunning the shop's bucket. When a window finishes and a slot falls idle,
 * the window with the most work left is split (work stealing), across resources.
 */
export function openShopSession(options: ShopSessionOptions): ShopSession {
  const depth = options.depth ?? 20;
  if (!Number.isInteger(depth) || depth < 1) throw new RangeError(`depth must be a positive integer: ${depth}`);
  const client = new ShopClient({
    shopUrl: options.shopUrl,
    token: options.token,
    depth,
    signal: options.signal,
    requestTimeoutMs: options.requestTimeoutMs,
    retry: options.retry,
  });
  const queue = new PQueue({ concurrency: depth });
  const crawls = new Set<ResourceCrawl>();
  let requests = 0;
  let latencyMs: number | undefined;
  let roundTripTotalMs = 0;
  let answered = 0;

  // Chains needed to keep the bucket draining: leak × round trip, with a margin for jitter. Until the leak rate has
  // been measured, all `depth`.
  const concurrencyTarget = (): number => {
    const bucket = client.pacer.state();
    if (!bucket.leakMeasured || bucket.leakPerSecond === undefined || latencyMs === undefined) return depth;
    const needed = Math.ceil((bucket.leakPerSecond * latencyMs * CONCURRENCY_MARGIN) / 1000) + 1;
    return Math.max(1, Math.min(depth, needed));
  };

  // A slot is worth a split when chains are too few to keep the bucket draining, or when the largest chain alone
  // would outlast draining all remaining work at the leak rate (it is the critical path). Each split costs about
  // half a request (one more partial last page), so no split happens otherwise.
  const rebalance = (): void => {
    let running = 0;
    let remaining = 0;
    for (const crawl of crawls) {
      for (const chain of crawl.chains) {
        if (chain.done) continue;
        running++;
        remaining += crawl.remainingPages(chain);
      }
    }
    const target = concurrencyTarget();
    const leak = client.pacer.state().leakPerSecond;
    for (;;) {
      let best: { crawl: ResourceCrawl; chain: Chain; pages: number } | undefined;
      for (const crawl of crawls) {
        for (const chain of crawl.chains) {
          if (chain.splitRequested) continue;
          const pages = crawl.remainingPages(chain);
          if (pages >= MIN_PAGES_TO_SPLIT && pages > (best?.pages ?? 0)) best = { crawl, chain, pages };
        }
      }
      if (!best) return;
      const criticalPath =
        leak !== undefined && latencyMs !== undefined && best.pages * latencyMs > (remaining / leak) * 1000 + latencyMs;
      if (running >= target && !criticalPath) return;
      best.crawl.requestSplit(best.chain);
      running++;
    }
  };

  const context: CrawlContext = {
    concurrencyTarget,
    logger: options.logger,
    onProgress: options.onProgress,
    apiUrl: (path, query) => client.apiUrl(path, query),
    bucket: () => client.pacer.state(),
    rebalance,
    request: (url, read, priority, onRetry) =>
      queue
        .add(
          () => {
            requests++;
            return client
              .get(url, read, (event) => {
                requests++;
                onRetry(event);
              })
              .then((response) => {
                roundTripTotalMs += response.elapsedMs;
                answered++;
                latencyMs = latencyMs === undefined ? response.elapsedMs : 0.8 * latencyMs + 0.2 * response.elapsedMs;
                return response;
              });
          },
          { priority, signal: options.signal },
        )
        .catch((error: unknown) => {
          // p-queue rejects queued work with a bare AbortError; the crawl reports one error class for cancellation.
          if (options.signal?.aborted && !(error instanceof CrawlAbortedError)) throw new CrawlAbortedError(error);
          throw error;
        }),
  };

  return {
    crawl(resource, crawlOptions = {}) {
      const crawl = new ResourceCrawl(resource, context, crawlOptions.resume);
      crawls.add(crawl);
      const report = crawl.run().finally(() => crawls.delete(crawl));
      // The caller may only iterate the records; a failure then surfaces there, not as an unhandled rejection.
      report.catch(() => undefined);
      return {
        items: crawl.channel,
        records: recordsOf(crawl.channel),
        report,
        requestBarrier: () => crawl.requestBarrier(),
      };
    },
    stats() {
      const bucket = client.pacer.state();
      return {
        requests,
        bucketUsed: bucket.used,
        bucketMax: bucket.max,
        leakPerSecond: bucket.leakPerSecond,
        meanRoundTripMs: answered === 0 ? undefined : roundTripTotalMs / answered,
      };
    },
    close() {
      queue.clear();
      client.close();
    },
  };
}

async function* recordsOf(items: AsyncIterable<CrawledRecord | CrawlBarrier>): AsyncIterable<CrawledRecord> {
  for await (const item of items) {
    if ('barrier' in item) item.release();
    else yield item;
  }
}
