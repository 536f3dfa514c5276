import type { JsonObject, JsonValue } from '../../shopify/json.js';
import { ERRORS } from '../errors.js';
import type { OrderFacts } from '../generate/facts.js';
import { CHILD_BASES, childId, wireId } from '../ids.js';
import { centsOf, money, moneySet } from '../money.js';
import { Rng, STREAM } from '../random.js';
import { jsonReply, type Reply, ReplyError, type SimRequest } from '../reply.js';
import type { ShopState } from '../shop-state.js';
import { formatShopTime } from '../shop-time.js';
import type { Entry } from '../store.js';
import { isObject, normalizeTags, optionalBody, stringOr, unwrap } from './envelope.js';

const CANCEL_REASONS = ['customer', 'fraud', 'inventory', 'declined', 'other'];
const FINANCIAL_STATUSES = [
  'pending',
  'authorized',
  'partially_paid',
  'paid',
  'partially_refunded',
  'refunded',
  'voided',
];
const EDITABLE_TEXT = ['note', 'email', 'phone'] as const;
const VARIANT_BIG_OFFSET = 1_000_000_000_000_000_000n;

function existing(state: ShopState, id: bigint): Entry<OrderFacts> {
  const entry = state.stores.orders.find(id);
  if (!entry) throw new ReplyError(ERRORS.notFound());
  return entry;
}

/** The product and variant records of a variant id, through the products store (so edited products count). */
function findVariant(state: ShopState, variantId: bigint): { product: JsonObject; variant: JsonObject } | undefined {
  const offset = variantId >= VARIANT_BIG_OFFSET ? variantId - VARIANT_BIG_OFFSET : variantId;
  if (offset < CHILD_BASES.variant) return undefined;
  const productIndex = Number((offset - CHILD_BASES.variant) / 100n);
  const products = state.stores.products;
  const entry = products.find(state.ctx.ids.products.idOf(productIndex));
  if (!entry) return undefined;
  const product = products.recordOf(entry);
  const variant = (product.variants as JsonObject[]).find((v) => String(v.id) === variantId.toString());
  return variant ? { product, variant } : undefined;
}

