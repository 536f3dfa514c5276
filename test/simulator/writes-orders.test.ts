import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/shopify/json.js';
import { ONLINE_GATEWAYS, type RunningShop, startShop } from '../../src/simulator/index.js';
import { clientFor, deletableOrders, listOf, type ShopClient } from './shop-client.js';

const one = (json: unknown, key: string) => (json as JsonObject)[key] as JsonObject;
const cents = (text: unknown) => Math.round(Number(text) * 100);

describe('simulated shop: order create', () => {
  let shop: RunningShop;
  let client: ShopClient;
  let variant: JsonObject;
  let product: JsonObject;
  beforeAll(async () => {
    shop = await startShop({ seed: 33, products: 10, customers: 20, orders: 300 });
    client = clientFor(shop);
    product = [...shop.records('products')].find((p) => (p.variants as unknown[]).length > 1) as JsonObject;
    variant = (product.variants as JsonObject[])[1] as JsonObject;
  });
  afterAll(() => shop.close());

  const create = async (order: Record<string, unknown>) => {
    const served = await client.post('/orders.json', { order });
    expect(served.status, served.text).toBe(201);
    return one(served.json, 'order');
  };
  const effects = () => shop.stats().sideEffects;

  it('creates an order from line items alone as EX22 shows: paid, now, numbered, open, no mail to the customer', async () => {
    const before = effects();
    const order = await create({ line_items: [{ variant_id: variant.id, quantity: 2 }] });
    expect(order).toMatchObject({
      financial_status: 'paid',
      fulfillment_status: null,
      closed_at: null,
      cancelled_at: null,
      gateway: '',
      source_name: '580111',
      customer: null,
      email: '',
      payment_gateway_names: [],
      // EX22 order test_20: what no transaction brought in is outstanding, paid or not.
      total_outstanding: order.total_price,
      name: `#${order.order_number}`,
    });
    expect(order.processed_at).toBe(order.created_at);
    expect((order.line_items as JsonObject[])[0]).toMatchObject({
      variant_id: variant.id,
      product_id: product.id,
      price: variant.price,
      quantity: 2,
      title: product.title,
      variant_title: variant.title,
      fulfillable_quantity: 2,
    });
    expect(cents(order.total_price)).toBe(cents(variant.price) * 2);
    expect(listOf(await client.get('/orders.json?limit=1'), 'orders')[0]?.id).toBe(order.id);
    expect(effects().emails).toEqual(before.emails);
    expect(effects().inventory).toEqual(before.inventory);
    expect(effects().staffNotifications).toBe(before.staffNotifications + 1);
  });

  it('keeps what a restore sends: processed_at, name, status, prices paid, notes, tags, addresses, lines, codes', async () => {
    const customer = [...shop.records('customers')][3] as JsonObject;
    const order = await create({
      processed_at: '2020-02-03T04:05:06-05:00',
      name: '#R1001',
      financial_status: 'pending',
      source_name: 'shopsnap-restore',
      note: 'Übergabe\tan Tür',
      note_attributes: [{ name: 'shopsnap_source_id', value: '5200000000001' }],
      tags: 'b, a',
      email: 'buyer@example.com',
      customer: { id: customer.id },
      send_receipt: false,
      send_fulfillment_receipt: false,
      inventory_behaviour: 'bypass',
      line_items: [
        { variant_id: variant.id, quantity: 1, price: '1.50' },
        { title: 'Gift wrap 🎁', price: '2.00', quantity: 2, taxable: false },
      ],
      shipping_lines: [{ title: 'Standard', price: '5.00', code: 'STD' }],
      discount_codes: [{ code: 'TENOFF', amount: '0.50', type: 'fixed_amount' }],
      tax_lines: [{ title: 'State tax', price: '0.60', rate: 0.06 }],
      shipping_address: { first_name: 'Ana', last_name: 'Silva', address1: '1 Rua', city: 'São Paulo', country: 'BR' },
      billing_address: { first_name: 'Ana', address1: 'no last name' },
    });
    expect(order).toMatchObject({
      processed_at: '2020-02-03T04:05:06-05:00',
      name: '#R1001',
      financial_status: 'pending',
      source_name: 'shopsnap-restore',
      note: 'Übergabe\tan Tür',
      note_attributes: [{ name: 'shopsnap_source_id', value: '5200000000001' }],
      tags: 'a, b',
      email: 'buyer@example.com',
      billing_address: null,
      discount_codes: [{ code: 'TENOFF', amount: '0.50', type: 'fixed_amount' }],
      total_line_items_price: '5.50',
      total_discounts: '0.50',
      subtotal_price: '5.00',
      total_tax: '0.60',
      total_price: '10.60',
      total_outstanding: '10.60',
      discount_applications: [expect.objectContaining({ type: 'manual', value: '0.5', title: 'TENOFF' })],
    });
    expect(order.created_at).not.toBe(order.processed_at);
    expect(order.shipping_address).toMatchObject({ name: 'Ana Silva', country: 'Brazil', country_code: 'BR' });
    expect((order.customer as JsonObject).id).toBe(customer.id);
    const lines = order.line_items as JsonObject[];
    expect(lines.map((l) => [l.price, l.variant_id, l.title])).toEqual([
      ['1.50', variant.id, product.title],
      ['2.00', null, 'Gift wrap 🎁'],
    ]);
    expect(lines.map((l) => (l.discount_allocations as JsonObject[])[0]?.amount)).toEqual(['0.14', '0.36']);
    const byDate = await client.get(`/orders.json?status=any&processed_at_max=2020-02-04&ids=${order.id}`);
    expect(listOf(byDate, 'orders')).toHaveLength(1);
    const twin = await create({ name: '#R1001', line_items: [{ title: 'x', price: '1.00' }] });
    expect(twin.name).toBe('#R1001');
    expect(twin.order_number).toBe(Number(order.order_number) + 1);
    const buyer = one((await client.get(`/customers/${customer.id}.json`)).json, 'customer');
    expect(buyer).toMatchObject({ orders_count: Number(customer.orders_count) + 1, last_order_name: '#R1001' });
  });

  it('links the customer whose email an order brings, or creates one named after the billing address', async () => {
    const known = [...shop.records('customers')][4] as JsonObject;
    const byEmail = await create({ email: known.email, line_items: [{ title: 'x', price: '1.00' }] });
    expect((byEmail.customer as JsonObject).id).toBe(known.id);
    const before = shop.count('customers');
    // EX22 order test_17: the customer's email, the billing address's names, the shipping address as default.
    const fresh = await create({
      customer: { first_name: 'Paul', last_name: 'Norman', email: 'paul.norman@example.com' },
      email: 'jane@example.com',
      billing_address: { first_name: 'John', last_name: 'Smith', address1: '123 Fake Street', country: 'Canada' },
      shipping_address: { first_name: 'Jane', last_name: 'Smith', address1: '9 Ship Street', city: 'Fakecity' },
      line_items: [{ title: 'x', price: '1.00' }],
    });
    expect(shop.count('customers')).toBe(before + 1);
    expect(fresh).toMatchObject({ email: 'jane@example.com' });
    expect(fresh.customer).toMatchObject({ first_name: 'John', last_name: 'Smith', email: 'paul.norman@example.com' });
    expect((fresh.customer as JsonObject).default_address).toMatchObject({
      first_name: 'Jane',
      address1: '9 Ship Street',
    });
    // EX22 order tests 19 and 21: an order's email alone makes a customer of it.
    const guest = await create({ email: 'guest.1@example.net', line_items: [{ title: 'x', price: '1.00' }] });
    expect(guest.customer).toMatchObject({ email: 'guest.1@example.net', first_name: null, default_address: null });
    expect(shop.count('customers')).toBe(before + 2);
    const anonymous = await create({ line_items: [{ title: 'x', price: '1.00' }] });
    expect(anonymous.customer).toBeNull();
    expect(shop.count('customers')).toBe(before + 2);
  });

  it('answers the EX22 order with a sale, a percentage code and addresses as Shopify did (test_23)', async () => {
    const order = await create({
      line_items: [{ title: 'IPod Touch 8GB', price: '199.00', quantity: 1 }],
      email: 'ex22.jane@example.com',
      phone: '18885551234',
      transactions: [{ kind: 'sale', status: 'success', amount: 50.0 }],
      financial_status: 'paid',
      discount_codes: [{ code: 'FAKE30', amount: '9.00', type: 'percentage' }],
    });
    expect(order).toMatchObject({
      financial_status: 'paid',
      total_discounts: '17.91',
      total_price: '181.09',
      total_outstanding: '131.09',
      phone: '+18885551234',
      payment_gateway_names: [''],
      discount_codes: [{ code: 'FAKE30', amount: '17.91', type: 'percentage' }],
      discount_applications: [
        {
          target_type: 'line_item',
          type: 'manual',
          value: '9.0',
          value_type: 'percentage',
          allocation_method: 'across',
          target_selection: 'all',
          title: 'FAKE30',
          description: 'FAKE30',
        },
      ],
    });
    const euro = await create({
      line_items: [{ title: 'Big Brown Bear Boots', price: 74.99, grams: '1300', quantity: 3 }],
      transactions: [{ kind: 'sale', status: 'success', amount: 224.97 }],
      currency: 'EUR',
    });
    expect(euro).toMatchObject({ currency: 'EUR', presentment_currency: 'EUR', financial_status: 'paid' });
    expect(euro.total_price_set).toEqual({
      shop_money: { amount: '224.97', currency_code: 'EUR' },
      presentment_money: { amount: '224.97', currency_code: 'EUR' },
    });
  });

  it.each([
    [{ line_items: [] }, { line_items: ["can't be blank"] }],
    [{ line_items: [{ variant_id: 1 }] }, { line_items: ['is invalid'] }],
    [{ line_items: [{ title: 'x', price: '1.00', quantity: 0 }] }, { line_items: ['is invalid'] }],
    [{ line_items: [{ title: 'no price' }] }, { line_items: ['is invalid'] }],
    [
      { line_items: [{ title: 'x', price: '1' }], financial_status: 'settled' },
      { financial_status: ['is not included in the list'] },
    ],
    [
      { line_items: [{ title: 'x', price: '1' }], inventory_behaviour: 'magic' },
      { inventory_behaviour: ['is invalid'] },
    ],
    [{ line_items: [{ title: 'x', price: '1' }], processed_at: 'soon' }, { processed_at: ['is invalid'] }],
    [{ line_items: [{ title: 'x', price: '1' }], customer: { id: 42 } }, { customer: ['is invalid'] }],
    [
      {
        line_items: [{ title: 'x', price: '1', tax_lines: [{ price: '0.10', rate: 0.1, title: 'T' }] }],
        tax_lines: [{ price: '0.10', rate: 0.1, title: 'T' }],
      },
      { order: ['Tax lines must be associated with either order or line item but not both'] },
    ],
  ])('refuses %j with 422, nothing created', async (order, errors) => {
    const before = shop.count('orders');
    const served = await client.post('/orders.json', { order });
    expect(served.status).toBe(422);
    expect(served.json).toEqual({ errors });
    expect(shop.count('orders')).toBe(before);
  });

  it('creates a fulfilled order with its fulfillment, counts the receipts asked for, and refuses to cancel it', async () => {
    const before = effects().emails;
    const order = await create({
      fulfillment_status: 'fulfilled',
      fulfillments: [{ location_id: 24826418 }],
      send_receipt: true,
      send_fulfillment_receipt: true,
      line_items: [{ variant_id: variant.id, quantity: 1 }],
    });
    expect(order.fulfillment_status).toBe('fulfilled');
    expect((order.fulfillments as JsonObject[]).map((f) => [f.status, f.name])).toEqual([
      ['success', `${order.name}.1`],
    ]);
    expect((order.line_items as JsonObject[])[0]).toMatchObject({
      fulfillment_status: 'fulfilled',
      fulfillable_quantity: 0,
    });
    expect(effects().emails).toEqual({
      ...before,
      orderReceipts: before.orderReceipts + 1,
      fulfillmentReceipts: before.fulfillmentReceipts + 1,
    });
    const cancel = await client.post(`/orders/${order.id}/cancel.json`);
    expect(cancel.status).toBe(422);
    expect(cancel.json).toEqual({ errors: { base: ['Cannot cancel an order that has fulfillments'] } });
  });

  it('marks an order fulfilled without a fulfillment when only fulfillment_status says so (EX22 test_21)', async () => {
    const order = await create({ fulfillment_status: 'fulfilled', line_items: [{ variant_id: variant.id }] });
    expect(order).toMatchObject({ fulfillment_status: 'fulfilled', fulfillments: [] });
    expect((order.line_items as JsonObject[])[0]?.fulfillable_quantity).toBe(0);
    expect((await client.post(`/orders/${order.id}/cancel.json`)).status).toBe(422);
  });

  it('moves stock only without inventory_behaviour bypass, and restock puts it back on cancel', async () => {
    const stock = () => {
      const current = [...shop.records('products')].find((p) => p.id === product.id) as JsonObject;
      return (current.variants as JsonObject[]).find((v) => v.id === variant.id)?.inventory_quantity as number;
    };
    const start = stock();
    const before = effects().inventory;
    const order = await create({
      inventory_behaviour: 'decrement_obeying_policy',
      line_items: [{ variant_id: variant.id, quantity: 3 }],
    });
    expect(stock()).toBe(start - 3);
    await client.post(`/orders/${order.id}/cancel.json`, { restock: true });
    expect(stock()).toBe(start);
    expect(effects().inventory).toEqual({ decremented: before.decremented + 3, restocked: before.restocked + 3 });
  });
});

