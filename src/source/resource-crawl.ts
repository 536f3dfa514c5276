import { crashPoint } from '../crash-point.js';
import { count } from '../human.js';
import type { Logger } from '../log.js';
import { COMPLETE_LIST_FILTERS, type ResourceName } from '../shopify/resources.js';
import type { CrawlBarrier, CrawlResumeState } from './crawl-state.js';
import { CursorLoopError } from './errors.js';
import { IdSet } from './id-set.js';
import { parseNextLink } from './link-header.js';
import { type CrawledRecord, type ListedRecord, readCount, scanListPage } from './list-page.js';
import { HeldCopies } from './newest-copy.js';
import { FULL_PAGES, PAGE_LIMIT, type PageSize, pageSizeAfter } from './page-size.js';
import { pagesAheadLimit } from './pages-ahead.js';
import { RecordChannel } from './record-channel.js';
import { type RequestKind, roundTripPassed } from './round-trips.js';
import type { BodyReader, RequestShape, RetryEvent, ShopResponse } from './shop-client.js';
import {
  type CreatedWindow,
  cutWindow,
  firstWindowRecords,
  inWindow,
  placeRest,
  spacingDensity,
  windowFilters,
} from './windows.js';

/**
 * Records of the placement probe, sent beside the first full page of a resource too large for one page once a request
 * more costs the crawl no time (CrawlContext.placementWorthAsking): a few records, answered in a fraction of a full
 * page's time, tell where the records begin and how densely, so every window can start a round trip of a full page
 * sooner. It costs one request more than full pages alone, which where the leak decides is the leak's time (on
 * Advanced, 80 at 4/s, three probes cost 0.75 s and saved about 0.35 s of a bucket idle at the start). Where the
 * bucket proves it leaks faster than its tier's guess while the first pages are out (a 40 bucket leaking 20/s), the
 * probe goes then.
 */
const PROBE_LIMIT = 25;
const PROBE_FIELDS = 'id,created_at';
/**
 * Pages a crawl holds beyond a round of its shop's depth: received, buffered for the consumer or in flight together
 * (pageRoom). The buffer between the crawl and the consumer holds a round of pages: a chain hands its page over
 * before it asks for the next one, and with a buffer of 2 pages the chains of a round that landed together waited
 * until the writer had taken their records (0.1–1.4 s a page; 12–14 of 350 slot-seconds on the Plus row of the crawl
 * bench), the very wait the pages-ahead limit exists to decide.
 */
const PAGES_BEYOND_DEPTH = 2;
/** Windows with a created_at_min whose records prove the shop honours created_at (see windowProofs). */
const WINDOW_PROOFS = 2;

export interface ResourceCrawlReport {
  resource: ResourceName;
  /** Filters sent on every list and count request (the complete-list filters). */
  filters: Record<string, string>;
  countBefore: number;
  countAfter: number;
  /** Records emitted (each id once). */
  exported: number;
  /** Copies of already emitted ids that were fetched again and dropped. */
  duplicatesDropped: number;
  /** HTTP requests sent for this resource, retries included. */
  requests: number;
  /** List pages received. */
  pages: number;
  retries: number;
  /** Second copies of late pages sent in this run (hedged-requests.ts), counted in `requests`. */
  hedges: number;
  strategy: string;
}

/**
 * Where a crawl stands: told when it starts, when its count arrives, after each page handed over and at each retry.
 * Pages and records move together: a page counts once its records are handed over (or held back as a newest copy).
 */
export interface CrawlProgress {
  resource: ResourceName;
  pages: number;
  records: number;
  /** Records the count endpoint announced before the crawl (undefined until known). */
  expected: number | undefined;
  retries: number;
}

/** What a resource crawl needs from its session: the shared queue, pacer and client, and the work stealer. */
export interface CrawlContext {
  request<T>(url: URL, read: BodyReader<T>, options: CrawlRequestOptions): Promise<ShopResponse<T>>;
  apiUrl(path: string, query: Readonly<Record<string, string>>): URL;
  /**
   * The mean round trip of one of this resource's pages of `records` (a full page by default), as the session
   * estimates it (see ShopSession).
   */
  pageMs(resource: ResourceName, records?: number): number;
  /**
   * Records to ask for on a full-sized page now, for a chain whose window holds about `chainRecords` more: fewer at the
   * crawl's end, where windows are free (see ShopSession).
   */
  pageLimit(resource: ResourceName, chainRecords: number): number;
  /**
   * Whether a placement probe is worth its request: true once a request more costs the crawl no time (the leak does
   * not decide its finish, chain-plan.ts) and a slot is free for it, which may come to hold while the first pages are
   * out (the bucket proves a faster leak than its tier's); false once `wanted` no longer holds.
   */
  placementWorthAsking(wanted: () => boolean): Promise<boolean>;
  /** Most requests in flight for the shop: a crawl buffers a round of that many pages for its consumer. */
  depth: number;
  /** A page landed, a chain ended or a resource learned its size: cut more windows where they pay for themselves. */
  rebalance(): void;
  logger?: Logger | undefined;
  onProgress?: ((progress: CrawlProgress) => void) | undefined;
}

