import type { JsonObject } from '../../shopify/json.js';
import { ERRORS } from '../errors.js';
import { centsOf } from '../money.js';
import { jsonReply, type Reply, ReplyError, type SimRequest } from '../reply.js';
import type { ShopState } from '../shop-state.js';
import { formatShopTime } from '../shop-time.js';
import { isObject, optionalBody, stringOr } from './envelope.js';
import { moveStock } from './order-effects.js';
import { existingOrder } from './orders.js';

const CANCEL_REASONS = ['customer', 'fraud', 'inventory', 'declined', 'other'];

/** A cancel option given as a root-level body field or a query parameter (`email=true`). */
function flag(request: SimRequest, body: JsonObject, name: string): boolean {
  return body[name] === true || request.query.get(name) === 'true';
}

/**
 * POST orders/{id}/cancel.json. Options are root-level (wrapped in `order` they are ignored, as on Shopify):
 * `reason` (default `other`), `email` (mails the customer: counted), `restock` (puts the lines' stock back: counted),
 * `refund` or `amount` (refunds: counted; `refunded` or `partially_refunded`). Unpaid orders become `voided`;
 * closed_at is left alone. 422 for an order already cancelled, or with fulfillments (restore.md §1.5; the body's
 * wording is ours, Shopify's is unverified).
 */
export function cancelOrder(state: ShopState, request: SimRequest, id: bigint): Reply {
  const store = state.stores.orders;
  const entry = existingOrder(state, id);
  const body = optionalBody(request);
  const record = structuredClone(store.recordOf(entry));
  if (record.cancelled_at !== null) {
    throw new ReplyError(ERRORS.validation({ base: ['Order has already been cancelled'] }));
  }
  const fulfilled = ['fulfilled', 'partial'].includes(String(record.fulfillment_status));
  if (fulfilled || (Array.isArray(record.fulfillments) && record.fulfillments.length > 0)) {
    throw new ReplyError(ERRORS.validation({ base: ['Cannot cancel an order that has fulfillments'] }));
  }
  const reason = request.query.get('reason') ?? stringOr(body.reason, 'other');
  if (reason === null || !CANCEL_REASONS.includes(reason)) {
    throw new ReplyError(ERRORS.validation({ cancel_reason: ['is not included in the list'] }));
  }
  const amount = body.amount ?? request.query.get('amount') ?? undefined;
  const refundCents = isObject(body.refund)
    ? centsOf(record.total_price)
    : amount !== undefined
      ? centsOf(amount)
      : Number.NaN;
  const now = formatShopTime(state.nowMs());
  record.cancelled_at = now;
  record.cancel_reason = reason;
  const status = record.financial_status;
  const effects = state.ledger.sideEffects;
  if (status === 'pending' || status === 'authorized') record.financial_status = 'voided';
  else if (!Number.isNaN(refundCents)) {
    record.financial_status = refundCents >= centsOf(record.total_price) ? 'refunded' : 'partially_refunded';
    effects.refunds++;
  }
  const lines = record.line_items as JsonObject[];
  if (flag(request, body, 'restock')) {
    moveStock(
      state,
      lines.map((line) => ({
        variantId: line.variant_id === null ? null : BigInt(String(line.variant_id)),
        quantity: Number(line.quantity),
      })),
      1,
    );
  }
  if (flag(request, body, 'email')) effects.emails.cancellations++;
  for (const line of lines) line.fulfillable_quantity = 0;
  record.updated_at = now;
  store.save(record, entry);
  return { ...jsonReply(200, { order: record, notice: 'Order has been canceled' }), records: 1 };
}

/**
 * POST orders/{id}/close.json sets closed_at to now (a historical closed_at cannot be set, restore.md §1.5);
 * open.json clears it. Both bump updated_at; closing a closed order or opening an open one changes nothing.
 */
export function setClosed(state: ShopState, id: bigint, closed: boolean): Reply {
  const store = state.stores.orders;
  const entry = existingOrder(state, id);
  const current = store.recordOf(entry);
  if ((current.closed_at !== null) === closed) return jsonReply(200, { order: current }, 1);
  const record = structuredClone(current);
  const now = formatShopTime(state.nowMs());
  record.closed_at = closed ? now : null;
  record.updated_at = now;
  store.save(record, entry);
  return jsonReply(200, { order: record }, 1);
}
