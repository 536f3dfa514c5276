import type { JsonObject, JsonValue } from '../../shopify/json.js';
import { ERRORS } from '../errors.js';
import { CHILD_BASES, childId, wireId } from '../ids.js';
import { centsOf, money, moneySet } from '../money.js';
import { Rng, STREAM } from '../random.js';
import { jsonReply, type Reply, ReplyError, type SimRequest } from '../reply.js';
import type { ShopState } from '../shop-state.js';
import { formatShopTime } from '../shop-time.js';
import { orderAddress } from './addresses.js';
import { isObject, normalizeTags, noteAttributes, stringOr, timeInput, unwrap } from './envelope.js';
import { readMetafields, saveMetafields } from './metafields.js';
import { orderCustomerOf } from './order-customer.js';
import { fulfillmentOf, moveStock } from './order-effects.js';
import { allocateDiscount, type Line, orderLines, taxLines } from './order-lines.js';

export const FINANCIAL_STATUSES = [
  'pending',
  'authorized',
  'partially_paid',
  'paid',
  'partially_refunded',
  'refunded',
  'voided',
];
const INVENTORY_BEHAVIOURS = ['bypass', 'decrement_ignoring_policy', 'decrement_obeying_policy'];
/** Channels only Shopify may name as an order's source (PROP `source_name`). */
const RESERVED_SOURCES = ['web', 'pos', 'shopify_draft_order', 'iphone', 'android'];
const APP_ID = 580_111;

function invalid(field: string): ReplyError {
  return new ReplyError(ERRORS.validation({ [field]: ['is invalid'] }));
}

/** Successful money-taking transactions (`sale`, `capture`) and authorizations a create carries. */
function transactionsOf(value: JsonValue | undefined): { paidCents: number; authorized: boolean } {
  let paidCents = 0;
  let authorized = false;
  for (const transaction of Array.isArray(value) ? value.filter(isObject) : []) {
    if (transaction.status !== undefined && transaction.status !== 'success') continue;
    const cents = centsOf(transaction.amount ?? 0);
    if (Number.isNaN(cents)) throw invalid('transactions');
    if (transaction.kind === 'sale' || transaction.kind === 'capture') paidCents += cents;
    if (transaction.kind === 'authorization') authorized = true;
  }
  return { paidCents, authorized };
}

/**
 * `financial_status` as created: the one given (create-only, PROP); else what the transactions say; else `paid`, as
 * an order created with line items alone comes back (EX22 order test_20).
 */
export function financialStatusOf(
  given: JsonValue | undefined,
  transactions: { paidCents: number; authorized: boolean } | undefined,
  totalCents: number,
): string {
  if (given !== undefined && given !== null) {
    if (typeof given !== 'string' || !FINANCIAL_STATUSES.includes(given)) {
      throw new ReplyError(ERRORS.validation({ financial_status: ['is not included in the list'] }));
    }
    return given;
  }
  if (!transactions) return 'paid';
  if (transactions.paidCents >= totalCents) return 'paid';
  if (transactions.paidCents > 0) return 'partially_paid';
  return transactions.authorized ? 'authorized' : 'pending';
}

interface Totals {
  items: number;
  discounts: number;
  shipping: number;
  tax: number;
  total: number;
}

function discountCodes(input: JsonObject, itemsCents: number, shippingCents: number) {
  const codes = (Array.isArray(input.discount_codes) ? input.discount_codes.filter(isObject) : []).map((code) => {
    const amount = centsOf(code.amount ?? 0);
    const type = stringOr(code.type, 'fixed_amount') as string;
    if (Number.isNaN(amount) || !['fixed_amount', 'percentage', 'shipping'].includes(type)) {
      throw invalid('discount_codes');
    }
    const base = type === 'shipping' ? shippingCents : itemsCents;
    const cents = type === 'percentage' ? Math.round((base * amount) / 10_000) : Math.min(amount, base);
    return { code: String(code.code ?? ''), amount: money(cents), type, cents, value: code.amount as JsonValue };
  });
  return codes;
}