describe('simulated shop: order update, cancel, close, open, delete', () => {
  let shop: RunningShop;
  let client: ShopClient;
  beforeAll(async () => {
    shop = await startShop({ seed: 34, products: 10, customers: 20, orders: 300 });
    client = clientFor(shop);
  });
  afterAll(() => shop.close());

  const find = (test: (o: JsonObject) => boolean) => [...shop.records('orders')].find(test) as JsonObject;
  const unfulfilled = (o: JsonObject) =>
    o.cancelled_at === null && (o.fulfillments as unknown[]).length === 0 && o.fulfillment_status === null;
  const effects = () => shop.stats().sideEffects;

  it('PUT changes only the fields Shopify lets it change, and ignores the rest', async () => {
    const order = find((o) => o.customer !== null && o.shipping_address !== null && o.financial_status === 'paid');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const served = await client.put(`/orders/${order.id}.json`, {
      order: {
        id: order.id,
        note: 'rolled back',
        tags: ['z', 'y'],
        email: 'new@example.com',
        phone: '+15550001111',
        buyer_accepts_marketing: !order.buyer_accepts_marketing,
        note_attributes: [{ name: 'gift', value: 'yes' }],
        shipping_address: { city: 'Reykjavík' },
        metafields: [{ namespace: 'shopsnap', key: 'source_id', value: '1', type: 'single_line_text_field' }],
        financial_status: 'refunded',
        processed_at: '2001-01-01T00:00:00Z',
        name: '#renamed',
        total_price: '0.01',
        billing_address: { city: 'Nowhere' },
        line_items: [],
        customer: null,
      },
    });
    expect(served.status).toBe(200);
    const after = one(served.json, 'order');
    expect(after).toMatchObject({
      note: 'rolled back',
      tags: 'y, z',
      email: 'new@example.com',
      contact_email: 'new@example.com',
      phone: '+15550001111',
      buyer_accepts_marketing: !order.buyer_accepts_marketing,
      note_attributes: [{ name: 'gift', value: 'yes' }],
      customer: null,
      financial_status: order.financial_status,
      processed_at: order.processed_at,
      name: order.name,
      total_price: order.total_price,
      billing_address: order.billing_address,
      line_items: order.line_items,
      created_at: order.created_at,
    });
    expect(after.shipping_address).toEqual({ ...(order.shipping_address as JsonObject), city: 'Reykjavík' });
    expect(Date.parse(after.updated_at as string)).toBeGreaterThan(Date.parse(order.updated_at as string));
    expect(shop.metafields('orders', BigInt(String(order.id)))).toHaveLength(1);
  });

  it('refuses to change source_name after creation (422) and accepts it unchanged', async () => {
    const order = find(() => true);
    const changed = await client.put(`/orders/${order.id}.json`, { order: { source_name: 'elsewhere' } });
    expect(changed.status).toBe(422);
    expect(changed.json).toEqual({
      errors: { source_name: ['is only assignable during creation and may not be changed.'] },
    });
    const same = await client.put(`/orders/${order.id}.json`, { order: { source_name: order.source_name } });
    expect(same.status).toBe(200);
  });

  it('cancels without side effects by default: cancelled_at, reason other, paid stays paid, no mail', async () => {
    const order = find((o) => unfulfilled(o) && o.financial_status === 'paid');
    const before = effects();
    // Options wrapped in `order` are ignored, as on Shopify.
    const served = await client.post(`/orders/${order.id}/cancel.json`, { order: { reason: 'fraud', email: true } });
    expect(served.status).toBe(200);
    expect((served.json as JsonObject).notice).toBe('Order has been canceled');
    expect(one(served.json, 'order')).toMatchObject({
      cancel_reason: 'other',
      financial_status: 'paid',
      closed_at: null,
    });
    expect(effects()).toEqual(before);
    const again = await client.post(`/orders/${order.id}/cancel.json`);
    expect(again.status).toBe(422);
    expect(again.json).toEqual({ errors: { base: ['Order has already been cancelled'] } });
    expect(listOf(await client.get(`/orders.json?status=cancelled&ids=${order.id}`), 'orders')).toHaveLength(1);
  });

  it('cancels with email and a refund when asked, each counted; unpaid orders are voided', async () => {
    const paid = find((o) => unfulfilled(o) && o.financial_status === 'paid');
    const before = effects();
    const served = await client.post(`/orders/${paid.id}/cancel.json?reason=customer`, {
      email: true,
      amount: paid.total_price,
      currency: 'USD',
    });
    expect(one(served.json, 'order')).toMatchObject({ cancel_reason: 'customer', financial_status: 'refunded' });
    expect(effects().emails.cancellations).toBe(before.emails.cancellations + 1);
    expect(effects().refunds).toBe(before.refunds + 1);
    const pending = find((o) => unfulfilled(o) && o.financial_status === 'pending');
    const voided = await client.post(`/orders/${pending.id}/cancel.json`, { reason: 'inventory' });
    expect(one(voided.json, 'order')).toMatchObject({ cancel_reason: 'inventory', financial_status: 'voided' });
  });

  it('closes and opens, bumping updated_at; closing a closed order changes nothing', async () => {
    const order = find((o) => o.closed_at === null && o.cancelled_at === null);
    const closed = one((await client.post(`/orders/${order.id}/close.json`)).json, 'order');
    expect(closed.closed_at).not.toBeNull();
    expect(Date.parse(closed.updated_at as string)).toBeGreaterThan(Date.parse(order.updated_at as string));
    expect(one((await client.post(`/orders/${order.id}/close.json`)).json, 'order')).toEqual(closed);
    const ids = `ids=${String(order.id)}`;
    expect(listOf(await client.get(`/orders.json?${ids}`), 'orders')).toHaveLength(0);
    expect(listOf(await client.get(`/orders.json?status=closed&${ids}`), 'orders')).toHaveLength(1);
    const reopened = one((await client.post(`/orders/${order.id}/open.json`)).json, 'order');
    expect(reopened.closed_at).toBeNull();
    expect(listOf(await client.get(`/orders.json?${ids}`), 'orders')).toHaveLength(1);
    expect((await client.post('/orders/5200000000001/close.json')).status).toBe(404);
  });

  it('shows one order with fields, and 404 for unknown ids', async () => {
    const order = find(() => true);
    const served = await client.get(`/orders/${order.id}.json?fields=id,line_items,name,total_price`);
    expect(Object.keys(one(served.json, 'order'))).toEqual(['id', 'name', 'total_price', 'line_items']);
    expect((await client.get('/orders/5200000000001.json')).status).toBe(404);
  });

  it('refuses to delete an order paid through an online gateway; deletes others and created ones', async () => {
    const online = find((o) => ONLINE_GATEWAYS.includes(String(o.gateway)));
    const refused = await client.delete(`/orders/${online.id}.json`);
    expect(refused.status).toBe(422);
    expect(refused.json).toEqual({ errors: { base: ['Cannot delete orders brokered by Shopify'] } });
    const offline = deletableOrders(shop)[0] as JsonObject;
    expect((await client.delete(`/orders/${offline.id}.json`)).text).toBe('{}');
    const created = one(
      (await client.post('/orders.json', { order: { line_items: [{ title: 'x', price: '1.00' }] } })).json,
      'order',
    );
    expect((await client.delete(`/orders/${created.id}.json`)).status).toBe(200);
    expect((await client.get(`/orders/${created.id}.json`)).status).toBe(404);
  });
});

describe('simulated shop: an order create whose answer is lost', () => {
  it('is applied: the client sees a 502, the order exists and is found by its name', async () => {
    const shop = await startShop({
      seed: 37,
      products: 3,
      customers: 3,
      orders: 10,
      faults: { lostAnswers: { writes: ['POST /orders.json'], as: 502 } },
    });
    try {
      const client = clientFor(shop);
      const served = await client.post('/orders.json', {
        order: { name: '#LOST1', line_items: [{ title: 'x', price: '1.00' }] },
      });
      expect(served.status).toBe(502);
      const listed = listOf(await client.get('/orders.json?status=any&limit=250'), 'orders');
      expect(listed.filter((o) => o.name === '#LOST1')).toHaveLength(1);
      expect(shop.count('orders')).toBe(11);
      expect(shop.stats()).toMatchObject({ writes: 1, lostAnswers: 1 });
    } finally {
      await shop.close();
    }
  });
});
