import type { JsonObject, JsonValue } from '../../shopify/json.js';
import { ERRORS } from '../errors.js';
import { wireId } from '../ids.js';
import { centsOf } from '../money.js';
import { jsonReply, type Reply, ReplyError, type SimRequest } from '../reply.js';
import type { ShopState } from '../shop-state.js';
import { formatShopTime } from '../shop-time.js';
import { isObject, stringOr, timeInput, unwrap } from './envelope.js';
import { readMetafields, saveMetafields } from './metafields.js';
import { orderCustomerOf } from './order-customer.js';
import { fulfillmentOf, moveStock } from './order-effects.js';
import { allocateDiscount, orderLines, taxLines } from './order-lines.js';
import { discountCodes, invalid, orderRecord, shippingLines } from './order-record.js';

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

interface Transactions {
  /** Sales and captures that succeeded. */
  paidCents: number;
  /** Every successful sale, capture or authorization: what is not outstanding. */
  receivedCents: number;
  authorized: boolean;
}

function transactionsOf(value: JsonValue[]): Transactions {
  const result: Transactions = { paidCents: 0, receivedCents: 0, authorized: false };
  for (const transaction of value.filter(isObject)) {
    if (transaction.status !== undefined && transaction.status !== 'success') continue;
    const cents = centsOf(transaction.amount ?? 0);
    if (Number.isNaN(cents)) throw invalid('transactions');
    if (transaction.kind === 'sale' || transaction.kind === 'capture') result.paidCents += cents;
    if (transaction.kind === 'authorization') result.authorized = true;
    if (['sale', 'capture', 'authorization'].includes(String(transaction.kind))) result.receivedCents += cents;
  }
  return result;
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

function currencyOf(value: JsonValue | undefined, shopCurrency: string): string {
  if (value === undefined || value === null) return shopCurrency;
  if (typeof value !== 'string' || !/^[A-Z]{3}$/.test(value)) throw invalid('currency');
  return value;
}

/**
 * POST orders.json → 201 {"order":{…}} (README "The simulated shop" lists what it honours, after EX22's order create
 * examples). 422 for no or bad line items, an unknown status, `inventory_behaviour` or currency, tax lines on both the
 * order and its lines, a bad `processed_at`, customer or metafield; 429 from the development-store order limit.
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
  const currency = currencyOf(input.currency, state.ctx.currency);
  const store = state.stores.orders;
  // Validated against the next index's ids; the index is only taken once the order is known to be valid.
  const next = store.nextIndex();
  const fulfillments = Array.isArray(input.fulfillments) && input.fulfillments.length > 0;
  const lines = orderLines(state, lineInputs, next, currency, input.fulfillment_status === 'fulfilled' || fulfillments);
  const orderTax = taxLines(input.tax_lines, currency);
  if (orderTax.lines.length > 0 && lines.some((line) => (line.record.tax_lines as unknown[]).length > 0)) {
    const message = 'Tax lines must be associated with either order or line item but not both';
    throw new ReplyError(ERRORS.validation({ order: [message] }));
  }
  const shipping = shippingLines(input.shipping_lines, next, currency);
  const items = lines.reduce((sum, line) => sum + line.cents, 0);
  const shippingCents = shipping.reduce((sum, line) => sum + centsOf(line.price), 0);
  const codes = discountCodes(input.discount_codes, items, shippingCents);
  const tax = orderTax.cents + lines.reduce((sum, line) => sum + line.taxCents, 0);
  const discounts = codes.reduce((sum, code) => sum + code.cents, 0);
  const total = items + shippingCents - discounts + (input.taxes_included === true ? 0 : tax);
  const transactions = Array.isArray(input.transactions) ? transactionsOf(input.transactions) : undefined;
  const financialStatus = financialStatusOf(input.financial_status, transactions, total);
  const customer = orderCustomerOf(state, input);

  const { index, id, big } = store.allocate();
  const orderId = wireId(id);
  const now = formatShopTime(state.nowMs());
  const lineDiscounts = codes.filter((code) => code.type !== 'shipping').reduce((sum, code) => sum + code.cents, 0);
  allocateDiscount(lines, lineDiscounts, currency);
  const record = orderRecord(state, input, {
    index,
    orderId,
    now,
    currency,
    lines,
    shipping,
    codes,
    taxLines: orderTax.lines,
    totals: { items, discounts, shipping: shippingCents, tax, total },
    receivedCents: transactions?.receivedCents ?? 0,
    paidWithTransactions: transactions !== undefined,
    financialStatus,
    customer: customer ? customer.embedded : null,
  });
  record.processed_at = processedMs === undefined ? now : formatShopTime(processedMs);
  const fulfilled = lines.filter((line) => line.fulfilled);
  if (fulfillments) record.fulfillments = [fulfillmentOf(record, fulfilled, { index, big }, now)];
  record.fulfillment_status =
    fulfilled.length === 0 ? null : fulfilled.length === lines.length ? 'fulfilled' : 'partial';
  store.save(record);
  saveMetafields(state, 'order', orderId, metafields, now, big);
  recordEffects(state, input, { behaviour, fulfilled: fulfilled.length > 0, lines });
  if (customer) customer.countOrder(record);
  state.limits.orderCreated();
  return jsonReply(201, { order: record }, 1);
}

/** What the order would have set off on a real shop, counted (never sent). */
function recordEffects(
  state: ShopState,
  input: JsonObject,
  order: { behaviour: string; fulfilled: boolean; lines: Parameters<typeof moveStock>[1] },
): void {
  const effects = state.ledger.sideEffects;
  effects.staffNotifications++;
  if (input.send_receipt === true) effects.emails.orderReceipts++;
  if (input.send_fulfillment_receipt === true && order.fulfilled) effects.emails.fulfillmentReceipts++;
  if (order.behaviour !== 'bypass') moveStock(state, order.lines, -1);
}
