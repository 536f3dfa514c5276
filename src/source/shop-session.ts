import PQueue from 'p-queue';
import { type Logger, stormGuard } from '../log.js';
import { COMPLETE_LIST_FILTERS, type ResourceName } from '../shopify/resources.js';
import { drainProvableAtMs } from './bucket-model.js';
import {
  type ChainWork,
  chainsToCut,
  chainsWorthRunning,
  closingPageLimit,
  lastSendMs,
  leakDecides,
  minPagesPerWindow,
  spreadChains,
} from './chain-plan.js';
import type { CrawlBarrier, CrawlResumeState } from './crawl-state.js';
import { CrawlAbortedError, ShopThrottledError } from './errors.js';
import { type CopyTiming, HedgedRequests, lateBeyondLeak } from './hedged-requests.js';
import { type CrawledRecord, readCount } from './list-page.js';
import { PAGE_LIMIT } from './page-size.js';
import {
  type Chain,
  type CrawlContext,
  type CrawlProgress,
  ResourceCrawl,
  type ResourceCrawlReport,
} from './resource-crawl.js';
import type { RetryPolicy } from './retry-policy.js';
import { type OpenExchange, type RetryEvent, ShopClient, shownUrl } from './shop-client.js';
import { formatFilterTime } from './windows.js';

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
  /** The API version the shop says answered (see ShopClientOptions.onApiVersion). */
  onApiVersion?(version: string): void;
  /**
   * A client to crawl through instead of a new one (its own options then apply): a restore reads and writes through
   * one client, so its crawl and its writes share one pacer and one picture of the bucket. Left open by close().
   */
  client?: ShopClient;
}

export interface ResourceCrawlHandle {
  /** Each record once, in no particular order; iterate once. A failure of the crawl is thrown from the iteration. */
  records: AsyncIterable<CrawledRecord>;
  /** The same records with the barriers asked for by requestBarrier; iterate this or `records`, not both. */
  items: AsyncIterable<CrawledRecord | CrawlBarrier>;
  /** Asks for a barrier in `items` (see CrawlBarrier): a point where the consumer can checkpoint. */
  requestBarrier(): void;
  /** Records handed over so far (earlier attempts of a resumed crawl included), and how many the count announced. */
  progress(): { exported: number; expected: number | undefined };
  /** Settles after the last record was handed over and the count after the crawl was taken. */
  report: Promise<ResourceCrawlReport>;
}

export interface ShopSession {
  /** Crawls a resource from the start, or from the state of a barrier of an earlier run. */
  crawl(resource: ResourceName, options?: { resume?: CrawlResumeState }): ResourceCrawlHandle;
  /**
   * The shop's count of a resource's records created or updated at or after `since` (`updated_at_min`, with the
   * crawl's own filters), and the requests it took.
   */
  countChangedSince(resource: ResourceName, since: Date): Promise<{ count: number; requests: number }>;
  /** Requests sent so far (retries included) and the pacer's picture of the bucket. */
  stats(): {
    requests: number;
    bucketUsed: number;
    bucketMax: number | undefined;
    leakPerSecond: number | undefined;
    /** Mean duration of the successful HTTP exchanges (pacing and retries excluded). */
    meanRoundTripMs: number | undefined;
  };
  /** The requests on the wire now, each with its resource and when it was sent (performance.now()). */
  unanswered(): OpenExchange[];
  /** Frees the keep-alive sockets. Call after the crawls have settled. */
  close(): void;
}

/**
 * One shop: one got client, one pacer and one queue of `depth` slots shared by every resource crawled, so all three
 * resources page in parallel without overrunning the shop's bucket. Whenever a page lands or a window ends, the
 * windows with the most work left are cut further if more chains are worth their extra requests (work stealing,
 * across resources).
 */
