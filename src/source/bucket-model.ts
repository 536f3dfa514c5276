/**
 * Our picture of a shop's leaky bucket, driven by `X-Shopify-Shop-Api-Call-Limit: used/max`. Pure arithmetic over
 * caller-supplied times (ms) so it can be table-tested; the pacer adds the clock and the waiting.
 *
 * - Every send adds 1 at its send time (conservative: the server counts it a little later).
 * - A response's header is the server's level just after that request arrived. The current level is then at least
 *   `used - leak × (now - sendTime)` (plus the sends since, for a prompt answer once the leak is measured) and at
 *   most `used + sends since`, so the model never believes in more room than the header proves, nor in less than it
 *   allows.
 * - The leak rate is learned: between two responses (a, b) whose sends are ≥ MIN_SAMPLE_SPAN_MS apart and whose
 *   levels are both above zero, `leak ≈ (used_a + sends in (a, b] - used_b) / (t_b - t_a)`; the model uses the
 *   median of recent measurements, never below what a drain proved (see DRAIN_WINDOW_MS). Until learned, Shopify's
 *   tiers give the guess: max/20 per second (40 → 2/s, 80 → 4/s, 400 → 20/s).
 */
export interface BucketSample {
  sendMs: number;
  seq: number;
  used: number;
  /** Sends before this one that the server refused with 429 and so never counted. */
  refusedBefore?: number;
}

/** Every Shopify plan leaks a full bucket in at most this many seconds (40 at 2/s, 80 at 4/s, 400 at 20/s). */
const TIER_SECONDS = 20;

/**
 * When the server counted a request, as far as its round trip tells (see answerTiming in round-trips.ts): `prompt`
 * when it came back about as fast as answers of its kind and size do, so it did not wait in a queue before the server
 * looked at it; `wayThereMs` is the time taken as the way there (half the fastest such round trip).
 */
export interface AnswerTiming {
  prompt: boolean;
  wayThereMs: number;
}

/** Shopify's leak for a bucket of this size: the guess until a leak is measured, and the floor of every plan. */
export function tierLeakPerSecond(bucketMax: number): number {
  return bucketMax / TIER_SECONDS;
}
/** Until the first header arrives we assume the smallest bucket Shopify hands out (standard plan, 40). */
const SMALLEST_BUCKET = 40;
const MIN_SAMPLE_SPAN_MS = 600;
const MAX_SAMPLE_SPAN_MS = 2000;
/**
 * A drain proof: the requests we sent in the DRAIN_WINDOW_MS before a request (up to ARRIVAL_MARGIN_MS before it, so
 * they surely arrived first) were all counted after the earliest of them, and the request found the bucket at `used`,
 * so all but `used - 1` of them had leaked by then: the leak is at least that many over that span. A prompt answer was
 * counted about when it was sent; a slow one may have waited before the shop counted it, at the latest when it came
 * back, so its span runs to then (a weaker proof, but one: the bucket probe's count came back in 1 s on a 40 bucket
 * leaking 20/s, and the crawl kept the tier's few chains for 9 s more). When the rate is DRAIN_FACTOR times Shopify's
 * tier guess or more, the guess is wrong for this shop: it leaks faster than we send, and does not limit us (for
 * DRAIN_MEMORY_MS, unless proven again). No proof exceeds the rate we sent at, so a factor near 1 lets a crawl that
 * sends a little faster than the guess find out: planned for the guess, that crawl sent under 3/s for those 9 s. A span
 * of DRAIN_SPAN_MS or more keeps the requests' unequal ways to the shop from passing for a leak, and a bucket fed
 * faster than it leaks fills, which no proof reads as a drain. A Basic shop (2/s) cannot show 2.4/s.
 */
const DRAIN_WINDOW_MS = 2000;
const ARRIVAL_MARGIN_MS = 250;
const DRAIN_SPAN_MS = 500;
const DRAIN_FACTOR = 1.2;
/** A timer fires late and a request leaves a little after it is sent: drainProvableAtMs keeps this much to spare. */
const PROOF_SLACK_MS = 100;
const DRAIN_MEMORY_MS = 1000;
/** Send times kept for the drain proof: more than a depth of 20 sends in DRAIN_WINDOW_MS plus a slow round trip. */
const SENDS_REMEMBERED = 1024;
const SAMPLE_HISTORY = 128;
const ESTIMATES_KEPT = 9;
/** Measurements needed before they replace the tier guess (a single one is easily thrown by reordered arrivals). */
const ESTIMATES_TRUSTED = 3;
/** A bucket 429 proves the leak was overestimated: the estimate shrinks by this factor and is measured afresh. */
const OVERFLOW_BACKOFF = 0.85;
const CEILING_RECOVERY = 1.01;
const OVERFLOW_EPISODE_MS = 1000;

