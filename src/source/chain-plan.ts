/**
 * How many `since_id` chains a shop's crawl is worth. A chain is a created_at window, and every window ends with a
 * partial page: on average half a request more than one window holding the same records. Whether that request buys
 * anything depends on the bucket. The finish time is the later of two limits (a fluid model of the crawl):
 *
 * - **the chains:** each chain sends one request per round trip of that request's own kind (a count answers in a
 *   fraction of a second, a page of 250 orders in about two), so `work / chains`, where the work is the sum of the
 *   round trips ahead (with a margin for jitter and for chains that end unevenly);
 * - **the bucket:** once its free room is spent, requests leave at the leak rate, so `(requests − room) / leak`.
 *
 * More chains shorten the first and lengthen the second (their extra requests). On a Plus shop or one without a limit
 * the first decides, and the crawl gets every chain it can use; on a Basic shop (40 leaking 2/s) a single chain per
 * resource already outruns the leak, and the bucket decides from the first second: no extra window pays for itself.
 */
export interface ChainPlanInput {
  /** Requests the crawl still needs with the chains it has: pages ahead (partial last pages too) and counts after. */
  requests: number;
  /** Chains running (or about to run) now. */
  chains: number;
  /** Requests the bucket takes before it is full (its size less the headroom and its level). */
  room: number;
  /** Requests per second the bucket leaks; Infinity when nothing suggests it limits us. */
  leakPerSecond: number;
  /** The round trips of those requests, summed: what one chain would take for them all. */
  workMs: number;
  /** Most chains the crawl may run: the requests in flight it allows. */
  depth: number;
  /** Most chains the remaining work can be cut into (a window needs a few pages to be worth its partial page). */
  splittable: number;
}

/** Expected requests an extra window adds: its partial last page. */
export const REQUESTS_PER_EXTRA_CHAIN = 0.5;
/** Chains end unevenly and round trips jitter: the chains' limit is stretched by this much. */
export const CHAIN_MARGIN = 1.25;
/** More chains must shorten the expected finish by this share, or the estimate's noise would buy windows for nothing. */
const WORTHWHILE_GAIN = 0.1;

/** Expected ms until the crawl finishes with `chains` chains (the fluid model above). */
export function expectedFinishMs(input: ChainPlanInput, chains: number): number {
  const requests = input.requests + REQUESTS_PER_EXTRA_CHAIN * Math.max(0, chains - input.chains);
  // An extra window's partial page takes about an average request's round trip.
  const workMs = input.requests > 0 ? (input.workMs * requests) / input.requests : 0;
  const byChains = (workMs * CHAIN_MARGIN) / chains;
  const byBucket = ((requests - input.room) * 1000) / input.leakPerSecond;
  return Math.max(byChains, Number.isFinite(byBucket) ? byBucket : 0);
}

/** The number of chains to run: the current ones, or more when they finish the crawl clearly sooner. */
export function chainsWorthRunning(input: ChainPlanInput): number {
  const current = Math.max(1, input.chains);
  const most = Math.min(input.depth, current + input.splittable);
  let best = current;
  let bestMs = expectedFinishMs(input, current);
  for (let chains = current + 1; chains <= most; chains++) {
    const ms = expectedFinishMs(input, chains);
    if (ms < bestMs) {
      best = chains;
      bestMs = ms;
    }
  }
  return bestMs < expectedFinishMs(input, current) * (1 - WORTHWHILE_GAIN) ? best : current;
}

/**
 * Pages a window should hold at least: below that its partial last page is a large share of it. Where the bucket has
 * room for every request still needed, a partial page costs only its round trip, and the crawl's end waits on whole
 * windows: there a window may hold two.
 */
export function minPagesPerWindow(bucketHasRoomForAll: boolean): number {
  return bucketHasRoomForAll ? 2 : 3;
}

/** An open chain as the planner sees it: the pages it probably has left and the round trip of one of them. */
export interface ChainWork {
  pages: number;
  pageMs: number;
}

/** Windows the remaining work of these chains can still be cut into, beyond `windows` each. */
export function splittableChains(chains: readonly ChainWork[], windows: readonly number[], minPages: number): number {
  return chains.reduce((sum, { pages }, i) => sum + Math.max(0, Math.floor(pages / minPages) - (windows[i] ?? 1)), 0);
}

/**
 * Hands `extra` more windows to these chains, each already cut into `windows`: every one to the chain with the most
 * work per window (the one that would finish last: pages times their round trip, so a chain of orders pages outweighs
 * one of as many customers pages), as long as its windows keep a few pages each.
 */
export function spreadChains(
  chains: readonly ChainWork[],
  windows: readonly number[],
  extra: number,
  minPages: number,
): number[] {
  const result = chains.map((_, i) => windows[i] ?? 1);
  const perWindow = (i: number) =>
    ((chains[i] as ChainWork).pages * (chains[i] as ChainWork).pageMs) / (result[i] as number);
  for (let left = extra; left > 0; left--) {
    let best = -1;
    for (let i = 0; i < chains.length; i++) {
      if ((chains[i] as ChainWork).pages / ((result[i] as number) + 1) < minPages) continue;
      if (best < 0 || perWindow(i) > perWindow(best)) best = i;
    }
    if (best < 0) break;
    result[best] = (result[best] as number) + 1;
  }
  return result;
}

/** The fewest requests a complete crawl needs: full pages of `pageLimit`, plus a count before and after each resource. */
export function minimumRequests(
  recordCounts: readonly number[],
  pageLimit: number,
): { pages: number[]; counts: number } {
  return { pages: recordCounts.map((n) => Math.max(1, Math.ceil(n / pageLimit))), counts: 2 * recordCounts.length };
}
