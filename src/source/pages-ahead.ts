const PAGES_AHEAD_MARGIN = 2;

/**
 * While the consumer is behind (a page waits to be handed over, or the channel holds a page's worth of records),
 * chains send a request only if fewer pages are waiting or in flight than this: the pages the consumer gets through
 * during one round trip, plus a margin. Without a limit, a shop that answers faster than the records are written
 * leaves every chain holding a page (2.6 MB of orders each, 20 chains or more); a shop slower than the consumer still
 * gets every chain's request. The round trip is the mean one of a full page (round-trips.ts, whose tail is capped, so
 * one stall does not move it far): the fastest one, on a shop whose pages vary threefold, held a real shop's orders to
 * a third of their chains. The consumer's pace is its own time per page, not the time between pages arriving:
 * pages that arrive slowly because of this limit would lower it further. Until the consumer has shown its pace, only
 * the chains bound the pages: a limit guessed then held the first round of a crawl's pages back for seconds (a writer's
 * first page, which pays for its start, took 1.7 s; the next ones 0.1-0.2).
 */
export function pagesAheadLimit(roundTripMs: number | undefined, consumerMsPerPage: number | undefined): number {
  if (consumerMsPerPage === undefined) return Number.POSITIVE_INFINITY;
  return PAGES_AHEAD_MARGIN + Math.ceil((roundTripMs ?? 0) / Math.max(1, consumerMsPerPage));
}