export interface CrawlRequestOptions {
  /** Orders the requests the bucket holds back (see Pacer). */
  priority: number;
  shape: RequestShape;
  /** A retry was sent. */
  onRetry: (event: RetryEvent) => void;
  /** A second copy of a late page was sent (hedged-requests.ts). */
  onHedge: () => void;
  /** Whether the crawl waits for this page now, so that a late one is worth a second copy. */
  wanted: () => boolean;
  /** An attempt or a copy of the request went on the wire (passed its slot and the pacer). */
  onSent?: (() => void) | undefined;
}

/** One `since_id` walk through one created_at window. */
export interface Chain {
  window: CreatedWindow;
  /** Every record of the window with an id up to this one has been fetched. */
  sinceId: bigint;
  /** created_at (ms) of the first and the latest record this chain has seen. */
  firstCreatedMs?: number | undefined;
  reachedMs?: number | undefined;
  records: number;
  done: boolean;
  /** Records asked for by the page in flight (0: none in flight): new windows are cut beyond them. */
  asked: number;
  /** When the page in flight last went on the wire (performance.now()); undefined while it waits to go. */
  sentMs?: number | undefined;
  /** Records to ask for with the next page (see page-size.ts). */
  size: PageSize;
}

class FiltersIgnored extends Error {}

/**
 * Crawls one resource completely: first a `since_id=0` page and the count, then `since_id` chains inside created_at
 * windows (stable under updates), or, if the server turns out to ignore filters, one `Link` chain. Every record is
 * emitted once (deduplicated by exact id, newest updated_at kept: see newest-copy.ts) through a bounded channel.
 */
export class ResourceCrawl {
  // The writer's first page of records pays for its start: its pace is measured after it (see pagesAheadLimit). Each
  // record it takes may end its being behind, so chains waiting for room look again.
  readonly channel: RecordChannel<CrawledRecord | CrawlBarrier>;
  readonly chains = new Set<Chain>();
  private readonly filters: Record<string, string>;
  /** Ids handed to the consumer. */
  private readonly seen = new IdSet();
  private readonly held = new HeldCopies();
  /**
   * Windows with a created_at_min that brought back records, all inside them: the shop honours created_at. One proves
   * little where the data is skewed (a shop ignoring created_at answers every window with the records after the
   * inherited since_id, and those may lie in the first window that has any), two cannot both be right then. Until
   * WINDOW_PROOFS of them, or every such window's first page, the records wait (newest-copy.ts).
   */
  private readonly windowProofs = new Set<Chain>();
  /** A page asked for after a since_id came back with only later ids (from any chain). */
  private sinceIdProven = false;
  private proofWaiters: Array<() => void> = [];
  private mode: 'windows' | 'link' = 'windows';
  private failure: { error: unknown } | undefined;
  private countBefore: number | undefined;
  private windowsUsed = 1;
  private countAfterSent = false;
  /** A full page came with a next link: from then on a full page without one is a window's last. */
  private nextLinksShown = false;
  private duplicates = 0;
  private requests = 0;
  private pages = 0;
  /** Pages whose records were handed over: the progress shown. */
  private pagesHandedOver = 0;
  private retries = 0;
  private hedges = 0;
  /** Records per ms of created_at, and where the data is expected to end; both estimated from the first page. */
  private density = 0;
  private horizonMs = 0;
  private chainsRunning = 0;
  private chainsIdle: (() => void) | undefined;
  /** Records handed over by earlier attempts of a resumed crawl (not in `seen`). */
  private exportedBefore = 0;
  /** Seconds in the overlap of two adjacent windows, and the ids handed over from them (for resume). */
  private readonly edgeSeconds = new Set<number>();
  private readonly edgeIds = new Set<string>();
  private awaitingProof = 0;
  /** Pages received and not yet handed to the consumer, and page requests sent and not yet answered. */
  private pagesWaiting = 0;
  /** Records received and not yet handed over: passed by their chains, not yet in `seen` (see unplacedRecords). */
  private recordsInHand = 0;
  private pagesInFlight = 0;
  private pageRoomWaiters: Array<() => void> = [];
  private barrier: { emitted: boolean; parked: number; release: () => void; released: Promise<void> } | undefined;

