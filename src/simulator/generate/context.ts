import type { ResourceName } from '../../shopify/resources.js';
import { ID_BASES, IdSpace } from '../ids.js';
import { hash32 } from '../random.js';

/** Generated history spans these instants, fixed so that a seed and sizes always give the same data. */
export const HISTORY_START_MS = Date.UTC(2019, 0, 3, 14);
export const HISTORY_END_MS = Date.UTC(2024, 5, 28, 21);
/** A generated record is updated at most this long after it was created; filters on updated_at rely on it. */
export const MAX_UPDATE_LAG_MS = 120 * 86_400_000;

export interface ShopSizes {
  products: number;
  customers: number;
  orders: number;
}

/** Everything a generator needs besides the record index. Immutable for the life of a shop. */
export interface GenContext {
  readonly seed: number;
  readonly shopDomain: string;
  readonly currency: string;
  readonly sizes: ShopSizes;
  readonly ids: Readonly<Record<ResourceName, IdSpace>>;
  /** Orders cycle through customer slots; slots past the last customer are guest checkouts. */
  readonly customerSlots: number;
}

const KIND: Record<ResourceName, number> = { products: 1, customers: 2, orders: 3 };

export function createContext(seed: number, sizes: ShopSizes, bigIdShare: number): GenContext {
  const ids = {
    products: new IdSpace(seed, KIND.products, ID_BASES.products, bigIdShare),
    customers: new IdSpace(seed, KIND.customers, ID_BASES.customers, bigIdShare),
    orders: new IdSpace(seed, KIND.orders, ID_BASES.orders, bigIdShare),
  };
  const guests = sizes.customers > 0 ? Math.max(1, Math.round(sizes.customers / 19)) : 0;
  return {
    seed,
    shopDomain: 'shopsnap-sim.myshopify.com',
    currency: 'USD',
    sizes,
    ids,
    customerSlots: sizes.customers + guests,
  };
}

/**
 * Creation instant of the index-th of `count` generated records: strictly increasing with the index (whole seconds),
 * so "newest first" is "highest index first" and a created_at range is an index range.
 */
export function createdMsOf(ctx: GenContext, kind: number, index: number, count: number): number {
  const spanSeconds = Math.floor((HISTORY_END_MS - HISTORY_START_MS) / 1000);
  const step = Math.max(1, Math.floor(spanSeconds / Math.max(1, count)));
  const jitter = step > 1 ? hash32(ctx.seed, kind, index, 7) % step : 0;
  return HISTORY_START_MS + (index * step + jitter) * 1000;
}

/** The customer index an order belongs to, or -1 for a guest checkout. */
export function customerIndexOfOrder(ctx: GenContext, orderIndex: number): number {
  if (ctx.sizes.customers === 0) return -1;
  const slot = orderIndex % ctx.customerSlots;
  return slot < ctx.sizes.customers ? slot : -1;
}

/** Generated orders of one customer, ascending: customer c owns orders c, c + slots, c + 2·slots, … */
export function orderIndicesOfCustomer(
  ctx: GenContext,
  customerIndex: number,
): { first: number; step: number; count: number } {
  const count =
    customerIndex < ctx.sizes.orders ? Math.floor((ctx.sizes.orders - 1 - customerIndex) / ctx.customerSlots) + 1 : 0;
  return { first: customerIndex, step: ctx.customerSlots, count };
}

/** Record kinds as mixed into hashes. */
export const KIND_OF = KIND;

export function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || 'item';
}