function shippingLines(value: JsonValue | undefined, place: { index: number; big: boolean }, currency: string) {
  return (Array.isArray(value) ? value.filter(isObject) : []).map((line, k) => {
    const cents = centsOf(line.price ?? 0);
    if (Number.isNaN(cents)) throw invalid('shipping_lines');
    return {
      id: childId(CHILD_BASES.shippingLine, place.index, k, place.big),
      carrier_identifier: null,
      code: stringOr(line.code, null),
      delivery_category: null,
      discounted_price: money(cents),
      discounted_price_set: moneySet(cents, currency),
      phone: null,
      price: money(cents),
      price_set: moneySet(cents, currency),
      requested_fulfillment_service_id: null,
      source: stringOr(line.source, 'shopify'),
      title: stringOr(line.title, 'Shipping'),
      tax_lines: [],
      discount_allocations: [],
    };
  });
}

/**
 * POST orders.json → 201 {"order":{…}} (see README "The simulated shop" for every field it honours). 422 for no or
 * bad line items, an unknown status or `inventory_behaviour`, tax lines on both the order and its lines, a bad
 * `processed_at`, customer or metafield; 429 from the development-store order limit.
 */
export function createOrder(state: ShopState, request: SimRequest): Reply {
  state.limits.checkOrder(state);
  const input = unwrap(request, 'order');
  const lineInputs = Array.isArray(input.line_items) ? input.line_items.filter(isObject) : [];
  if (lineInputs.length === 0) throw new ReplyError(ERRORS.validation({ line_items: ["can't be blank"] }));
  const behaviour = stringOr(input.inventory_behaviour, 'bypass') as string;
  if (!INVENTORY_BEHAVIOURS.includes(behaviour)) throw invalid('inventory_behaviour');
  const processedMs = timeInput(input.processed_at, 'processed_at');
  const metafields = readMetafields(input.metafields);
  const cur = state.ctx.currency;
  const store = state.stores.orders;
  // Validated against the next index's ids; the index is only taken once the order is known to be valid.
  const next = store.nextIndex();
  const fulfilledAll = input.fulfillment_status === 'fulfilled' || Array.isArray(input.fulfillments);
  const lines = orderLines(state, lineInputs, next, fulfilledAll);
  const orderTax = taxLines(input.tax_lines, cur);
  if (orderTax.lines.length > 0 && lines.some((line) => line.taxCents > 0 || (line.record.tax_lines as []).length)) {
    const message = 'Tax lines must be associated with either order or line item but not both';
    throw new ReplyError(ERRORS.validation({ order: [message] }));
  }
  const shipping = shippingLines(input.shipping_lines, next, cur);
  const items = lines.reduce((sum, line) => sum + line.cents, 0);
  const shippingCents = shipping.reduce((sum, line) => sum + centsOf(line.price), 0);
  const codes = discountCodes(input, items, shippingCents);
  const tax = orderTax.cents + lines.reduce((sum, line) => sum + line.taxCents, 0);
  const discounts = codes.reduce((sum, code) => sum + code.cents, 0);
  const totals: Totals = {
    items,
    discounts,
    shipping: shippingCents,
    tax,
    total: items + shippingCents - discounts + (input.taxes_included === true ? 0 : tax),
  };
  const transactions = Array.isArray(input.transactions) ? transactionsOf(input.transactions) : undefined;
  const financialStatus = financialStatusOf(input.financial_status, transactions, totals.total);
  const customer = orderCustomerOf(state, input);

  const { index, id, big } = store.allocate();
  const orderId = wireId(id);
  const nowMs = state.nowMs();
  const now = formatShopTime(nowMs);
  allocateDiscount(
    lines,
    codes.filter((code) => code.type !== 'shipping').reduce((sum, code) => sum + code.cents, 0),
    cur,
  );
  const record = orderRecord(state, input, { index, big, orderId, now, lines, totals, financialStatus, customer });
  record.processed_at = processedMs === undefined ? now : formatShopTime(processedMs);
  record.discount_codes = codes.map(({ code, amount, type }) => ({ code, amount, type }));
  record.discount_applications = codes.map((code) => ({
    target_type: code.type === 'shipping' ? 'shipping_line' : 'line_item',
    type: 'discount_code',
    value: code.value,
    value_type: code.type === 'percentage' ? 'percentage' : 'fixed_amount',
    allocation_method: 'across',
    target_selection: 'all',
    code: code.code,
  }));
  record.shipping_lines = shipping;
  record.total_outstanding = outstanding(financialStatus, totals.total, transactions?.paidCents ?? 0);
  const fulfilled = lines.filter((line) => line.fulfilled);
  if (fulfilled.length > 0) record.fulfillments = [fulfillmentOf(record, fulfilled, { index, big }, now)];
  record.fulfillment_status =
    fulfilled.length === 0 ? null : fulfilled.length === lines.length ? 'fulfilled' : 'partial';
  store.save(record);
  saveMetafields(state, 'order', orderId, metafields, now, big);

  const effects = state.ledger.sideEffects;
  effects.staffNotifications++;
  if (input.send_receipt === true) effects.emails.orderReceipts++;
  if (input.send_fulfillment_receipt === true && fulfilled.length > 0) effects.emails.fulfillmentReceipts++;
  if (behaviour !== 'bypass') moveStock(state, lines, -1);
  if (customer) customer.countOrder(record);
  state.limits.orderCreated();
  return jsonReply(201, { order: record }, 1);
}