  constructor(
    readonly resource: ResourceName,
    private readonly context: CrawlContext,
    private readonly resume?: CrawlResumeState,
  ) {
    this.filters = { ...COMPLETE_LIST_FILTERS[resource] };
    this.channel = new RecordChannel(context.depth * PAGE_LIMIT, {
      warmUpItems: PAGE_LIMIT,
      onTake: () => {
        if (this.pageRoomWaiters.length > 0) this.wakePageRoomWaiters();
      },
    });
  }

  /**
   * Asks for a barrier in the item stream: chains pause after their page in flight, and once every record before it
   * was pushed, the barrier with the crawl's position follows. Ignored while one is pending.
   */
  requestBarrier(): void {
    if (this.barrier !== undefined || this.failed) return;
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.barrier = { emitted: false, parked: 0, release, released };
    this.emitBarrierWhenParked();
  }

  /** Pushes the barrier once no chain can hand over another record before the consumer releases it. */
  private emitBarrierWhenParked(): void {
    const barrier = this.barrier;
    if (barrier === undefined || barrier.emitted) return;
    const resumable = this.mode === 'windows' && !this.failed;
    const quiet = barrier.parked + this.awaitingProof;
    if (resumable && (quiet < this.chainsRunning || this.chainsRunning === 0)) return;
    barrier.emitted = true;
    void (async () => {
      // Held copies go out before the barrier: the checkpoint's chain positions are past them, so a resumed crawl
      // would never list them again.
      if (resumable) for (const record of this.held.release([])) await this.handOver(record);
      const marker: CrawlBarrier = {
        barrier: true,
        state: resumable ? this.state() : undefined,
        release: () => {
          if (this.barrier === barrier) this.barrier = undefined;
          barrier.release();
        },
      };
      await this.channel.push(marker).catch(() => marker.release());
    })();
  }

  /**
   * A chain pauses here while a barrier is pending. A chain that has not yet proven the filters goes on instead: the
   * chains waiting for that proof could otherwise never reach the barrier.
   */
  private async parkAtBarrier(chain: Chain): Promise<void> {
    const barrier = this.barrier;
    if (barrier === undefined || this.mayProve(chain)) return;
    barrier.parked++;
    this.emitBarrierWhenParked();
    await barrier.released;
  }

  private state(): CrawlResumeState {
    return {
      countBefore: this.countBefore ?? 0,
      exported: this.exported(),
      duplicatesDropped: this.duplicates,
      pages: this.pages,
      retries: this.retries,
      windowsUsed: this.windowsUsed,
      density: this.density,
      horizonMs: this.horizonMs,
      chains: [...this.chains]
        .filter((chain) => !chain.done)
        .map((chain) => ({
          minMs: chain.window.minMs,
          maxMs: chain.window.maxMs,
          sinceId: String(chain.sinceId),
          reachedMs: chain.reachedMs,
          firstCreatedMs: chain.firstCreatedMs,
          records: chain.records,
        })),
      edgeSeconds: [...this.edgeSeconds],
      edgeIds: [...this.edgeIds],
    };
  }

  private restore(state: CrawlResumeState): void {
    this.countBefore = state.countBefore;
    this.duplicates = state.duplicatesDropped;
    this.pages = state.pages;
    this.pagesHandedOver = state.pages;
    this.retries = state.retries;
    this.windowsUsed = state.windowsUsed;
    this.density = state.density;
    this.horizonMs = state.horizonMs;
    for (const second of state.edgeSeconds) this.edgeSeconds.add(second);
    for (const id of state.edgeIds) {
      this.edgeIds.add(id);
      this.seen.add(id);
    }
    this.exportedBefore = state.exported - this.seen.size;
    for (const chain of state.chains) {
      this.chains.add({
        window: { minMs: chain.minMs, maxMs: chain.maxMs },
        sinceId: BigInt(chain.sinceId),
        reachedMs: chain.reachedMs,
        firstCreatedMs: chain.firstCreatedMs,
        records: chain.records,
        done: false,
        asked: 0,
        size: FULL_PAGES,
      });
    }
  }

  private exported(): number {
    return this.exportedBefore + this.seen.size;
  }

  progress(): { exported: number; expected: number | undefined } {
    return { exported: this.exported(), expected: this.countBefore };
  }

  get failed(): boolean {
    return this.failure !== undefined;
  }