/** An answer that came back at once: the server counted it when it was sent. */
const PROMPT_AT_ONCE: AnswerTiming = { prompt: true, wayThereMs: 0 };

export class BucketModel {
  max: number | undefined;
  leakPerSecond: number | undefined;
  private level = 0;
  private levelAtMs = 0;
  private sends = 0;
  /** Whether leakPerSecond was measured, rather than guessed from the bucket size. */
  learnedLeak = false;
  private refused = 0;
  private readonly samples: BucketSample[] = [];
  private readonly estimates: number[] = [];
  /** Whether an answer ever showed more than one request in the bucket. */
  private inUse = false;
  /** Send times of the last SENDS_REMEMBERED sends, at their sequence number modulo that (for the drain proof). */
  private readonly sendTimes: number[] = [];
  private lastRefusedMs = Number.NEGATIVE_INFINITY;
  /** When an answer last proved the bucket drained (see DRAIN_SPAN_MS). */
  private drainedAtMs = Number.NEGATIVE_INFINITY;
  /** The leak the last drain proved, at least. */
  private drainedLeak = 0;
  /** The fastest leak any drain proved: the floor of the leak, measured or not, until an overflow contradicts it. */
  private provenLeak = 0;
  private heldAtMs = Number.NEGATIVE_INFINITY;
  /** Upper limit on the leak after an overflow; it rises again with every clean measurement. */
  private leakCeiling = Number.POSITIVE_INFINITY;
  private lastOverflowMs = Number.NEGATIVE_INFINITY;

  /**
   * Requests kept free at the top of the bucket: `headroom` against other clients of the same shop, plus what leaks
   * in `jitterMs`, against our picture of the level being that much late (its error grows with the leak). On a
   * Basic bucket (2/s) 1.2 requests, on one leaking 20/s 3: each request kept free costs a crawl bound by the leak
   * one request's worth of time.
   */
  constructor(
    readonly headroom = 1,
    readonly jitterMs = 100,
  ) {}

  /** The measured leak, or until measured the tier guess for the bucket (the smallest one before any header). */
  private leakOrGuess(): number {
    return this.leakPerSecond ?? tierLeakPerSecond(this.max ?? SMALLEST_BUCKET);
  }

  /** Whether the leak is still the tier guess for a bucket seen in use: neither measured nor proven otherwise. */
  get leakGuessed(): boolean {
    return this.inUse && !this.learnedLeak && this.leakPerSecond === tierLeakPerSecond(this.max ?? SMALLEST_BUCKET);
  }

  /** Estimated bucket level at `nowMs` (never below 0). */
  levelAt(nowMs: number): number {
    const leak = this.leakPerSecond ?? 0;
    return Math.max(0, this.level - (leak * Math.max(0, nowMs - this.levelAtMs)) / 1000);
  }

  /** The level up to which requests may go out: the bucket's size less what is kept free. */
  private ceiling(): number {
    return Math.max(1, (this.max ?? SMALLEST_BUCKET) - this.headroom - (this.leakOrGuess() * this.jitterMs) / 1000);
  }

  /** Milliseconds to wait before one more request fits below the ceiling; 0 when it fits now. */
  waitMs(nowMs: number): number {
    const excess = this.levelAt(nowMs) + 1 - this.ceiling();
    if (excess <= 0) return 0;
    return Math.ceil((excess / this.leakOrGuess()) * 1000);
  }

  /**
   * The leak to plan the crawl with: how many requests per second the bucket takes once its room is spent. Infinity
   * while no answer ever showed the bucket in use. After a request lately proved a drain faster than the guess (see
   * DRAIN_WINDOW_MS): Infinity if the pacer held no send back in the second before, else at least the rate proved.
   * A rate measured then is only what we sent, too low to plan with. Otherwise the measured rate, or until measured
   * the tier guess.
   */
  planningLeak(nowMs: number): number {
    if (!this.inUse) return Number.POSITIVE_INFINITY;
    const rate = this.leakOrGuess();
    if (nowMs - this.drainedAtMs > DRAIN_MEMORY_MS) return rate;
    // The drain proves the bucket keeps up with what we sent. Sent as fast as the chains could, that means it does
    // not limit us; held back by the pacer, it proves only the rate the pacer let through.
    const held = this.heldAtMs >= this.drainedAtMs - DRAIN_MEMORY_MS;
    return held ? Math.max(rate, this.drainedLeak) : Number.POSITIVE_INFINITY;
  }

