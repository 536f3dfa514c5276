/**
 * Hedged pages ("The Tail at Scale", Dean and Barroso, CACM 2013). A list page's round trip has a long tail: a page of
 * 250 orders takes about 2 s, and some take several times that (live-shop.md §1.2; the simulated shop's realistic
 * model puts the 95th percentile at 3× the median). Once windows are cut finely, the rest of a slow page's window goes
 * to other chains, but the page itself can only come from that request, and at a crawl's end one such page holds the
 * whole crawl. So a page that has taken HEDGE_AFTER times the typical round trip of its kind and size, and at least
 * LATE_MS more, is asked for again once a slot is free and the bucket can spare the request (`mayHedge`) and its
 * crawl is waiting for it (the consumer has nothing else to do); the first answer wins and the other copy is abandoned
 * unread. Either copy is the shop's answer at a moment during the crawl, as any page is.
 */
const HEDGE_AFTER = 1.5;
/** Later than this a page must be, too: a shop answering in milliseconds gains nothing from a second copy. */
const LATE_MS = 1000;
/** How often late pages are looked for. */
const CHECK_EVERY_MS = 100;

/**
 * What a copy tells of its attempts: `sent` as one goes on the wire, past the slots and the bucket; `retrying` when one
 * failed and the next waits. A page's age counts from its first copy's latest attempt on the wire: a page the bucket
 * or a Retry-After holds back is not late, and a second copy would wait as long.
 */
export interface CopyTiming {
  sent(): void;
  retrying(): void;
}

/** Sends one copy; `signal` abandons it. */
export type HedgedSend<T> = (signal: AbortSignal, timing: CopyTiming) => Promise<T>;

const UNTIMED: CopyTiming = { sent: () => undefined, retrying: () => undefined };

interface Open {
  startedMs: number | undefined;
  typicalMs: () => number | undefined;
  wanted: () => boolean;
  hedged: boolean;
  hedge: () => void;
}

/** How long a page whose kind and size typically take `typicalMs` may be out before it is late enough to hedge. */
export function hedgeAfterMs(typicalMs: number): number {
  return Math.max(HEDGE_AFTER * typicalMs, typicalMs + LATE_MS);
}

/** Whether a page sent `ageMs` ago, whose kind and size typically take `typicalMs`, is late enough to hedge. */
export function hedgeDue(ageMs: number, typicalMs: number | undefined): boolean {
  return typicalMs !== undefined && ageMs > hedgeAfterMs(typicalMs);
}

/** A page due for a second copy (hedgeDue): how long it has been out and how long its kind and size typically take. */
export interface LatePage {
  ageMs: number;
  typicalMs: number;
}

/**
 * Whether a late page is likely to be the crawl's last answer, where the leak decides the finish and a second copy
 * delays every request after it by a leak's interval. In a long tail a late page is expected to take about as long
 * again as it has taken: it would come back after the crawl's last request (sent `lastSendMs` from now, once the leak
 * lets it go, and back a round trip later) when its age exceeds that span. Only then is its second copy worth the leak.
 */
export function lateBeyondLeak({ ageMs, typicalMs }: LatePage, lastSendMs: number): boolean {
  return ageMs > lastSendMs + typicalMs;
}

export class HedgedRequests {
  private readonly open = new Set<Open>();
  private timer: NodeJS.Timeout | undefined;

  /** `mayHedge`: whether a second copy of this late page may go now (a free slot, a bucket to spare). */
  constructor(private readonly mayHedge: (late: LatePage) => boolean) {}

  /**
   * Runs `send`, and a second copy if the first is late (see hedgeDue) while `mayHedge` allows; resolves with the first
   * answer and abandons the other copy. Rejects when every copy sent has failed, with the first copy's error.
   * `wanted`: whether the page's crawl is waiting for it now.
   */
  run<T>(
    send: HedgedSend<T>,
    { typicalMs, wanted, onHedge }: { typicalMs: () => number | undefined; wanted: () => boolean; onHedge: () => void },
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const copies: AbortController[] = [];
      const errors: unknown[] = [];
      let settled = false;
      const entry: Open = {
        startedMs: undefined,
        typicalMs,
        wanted,
        hedged: false,
        hedge: () => {
          onHedge();
          launch();
        },
      };
      const finish = () => {
        settled = true;
        this.open.delete(entry);
        if (this.open.size === 0) this.stop();
      };
      const firstCopyTiming: CopyTiming = {
        sent: () => {
          entry.startedMs = performance.now();
        },
        retrying: () => {
          entry.startedMs = undefined;
        },
      };
      const launch = () => {
        const copy = new AbortController();
        const timing = copies.length === 0 ? firstCopyTiming : UNTIMED;
        copies.push(copy);
        send(copy.signal, timing).then(
          (value) => {
            if (settled) return;
            finish();
            for (const other of copies) if (other !== copy) other.abort();
            resolve(value);
          },
          (error: unknown) => {
            if (settled) return;
            errors.push(error);
            if (errors.length < copies.length) return;
            finish();
            reject(errors[0]);
          },
        );
      };
      this.open.add(entry);
      launch();
      this.timer ??= setInterval(() => this.hedgeOneLate(), CHECK_EVERY_MS).unref();
    });
  }

  /** Hedges the oldest late page, if one may go now: one a tick, so each hedge's slot is counted before the next. */
  private hedgeOneLate(): void {
    const now = performance.now();
    let oldest: { entry: Open; late: LatePage } | undefined;
    for (const entry of this.open) {
      const typicalMs = entry.typicalMs();
      if (entry.hedged || entry.startedMs === undefined || typicalMs === undefined) continue;
      const ageMs = now - entry.startedMs;
      if (!hedgeDue(ageMs, typicalMs) || !entry.wanted()) continue;
      if (oldest === undefined || ageMs > oldest.late.ageMs) oldest = { entry, late: { ageMs, typicalMs } };
    }
    if (oldest === undefined || !this.mayHedge(oldest.late)) return;
    oldest.entry.hedged = true;
    oldest.entry.hedge();
  }

  private stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