/** POST orders.json → 201 {"order":{…}}; 422 without line items or with an unknown variant. */
export function createOrder(state: ShopState, request: SimRequest): Reply {
  const input = unwrap(request, 'order');
  const lineInputs = Array.isArray(input.line_items) ? input.line_items.filter(isObject) : [];
  if (lineInputs.length === 0) throw new ReplyError(ERRORS.validation({ line_items: ["can't be blank"] }));
  const financialStatus = stringOr(input.financial_status, 'paid') as string;
  if (!FINANCIAL_STATUSES.includes(financialStatus)) {
    throw new ReplyError(ERRORS.validation({ financial_status: ['is not included in the list'] }));
  }
  const store = state.stores.orders;
  const { index, id, big } = store.allocate();
  const orderId = wireId(id);
  const cur = state.ctx.currency;
  const now = formatShopTime(state.nowMs());
  let itemsCents = 0;
  let grams = 0;
  const lineItems = lineInputs.map((line, k): JsonObject => {
    const quantity = typeof line.quantity === 'number' && line.quantity > 0 ? Math.floor(line.quantity) : 1;
    let found: { product: JsonObject; variant: JsonObject } | undefined;
    if (line.variant_id !== undefined && line.variant_id !== null) {
      const variantId = typeof line.variant_id === 'string' ? line.variant_id : String(line.variant_id);
      found = /^\d+$/.test(variantId) ? findVariant(state, BigInt(variantId)) : undefined;
      if (!found) throw new ReplyError(ERRORS.validation({ line_items: ['is invalid'] }));
    }
    const priceCents = found ? centsOf(found.variant.price) : centsOf(line.price ?? '0');
    if (Number.isNaN(priceCents)) throw new ReplyError(ERRORS.validation({ line_items: ['is invalid'] }));
    const lineGrams = found ? Number(found.variant.grams) : Number(line.grams ?? 0) || 0;
    itemsCents += priceCents * quantity;
    grams += lineGrams * quantity;
    const lineId = childId(CHILD_BASES.lineItem, index, k, big);
    const title = found ? String(found.product.title) : (stringOr(line.title, 'Custom item') as string);
    const variantTitle = found && found.variant.title !== 'Default Title' ? String(found.variant.title) : null;
    return {
      id: lineId,
      admin_graphql_api_id: `gid://shopify/LineItem/${String(lineId)}`,
      fulfillable_quantity: quantity,
      fulfillment_service: 'manual',
      fulfillment_status: null,
      gift_card: false,
      grams: lineGrams,
      name: variantTitle ? `${title} - ${variantTitle}` : title,
      price: money(priceCents),
      price_set: moneySet(priceCents, cur),
      product_exists: found !== undefined,
      product_id: found ? (found.product.id as JsonValue) : null,
      properties: Array.isArray(line.properties) ? line.properties : [],
      quantity,
      requires_shipping: lineGrams > 0,
      sku: found ? (found.variant.sku as JsonValue) : stringOr(line.sku, ''),
      taxable: line.taxable !== false,
      title,
      total_discount: '0.00',
      total_discount_set: moneySet(0, cur),
      variant_id: found ? (found.variant.id as JsonValue) : null,
      variant_inventory_management: found ? 'shopify' : null,
      variant_title: variantTitle,
      vendor: found ? (found.product.vendor as JsonValue) : null,
      tax_lines: [],
      duties: [],
      discount_allocations: [],
    };
  });
  const taxLines = (Array.isArray(input.tax_lines) ? input.tax_lines.filter(isObject) : []).map((tax) => {
    const cents = centsOf(tax.price ?? 0);
    return {
      price: money(cents),
      rate: typeof tax.rate === 'number' ? tax.rate : 0,
      title: stringOr(tax.title, 'Tax'),
      price_set: moneySet(cents, cur),
      channel_liable: null,
    };
  });
  const taxCents = taxLines.reduce((sum, tax) => sum + centsOf(tax.price), 0);
  const totalCents = itemsCents + taxCents;
  const customerInput = isObject(input.customer) ? input.customer : null;
  let customer: JsonValue = null;
  if (customerInput && customerInput.id !== undefined) {
    const customers = state.stores.customers;
    const text = String(customerInput.id);
    const found = /^\d{1,20}$/.test(text) ? customers.find(BigInt(text)) : undefined;
    if (!found) throw new ReplyError(ERRORS.validation({ customer: ['is invalid'] }));
    const full = customers.recordOf(found);
    customer = Object.fromEntries(
      Object.entries(full).filter(
        ([key]) => !['orders_count', 'total_spent', 'last_order_id', 'last_order_name', 'addresses'].includes(key),
      ),
    );
  }
  const email = stringOr(input.email, customer ? stringOr((customer as JsonObject).email, '') : '') as string;
  const token = new Rng(state.options.seed, STREAM.token, index).hex(32);
  const totals = (cents: number) => ({ text: money(cents), set: moneySet(cents, cur) });
  const subtotal = totals(itemsCents);
  const total = totals(totalCents);
  const tax = totals(taxCents);
  const zero = totals(0);
  const record: JsonObject = {
    id: orderId,
    admin_graphql_api_id: `gid://shopify/Order/${orderId}`,
    app_id: 580_111,
    browser_ip: null,
    buyer_accepts_marketing: input.buyer_accepts_marketing === true,
    cancel_reason: null,
    cancelled_at: null,
    cart_token: null,
    checkout_id: null,
    checkout_token: null,
    client_details: null,
    closed_at: null,
    confirmed: true,
    contact_email: email === '' ? null : email,
    created_at: now,
    currency: cur,
    current_subtotal_price: subtotal.text,
    current_subtotal_price_set: subtotal.set,
    current_total_discounts: zero.text,
    current_total_discounts_set: zero.set,
    current_total_duties_set: null,
    current_total_price: total.text,
    current_total_price_set: total.set,
    current_total_tax: tax.text,
    current_total_tax_set: tax.set,
    customer_locale: null,
    device_id: null,
    discount_codes: [],
    email,
    estimated_taxes: false,
    financial_status: financialStatus,
    fulfillment_status: null,
    gateway: '',
    landing_site: null,
    landing_site_ref: null,
    location_id: null,
    merchant_of_record_app_id: null,
    name: `#${1001 + index}`,
    note: stringOr(input.note, null),
    note_attributes: Array.isArray(input.note_attributes) ? input.note_attributes : [],
    number: index + 1,
    order_number: 1001 + index,
    order_status_url: `https://${state.ctx.shopDomain}/548380009/orders/${token}/authenticate?key=${token.slice(0, 16)}`,
    original_total_duties_set: null,
    payment_gateway_names: [],
    phone: stringOr(input.phone, null),
    presentment_currency: cur,
    processed_at: now,
    processing_method: '',
    reference: null,
    referring_site: null,
    source_identifier: null,
    source_name: '580111',
    source_url: null,
    subtotal_price: subtotal.text,
    subtotal_price_set: subtotal.set,
    tags: normalizeTags(input.tags) ?? '',
    tax_lines: taxLines,
    taxes_included: input.taxes_included === true,
    test: input.test === true,
    token,
    total_discounts: zero.text,
    total_discounts_set: zero.set,
    total_line_items_price: subtotal.text,
    total_line_items_price_set: subtotal.set,
    total_outstanding: financialStatus === 'paid' ? '0.00' : total.text,
    total_price: total.text,
    total_price_set: total.set,
    total_shipping_price_set: zero.set,
    total_tax: tax.text,
    total_tax_set: tax.set,
    total_tip_received: '0.00',
    total_weight: grams,
    updated_at: now,
    user_id: null,
    billing_address: isObject(input.billing_address) ? input.billing_address : null,
    customer,
    discount_applications: [],
    fulfillments: [],
    line_items: lineItems,
    payment_details: null,
    payment_terms: null,
    refunds: [],
    shipping_address: isObject(input.shipping_address) ? input.shipping_address : null,
    shipping_lines: [],
  };
  store.save(record);
  return jsonReply(201, { order: record }, 1);
}