  /**
   * The pacer held a request back for a bucket that answers showed in use: what we sent was the pacer's rate, not all
   * the chains could send. (Holds before that come from guessing an unseen bucket, not from the shop.)
   */
  noteHeld(nowMs: number): void {
    if (this.inUse) this.heldAtMs = nowMs;
  }

  /** Requests that fit below the ceiling now. */
  roomAt(nowMs: number): number {
    return Math.max(0, this.ceiling() - this.levelAt(nowMs));
  }

  /** Counts one request as sent now; returns its sequence number for `observe`. */
  send(nowMs: number): number {
    this.level = this.levelAt(nowMs) + 1;
    this.levelAtMs = nowMs;
    this.sends += 1;
    this.sendTimes[this.sends % SENDS_REMEMBERED] = nowMs;
    return this.sends;
  }

  /**
   * Folds in the header of the response to the request sent at `sendMs` with sequence `seq`. Only prompt answers say
   * when the server counted them: a slow one may have waited in a queue before the server looked at it, which reads as
   * a bogus leak. So only they measure the leak; a slow one proves a drain up to its answer (see DRAIN_WINDOW_MS).
   */
  observe(sample: BucketSample, max: number, nowMs: number, timing: AnswerTiming = PROMPT_AT_ONCE): void {
    this.max = max;
    if (this.leakPerSecond === undefined) this.leakPerSecond = tierLeakPerSecond(max);
    const prompt = timing.prompt;
    this.noteDrain(sample, max, prompt, nowMs);
    if (prompt) this.learnLeak({ ...sample, refusedBefore: this.refused });
    // The header bounds the level now from both sides: at least what it said minus the leak since it was sent, at most
    // what it said plus every request sent after it. The upper bound frees us from a leak rate guessed too low.
    const sentSince = this.sends - sample.seq;
    // For a prompt answer and a measured leak, the sends since count in the lower bound too (they arrived after it; a
    // slow answer may have been overtaken by them): the level follows the header, so a leak measured a little high
    // cannot let the bucket creep up unseen under a model held at its ceiling (read 5% high on a Basic bucket, that
    // overflowed 8 times in three minutes of 1.9 s pages).
    const behind = prompt && this.learnedLeak ? sentSince : 0;
    const atLeast = sample.used + behind - (this.leakPerSecond * Math.max(0, nowMs - sample.sendMs)) / 1000;
    // The upper bound alone keeps a whole round trip of sends in the bucket, though the bucket leaked all that time:
    // the server counts a request when it arrives (it refuses one before doing any work), and the rest of the round
    // trip is its work and the way back. For a prompt answer and a measured leak the level is the header plus the
    // sends since, less the leak since the request arrived; the way there is taken as half the fastest round trip,
    // which errs on the full side. A slow answer may have waited on our side before it left: it cannot date the count.
    const countedMs = sample.sendMs + timing.wayThereMs;
    const leakedSince = prompt && this.learnedLeak ? (this.leakPerSecond * Math.max(0, nowMs - countedMs)) / 1000 : 0;
    const atMost = sample.used + sentSince - leakedSince;
    const current = this.levelAt(nowMs);
    if (current < atLeast || current > atMost) {
      this.level = Math.min(Math.max(current, atLeast), atMost);
      this.levelAtMs = nowMs;
    }
  }

  /**
   * A 429, never counted by the server; `full` when it came from the bucket, which is then full whatever we believed.
   * A measured leak may have been too high, so it backs off, but never below the tier rate: every Shopify plan leaks
   * at least max/20 per second, and a storm of 429s from another client of the same bucket must not shrink it towards
   * zero (each overflow episode would otherwise slow the crawl geometrically, with no measurement to recover from).
   */
  markRefused(nowMs: number, full: boolean): void {
    this.refused++;
    this.lastRefusedMs = nowMs;
    if (!full || this.max === undefined) return;
    const known = this.learnedLeak || this.provenLeak > 0;
    this.provenLeak = 0;
    // One backoff per overflow episode: the other requests already in flight overflow with it.
    if (known && this.leakPerSecond !== undefined && nowMs - this.lastOverflowMs > OVERFLOW_EPISODE_MS) {
      this.lastOverflowMs = nowMs;
      this.leakCeiling = Math.max(tierLeakPerSecond(this.max), this.leakPerSecond * OVERFLOW_BACKOFF);
      this.leakPerSecond = this.leakCeiling;
      this.estimates.length = 0;
    }
    this.level = this.max;
    this.levelAtMs = nowMs;
  }