function outstanding(status: string, totalCents: number, paidCents: number): string {
  if (['paid', 'refunded', 'partially_refunded', 'voided'].includes(status)) return '0.00';
  return money(status === 'partially_paid' ? Math.max(0, totalCents - paidCents) : totalCents);
}

interface OrderParts {
  index: number;
  big: boolean;
  orderId: JsonValue;
  now: string;
  lines: Line[];
  totals: Totals;
  financialStatus: string;
  customer: { embedded: JsonObject } | null;
}

function orderRecord(state: ShopState, input: JsonObject, parts: OrderParts): JsonObject {
  const { index, orderId, now, totals } = parts;
  const cur = state.ctx.currency;
  const amount = (cents: number) => ({ text: money(cents), set: moneySet(cents, cur) });
  const subtotal = amount(totals.items - totals.discounts);
  const total = amount(totals.total);
  const tax = amount(totals.tax);
  const discounts = amount(totals.discounts);
  const lineItems = amount(totals.items);
  const customerEmail = parts.customer ? stringOr(parts.customer.embedded.email, '') : '';
  const email = stringOr(input.email, customerEmail) as string;
  const token = new Rng(state.options.seed, STREAM.token, index).hex(32);
  const source = stringOr(input.source_name, null);
  return {
    id: orderId,
    admin_graphql_api_id: `gid://shopify/Order/${String(orderId)}`,
    app_id: APP_ID,
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
    current_total_discounts: discounts.text,
    current_total_discounts_set: discounts.set,
    current_total_duties_set: null,
    current_total_price: total.text,
    current_total_price_set: total.set,
    current_total_tax: tax.text,
    current_total_tax_set: tax.set,
    customer_locale: stringOr(input.customer_locale, null),
    device_id: null,
    discount_codes: [],
    email,
    estimated_taxes: false,
    financial_status: parts.financialStatus,
    fulfillment_status: null,
    gateway: '',
    landing_site: null,
    landing_site_ref: null,
    location_id: null,
    merchant_of_record_app_id: null,
    name: stringOr(input.name, `#${1001 + index}`),
    note: stringOr(input.note, null),
    note_attributes: noteAttributes(input.note_attributes) ?? [],
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
    // Reserved channel names are not an app's to give (PROP); what Shopify answers is unverified: ignored here.
    source_name: source === null || RESERVED_SOURCES.includes(source) ? String(APP_ID) : source,
    source_url: null,
    subtotal_price: subtotal.text,
    subtotal_price_set: subtotal.set,
    tags: normalizeTags(input.tags) ?? '',
    tax_lines: taxLines(input.tax_lines, cur).lines,
    taxes_included: input.taxes_included === true,
    test: input.test === true,
    token,
    total_discounts: discounts.text,
    total_discounts_set: discounts.set,
    total_line_items_price: lineItems.text,
    total_line_items_price_set: lineItems.set,
    total_outstanding: '0.00',
    total_price: total.text,
    total_price_set: total.set,
    total_shipping_price_set: moneySet(totals.shipping, cur),
    total_tax: tax.text,
    total_tax_set: tax.set,
    total_tip_received: '0.00',
    total_weight: parts.lines.reduce((sum, line) => sum + line.grams, 0),
    updated_at: now,
    user_id: null,
    billing_address: orderAddress(input.billing_address),
    customer: parts.customer ? parts.customer.embedded : null,
    discount_applications: [],
    fulfillments: [],
    line_items: parts.lines.map((line) => line.record),
    payment_details: null,
    payment_terms: null,
    refunds: [],
    shipping_address: orderAddress(input.shipping_address),
    shipping_lines: [],
  };
}