export function openShopSession(options: ShopSessionOptions): ShopSession {
  const depth = options.depth ?? 20;
  if (!Number.isInteger(depth) || depth < 1) throw new RangeError(`depth must be a positive integer: ${depth}`);
  const client =
    options.client ??
    new ShopClient({
      shopUrl: options.shopUrl,
      token: options.token,
      depth,
      signal: options.signal,
      requestTimeoutMs: options.requestTimeoutMs,
      retry: options.retry,
      onApiVersion: options.onApiVersion,
    });
  const queue = new PQueue({ concurrency: depth });
  const crawls = new Set<ResourceCrawl>();
  let requests = 0;
  let roundTripTotalMs = 0;
  let answered = 0;

  /**
   * The mean round trip of a page of `records` of a resource (a full page by default): its own pages' (a lower bound
   * while only smaller pages came back), or before any came back the slowest other resource's, which keeps that
   * crawl's share of the chains.
   */
  const pageMs = (resource: ResourceName, records = PAGE_LIMIT): number =>
    client.roundTrips.expectedMs('list', resource, records) ??
    Math.max(0, ...[...crawls].map((crawl) => client.roundTrips.expectedMs('list', crawl.resource, records) ?? 0));

  /** What a crawl still needs: its requests and their round trips summed (undefined until it knows its size). */
  const workOf = (crawl: ResourceCrawl): { requests: number; workMs: number } | undefined => {
    const ahead = crawl.ahead();
    if (ahead === undefined) return undefined;
    const countMs = client.roundTrips.expectedMs('count', crawl.resource, 0) ?? 0;
    return {
      requests: ahead.pages + ahead.counts,
      workMs: ahead.pages * pageMs(crawl.resource) + ahead.counts * countMs,
    };
  };

  /** What every crawl still needs; undefined while a crawl does not know its size. */
  const workAhead = (): { requests: number; workMs: number } | undefined => {
    let total = { requests: 0, workMs: 0 };
    for (const crawl of crawls) {
      const work = workOf(crawl);
      if (work === undefined) return undefined;
      total = { requests: total.requests + work.requests, workMs: total.workMs + work.workMs };
    }
    return total;
  };

  const sizeWaiters: Array<() => void> = [];
  const allSized = (): boolean => [...crawls].every((crawl) => crawl.ahead() !== undefined);
  const wakeSized = (): void => {
    if (!allSized()) return;
    for (const wake of sizeWaiters.splice(0)) wake();
    if (crawls.size > 0) probeBucket();
  };

  // A bucket's first answers look the same whether it leaks at its tier's rate or ten times that (a shop whose leak
  // is not its tier's): they all count requests sent together. Planned for the tier's guess, the crawl keeps few
  // chains until its second round of pages measures the leak, seconds in where pages take seconds. So where the guess
  // has the leak decide the crawl's finish and a page is still out once the opening requests can prove a drain,
  // one count goes out: its answer shows how many of them leaked meanwhile (BucketModel's drain proof), and the crawl
  // plans with what it proved. A bucket that does leak at its tier's rate is out one request of its leak. Where pages
  // come back sooner, their own rounds measure the leak as soon.
  let bucketProbed = false;
  let bucketProbe: NodeJS.Timeout | undefined;
  /** When the session's first request went on the wire: the opening requests' span starts then. */
  let firstSentMs: number | undefined;
  const probeBucket = (): void => {
    if (bucketProbed) return;
    const work = workAhead();
    const first = [...crawls][0];
    if (first === undefined || work === undefined) return;
    bucketProbed = true;
    if (!client.pacer.state().leakGuessed || !leakDecides(crawlModel(work))) return;
    // The counts that size the crawl are back, and the last opening requests, their first pages, go out with them.
    const now = performance.now();
    const waitMs = Math.max(0, drainProvableAtMs(firstSentMs ?? now, now) - now);
    bucketProbe = setTimeout(() => {
      bucketProbe = undefined;
      const pageOut = [...crawls].some(
        (crawl) => client.roundTrips.expectedMs('list', crawl.resource, PAGE_LIMIT) === undefined,
      );
      if (!pageOut || !client.pacer.state().leakGuessed) return;
      countOf(first.resource, COMPLETE_LIST_FILTERS[first.resource]).then(rebalance, () => undefined);
    }, waitMs);
    bucketProbe.unref();
  };

  /** The shop's crawl as chain-plan.ts models it: the work ahead, the chains running, the bucket. */
  const crawlModel = (work: { requests: number; workMs: number } | undefined) => {
    const bucket = client.pacer.state();
    let chains = 0;
    for (const crawl of crawls) for (const chain of crawl.chains) if (!chain.done) chains++;
    return {
      requests: work?.requests ?? 0,
      chains,
      room: bucket.room,
      leakPerSecond: bucket.planningLeakPerSecond,
      workMs: work?.workMs ?? 0,
      depth,
    };
  };

  /** Whether a request more costs the crawl no time: the leak does not decide its finish (chain-plan.ts). */
  const requestsFree = (): boolean => {
    const work = workAhead();
    return work !== undefined && !leakDecides(crawlModel(work));
  };

  /** A request sent now would go out at once: nothing waits for a slot, and one is free. */
  const slotFree = (): boolean => queue.size === 0 && queue.pending < depth;

  // Crawls waiting to learn whether their placement probe is worth its request (CrawlContext.placementWorthAsking):
  // settled at each rebalance, when a page lands or the bucket probe answers.
  const placementWaiters = new Set<{ wanted: () => boolean; settle: (worth: boolean) => void }>();
  const settlePlacements = (): void => {
    for (const waiter of placementWaiters) {
      const wanted = waiter.wanted();
      if (wanted && !(slotFree() && requestsFree())) continue;
      placementWaiters.delete(waiter);
      waiter.settle(wanted);
    }
  };

  /**
   * Pages asked for now, a chain's one at most (a hedge's second copy is not counted): in flight, or waiting for a slot
   * or the bucket, which never happens where a hedge may go (it needs a free slot and room).
   */
  const pagesInFlight = (): number => {
    let pages = 0;
    for (const crawl of crawls) for (const chain of crawl.chains) if (!chain.done && chain.asked > 0) pages++;
    return pages;
  };

  // A late page is asked for again only where that costs no other request its slot: a slot is free, nothing waits for
  // one and the bucket has room now. Where the leak decides the finish, the copy costs the requests after it a leak's
  // interval, so it goes only for a page likely to be the crawl's last answer (lateBeyondLeak).
  const hedges = new HedgedRequests((late) => {
    if (!slotFree() || client.pacer.state().room < 1) return false;
    const work = workAhead();
    if (work === undefined) return false;
    const model = crawlModel(work);
    return !leakDecides(model) || lateBeyondLeak(late, lastSendMs(model, pagesInFlight()));
  });

  // Cuts more windows when the model of chain-plan.ts expects them to finish the shop's crawl sooner, counting their
  // partial last pages against the bucket: the shop's crawls share one bucket and one set of slots. New windows go to
  // the chains that would finish last, at once (a page in flight is not waited for); a crawl that has not placed its
  // records yet keeps its share of the chains for when it has. While a crawl does not know its size, only a bucket
  // that never filled is a reason to cut: more work could only want more chains then, while against a leak it could
  // want fewer.
  const rebalance = (): void => {
    wakeSized();
    settlePlacements();
    const bucket = client.pacer.state();
    const work = workAhead();
    if (work === undefined && Number.isFinite(bucket.planningLeakPerSecond)) return;
    const open: Array<{ crawl: ResourceCrawl; chain: Chain } & ChainWork> = [];
    const unplanned = { workMs: 0, chains: 0 };
    for (const crawl of crawls) {
      for (const chain of crawl.chains) {
        if (chain.done) continue;
        if (crawl.planned)
          open.push({ crawl, chain, pages: crawl.remainingPages(chain), pageMs: pageMs(crawl.resource) });
        else unplanned.chains++;
      }
      if (!crawl.planned) unplanned.workMs += workOf(crawl)?.workMs ?? 0;
    }
    const crawl = crawlModel(work);
    const minPages = minPagesPerWindow(leakDecides(crawl));
    const wanted = chainsWorthRunning({ ...crawl, open, minPages });
    const extra = chainsToCut({ wanted, running: crawl.chains, unplanned, workMs: work?.workMs ?? 0 });
    if (extra <= 0) return;
    spreadChains(open, extra, minPages).forEach((windows, i) => {
      const entry = open[i];
      if (entry !== undefined && windows > 1) entry.crawl.split(entry.chain, windows);
    });
  };

  // Retries and 429s are told as they happen, but a storm of them in a few lines: per kind, one line per interval.
  const stormy = stormGuard(RETRY_LOG_INTERVAL_MS);
  const logRetry = (resource: ResourceName | undefined, event: RetryEvent): void => {
    const logger = options.logger;
    if (logger === undefined) return;
    const throttled = event.error instanceof ShopThrottledError;
    const what = resource ?? 'shop';
    stormy(throttled ? '429' : 'retry', (left) => {
      const waiting = `${(event.delayMs / 1000).toFixed(1)} s`;
      const more = left > 0 ? ` (${left} more since the last such line)` : '';
      logger.info(
        {
          resource,
          attempt: event.attempt,
          delay_ms: event.delayMs,
          error: event.error.message,
          ...(left > 0 ? { more: left } : {}),
        },
        throttled
          ? `${what}: the shop throttled a request (429); waiting ${waiting}${more}`
          : `${what}: ${event.error.message}; retrying in ${waiting}, attempt ${event.attempt + 1}${more}`,
      );
    });
  };

  const context: CrawlContext = {
    logger: options.logger,
    onProgress: options.onProgress,
    apiUrl: (path, query) => client.apiUrl(path, query),
    depth,
    rebalance,
    pageMs,
    placementWorthAsking: async (wanted) => {
      // The counts go out together; the bucket they leave shows only once they all answered.
      if (!allSized()) await new Promise<void>((resolve) => sizeWaiters.push(resolve));
      return new Promise<boolean>((settle) => {
        placementWaiters.add({ wanted, settle });
        settlePlacements();
      });
    },
    pageLimit: (resource, chainRecords) => {
      const work = workAhead();
      if (work === undefined || leakDecides(crawlModel(work))) return PAGE_LIMIT;
      return closingPageLimit(work.workMs, depth, pageMs(resource), PAGE_LIMIT, chainRecords);
    },
    request: (url, read, { priority, shape, onRetry, onHedge, wanted, onSent }) => {
      const send = (signal?: AbortSignal, timing?: CopyTiming) => {
        const askedMs = performance.now();
        let slotMs = askedMs;
        return queue
          .add(
            () => {
              slotMs = performance.now();
              requests++;
              return client
                .get(url, read, {
                  priority,
                  shape,
                  signal,
                  onSent: () => {
                    firstSentMs ??= performance.now();
                    timing?.sent();
                    onSent?.();
                  },
                  onRetry: (event) => {
                    requests++;
                    timing?.retrying();
                    onRetry(event);
                    logRetry(shape.resource, event);
                  },
                })
                .then((response) => {
                  // Where a request waited before the attempt that was answered left: for a slot, then for the
                  // bucket (the pacer, and any attempts before it).
                  const sentMs = performance.now() - response.elapsedMs;
                  options.logger?.debug(
                    {
                      resource: shape.resource,
                      url: shownUrl(url),
                      ms: Math.round(response.elapsedMs),
                      retries: response.retries,
                      slot_wait_ms: Math.round(slotMs - askedMs),
                      send_wait_ms: Math.round(sentMs - slotMs),
                    },
                    'request answered',
                  );
                  roundTripTotalMs += response.elapsedMs;
                  answered++;
                  return response;
                });
            },
            { priority, signal: options.signal },
          )
          .catch((error: unknown) => {
            // p-queue rejects queued work with a bare AbortError; the crawl reports one error class for cancellation.
            if (options.signal?.aborted && !(error instanceof CrawlAbortedError)) throw new CrawlAbortedError(error);
            throw error;
          });
      };
      if (shape.kind !== 'list') return send();
      const limit = Number(url.searchParams.get('limit') ?? PAGE_LIMIT);
      const typicalMs = () => client.roundTrips.typicalMs('list', shape.resource, limit);
      return hedges.run(send, { typicalMs, wanted, onHedge });
    },
  };

  /** A count outside any crawl, ahead of every page. */
  function countOf(resource: ResourceName, filters: Record<string, string>) {
    return context.request(client.apiUrl(`${resource}/count.json`, filters), readCount, {
      priority: Number.MAX_SAFE_INTEGER,
      shape: { kind: 'count', resource },
      onRetry: () => undefined,
      onHedge: () => undefined,
      wanted: () => false,
    });
  }

  return {
    crawl(resource, crawlOptions = {}) {
      const crawl = new ResourceCrawl(resource, context, crawlOptions.resume);
      crawls.add(crawl);
      const report = crawl.run().finally(() => {
        crawls.delete(crawl);
        wakeSized();
      });
      // The caller may only iterate the records; a failure then surfaces there, not as an unhandled rejection.
      report.catch(() => undefined);
      return {
        items: crawl.channel,
        records: recordsOf(crawl.channel),
        report,
        requestBarrier: () => crawl.requestBarrier(),
        progress: () => crawl.progress(),
      };
    },
    async countChangedSince(resource, since) {
      const filters = { ...COMPLETE_LIST_FILTERS[resource], updated_at_min: formatFilterTime(since.getTime()) };
      const response = await countOf(resource, filters);
      return { count: response.value, requests: 1 + response.retries };
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
    unanswered: () => client.unanswered(),
    close() {
      clearTimeout(bucketProbe);
      for (const waiter of placementWaiters) waiter.settle(false);
      placementWaiters.clear();
      queue.clear();
      if (options.client === undefined) client.close();
    },
  };
}

/** Retry and 429 lines of one kind at most this often (the rest are counted into the next). */
const RETRY_LOG_INTERVAL_MS = 10_000;

async function* recordsOf(items: AsyncIterable<CrawledRecord | CrawlBarrier>): AsyncIterable<CrawledRecord> {
  for await (const item of items) {
    if ('barrier' in item) item.release();
    else yield item;
  }
}