  /** A slow answer proves a drain up to when it came back (see DRAIN_WINDOW_MS). */
  private noteDrain(sample: BucketSample, max: number, prompt: boolean, nowMs: number): void {
    if (sample.used > 1) this.inUse = true;
    if (!this.inUse) return;
    let counted = 0;
    let earliestMs = sample.sendMs;
    for (let seq = sample.seq - 1; seq >= 1 && seq > sample.seq - SENDS_REMEMBERED; seq--) {
      const sentMs = this.sendTimes[seq % SENDS_REMEMBERED] as number;
      if (sentMs < sample.sendMs - DRAIN_WINDOW_MS) break;
      if (sentMs > sample.sendMs - ARRIVAL_MARGIN_MS) continue;
      counted++;
      earliestMs = sentMs;
    }
    const spanMs = sample.sendMs - earliestMs;
    // A request refused with 429 in the span was never counted.
    if (spanMs < DRAIN_SPAN_MS || this.lastRefusedMs >= earliestMs) return;
    // Its header counts itself: all but `used - 1` of the requests counted before it had leaked.
    const countedByMs = prompt ? sample.sendMs : Math.max(sample.sendMs, nowMs);
    const leakedAtLeast = ((counted + 1 - sample.used) * 1000) / (countedByMs - earliestMs);
    if (leakedAtLeast >= DRAIN_FACTOR * tierLeakPerSecond(max)) {
      this.drainedAtMs = nowMs;
      this.drainedLeak = leakedAtLeast;
      // The rate proved stays the leak's floor, where the proof itself is forgotten after DRAIN_MEMORY_MS: it replaces
      // a lower tier guess and outweighs a measurement that reads lower (a bucket that runs empty between our sends
      // reads low: 4/s on a bucket leaking 20/s, which a drain had proved leaks at least 6.8/s).
      this.provenLeak = Math.max(this.provenLeak, leakedAtLeast);
      this.leakPerSecond = this.withinEvidence(this.leakPerSecond ?? 0);
    }
  }

  /** A leak rate kept between what a drain proved and what an overflow allows (the overflow wins). */
  private withinEvidence(rate: number): number {
    return Math.min(Math.max(rate, this.provenLeak), this.leakCeiling);
  }

  private learnLeak(sample: BucketSample): void {
    const samples = this.samples;
    samples.push(sample);
    if (samples.length > SAMPLE_HISTORY) samples.shift();
    if (sample.used <= 1) return;
    // The longest span in the history up to MAX_SAMPLE_SPAN_MS: send-time jitter (the server counts a request a
    // little after we send it) matters less the longer the span, and the cap drops spans from quiet times, when the
    // bucket may have run empty and stopped leaking.
    const base = samples.find(
      (candidate) =>
        candidate.used > 1 &&
        sample.sendMs - candidate.sendMs >= MIN_SAMPLE_SPAN_MS &&
        sample.sendMs - candidate.sendMs <= MAX_SAMPLE_SPAN_MS,
    );
    if (!base) return;
    const refusedBetween = (sample.refusedBefore ?? 0) - (base.refusedBefore ?? 0);
    const leaked = base.used + (sample.seq - base.seq) - refusedBetween - sample.used;
    const rate = (leaked * 1000) / (sample.sendMs - base.sendMs);
    if (!(rate > 0)) return;
    // The median of recent measurements: robust against a span in which the bucket ran empty (which reads low)
    // and against reordered arrivals (which read high).
    this.estimates.push(rate);
    if (this.estimates.length > ESTIMATES_KEPT) this.estimates.shift();
    if (this.estimates.length < ESTIMATES_TRUSTED) return;
    const sorted = [...this.estimates].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] as number;
    this.leakPerSecond = this.withinEvidence(median);
    this.leakCeiling *= CEILING_RECOVERY;
    this.learnedLeak = true;
  }
}

/**
 * The earliest a request sent can prove a drain of the requests sent from `firstSentMs` to `lastSentMs` (the bucket
 * probe of shop-session.ts, after a crawl's opening requests): once the first is older than the proof's span and the
 * last older than its arrival margin, so that the proof counts them all (see DRAIN_WINDOW_MS).
 */
export function drainProvableAtMs(firstSentMs: number, lastSentMs: number): number {
  return Math.max(firstSentMs + DRAIN_SPAN_MS, lastSentMs + ARRIVAL_MARGIN_MS) + PROOF_SLACK_MS;
}

/** `X-Shopify-Shop-Api-Call-Limit: 12/40` → { used: 12, max: 40 }; undefined when absent or unreadable. */
export function parseCallLimit(header: string | undefined): { used: number; max: number } | undefined {
  const match = header === undefined ? null : /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(header);
  if (!match) return undefined;
  const used = Number(match[1]);
  const max = Number(match[2]);
  return max > 0 ? { used, max } : undefined;
}
