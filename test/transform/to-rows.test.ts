import { describe, expect, it } from 'vitest';
import { type JsonObject, type JsonValue, parseJson } from '../../src/shopify/json.js';
import { RESOURCES, type ResourceName } from '../../src/shopify/resources.js';
import type { Row } from '../../src/transform/cells.js';
import { EXTRA_COLUMN, tablesFor, toRows } from '../../src/transform/index.js';
import { apiFixture } from '../helpers/api-fixtures.js';

function rowsOf(resource: ResourceName, record: JsonObject, table: string): Row[] {
  return toRows(resource, record)
    .rows.filter((entry) => entry.table === table)
    .map((entry) => entry.row);
}

function only(rows: Row[]): Row {
  expect(rows).toHaveLength(1);
  return rows[0] as Row;
}

function deepMerge(base: JsonObject, overlay: JsonObject): JsonObject {
  const merged: JsonObject = { ...base };
  for (const [key, value] of Object.entries(overlay)) {
    const current = merged[key];
    const bothObjects = [value, current].every((v) => typeof v === 'object' && v !== null && !Array.isArray(v));
    merged[key] = bothObjects ? deepMerge(current as JsonObject, value as JsonObject) : value;
  }
  return merged;
}

describe('toRows on Shopify example records', () => {
  it.each<[ResourceName, Record<string, number>]>([
    ['products', { products: 1, product_variants: 4, product_images: 3, product_options: 1 }],
    ['customers', { customers: 1, customer_addresses: 1 }],
    [
      'orders',
      {
        orders: 1,
        order_line_items: 3,
        order_shipping_lines: 1,
        order_tax_lines: 1,
        order_discount_codes: 1,
        order_discount_applications: 1,
        order_fulfillments: 1,
        order_refunds: 1,
        order_refund_transactions: 1,
        order_refund_line_items: 2,
        order_note_attributes: 2,
      },
    ],
  ])('%s: rows per table, every field known', (resource, expected) => {
    const shaped = toRows(resource, apiFixture(resource));
    const counts: Record<string, number> = {};
    for (const { table } of shaped.rows) counts[table] = (counts[table] ?? 0) + 1;
    expect(counts).toEqual(expected);
    expect(shaped.unknownPaths).toEqual([]);
    expect(shaped.unknownFields).toBe(0);
    expect(shaped.rows[0]?.row[EXTRA_COLUMN]).toBeNull();
    const tableNames = new Set(tablesFor(resource).map((table) => table.name));
    for (const { table, row } of shaped.rows) {
      expect(tableNames).toContain(table);
      const declared = tablesFor(resource)
        .find((t) => t.name === table)
        ?.columns.map((c) => c.name);
      expect(Object.keys(row)).toEqual(declared);
    }
  });

  it.each<[ResourceName, string, string, unknown]>([
    ['orders', 'orders', 'billing_address_city', 'Louisville'],
    ['orders', 'orders', 'billing_address_latitude', 45.41634],
    ['orders', 'orders', 'total_price_set_shop_money_amount', '598.94'],
    ['orders', 'orders', 'total_price', '598.94'],
    ['orders', 'orders', 'customer_id', 207119551],
    ['orders', 'orders', 'customer_default_address_city', 'Louisville'],
    ['orders', 'orders', 'customer_email_marketing_consent_state', 'not_subscribed'],
    ['orders', 'orders', 'created_at', '2008-01-10T11:00:00-05:00'],
    ['orders', 'orders', 'payment_gateway_names', '["bogus"]'],
    ['orders', 'orders', 'payment_details_credit_card_number', '•••• •••• •••• 4242'],
    ['orders', 'orders', 'buyer_accepts_marketing', false],
    ['orders', 'orders', 'order_number', 1001],
    ['orders', 'order_tax_lines', 'rate', 0.06],
    ['orders', 'order_tax_lines', 'price_set_presentment_money_amount', '11.94'],
    ['orders', 'order_discount_codes', 'amount', '10.00'],
    ['orders', 'order_discount_applications', 'value', '10.0'],
    ['orders', 'order_refunds', 'order_id', 450789469],
    ['orders', 'order_refund_transactions', 'refund_id', 509562969],
    ['orders', 'order_refund_transactions', 'amount', '209.00'],
    ['orders', 'order_refund_transactions', 'order_id', 450789469],
    ['orders', 'order_refund_line_items', 'subtotal', '195.66'],
    ['orders', 'order_refund_line_items', 'total_tax_set_shop_money_amount', '3.98'],
    ['orders', 'order_shipping_lines', 'tax_lines', '[]'],
    [
      'products',
      'products',
      'image_src',
      'https://cdn.shopify.com/s/files/1/0005/4838/0009/products/ipod-nano.png?v=1664397424',
    ],
    ['products', 'product_options', 'values', '["Pink","Red","Green","Black"]'],
    ['customers', 'customers', 'default_address_default', true],
    ['customers', 'customers', 'total_spent', '199.65'],
    ['customers', 'customer_addresses', 'customer_id', 207119551],
  ])('%s → %s.%s', (resource, table, column, expected) => {
    expect(rowsOf(resource, apiFixture(resource), table)[0]?.[column]).toStrictEqual(expected);
  });

  it('child and grandchild rows carry their parent id and their 1-based array position', () => {
    const variants = rowsOf('products', apiFixture('products'), 'product_variants');
    expect(variants.map((row) => [row.product_id, row.position, row.id])).toEqual([
      [632910392, 1, 808950810],
      [632910392, 2, 49148385],
      [632910392, 3, 39072856],
      [632910392, 4, 457924702],
    ]);
    const refunded = rowsOf('orders', apiFixture('orders'), 'order_refund_line_items');
    expect(refunded.map((row) => [row.refund_id, row.position, row.id, row.line_item_id])).toEqual([
      [509562969, 1, 104689539, 703073504],
      [509562969, 2, 709875399, 466157049],
    ]);
    const attributes = rowsOf('orders', apiFixture('orders'), 'order_note_attributes');
    expect(attributes).toEqual([
      { order_id: 450789469, position: 1, name: 'custom engraving', value: 'Happy Birthday', [EXTRA_COLUMN]: null },
      { order_id: 450789469, position: 2, name: 'colour', value: 'green', [EXTRA_COLUMN]: null },
    ]);
  });

  /**
   * The examples leave some fields null; these values (shaped as the API documents them) fill every one, so a typo
   * in a declared column name shows up as a null column here or as an unknown field.
   */
  const EVERY_FIELD: Record<ResourceName, JsonObject> = {
    products: { template_suffix: 'special', image: { alt: 'iPod Nano, front' } },
    customers: {
      note: 'Prefers email',
      multipass_identifier: 'mp-207119551',
      marketing_opt_in_level: 'confirmed_opt_in',
      email_marketing_consent: { opt_in_level: 'single_opt_in', consent_collected_from: 'SHOPIFY' },
      default_address: { first_name: 'Bob', last_name: 'Norman', company: 'Acme Inc.' },
    },
    orders: {
      app_id: 580111,
      cancel_reason: 'customer',
      cancelled_at: '2008-01-11T09:30:00-05:00',
      client_details: {
        accept_language: 'en-US,en;q=0.9',
        browser_height: 1080,
        browser_width: 1920,
        session_hash: '9ad4d1f4e6a8ad9b3bd7b2f8e5c7e6a1',
        user_agent: 'Mozilla/5.0 (X11; Linux x86_64)',
      },
      closed_at: '2008-01-12T10:00:00-05:00',
      current_total_duties_set: {
        shop_money: { amount: '1.50', currency_code: 'USD' },
        presentment_money: { amount: '2.05', currency_code: 'CAD' },
      },
      customer_locale: 'en-CA',
      device_id: 41,
      fulfillment_status: 'partial',
      location_id: 655441491,
      merchant_of_record_app_id: 129785,
      note: 'Leave at the door',
      original_total_duties_set: {
        shop_money: { amount: '1.50', currency_code: 'USD' },
        presentment_money: { amount: '2.05', currency_code: 'CAD' },
      },
      source_url: 'https://shop.example.com/cart',
      total_price_usd: '598.94',
      user_id: 548380009,
      billing_address: { company: 'Acme Inc.' },
      shipping_address: { company: 'Acme Inc.' },
      customer: {
        orders_count: 1,
        total_spent: '199.65',
        last_order_id: 450789469,
        note: 'VIP',
        multipass_identifier: 'mp-207119551',
        last_order_name: '#1001',
        marketing_opt_in_level: 'confirmed_opt_in',
        email_marketing_consent: { opt_in_level: 'single_opt_in', consent_collected_from: 'SHOPIFY' },
        default_address: { first_name: 'Bob', last_name: 'Norman', company: 'Acme Inc.' },
      },
      payment_details: {
        credit_card_bin: '424242',
        avs_result_code: 'Y',
        cvv_result_code: 'M',
        credit_card_name: 'Bob Norman',
        credit_card_wallet: 'apple_pay',
        credit_card_expiration_month: 11,
        credit_card_expiration_year: 2029,
      },
      payment_terms: {
        amount: '598.94',
        currency: 'USD',
        payment_terms_name: 'Net 30',
        payment_terms_type: 'NET',
        due_in_days: 30,
        payment_schedules: [{ amount: '598.94', due_at: '2008-02-09T11:00:00-05:00', completed_at: null }],
      },
    },
  };

  it.each(RESOURCES)('%s: a record with every field set fills every declared parent column', (resource) => {
    const shaped = toRows(resource, deepMerge(apiFixture(resource), EVERY_FIELD[resource]));
    expect(shaped.unknownPaths).toEqual([]);
    const parent = shaped.rows[0]?.row as Row;
    const empty = Object.entries(parent).filter(([column, cell]) => cell === null && column !== EXTRA_COLUMN);
    expect(empty.map(([column]) => column)).toEqual([]);
  });
});

