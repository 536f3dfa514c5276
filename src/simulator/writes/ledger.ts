import type { JsonObject } from '../../shopify/json.js';
import { type WireId, wireId } from '../ids.js';

/**
 * What a write would have done beyond the shop's data on a real shop, counted so a test can prove a restore sent no
 * mail, moved no stock and refunded nothing. `emails` go to customers; `staffNotifications` are the new-order mails
 * Shopify sends to staff for every order created, whatever the request says (restore.md §1.4, unverified).
 */
export interface SideEffects {
  emails: {
    orderReceipts: number;
    fulfillmentReceipts: number;
    cancellations: number;
    invites: number;
    welcomes: number;
  };
  staffNotifications: number;
  /** Units of stock taken by orders created without `inventory_behaviour: bypass`, and put back by `restock`. */
  inventory: { decremented: number; restocked: number };
  /** Cancels that refunded money (`refund` or `amount`). */
  refunds: number;
}

export function noSideEffects(): SideEffects {
  return {
    emails: { orderReceipts: 0, fulfillmentReceipts: 0, cancellations: 0, invites: 0, welcomes: 0 },
    staffNotifications: 0,
    inventory: { decremented: 0, restocked: 0 },
    refunds: 0,
  };
}

/**
 * Ids of children added to existing records (variants and images by a product PUT or the variant endpoint, addresses
 * by a customer PUT): drawn from counters above the generated ranges, so a deleted child's id is never handed out
 * again. A big parent gets big children, as generated ones do.
 */
const API_CHILD_BASES = {
  variant: 49_000_000_000_000n,
  inventoryItem: 47_000_000_000_000n,
  image: 39_000_000_000_000n,
  address: 8_600_000_000_000n,
  metafield: 20_000_000_000_000n,
} as const;

export type ApiChildKind = keyof typeof API_CHILD_BASES;

const BIG_OFFSET = 1_000_000_000_000_000_000n;

/** The write-side state of a shop that lives beside its records. */
export class WriteLedger {
  /** Metafields written inline on create or update, by `<resource>/<id>` (`variants/<id>` for variants). */
  readonly metafields = new Map<string, JsonObject[]>();
  /** Product of each variant made by a product PUT or the variant endpoint (their ids carry no product index). */
  readonly variantOwners = new Map<bigint, bigint>();
  readonly sideEffects = noSideEffects();
  private readonly counters: Record<ApiChildKind, bigint> = {
    variant: 0n,
    inventoryItem: 0n,
    image: 0n,
    address: 0n,
    metafield: 0n,
  };

  childId(kind: ApiChildKind, big: boolean): WireId {
    const n = this.counters[kind]++;
    return wireId(API_CHILD_BASES[kind] + (big ? BIG_OFFSET : 0n) + n);
  }

  addMetafields(owner: string, list: JsonObject[]): void {
    if (list.length === 0) return;
    const kept = (this.metafields.get(owner) ?? []).filter(
      (old) => !list.some((added) => added.namespace === old.namespace && added.key === old.key),
    );
    this.metafields.set(owner, [...kept, ...list]);
  }
}