  async run(): Promise<ResourceCrawlReport> {
    try {
      if (this.resume !== undefined) {
        this.restore(this.resume);
        this.context.logger?.info(
          { resource: this.resource, records: this.exported(), expected: this.countBefore },
          `${this.resource}: resuming at ${count(this.exported())} of ${count(this.countBefore ?? 0)} records`,
        );
        this.reportProgress();
        await this.runChains();
      } else {
        this.reportProgress();
        await this.crawlFromStart();
      }
      if (this.failure) throw this.failure.error;
      this.countAfterSent = true;
      const countAfter = await this.count();
      this.context.logger?.debug(
        { resource: this.resource, requests: this.requests, windows: this.windowsUsed },
        'crawl finished',
      );
      this.channel.close();
      return {
        resource: this.resource,
        filters: { ...this.filters },
        countBefore: this.countBefore ?? 0,
        countAfter,
        exported: this.exported(),
        duplicatesDropped: this.duplicates,
        requests: this.requests,
        pages: this.pages,
        retries: this.retries,
        hedges: this.hedges,
        strategy:
          this.mode === 'link'
            ? 'one Link chain (the server ignores since_id/created_at filters)'
            : `since_id pages in ${this.windowsUsed} created_at window${this.windowsUsed === 1 ? '' : 's'}`,
      };
    } catch (error) {
      this.fail(error);
      throw error;
    } finally {
      this.chains.clear();
      this.context.rebalance();
    }
  }

  /**
   * The count first: it tells whether the records fit one page, and a count answers in a fraction of the time of a
   * page, so the crawl starts hardly later. Then the first chain walks from the start; its first page, or the
   * placement probe if that answers sooner (PROBE_LIMIT), places the records and the windows are cut.
   */
  private async crawlFromStart(): Promise<void> {
    this.countBefore = await this.count();
    this.context.logger?.info(
      { resource: this.resource, expected: this.countBefore },
      `${this.resource}: ${count(this.countBefore)} records to fetch`,
    );
    this.reportProgress();
    this.context.rebalance();
    const first: Chain = { window: {}, sinceId: 0n, records: 0, done: false, asked: 0, size: FULL_PAGES };
    this.chains.add(first);
    if (this.countBefore > PAGE_LIMIT) void this.placeAhead(first);
    await this.runChains();
    if (!this.failed && this.mode === 'link') await this.runLinkChain();
  }

  /**
   * The placement probe (PROBE_LIMIT): once worth its request, the ids and created_at of the oldest few records, whose
   * span places the rest while the first chain's full page is still out. Only those two fields: the probe is no copy
   * of the records (the page brings them), so a copy it might serve after an update can never be newer than the one
   * kept. A probe that fails or comes back after the page leaves the plan to the page, which meets any fault of the
   * shop itself.
   */
  private async placeAhead(first: Chain): Promise<void> {
    const unplaced = () => !this.planned && first.records === 0 && !this.failed && this.mode === 'windows';
    if (!(await this.context.placementWorthAsking(unplaced))) return;
    const query = { ...chainPageQuery(this.filters, {}, 0n, PROBE_LIMIT), fields: PROBE_FIELDS };
    const url = this.context.apiUrl(`${this.resource}.json`, query);
    const response = await this.send(url, this.readPage, Number.MAX_SAFE_INTEGER, 'list').catch(() => undefined);
    if (response === undefined || !unplaced()) return;
    const created = response.value.map(({ createdAt }) => Date.parse(createdAt ?? '')).filter(Number.isFinite);
    if (created.length === 0) return;
    first.firstCreatedMs = Math.min(...created);
    first.reachedMs = Math.max(...created);
    this.plan(first, created.length);
  }

  /** Pages of work a chain probably has left; 0 for chains that cannot be split. */
  remainingPages(chain: Chain): number {
    const ahead = this.spanAhead(chain);
    return ahead ? ((ahead.endMs - ahead.fromMs) * ahead.density) / PAGE_LIMIT : 0;
  }

  /**
   * Records of the chain's page in flight whose round trip is already behind it: the page's records (no more than the
   * `remaining` ahead) times the share of its expected round trip that has passed since it went on the wire.
   */
  private inFlightBehind(chain: Chain, remaining: number): number {
    if (chain.asked <= 0) return 0;
    const expectedMs = this.context.pageMs(this.resource, chain.asked);
    return Math.min(chain.asked, remaining) * roundTripPassed(chain.sentMs, performance.now(), expectedMs);
  }

  /**
   * The requests this crawl still needs as it stands: the pages ahead (a partial last page per chain) and the count
   * after. Before the first page places the records, the pages are the count's records not yet handed over.
   * Undefined until the count tells the crawl's size.
   */
  ahead(): { pages: number; counts: number } | undefined {
    if (this.countBefore === undefined) return undefined;
    const counts = this.countAfterSent ? 0 : 1;
    if (!this.planned) return { pages: Math.max(0, this.countBefore - this.exported()) / PAGE_LIMIT + 0.5, counts };
    let pages = 0;
    for (const chain of this.chains) if (!chain.done) pages += this.remainingPages(chain) + 0.5;
    return { pages, counts };
  }

