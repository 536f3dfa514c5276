/**
 * Where a windowed crawl stands, in JSON-safe form, at a barrier: every record it handed over before the barrier has
 * been consumed, and nothing after. A crawl started from this state fetches exactly the records not yet handed over.
 */
export interface CrawlResumeState {
  countBefore: number;
  exported: number;
  duplicatesDropped: number;
  pages: number;
  retries: number;
  windowsUsed: number;
  /** Records per ms of created_at and the expected end of the data, as planned by the first attempt. */
  density: number;
  horizonMs: number;
  /** The unfinished since_id chains. */
  chains: {
    minMs?: number | undefined;
    maxMs?: number | undefined;
    /** Exact decimal id: every record of the window up to it was handed over. */
    sinceId: string;
    reachedMs?: number | undefined;
    firstCreatedMs?: number | undefined;
    records: number;
  }[];
  /** Seconds of created_at where adjacent windows overlap (see windows.ts). */
  edgeSeconds: number[];
  /** Ids already handed over whose created_at lies in such a second: another window may list them again. */
  edgeIds: string[];
}

/**
 * A marker in a crawl's item stream, sent when asked for (requestBarrier): every chain is paused after its last page
 * and every record before the marker was handed over. `state` is undefined for a crawl that cannot resume (one Link
 * chain). The crawl continues once the consumer calls release().
 */
export interface CrawlBarrier {
  barrier: true;
  state: CrawlResumeState | undefined;
  release(): void;
}
