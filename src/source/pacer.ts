import { setTimeout as sleep } from 'node:timers/promises';
import { BucketModel, parseCallLimit } from './bucket-model.js';

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
}

/**
 * One per shop, shared by every request to it: sends are released one at a time, each only when the modelled bucket
 * has room, so the bucket stays nearly full without overflowing and 429s stay rare rather than being the signal.
 */
export class Pacer {
  private readonly model: BucketModel;
  private gate: Promise<void> = Promise.resolve();
  private pausedUntilMs = 0;

  constructor(private readonly now: () => number = () => performance.now()) {
    this.model = new BucketModel();
  }

  /** Waits for room in the bucket, then counts the request as sent. Order of callers is kept (FIFO). */
  acquire(signal?: AbortSignal): Promise<PacerTicket> {
    const turn = this.gate.then(() => this.waitForRoom(signal));
    this.gate = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  /** Feeds a response's `X-Shopify-Shop-Api-Call-Limit` into the model. */
  observe(ticket: PacerTicket, header: string | undefined, status: number): void {
    const limit = parseCallLimit(header);
    if (!limit) return;
    // A refused request was not counted by the server, so its header says nothing about the leak.
    if (status === 429) return;
    this.model.observe({ sendMs: ticket.sendMs, seq: ticket.seq, used: limit.used }, limit.max, this.now());
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
    };
  }

  private async waitForRoom(signal?: AbortSignal): Promise<PacerTicket> {
    for (;;) {
      signal?.throwIfAborted();
      const now = this.now();
      const bucketWait = this.model.waitMs(now);
      const wait = Math.max(this.pausedUntilMs - now, bucketWait);
      if (wait <= 0) return { sendMs: now, seq: this.model.send(now) };
      if (bucketWait > 0) this.model.noteHeld(now);
      // Short naps: a response landing meanwhile may show room sooner than the leak estimate predicts.
      await sleep(Math.min(wait, POLL_MS), undefined, { signal });
    }
  }
}
