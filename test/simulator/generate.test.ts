import { describe, expect, it } from 'vitest';
import { type JsonObject, parseJson } from '../../src/shopify/json.js';
import type { ResourceName } from '../../src/shopify/resources.js';
import { createContext, HISTORY_END_MS, MAX_UPDATE_LAG_MS } from '../../src/simulator/generate/context.js';
import { customerModel, orderModel, productModel } from '../../src/simulator/models.js';
import { serialize } from '../../src/simulator/store.js';

const ctx = createContext(42, { products: 300, customers: 400, orders: 2000 }, 0.05);
const models = { products: productModel(ctx), customers: customerModel(ctx), orders: orderModel(ctx) };
const all = (resource: ResourceName) => {
  const model = models[resource] as (typeof models)['orders'];
  return Array.from({ length: model.size }, (_, index) => model.build(model.facts(index)));
};
const products = all('products');
const customers = all('customers');
const orders = all('orders');

/** Fields the seed's tables list for each resource (section 2 of the interface). */
const SEED_FIELDS: Record<ResourceName, string[]> = {
  products:
    'id title body_html handle vendor product_type tags status published_scope published_at template_suffix created_at updated_at images options variants'.split(
      ' ',
    ),
  customers:
    'id email first_name last_name phone note state tags currency verified_email tax_exempt tax_exemptions accepts_marketing accepts_marketing_updated_at marketing_opt_in_level sms_marketing_consent multipass_identifier orders_count total_spent last_order_id last_order_name addresses default_address admin_graphql_api_id created_at updated_at'.split(
      ' ',
    ),
  orders: `id app_id user_id location_id name number order_number email phone note note_attributes tags token cart_token
    checkout_token browser_ip customer_locale landing_site referring_site source_name gateway processing_method
    payment_gateway_names payment_details order_status_url currency presentment_currency financial_status
    fulfillment_status cancel_reason buyer_accepts_marketing estimated_taxes taxes_included test total_weight created_at
    updated_at processed_at closed_at cancelled_at subtotal_price total_price total_tax total_discounts
    total_line_items_price total_outstanding total_tip_received current_subtotal_price current_total_discounts
    current_total_price current_total_tax subtotal_price_set total_price_set total_tax_set total_discounts_set
    total_line_items_price_set total_shipping_price_set current_subtotal_price_set current_total_discounts_set
    current_total_duties_set current_total_price_set current_total_tax_set original_total_duties_set
    discount_applications payment_terms billing_address shipping_address client_details customer discount_codes
    fulfillments line_items refunds shipping_lines tax_lines`.split(/\s+/),
};

