/** Bucket size and leak rate of Shopify's REST leaky bucket. */
export interface BucketShape {
  bucket: number;
  leakPerSecond: number;
}

export type RatePreset = 'standard' | 'advanced' | 'plus' | 'unlimited';

/**
 * standard: 40 @ 2/s; advanced: 80 @ 4/s; plus: 400 @ 20/s (Shopify staff, 2023; older sources say 80 @ 4/s);
 * unlimited never throttles.
 */
export const RATE_PRESETS: Record<RatePreset, BucketShape> = {
  standard: { bucket: 40, leakPerSecond: 2 },
  advanced: { bucket: 80, leakPerSecond: 4 },
  plus: { bucket: 400, leakPerSecond: 20 },
  unlimited: { bucket: 40, leakPerSecond: Number.POSITIVE_INFINITY },
};

/**
 * A preset's name or any bucket as `SIZE@LEAK` (`80@4`, `320@16`, `40@20`: apps with raised limits and shops whose
 * leak is not their tier's exist); undefined when the text is neither.
 */
export function parseRate(text: string): BucketShape | undefined {
  if (Object.hasOwn(RATE_PRESETS, text)) return RATE_PRESETS[text as RatePreset];
  const match = /^(\d+)@(\d+(?:\.\d+)?)$/.exec(text.trim());
  if (!match) return undefined;
  const shape = { bucket: Number(match[1]), leakPerSecond: Number(match[2]) };
  return Number.isSafeInteger(shape.bucket) && shape.bucket >= 1 && shape.leakPerSecond > 0 ? shape : undefined;
}

export interface BucketTake {
  allowed: boolean;
  /** `X-Shopify-Shop-Api-Call-Limit` value, e.g. "12/40". */
  header: string;
}

/**
 * One bucket per access token. Each request adds 1; the bucket leaks continuously; a request that would overflow it
 * is refused (429) and adds nothing.
 */
export class LeakyBucket {
  private level = 0;
  private at: number;

  constructor(
    private readonly shape: BucketShape,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.at = now();
  }

  take(): BucketTake {
    const now = this.now();
    const leaked = ((now - this.at) / 1000) * this.shape.leakPerSecond;
    this.level = Number.isFinite(leaked) ? Math.max(0, this.level - leaked) : 0;
    this.at = now;
    if (this.level + 1 > this.shape.bucket) {
      return { allowed: false, header: this.fullHeader() };
    }
    this.level += 1;
    return { allowed: true, header: `${Math.ceil(this.level - 1e-9)}/${this.shape.bucket}` };
  }

  /** The header value of a full bucket (a 429 storm drawn by the faults). */
  fullHeader(): string {
    return `${this.shape.bucket}/${this.shape.bucket}`;
  }

  /** The header value without taking a call (for responses that are not counted, e.g. 401). */
  peek(): string {
    return `0/${this.shape.bucket}`;
  }

  get leakPerSecond(): number {
    return this.shape.leakPerSecond;
  }
}
