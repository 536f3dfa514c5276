import type { JsonObject } from '../../shopify/json.js';

/** The reasons `POST orders/{id}/cancel.json` takes in 2022-01. */
export const CANCEL_REASONS: ReadonlySet<string> = new Set(['customer', 'inventory', 'fraud', 'declined', 'other']);

/**
 * One state change of an order, in the order they must run: cancel (root-level params: wrapped in `order` Shopify
 * ignores them; no `amount`, `refund` or `restock`, so no money moves and no stock changes), then close or open.
 */
export type OrderStateStep =
  | { action: 'cancel'; body: { reason: string; email: false } }
  | { action: 'close' }
  | { action: 'open' };

export interface OrderStates {
  steps: OrderStateStep[];
  /** States that cannot be reached, with the reason: reported, never attempted. */
  cannot: Array<{ field: 'cancelled' | 'cancel_reason'; reason: string }>;
}

/**
 * The steps that bring an order's states (cancelled, closed) to the snapshot's: `target` is the order in the target
 * shop, or undefined for one about to be created (created open and not cancelled, fulfilled when the snapshot's is).
 * Cancel comes first, and only for an order without fulfilments (Shopify refuses to cancel one); then close when the
 * snapshot's is closed, or open when the target's is closed and the snapshot's is not.
 */
export function orderStateSteps(snapshot: JsonObject, target: JsonObject | undefined): OrderStates {
  const states: OrderStates = { steps: [], cannot: [] };
  const wantCancelled = isSet(snapshot.cancelled_at);
  const isCancelled = target !== undefined && isSet(target.cancelled_at);
  if (wantCancelled && !isCancelled) {
    if (target === undefined ? snapshot.fulfillment_status === 'fulfilled' : hasFulfilments(target)) {
      states.cannot.push({
        field: 'cancelled',
        reason: 'Shopify refuses to cancel an order with fulfilments, and this one is fulfilled',
      });
    } else {
      const wanted = typeof snapshot.cancel_reason === 'string' ? snapshot.cancel_reason : 'other';
      const reason = CANCEL_REASONS.has(wanted) ? wanted : 'other';
      if (reason !== wanted) {
        states.cannot.push({
          field: 'cancel_reason',
          reason: `the API takes only ${[...CANCEL_REASONS].join(', ')} as a reason; '${wanted}' is restored as other`,
        });
      }
      states.steps.push({ action: 'cancel', body: { reason, email: false } });
    }
  } else if (!wantCancelled && isCancelled) {
    states.cannot.push({ field: 'cancelled', reason: 'a cancelled order cannot be un-cancelled' });
  } else if (wantCancelled && isCancelled && (snapshot.cancel_reason ?? null) !== (target?.cancel_reason ?? null)) {
    states.cannot.push({
      field: 'cancel_reason',
      reason: 'the reason is set only by cancelling, and the order is cancelled',
    });
  }
  const wantClosed = isSet(snapshot.closed_at);
  const isClosed = target !== undefined && isSet(target.closed_at);
  if (wantClosed && !isClosed) states.steps.push({ action: 'close' });
  else if (!wantClosed && isClosed) states.steps.push({ action: 'open' });
  return states;
}

/** Whether an order in the target has fulfilments (an order about to be created has them when created fulfilled). */
function hasFulfilments(order: JsonObject): boolean {
  if (Array.isArray(order.fulfillments) && order.fulfillments.length > 0) return true;
  return order.fulfillment_status === 'fulfilled' || order.fulfillment_status === 'partial';
}

function isSet(value: unknown): boolean {
  return value !== null && value !== undefined;
}