describe('toRows type handling', () => {
  it('keeps ids above 2^53 and int64 max/min exact, in parents, children and parent keys', () => {
    const record = parseJson(
      '{"id":9007199254740993,"last_order_id":9223372036854775807,"addresses":[{"id":-9223372036854775808,"customer_id":9007199254740993}]}',
    ) as JsonObject;
    const shaped = toRows('customers', record);
    expect(shaped.unknownFields).toBe(0);
    expect(shaped.rows[0]?.row).toMatchObject({ id: 9007199254740993n, last_order_id: 9223372036854775807n });
    expect(shaped.rows[1]?.row).toMatchObject({ id: -9223372036854775808n, customer_id: 9007199254740993n });
  });

  it('keeps unicode text as it is', () => {
    const text = 'Müller & Söhne — 株式会社サンプル "Quotes" 😀\n\ttab';
    const row = only(rowsOf('orders', { id: 1, note: text, billing_address: { company: text } }, 'orders'));
    expect(row.note).toBe(text);
    expect(row.billing_address_company).toBe(text);
  });

  it('reads null and absent objects as null columns, without unknown fields', () => {
    const shaped = toRows('orders', { id: 1, billing_address: null, customer: null, cancelled_at: null });
    const row = shaped.rows[0]?.row as Row;
    expect(shaped.unknownFields).toBe(0);
    expect(row.billing_address_city).toBeNull();
    expect(row.customer_default_address_city).toBeNull();
    expect(row.shipping_address_city).toBeNull();
    expect(row[EXTRA_COLUMN]).toBeNull();
  });

  it.each([
    ['empty arrays', { id: 1, line_items: [], refunds: [], note_attributes: [] }],
    ['null arrays', { id: 1, line_items: null, refunds: null }],
    ['absent arrays', { id: 1 }],
  ])('%s give no child rows', (_name, record) => {
    const shaped = toRows('orders', record as JsonObject);
    expect(shaped.rows.map((entry) => entry.table)).toEqual(['orders']);
    expect(shaped.unknownFields).toBe(0);
  });

  it.each<[string, JsonObject, string, string, JsonValue]>([
    ['an unknown top-level field', { id: 1, company: { id: 5 } }, 'orders', 'orders.company', { company: { id: 5 } }],
    [
      'an unknown field inside a flattened object',
      { id: 1, billing_address: { city: 'Oslo', geo: 'x' } },
      'orders',
      'orders.billing_address.geo',
      { billing_address: { geo: 'x' } },
    ],
    [
      'an unknown field two objects deep',
      { id: 1, customer: { default_address: { id: 2, geo: 1 } } },
      'orders',
      'orders.customer.default_address.geo',
      { customer: { default_address: { geo: 1 } } },
    ],
    ['a string in an int32 column', { id: 1, number: '7' }, 'orders', 'orders.number', { number: '7' }],
    [
      'money with five decimals',
      { id: 1, total_price: '1.23456' },
      'orders',
      'orders.total_price',
      { total_price: '1.23456' },
    ],
    [
      'a timestamp without offset',
      { id: 1, created_at: '2008-01-10 11:00:00' },
      'orders',
      'orders.created_at',
      { created_at: '2008-01-10 11:00:00' },
    ],
    [
      'an id beyond int64',
      { id: 1, user_id: 18446744073709551615n },
      'orders',
      'orders.user_id',
      { user_id: 18446744073709551615n },
    ],
    [
      'an array where an object belongs',
      { id: 1, billing_address: [1] },
      'orders',
      'orders.billing_address',
      { billing_address: [1] },
    ],
    [
      'an object where an array belongs',
      { id: 1, line_items: { id: 3 } },
      'orders',
      'orders.line_items',
      { line_items: { id: 3 } },
    ],
    [
      'an unknown field of a child element',
      { id: 1, line_items: [{ id: 3, tax_code: 'P0000000' }] },
      'order_line_items',
      'order_line_items.tax_code',
      { tax_code: 'P0000000' },
    ],
    [
      'a child parent key that differs from the parent id',
      { id: 1, refunds: [{ id: 3, order_id: 2 }] },
      'order_refunds',
      'order_refunds.order_id',
      { order_id: 2 },
    ],
    [
      'a child position that differs from the array order',
      { id: 1, variants: [{ id: 3, position: 5 }] },
      'product_variants',
      'product_variants.position',
      { position: 5 },
    ],
    [
      'an element that is not an object',
      { id: 1, note_attributes: ['gift'] },
      'order_note_attributes',
      'order_note_attributes._element',
      { _element: 'gift' },
    ],
  ])('keeps %s in _extra and counts it', (_name, record, table, path, extra) => {
    const resource = table.startsWith('product') ? 'products' : 'orders';
    const shaped = toRows(resource, record);
    expect(shaped.unknownFields).toBe(1);
    expect(shaped.unknownPaths).toEqual([path]);
    const row = shaped.rows.find((entry) => entry.table === table)?.row as Row;
    expect(parseJson(row[EXTRA_COLUMN] as string)).toEqual(extra);
  });

  it('keeps a field named __proto__ like any other', () => {
    const shaped = toRows(
      'orders',
      parseJson('{"id":1,"__proto__":{"x":1},"billing_address":{"__proto__":2}}') as JsonObject,
    );
    expect(shaped.unknownPaths).toEqual(['orders.__proto__', 'orders.billing_address.__proto__']);
    expect(shaped.rows[0]?.row[EXTRA_COLUMN]).toBe('{"__proto__":{"x":1},"billing_address":{"__proto__":2}}');
  });

  it('still fills the known fields of an object that also holds unknown ones', () => {
    const row = only(rowsOf('orders', { id: 1, billing_address: { city: 'Oslo', geo: 'x' } }, 'orders'));
    expect(row.billing_address_city).toBe('Oslo');
  });

  it('accepts ids sent as digit strings and a parent key equal to the parent id', () => {
    const shaped = toRows('products', {
      id: '9007199254740993',
      variants: [{ id: 7, product_id: 9007199254740993n, position: 1 }],
    });
    expect(shaped.unknownFields).toBe(0);
    expect(shaped.rows[1]?.row).toMatchObject({ product_id: 9007199254740993n, position: 1, id: 7 });
  });
});
