import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../log.js';
import type { ShopThrottledError } from '../../source/errors.js';

/**
 * The window of Shopify's order-creation limit on development and trial stores ("no more than 5 new orders per
 * minute", restore.md §0.8). Its 429 carries no Retry-After; a shop that sends one is believed instead. The variable
 * lets tests run the limit over seconds.
 */
const WINDOW_MS = Number(process.env.TEST_SHOPSNAP_ORDER_LIMIT_WINDOW_MS) || 60_000;

/**
 * Order creates under a development store's limit. Until the shop refuses one, creates go as fast as the bucket lets
 * them. The first 429 that is not the bucket's (the call-limit header shows room) teaches the limit: as many creates
 * as succeeded within the window. From then on creates are held before they are sent, so the limit is waited out with
 * one log line per wait instead of probed with requests.
 */
export class OrderCreateLimit {
  private readonly created: number[] = [];
  private inFlight = 0;
  private limit: number | undefined;
  private pausedUntilMs = 0;
  private announcedUntilMs = 0;

  constructor(
    private readonly logger: Logger | undefined,
    /** Orders still to create, for the wait's message. */
    private readonly left: () => number,
    private readonly signal?: AbortSignal,
  ) {}

  /** Whether a 429 of an order create is this limit rather than the bucket's. */
  static recognises(error: ShopThrottledError): boolean {
    return error.bucketHadRoom || /order/i.test(error.bodyExcerpt);
  }

  /** Waits until one more create fits the limit, then counts it as sent. */
  async acquire(): Promise<void> {
    for (;;) {
      const now = Date.now();
      while (this.created.length > 0 && (this.created[0] as number) <= now - WINDOW_MS) this.created.shift();
      const free = this.limit === undefined || this.created.length + this.inFlight < this.limit;
      if (free && now >= this.pausedUntilMs) {
        this.inFlight++;
        return;
      }
      const untilMs = Math.max(this.pausedUntilMs, free ? 0 : (this.created[0] ?? now) + WINDOW_MS);
      const waitMs = Math.max(50, untilMs - now);
      this.announce(waitMs);
      await sleep(waitMs, undefined, { signal: this.signal });
    }
  }

  /** The create was applied (or its answer lost: it counts against the limit all the same). */
  applied(): void {
    this.inFlight--;
    this.created.push(Date.now());
  }

  /** The create was refused by something else, or not sent. */
  released(): void {
    this.inFlight--;
  }

  /** The shop refused the create with this limit: it allows what it let through within the window. */
  refused(error: ShopThrottledError): void {
    this.inFlight--;
    const now = Date.now();
    this.limit = Math.max(1, this.created.filter((at) => at > now - WINDOW_MS).length);
    if (error.retryAfterMs !== undefined) this.pausedUntilMs = Math.max(this.pausedUntilMs, now + error.retryAfterMs);
  }

  private announce(waitMs: number): void {
    const now = Date.now();
    if (now < this.announcedUntilMs) return;
    this.announcedUntilMs = now + waitMs;
    const limit = this.limit ?? 0;
    const left = this.left();
    const perWindow = `${limit} new order${limit === 1 ? '' : 's'} per ${Math.round(WINDOW_MS / 1000)} s`;
    const eta = Math.ceil((left / limit) * (WINDOW_MS / 1000));
    this.logger?.info(
      { resource: 'orders', limit, window_ms: WINDOW_MS, wait_ms: waitMs, left },
      `orders: the shop allows ${perWindow} (a development or trial store); waiting ${Math.ceil(waitMs / 1000)} s, ${left} orders to go, about ${eta} s`,
    );
  }
}
