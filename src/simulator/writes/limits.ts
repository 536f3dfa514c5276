import { ERRORS } from '../errors.js';
import { productShape } from '../generate/product.js';
import type { ResolvedShopOptions } from '../options.js';
import { ReplyError } from '../reply.js';
import type { ShopState } from '../shop-state.js';

/** Development and trial stores: "no more than 5 new orders per minute" (restore.md §1.4). */
export interface OrderCreateThrottle {
  orders: number;
  /** @default 60_000 */
  windowMs?: number;
}

/** Once a shop has `afterVariants` variants, at most `variants` new ones per `windowMs` (restore.md §0.8). */
export interface VariantCreateThrottle {
  afterVariants: number;
  variants: number;
  /** @default 86_400_000 */
  windowMs?: number;
}

/** Creations within a sliding window: `room()` before a write, `record(n)` once it is applied. */
export class SlidingWindow {
  private times: number[] = [];

  constructor(
    readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  room(): number {
    const from = this.now() - this.windowMs;
    this.times = this.times.filter((at) => at > from);
    return this.limit - this.times.length;
  }

  record(count: number): void {
    const at = this.now();
    for (let k = 0; k < count; k++) this.times.push(at);
  }
}

/** The limits beyond the bucket that refuse creations with a 429 of their own. */
export class WriteLimits {
  private readonly orders: SlidingWindow | undefined;
  private readonly variants: SlidingWindow | undefined;

  constructor(private readonly options: Pick<ResolvedShopOptions, 'orderCreateThrottle' | 'variantCreateThrottle'>) {
    const o = options.orderCreateThrottle;
    const v = options.variantCreateThrottle;
    this.orders = o && new SlidingWindow(o.orders, o.windowMs ?? 60_000);
    this.variants = v && new SlidingWindow(v.variants, v.windowMs ?? 86_400_000);
  }

  /** Answers Shopify's 429 when one more order would exceed the development-store limit. */
  checkOrder(state: ShopState): void {
    if (this.orders === undefined || this.orders.room() > 0) return;
    state.stats.writeLimits.orderCreate++;
    state.stats.throttled++;
    throw new ReplyError(ERRORS.orderCreateThrottled());
  }

  orderCreated(): void {
    this.orders?.record(1);
  }

  /** Answers Shopify's 429 when creating `count` variants would exceed the daily limit of a shop past its threshold. */
  checkVariants(state: ShopState, count: number): void {
    const knob = this.options.variantCreateThrottle;
    if (this.variants === undefined || knob === undefined || count === 0) return;
    if (shopVariantCount(state) < knob.afterVariants || this.variants.room() >= count) return;
    state.stats.writeLimits.variantCreate++;
    state.stats.throttled++;
    throw new ReplyError(ERRORS.variantCreateThrottled());
  }

  variantsCreated(count: number): void {
    this.variants?.record(count);
  }
}

/** Variants in the shop now: the generated ones still shown, plus those of products written through the API. */
export function shopVariantCount(state: ShopState): number {
  const store = state.stores.products;
  const size = store.model.size;
  const generated = state.memoizeForever('variant-total', () => {
    let total = 0;
    for (let index = 0; index < size; index++) total += productShape(state.ctx, index).variants.length;
    return total;
  });
  let count = generated;
  for (const index of store.shadowedIndices()) count -= productShape(state.ctx, index).variants.length;
  for (const entry of store.overlayEntries()) count += (store.recordOf(entry).variants as unknown[]).length;
  return count;
}
