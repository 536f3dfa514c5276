import type { ResourceName } from '../shopify/resources.js';
import type { CrawlProgress } from '../source/index.js';

/**
 * Rates are measured over this much recent time, not since the process started: a lease wait, a finished burst or a
 * stall long ago says nothing about how fast records come now.
 */
export const RATE_WINDOW_MS = 20_000;
/** Less time than this gives no rate (the first pages of a crawl arrive in bursts). */
const MIN_RATE_SPAN_MS = 2_000;

/** What the board reads from the live shop session: the shop-wide bucket and the requests awaiting an answer. */
export interface ShopActivity {
  bucket(): { used: number; max: number | undefined };
  unanswered(): ReadonlyArray<{ resource: ResourceName | undefined; sentMs: number }>;
}

export interface ResourceView {
  resource: ResourceName;
  /** waiting: not started; crawling (the count may still be unknown); done (by this run or an earlier attempt). */
  state: 'waiting' | 'crawling' | 'done';
  /** Done by an earlier attempt of this (resumed) snapshot. */
  earlier: boolean;
  records: number;
  expected: number | undefined;
  pages: number;
  retries: number;
  /** Records per second over the recent window; undefined while the window is too short, and once done. */
  rate: number | undefined;
  /** Seconds left at that rate; undefined without a count or a positive rate. */
  etaSeconds: number | undefined;
  /** Requests of this resource sent and not answered yet, and how long the oldest has waited. */
  unanswered: number;
  oldestUnansweredMs: number | undefined;
  /** Time spent crawling in this run (until done). */
  elapsedMs: number;
}

export interface BoardView {
  resources: ResourceView[];
  /** The shop's one bucket, shared by every resource; undefined before the session is up. */
  bucket: { used: number; max: number | undefined } | undefined;
}

interface Entry {
  progress: Omit<CrawlProgress, 'resource'>;
  startedMs: number | undefined;
  doneMs: number | undefined;
  earlier: boolean;
  /** (time, records) seen in the last window, plus the newest one before it. */
  samples: Array<{ atMs: number; records: number }>;
}

/**
 * The live state of one backup, fed by the crawl's progress and the resources' ends, read by the terminal display and
 * the periodic stats lines alike. Times are on one monotonic clock (`now`).
 */
export class ProgressBoard {
  private readonly entries = new Map<ResourceName, Entry>();
  private shop: ShopActivity | undefined;
  /** The bucket as last seen: shown still once the session is closed. */
  private bucket: { used: number; max: number | undefined } | undefined;

  constructor(
    readonly resources: readonly ResourceName[],
    private readonly now: () => number = () => performance.now(),
  ) {
    for (const resource of resources) {
      this.entries.set(resource, {
        progress: { pages: 0, records: 0, expected: undefined, retries: 0 },
        startedMs: undefined,
        doneMs: undefined,
        earlier: false,
        samples: [],
      });
    }
  }

  /** The session whose bucket and open requests the board shows (the backup attaches it once it exists). */
  attach(shop: ShopActivity | undefined): void {
    this.shop = shop;
  }

  update(progress: CrawlProgress): void {
    const entry = this.entries.get(progress.resource);
    if (entry === undefined || entry.doneMs !== undefined) return;
    const now = this.now();
    entry.startedMs ??= now;
    entry.progress = progress;
    entry.samples.push({ atMs: now, records: progress.records });
    const windowStart = now - RATE_WINDOW_MS;
    // Keep one sample at or before the window's start: the base the rate is measured from.
    while (entry.samples.length > 2 && (entry.samples[1]?.atMs ?? now) <= windowStart) entry.samples.shift();
  }

  /** The resource is finished: by this run, or (`earlier`) by an earlier attempt of the resumed snapshot. */
  done(resource: ResourceName, totals: { records: number; expected: number }, earlier = false): void {
    const entry = this.entries.get(resource);
    if (entry === undefined) return;
    const now = this.now();
    entry.startedMs ??= now;
    entry.doneMs = now;
    entry.earlier = earlier;
    entry.progress = { ...entry.progress, records: totals.records, expected: totals.expected };
  }

  view(): BoardView {
    const now = this.now();
    const open = this.shop?.unanswered() ?? [];
    const resources = this.resources.map((resource) => {
      const entry = this.entries.get(resource) as Entry;
      const mine = open.filter((request) => request.resource === resource);
      const oldest = mine.reduce((min, request) => Math.min(min, request.sentMs), Number.POSITIVE_INFINITY);
      const { records, expected, pages, retries } = entry.progress;
      const done = entry.doneMs !== undefined;
      const rate = done ? undefined : recentRate(entry.samples, now);
      const left = expected === undefined ? undefined : Math.max(0, expected - records);
      return {
        resource,
        state: done ? 'done' : entry.startedMs === undefined ? 'waiting' : 'crawling',
        earlier: entry.earlier,
        records,
        expected,
        pages,
        retries,
        rate,
        etaSeconds: left !== undefined && rate !== undefined && rate > 0 ? left / rate : undefined,
        unanswered: mine.length,
        oldestUnansweredMs: mine.length === 0 ? undefined : now - oldest,
        elapsedMs: entry.startedMs === undefined ? 0 : (entry.doneMs ?? now) - entry.startedMs,
      } satisfies ResourceView;
    });
    this.bucket = this.shop?.bucket() ?? this.bucket;
    return { resources, bucket: this.bucket };
  }
}

/** Records per second from the window's base sample to now (a stalled crawl decays to 0 within the window). */
export function recentRate(samples: ReadonlyArray<{ atMs: number; records: number }>, now: number): number | undefined {
  const windowStart = now - RATE_WINDOW_MS;
  const last = samples.at(-1);
  let base = samples[0];
  for (const sample of samples) if (sample.atMs <= windowStart) base = sample;
  if (base === undefined || last === undefined || now - base.atMs < MIN_RATE_SPAN_MS) return undefined;
  return ((last.records - base.records) * 1000) / (now - base.atMs);
}