describe('generated records', () => {
  it.each(['products', 'customers', 'orders'] as const)('%s carry every field of the seed table', (resource) => {
    const records = { products, customers, orders }[resource];
    for (const record of records) expect(Object.keys(record)).toEqual(expect.arrayContaining(SEED_FIELDS[resource]));
  });

  it.each(['products', 'customers', 'orders'] as const)('%s: facts agree with the built record', (resource) => {
    const model = models[resource] as (typeof models)['orders'];
    for (let index = 0; index < model.size; index += 7) {
      const facts = model.facts(index);
      expect({ ...model.factsOf(model.build(facts)), index }).toEqual(facts);
    }
  });

  it('is deterministic for a seed and differs for another seed', () => {
    const again = createContext(42, { products: 300, customers: 400, orders: 2000 }, 0.05);
    const other = createContext(43, { products: 300, customers: 400, orders: 2000 }, 0.05);
    expect(serialize(orderModel(again).build(orderModel(again).facts(1234)))).toBe(serialize(orders[1234]));
    expect(serialize(orderModel(other).build(orderModel(other).facts(1234)))).not.toBe(serialize(orders[1234]));
  });

  it('round-trips through the wire format exactly, big ids included', () => {
    for (const record of [...products.slice(0, 50), ...orders.slice(0, 200)]) {
      expect(parseJson(serialize(record))).toEqual(record);
    }
    const bigOrders = orders.filter((order) => typeof order.id === 'bigint');
    expect(bigOrders.length).toBeGreaterThan(50);
    expect(bigOrders.length).toBeLessThan(200);
    for (const order of bigOrders) expect(order.id as bigint).toBeGreaterThan(2n ** 53n);
  });

  it('has ~30% closed or cancelled orders and ~15% draft or archived products', () => {
    const notOpen = orders.filter((order) => order.closed_at !== null || order.cancelled_at !== null).length;
    expect(notOpen / orders.length).toBeGreaterThan(0.25);
    expect(notOpen / orders.length).toBeLessThan(0.35);
    const hidden = products.filter((product) => product.status !== 'active').length;
    expect(hidden / products.length).toBeGreaterThan(0.09);
    expect(hidden / products.length).toBeLessThan(0.22);
  });

  it('varies values like real data: unicode, quotes, newlines, tabs, nulls, empty arrays, long strings', () => {
    const text = serialize([products, customers, orders.slice(0, 300)]);
    expect(text).toMatch(/[À-ÿ]/); // accents
    expect(text).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/); // CJK
    expect(text).toMatch(/[\u0590-\u05ff\u0600-\u06ff]/); // RTL
    expect(text).toMatch(/\p{Extended_Pictographic}/u);
    expect(text).toContain('\\"');
    expect(text).toContain('\\n');
    expect(text).toContain('\\t');
    expect(customers.some((customer) => customer.note === null)).toBe(true);
    expect(customers.some((customer) => customer.phone === null)).toBe(true);
    expect(orders.some((order) => (order.refunds as unknown[]).length === 0)).toBe(true);
    expect(orders.some((order) => (order.refunds as unknown[]).length > 0)).toBe(true);
    expect(orders.some((order) => (order.fulfillments as unknown[]).length > 0)).toBe(true);
    expect(orders.some((order) => order.customer === null)).toBe(true);
    expect(products.some((product) => (product.title as string).length > 200)).toBe(true);
    expect(products.some((product) => (product.images as unknown[]).length === 0 && product.image === null)).toBe(true);
  });

  it('writes money as two-decimal strings and *_set objects, and timestamps with the DST offset', () => {
    for (const order of orders.slice(0, 200)) {
      expect(order.total_price).toMatch(/^\d+\.\d{2}$/);
      expect(order.total_price_set).toEqual({
        shop_money: { amount: order.total_price, currency_code: 'USD' },
        presentment_money: { amount: order.total_price, currency_code: 'USD' },
      });
      expect(order.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d-0[45]:00$/);
    }
    const offsets = new Set(orders.map((order) => (order.created_at as string).slice(-6)));
    expect(offsets).toEqual(new Set(['-05:00', '-04:00']));
  });

  it('keeps the nested shapes of the fixtures', () => {
    const order = orders.find((o) => (o.refunds as unknown[]).length > 0 && o.customer !== null) as JsonObject;
    const line = (order.line_items as JsonObject[])[0] as JsonObject;
    expect(Object.keys(line)).toEqual(
      expect.arrayContaining(['id', 'price_set', 'tax_lines', 'discount_allocations', 'properties', 'variant_id']),
    );
    const refund = (order.refunds as JsonObject[])[0] as JsonObject;
    expect(Object.keys(refund)).toEqual(expect.arrayContaining(['transactions', 'refund_line_items', 'order_id']));
    expect(typeof ((refund.refund_line_items as JsonObject[])[0] as JsonObject).subtotal).toBe('number');
    expect(Object.keys(order.customer as JsonObject)).toEqual(expect.arrayContaining(['default_address', 'email']));
    const customer = customers[0] as JsonObject;
    expect(customer.default_address).toEqual((customer.addresses as JsonObject[])[0]);
    const product = products.find((p) => (p.variants as unknown[]).length > 1) as JsonObject;
    expect(Object.keys((product.variants as JsonObject[])[0] as JsonObject)).toEqual(
      expect.arrayContaining(['presentment_prices', 'inventory_item_id', 'option1', 'weight']),
    );
    expect((product.options as JsonObject[])[0]).toHaveProperty('values');
  });

  it('stays inside the generated history with bounded update lag (the filters rely on it)', () => {
    for (const resource of ['products', 'customers', 'orders'] as const) {
      const model = models[resource] as (typeof models)['orders'];
      for (let index = 0; index < model.size; index += 3) {
        const facts = model.facts(index);
        expect(facts.updatedMs - facts.createdMs).toBeGreaterThanOrEqual(0);
        expect(facts.updatedMs - facts.createdMs).toBeLessThanOrEqual(MAX_UPDATE_LAG_MS);
        if (index > 0) expect(facts.createdMs).toBeGreaterThan(model.facts(index - 1).createdMs);
        if (resource !== 'orders') expect(facts.updatedMs).toBeLessThanOrEqual(HISTORY_END_MS);
      }
    }
  });
});