  /** Whether the crawl has placed its records in created_at, so its chains can be cut. */
  get planned(): boolean {
    return this.density > 0;
  }

  private fail(error: unknown): void {
    if (!this.failure) this.failure = { error };
    this.channel.fail(error);
    // Chains parked at a barrier that will never be released must still end, and so must chains waiting for room.
    this.barrier?.release();
    this.wakePageRoomWaiters();
  }

  private chainError(error: unknown): void {
    if (error instanceof FiltersIgnored) this.switchToLink(error.message);
    else this.fail(error);
    this.settleProof();
  }

  private switchToLink(reason: string): void {
    if (this.mode === 'link') return;
    this.mode = 'link';
    this.context.logger?.warn(
      { resource: this.resource, reason },
      'shop ignores list filters; falling back to one Link chain',
    );
  }

  private async count(): Promise<number> {
    const url = this.context.apiUrl(`${this.resource}/count.json`, this.filters);
    const response = await this.send(url, readCount, Number.MAX_SAFE_INTEGER, 'count');
    return response.value;
  }

  private send<T>(
    url: URL,
    read: BodyReader<T>,
    priority: number,
    kind: RequestKind,
    onSent?: () => void,
  ): Promise<ShopResponse<T>> {
    this.requests++;
    const onRetry = () => {
      this.requests++;
      this.retries++;
      this.reportProgress();
    };
    const onHedge = () => {
      this.requests++;
      this.hedges++;
    };
    const wanted = () => !this.consumerBehind();
    const shape = { kind, resource: this.resource };
    return this.context.request(url, read, { priority, shape, onRetry, onHedge, wanted, onSent });
  }

  /**
   * Estimates where the records lie from the count and the oldest `placed` records (the first chain's span), then
   * lets the session decide how many windows the rest is worth now (more may follow as the bucket's leak becomes
   * known). The oldest records' spacing tells when the rest ends at that density; a shop that grew has more records
   * late, so they end no later than now (its later windows are cut again as their own pages show their density).
   */
  private plan(first: Chain, placed: number): void {
    const total = this.countBefore ?? 0;
    const start = first.firstCreatedMs;
    const reached = first.reachedMs;
    if (start === undefined || reached === undefined) return;
    const placement = placeRest({ placed, startMs: start, reachedMs: reached, total, nowMs: Date.now() });
    this.horizonMs = placement.horizonMs;
    this.density = placement.density;
    this.context.rebalance();
    this.context.logger?.debug({ resource: this.resource, windows: this.windowsUsed, total }, 'crawl planned');
  }

  private addChain(from: Chain, window: CreatedWindow): Chain {
    const chain: Chain = {
      window,
      sinceId: from.sinceId,
      reachedMs: window.minMs,
      records: 0,
      done: false,
      asked: 0,
      size: FULL_PAGES,
    };
    this.chains.add(chain);
    this.windowsUsed++;
    if (this.chainsRunning > 0) this.startChain(chain);
    return chain;
  }

  private runChains(): Promise<void> {
    if (this.chains.size === 0) return Promise.resolve();
    const done = new Promise<void>((resolve) => {
      this.chainsIdle = resolve;
    });
    for (const chain of [...this.chains]) this.startChain(chain);
    this.context.rebalance();
    return done;
  }

  private startChain(chain: Chain): void {
    this.chainsRunning++;
    void (async () => {
      try {
        while (!chain.done && !this.failed && this.mode === 'windows') {
          await this.parkAtBarrier(chain);
          if (this.failed) break;
          await this.fetchChainPage(chain);
        }
      } catch (error) {
        this.chainError(error);
      } finally {
        chain.done = true;
        this.chains.delete(chain);
        this.chainsRunning--;
        if (this.chainsRunning === 0) this.chainsIdle?.();
        else {
          this.emitBarrierWhenParked();
          this.context.rebalance();
        }
      }
    })();
  }