/** PUT orders/{id}.json: note, email, phone, tags, buyer_accepts_marketing, addresses, note_attributes. */
export function updateOrder(state: ShopState, request: SimRequest, id: bigint): Reply {
  const store = state.stores.orders;
  const entry = existing(state, id);
  const input = unwrap(request, 'order');
  const record = structuredClone(store.recordOf(entry));
  for (const key of EDITABLE_TEXT) if (typeof input[key] === 'string' || input[key] === null) record[key] = input[key];
  const tags = normalizeTags(input.tags);
  if (tags !== undefined) record.tags = tags;
  if (typeof input.buyer_accepts_marketing === 'boolean')
    record.buyer_accepts_marketing = input.buyer_accepts_marketing;
  for (const key of ['shipping_address', 'billing_address'] as const) {
    if (isObject(input[key])) record[key] = { ...(isObject(record[key]) ? record[key] : {}), ...input[key] };
  }
  if (Array.isArray(input.note_attributes)) record.note_attributes = input.note_attributes;
  record.updated_at = formatShopTime(state.nowMs());
  store.save(record, entry);
  return jsonReply(200, { order: record }, 1);
}

export function deleteOrder(state: ShopState, id: bigint): Reply {
  state.stores.orders.remove(existing(state, id));
  return jsonReply(200, {});
}

/**
 * POST orders/{id}/cancel.json: sets cancelled_at and cancel_reason (param or body `reason`, default `other`), voids
 * unpaid orders and refunds when `amount` or `refund` is given; closed_at is left alone. Orders with fulfillments
 * cannot be cancelled (422).
 */
export function cancelOrder(state: ShopState, request: SimRequest, id: bigint): Reply {
  const store = state.stores.orders;
  const entry = existing(state, id);
  const body = optionalBody(request);
  const record = structuredClone(store.recordOf(entry));
  if (record.cancelled_at !== null) {
    throw new ReplyError(ERRORS.validation({ base: ['Order has already been cancelled'] }));
  }
  if (Array.isArray(record.fulfillments) && record.fulfillments.length > 0) {
    throw new ReplyError(ERRORS.validation({ base: ['Cannot cancel an order that has fulfillments'] }));
  }
  const reason = request.query.get('reason') ?? stringOr(body.reason, 'other');
  if (reason === null || !CANCEL_REASONS.includes(reason)) {
    throw new ReplyError(ERRORS.validation({ cancel_reason: ['is not included in the list'] }));
  }
  const now = formatShopTime(state.nowMs());
  record.cancelled_at = now;
  record.cancel_reason = reason;
  const status = record.financial_status;
  const refundCents = isObject(body.refund)
    ? centsOf(record.total_price)
    : body.amount !== undefined
      ? centsOf(body.amount)
      : Number.NaN;
  if (status === 'pending' || status === 'authorized') record.financial_status = 'voided';
  else if (!Number.isNaN(refundCents)) {
    record.financial_status = refundCents >= centsOf(record.total_price) ? 'refunded' : 'partially_refunded';
  }
  for (const line of record.line_items as JsonObject[]) line.fulfillable_quantity = 0;
  record.updated_at = now;
  store.save(record, entry);
  return { ...jsonReply(200, { order: record, notice: 'Order has been canceled' }), records: 1 };
}

/** POST orders/{id}/close.json: sets closed_at; open.json clears it. Both bump updated_at. */
export function setClosed(state: ShopState, id: bigint, closed: boolean): Reply {
  const store = state.stores.orders;
  const entry = existing(state, id);
  const record = structuredClone(store.recordOf(entry));
  const now = formatShopTime(state.nowMs());
  record.closed_at = closed ? now : null;
  record.updated_at = now;
  store.save(record, entry);
  return jsonReply(200, { order: record }, 1);
}
