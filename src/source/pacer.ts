import { setTimeout as sleep } from 'node:timers/promises';
import { type AnswerTiming, BucketModel, parseCallLimit } from './bucket-model.js';

const POLL_MS = 20;

export interface PacerTicket {
  sendMs: number;
  seq: number;
}

export interface BucketState {
  used: number;
  max: number | undefined;
  leakPerSecond: number | undefined;
  /** Requests that fit in the bucket now, headroom kept. */
  room: number;
  /** The leak to plan the crawl with (see BucketModel.planningLeak). */
  planningLeakPerSecond: number;
  /** Whether that leak is only the tier's guess for a bucket in use (see BucketModel.leakGuessed). */
  leakGuessed: boolean;
}

interface Waiter {
  priority: number;
  grant(ticket: PacerTicket): void;
  /** Detaches the waiter's abort listener once it is granted. */
  settle(): void;
}

/**
 * One per shop, shared by every request to it: sends are released one at a time, each only when the modelled bucket
 * has room, so the bucket stays nearly full without overflowing and 429s stay rare rather than being the signal.
 * While the bucket holds requests back, the one with the highest priority goes first: the crawl gives a page the
 * pages its chain has left, so the chain that would finish last catches up instead of waiting its turn (first come,
 * first served spreads the leak evenly over the chains, and the one that started late ends the crawl late).
 */
export class Pacer {
  private readonly model: BucketModel;
  /** Highest priority first; equal priorities in the order they asked. */
  private readonly waiting: Waiter[] = [];
  private releasing = false;
  private pausedUntilMs = 0;

  constructor(private readonly now: () => number = () => performance.now()) {
    this.model = new BucketModel();
  }

  /** Waits for room in the bucket and for every waiter of a higher priority, then counts the request as sent. */
  acquire(priority: number, signal?: AbortSignal): Promise<PacerTicket> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = () => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        priority,
        grant: resolve,
        settle: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const after = this.waiting.findIndex((other) => other.priority < priority);
      this.waiting.splice(after < 0 ? this.waiting.length : after, 0, waiter);
      void this.release();
    });
  }

  /** Feeds a response's `X-Shopify-Shop-Api-Call-Limit` into the model, with what its round trip says (AnswerTiming). */
  observe(ticket: PacerTicket, header: string | undefined, status: number, timing: AnswerTiming): void {
    const limit = parseCallLimit(header);
    if (!limit) return;
    // A refused request was not counted by the server, so its header says nothing about the leak.
    if (status === 429) return;
    this.model.observe({ sendMs: ticket.sendMs, seq: ticket.seq, used: limit.used }, limit.max, this.now(), timing);
  }

  /** A 429: the server did not count that request; unless the bucket showed room, it is full right now. */
  markRefused(bucketHadRoom: boolean): void {
    this.model.markRefused(this.now(), !bucketHadRoom);
  }

  /** Holds every request to the shop for `ms` (another limit than the bucket is in force). */
  pause(ms: number): void {
    this.pausedUntilMs = Math.max(this.pausedUntilMs, this.now() + ms);
  }

  state(): BucketState {
    return {
      used: Math.round(this.model.levelAt(this.now())),
      max: this.model.max,
      leakPerSecond: this.model.leakPerSecond,
      room: this.model.roomAt(this.now()),
      planningLeakPerSecond: this.model.planningLeak(this.now()),
      leakGuessed: this.model.leakGuessed,
    };
  }

  /** Grants waiters one by one as the bucket makes room; one loop per pacer, running while anyone waits. */
  private async release(): Promise<void> {
    if (this.releasing) return;
    this.releasing = true;
    try {
      for (;;) {
        const first = this.waiting[0];
        if (first === undefined) return;
        const now = this.now();
        const bucketWait = this.model.waitMs(now);
        const wait = Math.max(this.pausedUntilMs - now, bucketWait);
        if (wait <= 0) {
          this.waiting.shift();
          first.settle();
          first.grant({ sendMs: now, seq: this.model.send(now) });
          continue;
        }
        if (bucketWait > 0) this.model.noteHeld(now);
        // Short naps: a response landing meanwhile may show room sooner than the leak estimate predicts.
        await sleep(Math.min(wait, POLL_MS));
      }
    } finally {
      this.releasing = false;
    }
  }
}
