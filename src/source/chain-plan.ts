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
 * - **the longest chain:** a chain's pages come one after another, so no sooner than the most work any one window
 *   keeps once the new windows went where the work is (spreadChains).
 *
 * More chains shorten the first and lengthen the second (their extra requests). On a Plus shop or one without a limit
 * the first decides, and the crawl gets every chain it can use; on a Basic shop (40 leaking 2/s) a single chain per
 * resource already outruns the leak, and the bucket decides from the first second: no extra window pays for itself.
 *
 * No more chains run at once than the depth allows, but where windows are free (the leak does not decide) a crawl may
 * hold more: the extra ones wait for a slot, the chain with the most work left first (its request's priority), so they
 * add no throughput (the chains' term counts the depth at most) and pay only where they shorten the longest chain,
 * which bounds them: about a window per chain more than the depth. The first plan rests on round trips not yet
 * measured per resource; once they are, the resource whose pages take longest (orders: 2.35 s a page where customers
 * take 1.1 s) is found holding the longest chains, and only windows beyond the depth can even them out before chains
 * end.
 */
export interface CrawlModel {
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
  /** The requests in flight the crawl allows: most chains running at once. */
  depth: number;
}

export interface ChainPlanInput extends CrawlModel {
  /** The chains that can be cut, with their work ahead. */
  open: readonly ChainWork[];
  /** Pages a window must keep at least (minPagesPerWindow). */
  minPages: number;
}

/** Expected requests an extra window adds: its partial last page. */
const REQUESTS_PER_EXTRA_CHAIN = 0.5;
/** Chains end unevenly and round trips jitter: the chains' limit is stretched by this much. */
export const CHAIN_MARGIN = 1.1;
/**
 * Where the leak decides, more chains must shorten the expected finish by this share, or the estimate's noise would
 * buy windows whose partial pages cost requests for nothing.
 */
const WORTHWHILE_GAIN = 0.1;
/** A gain smaller than this is worth no request, wherever the bucket stands (a shop answering in milliseconds). */
const WORTHWHILE_MS = 250;

/** Ms until the leak lets the last of `requests` go once the bucket's room is spent (negative: room to spare). */
function leakMs(input: CrawlModel, requests: number): number {
  const ms = ((requests - input.room) * 1000) / input.leakPerSecond;
  return Number.isFinite(ms) ? ms : 0;
}

/** Expected ms until the crawl finishes with `chains` chains, by the chains and by the bucket (the fluid model above). */
function finishTerms(input: CrawlModel, chains: number): { byChains: number; byBucket: number } {
  // An extra window's partial page holds records the crawl fetches anyway: it adds a request, not work.
  const requests = input.requests + REQUESTS_PER_EXTRA_CHAIN * Math.max(0, chains - input.chains);
  const running = Math.min(chains, Math.max(1, input.depth));
  return { byChains: (input.workMs * CHAIN_MARGIN) / running, byBucket: leakMs(input, requests) };
}

/** The most work one window keeps once `extra` new windows went where the work is. */
function longestChainMs(input: ChainPlanInput, extra: number): number {
  const windows = spreadChains(input.open, extra, input.minPages);
  const longest = input.open.reduce(
    (most, { pages, pageMs }, i) => Math.max(most, (pages * pageMs) / (windows[i] ?? 1)),
    0,
  );
  return longest * CHAIN_MARGIN;
}

/** Expected ms until the crawl finishes with `chains` chains (the model above). */
export function expectedFinishMs(input: ChainPlanInput, chains: number): number {
  const { byChains, byBucket } = finishTerms(input, chains);
  return Math.max(byChains, byBucket, longestChainMs(input, Math.max(0, chains - input.chains)));
}

/**
 * Whether the leak, not the chains, would decide the finish even with every chain the depth allows. Where it does
 * not, a window's partial page costs a fraction of a round trip and no time: windows are free.
 */
export function leakDecides(input: CrawlModel): boolean {
  const { byChains, byBucket } = finishTerms(input, Math.max(1, input.depth));
  return byBucket > byChains;
}

/**
 * Ms from now until the leak lets the last request the crawl still needs go out (0 where the room takes them all). The
 * requests in flight are among those ahead (each chain's page out, and its partial last page), but the bucket's level
 * already holds them: `inFlight` are left out.
 */
export function lastSendMs(input: CrawlModel, inFlight: number): number {
  return Math.max(0, leakMs(input, Math.max(0, input.requests - inFlight)));
}

/** The number of chains to run: the current ones, or more when they finish the crawl sooner (see WORTHWHILE_GAIN). */
export function chainsWorthRunning(input: ChainPlanInput): number {
  const current = Math.max(1, input.chains);
  const windows = current + splittableChains(input.open, input.minPages);
  const most = leakDecides(input) ? Math.min(input.depth, windows) : windows;
  const currentMs = expectedFinishMs(input, current);
  let best = current;
  let bestMs = currentMs;
  for (let chains = current + 1; chains <= most; chains++) {
    const ms = expectedFinishMs(input, chains);
    if (ms < bestMs) {
      best = chains;
      bestMs = ms;
    }
  }
  if (best === current || currentMs - bestMs < WORTHWHILE_MS) return current;
  const terms = finishTerms(input, best);
  const free = terms.byBucket <= Math.max(terms.byChains, longestChainMs(input, best - current));
  return free || bestMs < currentMs * (1 - WORTHWHILE_GAIN) ? best : current;
}

/**
 * New windows to cut now, of the `wanted` chains for the shop: a crawl that has not placed its records yet (it cannot be
 * cut) keeps its share of them by its work, for when it has; the chains it already runs count towards that share.
 * Counted twice, the share of the crawl planned first would shrink by the others' first chains, and that crawl would
 * finish last (with more work per window than the others).
 */
export function chainsToCut(input: {
  wanted: number;
  /** Chains running now, the unplanned crawls' included. */
  running: number;
  /** The crawls not planned yet: their work ahead and the chains they run. */
  unplanned: { workMs: number; chains: number };
  /** The work ahead of every crawl. */
  workMs: number;
}): number {
  const share = input.workMs > 0 ? Math.round((input.wanted * input.unplanned.workMs) / input.workMs) : 0;
  return input.wanted - input.running - Math.max(0, share - input.unplanned.chains);
}

/**
 * Pages a window should hold at least. Where the leak decides, a partial last page costs a request's worth of the
 * leak, which the fluid model weighs (REQUESTS_PER_EXTRA_CHAIN), but a window of less than a page is all partial page;
 * elsewhere half a page is worth its round trip: at a crawl's end, a chain with a page and a half left finishes a page
 * sooner as three windows.
 */
export function minPagesPerWindow(leakDecidesFinish: boolean): number {
  return leakDecidesFinish ? 1 : 0.5;
}

/** An open chain as the planner sees it: the pages it probably has left and the round trip of one of them. */
export interface ChainWork {
  pages: number;
  pageMs: number;
}

/** Windows the remaining work of these chains can still be cut into, beyond the one each has. */
export function splittableChains(chains: readonly ChainWork[], minPages: number): number {
  return chains.reduce((sum, { pages }) => sum + Math.max(0, Math.floor(pages / minPages) - 1), 0);
}

/**
 * Hands `extra` more windows to these chains: every one to the chain with the most work per window (the one that
 * would finish last: pages times their round trip, so a chain of orders pages outweighs one of as many customers
 * pages), as long as its windows keep `minPages` each. The windows per chain, 1 where it stays whole.
 */
export function spreadChains(chains: readonly ChainWork[], extra: number, minPages: number): number[] {
  const result = chains.map(() => 1);
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

/** Pages in a row a slot should still have ahead before its pages shrink (see closingPageLimit). */
const CLOSING_PAGES = 2;
/** The smallest page at a crawl's end: each page also costs its round trip's fixed part. */
const SMALLEST_CLOSING_PAGE = 50;
/** A chain's last page asks for this many times the records its window is expected to hold still. */
const LAST_PAGE_MARGIN = 1.5;

/**
 * Records a full-sized page asks for at a crawl's end, where windows are free (the leak does not decide). A crawl ends
 * when its last page comes back, and the slots done before it idle, about half a page each on average: the less work
 * is left per slot, the smaller the pages, so that the slots finish together. With CLOSING_PAGES full pages of work
 * per slot or more ahead, full pages; below, pages shrink with the work, to no fewer than SMALLEST_CLOSING_PAGE. With
 * one slot nothing idles, and where half a page takes less than WORTHWHILE_MS nothing is gained.
 *
 * A smaller page helps only by leaving the rest of its window to other windows; the chain's own pages follow one
 * another, each with its round trip's fixed part. A window of less than a full page is never cut where windows are
 * free (minPagesPerWindow), so no other window takes part of it: a chain whose window holds about a page or less
 * (`chainRecords`) asks for all of it, with LAST_PAGE_MARGIN up to a full page: one round trip instead of two in a row.
 */
export function closingPageLimit(
  workMs: number,
  slots: number,
  pageMs: number,
  fullPage: number,
  chainRecords: number,
): number {
  const workMsPerSlot = workMs / slots;
  if (slots < 2 || pageMs / 2 < WORTHWHILE_MS || workMsPerSlot >= CLOSING_PAGES * pageMs) return fullPage;
  const share = workMsPerSlot / (CLOSING_PAGES * pageMs);
  const closing = Math.max(SMALLEST_CLOSING_PAGE, Math.min(fullPage, Math.ceil(fullPage * share)));
  if (chainRecords > fullPage) return closing;
  return Math.max(closing, Math.min(fullPage, Math.ceil(chainRecords * LAST_PAGE_MARGIN)));
}

/** The fewest requests a complete crawl needs: full pages of `pageLimit`, plus a count before and after each resource. */
export function minimumRequests(
  recordCounts: readonly number[],
  pageLimit: number,
): { pages: number[]; counts: number } {
  return { pages: recordCounts.map((n) => Math.max(1, Math.ceil(n / pageLimit))), counts: 2 * recordCounts.length };
}