  private async fetchChainPage(chain: Chain): Promise<void> {
    // The page is built once the chain has room for it: its window may have been cut while it waited.
    await this.pageRoom();
    const window = chain.window;
    const since = chain.sinceId;
    // The probe and a size the shop forced down stand; otherwise the crawl's end may want smaller pages.
    const sent =
      chain.size.limit < PAGE_LIMIT
        ? chain.size.limit
        : this.context.pageLimit(this.resource, this.remainingPages(chain) * PAGE_LIMIT);
    const url = this.context.apiUrl(`${this.resource}.json`, chainPageQuery(this.filters, window, since, sent));
    // The chain with the most work left goes first when the bucket holds requests back (see Pacer).
    const priority = Math.round(this.remainingPages(chain) * this.context.pageMs(this.resource));
    chain.asked = sent;
    chain.sentMs = undefined;
    const onSent = () => {
      chain.sentMs = performance.now();
    };
    const response = await this.send(url, this.readPage, priority, 'list', onSent).finally(() => {
      chain.asked = 0;
      this.pagesInFlight--;
      this.wakePageRoomWaiters();
    });
    // After a fallback the Link chain lists every record again, newer copies included.
    if (this.mode !== 'windows') return;
    // Never followed in this mode, but a Link we would refuse to follow says something is wrong with the server.
    const next = parseNextLink(headerText(response.headers.link), url);
    const records = response.value;
    // The client may have asked for fewer records than the chain did (pages too large to answer, see ShopClient).
    const asked = pageLimitOf(response.url);
    // Fewer than sent: the client halved a page the shop kept failing (ShopClient).
    chain.size = pageSizeAfter(chain.size, asked < sent ? asked : chain.size.limit);
    this.pages++;
    let previous = since;
    let reached = chain.reachedMs;
    let first = chain.firstCreatedMs;
    for (const { id, createdAt } of records) {
      const exact = BigInt(id);
      if (exact <= previous) {
        throw new FiltersIgnored(`${url.pathname}: id ${id} after ${previous} with since_id=${since}`);
      }
      previous = exact;
      const created = createdAt === undefined ? Number.NaN : Date.parse(createdAt);
      if (Number.isNaN(created)) continue;
      if (!inWindow(window, created)) {
        throw new FiltersIgnored(`${url.pathname}: record ${id} created ${createdAt} outside the window`);
      }
      reached = reached === undefined ? created : Math.max(reached, created);
      first = first === undefined ? created : Math.min(first, created);
    }
    chain.sinceId = previous;
    chain.reachedMs = reached;
    chain.firstCreatedMs = first;
    chain.records += records.length;
    this.recordsInHand += records.length;
    // Its records all lay inside its window: the shop honours this window's filters. One page after a since_id (from
    // any chain) shows it honours since_id too: the shop is one server, not one per window.
    if (window.minMs !== undefined && records.length > 0) this.windowProofs.add(chain);
    if (since > 0n) this.sinceIdProven = true;
    this.settleProof();
    if (records.length === asked && next !== undefined) this.nextLinksShown = true;
    // Without a next link a full page is the last only if the shop has shown it sends them: one that never does
    // still gets the empty page that proves the end.
    if (records.length < asked || (next === undefined && this.nextLinksShown)) chain.done = true;
    else if (!this.planned && since === 0n) this.plan(chain, chain.records);
    else this.context.rebalance();
    this.pagesWaiting++;
    try {
      await this.emit(records);
    } finally {
      this.pagesWaiting--;
      this.wakePageRoomWaiters();
    }
    // Held records are not under the channel's backpressure: until the proof a chain brings at most one page.
    while (since > 0n && this.mode === 'windows' && !this.failed && this.filtersUnproven()) {
      // Waiting hands nothing over: a pending barrier may count this chain as paused.
      this.awaitingProof++;
      this.emitBarrierWhenParked();
      await new Promise<void>((resolve) => this.proofWaiters.push(resolve));
      this.awaitingProof--;
    }
  }

  /**
   * Waits while enough pages are ahead of the consumer (see pagesAheadLimit), or a round of the depth and
   * PAGES_BEYOND_DEPTH whatever its pace (before it has shown one), unless the rest of the list fits in that round
   * (restFits); then counts one more in flight.
   */
  private async pageRoom(): Promise<void> {
    for (;;) {
      const ahead = this.pagesWaiting + this.pagesInFlight + Math.floor(this.channel.size / PAGE_LIMIT);
      const limit = this.consumerBehind()
        ? pagesAheadLimit(this.context.pageMs(this.resource), this.consumerMsPerPage())
        : Number.POSITIVE_INFINITY;
      if (this.failed || this.restFits() || ahead < Math.min(limit, this.mostPagesHeld)) break;
      // Woken when a page lands or is handed over, and when the consumer takes a record (see channel).
      await new Promise<void>((resolve) => this.pageRoomWaiters.push(resolve));
    }
    this.pagesInFlight++;
  }

