import type { JsonObject } from '../../shopify/json.js';
import { ERRORS } from '../errors.js';
import type { CustomerFacts } from '../generate/facts.js';
import { orderCustomer } from '../generate/order.js';
import { centsOf, money } from '../money.js';
import { ReplyError } from '../reply.js';
import type { ShopState } from '../shop-state.js';
import { formatShopTime } from '../shop-time.js';
import type { Entry } from '../store.js';
import { orderAddress } from './addresses.js';
import { customerWith, insertCustomer } from './customers.js';
import { isObject, stringOr } from './envelope.js';

/** The customer an order is created for: as the order embeds it, and the update of its aggregates once it exists. */
export interface OrderCustomer {
  embedded: JsonObject;
  countOrder(order: JsonObject): void;
}

/** Statuses whose money counts in a customer's `total_spent`. */
const SPENT = ['paid', 'partially_paid', 'partially_refunded'];

function linked(state: ShopState, entry: Entry<CustomerFacts>): OrderCustomer {
  const store = state.stores.customers;
  const record = store.recordOf(entry);
  return {
    embedded: orderCustomer(record),
    // Shopify recomputes a customer's aggregates when an order is placed (restore.md §1.4).
    countOrder: (order) => {
      const current = store.find(entry.facts.id);
      if (!current) return;
      const updated = structuredClone(store.recordOf(current));
      updated.orders_count = Number(updated.orders_count ?? 0) + 1;
      if (SPENT.includes(String(order.financial_status))) {
        updated.total_spent = money(centsOf(updated.total_spent ?? '0') + centsOf(order.total_price));
      }
      updated.last_order_id = order.id ?? null;
      updated.last_order_name = order.name ?? null;
      updated.updated_at = formatShopTime(state.nowMs());
      store.save(updated, current);
    },
  };
}

/**
 * The customer of an order being created (EX22 order tests 17–23): `customer: {id}` links an existing customer (422
 * for an unknown id). Otherwise the email (the customer's, else the order's) links the customer who has it, or a
 * customer is created with it: named after the billing address (else the names given), the shipping address as its
 * default address. A taken phone then refuses the order (shopify_python_api#606). An order with no email and no
 * `customer` has none.
 */
export function orderCustomerOf(state: ShopState, input: JsonObject): OrderCustomer | null {
  const store = state.stores.customers;
  const given = isObject(input.customer) ? input.customer : undefined;
  if (given && given.id !== undefined && given.id !== null) {
    const text = String(given.id);
    const entry = /^\d{1,20}$/.test(text) ? store.find(BigInt(text)) : undefined;
    if (!entry) throw new ReplyError(ERRORS.validation({ customer: ['is invalid'] }));
    return linked(state, entry);
  }
  const email = stringOr(given?.email, null) ?? stringOr(input.email, null) ?? '';
  const owner = email === '' ? undefined : customerWith(state, 'email', email);
  const entry = owner === undefined ? undefined : store.find(owner);
  if (entry) return linked(state, entry);
  if (!given && email === '') return null;
  const billing = orderAddress(input.billing_address);
  const home = orderAddress(input.shipping_address) ?? billing;
  const created = insertCustomer(state, {
    ...given,
    ...(email !== '' && { email }),
    first_name: billing?.first_name ?? given?.first_name ?? null,
    last_name: billing?.last_name ?? given?.last_name ?? null,
    addresses: home ? [home] : [],
  });
  return linked(state, store.find(BigInt(String(created.id))) as Entry<CustomerFacts>);
}
