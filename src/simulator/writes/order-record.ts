import type { JsonObject, JsonValue } from '../../shopify/json.js';
import { ERRORS } from '../errors.js';
import { CHILD_BASES, childId } from '../ids.js';
import { centsOf, money, moneySet } from '../money.js';
import { Rng, STREAM } from '../random.js';
import { ReplyError } from '../reply.js';
import type { ShopState } from '../shop-state.js';
import { orderAddress } from './addresses.js';
import { isObject, normalizeTags, noteAttributes, stringOr } from './envelope.js';
import type { Line } from './order-lines.js';

/** Channels only Shopify may name as an order's source (PROP `source_name`). */
const RESERVED_SOURCES = ['web', 'pos', 'shopify_draft_order', 'iphone', 'android'];
const APP_ID = 580_111;

export function invalid(field: string): ReplyError {
  return new ReplyError(ERRORS.validation({ [field]: ['is invalid'] }));
}

export interface DiscountCode {
  code: string;
  type: string;
  /** The amount given: money for `fixed_amount` and `shipping`, a percentage for `percentage`. */
  given: number;
  /** Money taken off. */
  cents: number;
}

/**
 * `discount_codes:[{code, amount, type}]`: `amount` is money for `fixed_amount` (and `shipping`, off the shipping
 * lines) and a percentage for `percentage`: EX22 order test_23 sends FAKE30 `9.00` percentage on 199.00 and gets
 * 17.91 off, served back as the code's `amount`.
 */
export function discountCodes(value: JsonValue | undefined, itemsCents: number, shippingCents: number): DiscountCode[] {
  return (Array.isArray(value) ? value.filter(isObject) : []).map((code) => {
    const given = Number(code.amount ?? 0);
    const type = stringOr(code.type, 'fixed_amount') as string;
    if (!Number.isFinite(given) || given < 0 || !['fixed_amount', 'percentage', 'shipping'].includes(type)) {
      throw invalid('discount_codes');
    }
    const base = type === 'shipping' ? shippingCents : itemsCents;
    const cents = type === 'percentage' ? Math.round((base * given) / 100) : Math.min(Math.round(given * 100), base);
    return { code: String(code.code ?? ''), type, given, cents };
  });
}

/** A created order's discounts as EX22 serves them: `manual` applications titled by their code. */
function discountParts(codes: DiscountCode[]): { discount_codes: JsonValue[]; discount_applications: JsonValue[] } {
  return {
    discount_codes: codes.map((code) => ({ code: code.code, amount: money(code.cents), type: code.type })),
    discount_applications: codes.map((code) => ({
      target_type: code.type === 'shipping' ? 'shipping_line' : 'line_item',
      type: 'manual',
      value: Number.isInteger(code.given) ? `${code.given}.0` : String(code.given),
      value_type: code.type === 'percentage' ? 'percentage' : 'fixed_amount',
      allocation_method: 'across',
      target_selection: 'all',
      title: code.code,
      description: code.code,
    })),
  };
}

export function shippingLines(value: JsonValue | undefined, place: { index: number; big: boolean }, currency: string) {
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

/** Digits alone as Shopify stores them: `18885551234` → `+18885551234` (EX22 order test_23). */
export function orderPhone(value: JsonValue | undefined): string | null {
  if (typeof value !== 'string') return null;
  if (/^1\d{10}$/.test(value)) return `+${value}`;
  if (/^\d{10}$/.test(value)) return `+1${value}`;
  return value;
}

export interface OrderParts {
  index: number;
  orderId: JsonValue;
  now: string;
  currency: string;
  lines: Line[];
  shipping: JsonObject[];
  codes: DiscountCode[];
  taxLines: JsonObject[];
  totals: { items: number; discounts: number; shipping: number; tax: number; total: number };
  /** Money the transactions received (sales, captures, authorizations): what is not outstanding. */
  receivedCents: number;
  paidWithTransactions: boolean;
  financialStatus: string;
  customer: JsonObject | null;
}

/** A created order, every field in the order and shape EX22's order create responses have. */
export function orderRecord(state: ShopState, input: JsonObject, parts: OrderParts): JsonObject {
  const { index, orderId, now, totals, currency } = parts;
  const amount = (cents: number) => ({ text: money(cents), set: moneySet(cents, currency) });
  const subtotal = amount(totals.items - totals.discounts);
  const total = amount(totals.total);
  const tax = amount(totals.tax);
  const discounts = amount(totals.discounts);
  const lineItems = amount(totals.items);
  const customerEmail = parts.customer ? stringOr(parts.customer.email, '') : '';
  const email = stringOr(input.email, customerEmail) as string;
  const token = new Rng(state.options.seed, STREAM.token, index).hex(32);
  const source = stringOr(input.source_name, null);
  const discount = discountParts(parts.codes);
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
    currency,
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
    discount_codes: discount.discount_codes,
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
    payment_gateway_names: parts.paidWithTransactions ? [''] : [],
    phone: orderPhone(input.phone),
    presentment_currency: currency,
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
    tax_lines: parts.taxLines,
    taxes_included: input.taxes_included === true,
    test: input.test === true,
    token,
    total_discounts: discounts.text,
    total_discounts_set: discounts.set,
    total_line_items_price: lineItems.text,
    total_line_items_price_set: lineItems.set,
    // EX22: what the transactions did not bring in, whatever the financial status says (test_20: paid, 199.00).
    total_outstanding: money(Math.max(0, totals.total - parts.receivedCents)),
    total_price: total.text,
    total_price_set: total.set,
    total_shipping_price_set: moneySet(totals.shipping, currency),
    total_tax: tax.text,
    total_tax_set: tax.set,
    total_tip_received: '0.00',
    total_weight: parts.lines.reduce((sum, line) => sum + line.grams, 0),
    updated_at: now,
    user_id: null,
    billing_address: orderAddress(input.billing_address),
    customer: parts.customer,
    discount_applications: discount.discount_applications,
    fulfillments: [],
    line_items: parts.lines.map((line) => line.record),
    payment_details: null,
    payment_terms: null,
    refunds: [],
    shipping_address: orderAddress(input.shipping_address),
    shipping_lines: parts.shipping,
  };
}
