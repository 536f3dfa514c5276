import { ERRORS } from '../errors.js';
import type { OrderFacts } from '../generate/facts.js';
import type { WireId } from '../ids.js';
import { jsonReply, type Reply, ReplyError, type SimRequest } from '../reply.js';
import type { ShopState } from '../shop-state.js';
import { formatShopTime } from '../shop-time.js';
import type { Entry } from '../store.js';
import { orderAddress } from './addresses.js';
import { isObject, normalizeTags, noteAttributes, unwrap } from './envelope.js';
import { metafieldKey, readMetafields, saveMetafields } from './metafields.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** Gateways that take money online: their orders cannot be deleted (REF20). */
export const ONLINE_GATEWAYS = ['shopify_payments', 'paypal'];

export function existingOrder(state: ShopState, id: bigint): Entry<OrderFacts> {
  const entry = state.stores.orders.find(id);
  if (!entry) throw new ReplyError(ERRORS.notFound());
  return entry;
}

/**
 * PUT orders/{id}.json changes only what EX22 and REF20 show a PUT changing (restore.md §1.6): `note`,
 * `note_attributes`, `tags`, `email`, `phone`, `buyer_accepts_marketing`, `shipping_address` (merged), `metafields`
 * and `customer: null` (detaches the customer). Every other field is ignored, as Shopify ignores read-only
 * attributes (`financial_status` included: it is create-only), except a changed `source_name`, which Shopify refuses
 * (shopify-api-ruby#176). Bumps updated_at.
 */
export function updateOrder(state: ShopState, request: SimRequest, id: bigint): Reply {
  const store = state.stores.orders;
  const entry = existingOrder(state, id);
  const input = unwrap(request, 'order');
  const record = structuredClone(store.recordOf(entry));
  if (input.source_name !== undefined && input.source_name !== record.source_name) {
    const message = 'is only assignable during creation and may not be changed.';
    throw new ReplyError(ERRORS.validation({ source_name: [message] }));
  }
  if (typeof input.email === 'string' && input.email !== '' && !EMAIL.test(input.email)) {
    throw new ReplyError(ERRORS.validation({ email: ['is invalid'] }));
  }
  const metafields = readMetafields(input.metafields);
  for (const key of ['note', 'email', 'phone'] as const) {
    if (typeof input[key] === 'string' || input[key] === null) record[key] = input[key];
  }
  if (typeof input.email === 'string') record.contact_email = input.email === '' ? null : input.email;
  const tags = normalizeTags(input.tags);
  if (tags !== undefined) record.tags = tags;
  if (typeof input.buyer_accepts_marketing === 'boolean')
    record.buyer_accepts_marketing = input.buyer_accepts_marketing;
  const attributes = noteAttributes(input.note_attributes);
  if (attributes) record.note_attributes = attributes;
  if (isObject(input.shipping_address)) {
    const old = isObject(record.shipping_address) ? record.shipping_address : {};
    record.shipping_address = orderAddress({ ...old, ...input.shipping_address }) ?? record.shipping_address ?? null;
  }
  if (input.customer === null) record.customer = null;
  const now = formatShopTime(state.nowMs());
  record.updated_at = now;
  store.save(record, entry);
  const big = state.ctx.ids.orders.isBig(state.ctx.ids.orders.indexOf(id));
  saveMetafields(state, 'order', record.id as WireId, metafields, now, big);
  return jsonReply(200, { order: record }, 1);
}

/**
 * DELETE orders/{id}.json → 200 {}; an order paid through an online gateway cannot be deleted: 422 with the body
 * seen from Shopify (nozzlegear/Gearworks#7). Orders created through the API have no gateway.
 */
export function deleteOrder(state: ShopState, id: bigint): Reply {
  const store = state.stores.orders;
  const entry = existingOrder(state, id);
  const record = store.recordOf(entry);
  if (ONLINE_GATEWAYS.includes(String(record.gateway))) {
    throw new ReplyError(ERRORS.validation({ base: ['Cannot delete orders brokered by Shopify'] }));
  }
  store.remove(entry);
  state.ledger.metafields.delete(metafieldKey('order', id));
  return jsonReply(200, {});
}