  /**
   * Whether every record this crawl will still hold, from those waiting for the consumer to the end of its list, fits
   * in the pages it may hold at most (mostPagesHeld): then a chain held back for a consumer that is behind saves no
   * memory, and only delays the crawl's last answers (a chain of orders waited 4.7 s at a realistic crawl's end while
   * slots idled).
   */
  private restFits(): boolean {
    const toCome = Math.max(0, (this.countBefore ?? Number.POSITIVE_INFINITY) - this.exported());
    return this.channel.size + toCome <= this.mostPagesHeld * PAGE_LIMIT;
  }

  /** Pages a crawl holds at most, received or in flight: a round of its shop's depth and PAGES_BEYOND_DEPTH. */
  private get mostPagesHeld(): number {
    return this.context.depth + PAGES_BEYOND_DEPTH;
  }

  private consumerMsPerPage(): number | undefined {
    const perRecord = this.channel.consumerMsPerItem;
    return perRecord === undefined ? undefined : perRecord * PAGE_LIMIT;
  }

  private consumerBehind(): boolean {
    return this.pagesWaiting > 0 || this.channel.size >= PAGE_LIMIT;
  }

  private wakePageRoomWaiters(): void {
    for (const wake of this.pageRoomWaiters.splice(0)) wake();
  }

  /**
   * Cuts the rest of the chain's window into `windows` windows of about equal time ahead, the first keeping the chain
   * (and its position) and the part of its page in flight already behind it (firstWindowRecords). A page in flight is
   * not waited for: the first window reaches past the records it will probably bring, so a slot that frees is used at
   * once; should the page bring more, the copies it lists of the next window's records wait there for that window's
   * chain (newest-copy.ts).
   */
  split(chain: Chain, windows: number): void {
    const ahead = this.spanAhead(chain);
    if (!ahead || windows < 2) return;
    const records = (ahead.endMs - ahead.fromMs) * ahead.density;
    const behind = this.inFlightBehind(chain, records);
    const first = firstWindowRecords({ ahead: records, windows, asked: chain.asked, behind });
    const firstEnd = ahead.fromMs + first / ahead.density;
    const rest = (ahead.endMs - firstEnd) / (windows - 1);
    // New windows must start after every record this chain handed over, or those would be listed again.
    const reached = chain.reachedMs ?? Number.NEGATIVE_INFINITY;
    const cuts = Array.from({ length: windows - 1 }, (_, i) => firstEnd + rest * i).filter(
      (at) => at < ahead.endMs && Math.round(at / 1000) * 1000 - 1000 > reached,
    );
    const pieces = cutWindow(chain.window, cuts);
    if (pieces.length < 2) return;
    for (const piece of pieces) this.noteEdge(piece);
    chain.window = pieces[0] as CreatedWindow;
    for (const piece of pieces.slice(1)) this.addChain(chain, piece);
    this.context.logger?.debug({ resource: this.resource, windows: this.windowsUsed }, 'windows cut');
  }

  /**
   * The created_at span still ahead of a chain and the density of records in it (the chain's own once it has a full
   * page behind it, else the first page's). The open-ended last window runs to the expected end of the data, or
   * further while more records are missing than the bounded windows are expected to hold.
   */
  private spanAhead(chain: Chain): { fromMs: number; endMs: number; density: number } | undefined {
    if (chain.done || this.mode !== 'windows' || this.density <= 0) return undefined;
    const fromMs = chain.reachedMs ?? chain.window.minMs;
    if (fromMs === undefined) return undefined;
    const own =
      chain.records >= PAGE_LIMIT && chain.firstCreatedMs !== undefined && fromMs > chain.firstCreatedMs
        ? spacingDensity(chain.records, fromMs - chain.firstCreatedMs)
        : undefined;
    const density = own ?? this.density;
    const endMs = chain.window.maxMs ?? Math.max(this.horizonMs, fromMs + this.unplacedRecords() / density);
    return endMs > fromMs ? { fromMs, endMs, density } : undefined;
  }

  /**
   * Records still to come that the bounded windows are not expected to hold: the open-ended window's share. Counting
   * every missing record there would stretch it over the other chains' work, and split it past the end of the data.
   */
  private unplacedRecords(): number {
    let placed = this.exported() + this.held.size + this.recordsInHand;
    for (const chain of this.chains) {
      if (chain.window.maxMs !== undefined) placed += this.remainingPages(chain) * PAGE_LIMIT;
    }
    return Math.max(0, (this.countBefore ?? 0) - placed);
  }

  private async runLinkChain(): Promise<void> {
    const path = `${this.resource}.json`;
    let url = this.context.apiUrl(path, { ...this.filters, limit: String(PAGE_LIMIT) });
    const cursors = new Set<string>();
    let size = FULL_PAGES;
    for (;;) {
      const response = await this.send(url, this.readPage, 0, 'list');
      const records = response.value;
      this.pages++;
      const next = parseNextLink(headerText(response.headers.link), url);
      size = pageSizeAfter(size, pageLimitOf(response.url));
      this.recordsInHand += records.length;
      await this.emit(records);
      if (!next) {
        for (const record of this.held.release([])) await this.handOver(record);
        return;
      }
      if (cursors.has(next.pageInfo)) throw new CursorLoopError(url.pathname);
      cursors.add(next.pageInfo);
      // The link repeats the limit asked for; ours may have shrunk or be growing back.
      const query: Record<string, string> = { limit: String(size.limit), page_info: next.pageInfo };
      if (next.fields !== undefined) query.fields = next.fields;
      url = this.context.apiUrl(path, query);
    }
  }

  private readonly readPage: BodyReader<ListedRecord[]> = (text, shownUrl) =>
    scanListPage(text, this.resource, shownUrl);

  /** Remembers the seconds around a window's upper boundary, where the next window overlaps it. */
  private noteEdge(window: CreatedWindow): void {
    if (window.maxMs === undefined) return;
    const second = Math.floor(window.maxMs / 1000);
    this.edgeSeconds.add(second - 1);
    this.edgeSeconds.add(second);
  }

  /**
   * Held copies that can go out now. In Link mode the chain may still bring a newer copy: its end releases them. While
   * the filters are unproven they wait too, unless no chain is left to prove them (a one-page shop).
   */
  private releasable(): ListedRecord[] {
    if (this.mode !== 'windows' || this.held.size === 0) return [];
    if (this.filtersUnproven()) return [];
    return this.held.release(this.chains);
  }

  private filtersUnproven(): boolean {
    const open = [...this.chains].filter((chain) => !chain.done);
    if (!this.sinceIdProven && open.length > 0) return true;
    if (this.windowProofs.size >= WINDOW_PROOFS) return false;
    return open.some((chain) => chain.window.minMs !== undefined && chain.records === 0);
  }

  /** A chain that has yet to bring its first page while the filters are unproven: its page may prove them. */
  private mayProve(chain: Chain): boolean {
    return chain.records === 0 && this.filtersUnproven();
  }

  private settleProof(): void {
    for (const wake of this.proofWaiters.splice(0)) wake();
  }

  private async handOver(record: ListedRecord): Promise<void> {
    this.seen.add(record.id);
    if (this.edgeSeconds.size > 0 && record.createdAt !== undefined) {
      const second = Math.floor(Date.parse(record.createdAt) / 1000);
      if (this.edgeSeconds.has(second)) this.edgeIds.add(record.id);
    }
    await this.channel.push(record);
  }

  /** Hands over a page's records, which were counted in hand when it came back. */
  private async emit(records: readonly ListedRecord[]): Promise<void> {
    for (const record of records) {
      this.recordsInHand--;
      if (this.seen.has(record.id) || this.held.merge(record)) {
        this.duplicates++;
        continue;
      }
      if (this.mode === 'windows' && this.held.holdIfListedAgain(record, this.chains, this.filtersUnproven())) continue;
      await this.handOver(record);
    }
    for (const record of this.releasable()) await this.handOver(record);
    crashPoint('after-page');
    this.pagesHandedOver++;
    this.reportProgress();
  }

  private reportProgress(): void {
    this.context.onProgress?.({
      resource: this.resource,
      pages: this.pagesHandedOver,
      // Copies held back at a window overlap are fetched records too: without them records would lag the pages.
      records: this.exported() + this.held.size,
      expected: this.countBefore,
      retries: this.retries,
    });
  }
}

/**
 * The query of a chain's page: the list's filters (COMPLETE_LIST_FILTERS), the chain's created_at window, the records
 * after `sinceId`, `limit` of them. A resource's first page is `chainPageQuery(filters, {}, 0n, PAGE_LIMIT)`.
 */
export function chainPageQuery(
  filters: Readonly<Record<string, string>>,
  window: CreatedWindow,
  sinceId: bigint,
  limit: number,
): Record<string, string> {
  return { ...filters, ...windowFilters(window), since_id: String(sinceId), limit: String(limit) };
}

/** The `limit` a list request was sent with (the API's default 50 when it has none). */
function pageLimitOf(url: URL): number {
  const limit = Number(url.searchParams.get('limit') ?? DEFAULT_API_LIMIT);
  return Number.isInteger(limit) && limit > 0 ? limit : DEFAULT_API_LIMIT;
}

const DEFAULT_API_LIMIT = 50;

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
