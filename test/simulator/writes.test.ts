import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/shopify/json.js';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { clientFor, crawl, listOf, type ShopClient } from './shop-client.js';

const one = (json: unknown, key: string) => (json as JsonObject)[key] as JsonObject;

describe('simulated shop: products', () => {
  let shop: RunningShop;
  let client: ShopClient;
  beforeAll(async () => {
    shop = await startShop({ seed: 31, products: 20, customers: 30, orders: 120 });
    client = clientFor(shop);
  });
  afterAll(() => shop.close());

  it('creates (201), fetches, updates and deletes a product', async () => {
    const before = shop.count('products');
    const created = await client.post('/products.json', {
      product: {
        title: 'Burton Custom Freestyle 151',
        body_html: '<strong>Good snowboard!</strong>',
        vendor: 'Burton',
        product_type: 'Snowboard',
        tags: ['winter', 'board'],
        variants: [
          { option1: 'First', price: '10.00', sku: '123' },
          { option1: 'Second', price: 20, sku: '123' },
        ],
      },
    });
    expect(created.status).toBe(201);
    const product = one(created.json, 'product');
    expect(product).toMatchObject({ title: 'Burton Custom Freestyle 151', status: 'active', tags: 'board, winter' });
    expect((product.variants as JsonObject[]).map((v) => v.price)).toEqual(['10.00', '20.00']);
    expect((product.options as JsonObject[])[0]?.values).toEqual(['First', 'Second']);
    expect(shop.count('products')).toBe(before + 1);
    const fetched = await client.get(`/products/${product.id}.json`);
    expect(one(fetched.json, 'product')).toEqual(product);

    await new Promise((resolve) => setTimeout(resolve, 1100));
    const updated = await client.put(`/products/${product.id}.json`, {
      product: { id: product.id, title: 'Renamed', status: 'draft' },
    });
    expect(updated.status).toBe(200);
    const after = one(updated.json, 'product');
    expect(after).toMatchObject({ title: 'Renamed', status: 'draft', created_at: product.created_at });
    expect(Date.parse(after.updated_at as string)).toBeGreaterThan(Date.parse(product.updated_at as string));

    const deleted = await client.delete(`/products/${product.id}.json`);
    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe('{}');
    expect((await client.get(`/products/${product.id}.json`)).status).toBe(404);
    expect(shop.count('products')).toBe(before);
  });

  it('rejects a product without a title (422, Shopify body)', async () => {
    const served = await client.post('/products.json', { product: { body_html: 'x' } });
    expect(served.status).toBe(422);
    expect(served.text).toBe('{"errors":{"title":["can\'t be blank"]}}');
    expect(
      (await client.put(`/products/${[...shop.records('products')][0]?.id}.json`, { product: { title: '' } })).status,
    ).toBe(422);
  });

  it('creates a variant on a generated product and refuses a duplicate', async () => {
    const product = [...shop.records('products')][2] as JsonObject;
    const variant = await client.post(`/products/${product.id}/variants.json`, {
      variant: { option1: 'Yellow', option2: 'XXL', price: '1.00' },
    });
    expect(variant.status).toBe(201);
    expect(one(variant.json, 'variant')).toMatchObject({ option1: 'Yellow', price: '1.00', product_id: product.id });
    const reread = one((await client.get(`/products/${product.id}.json`)).json, 'product');
    expect((reread.variants as JsonObject[]).length).toBe((product.variants as JsonObject[]).length + 1);
    const again = await client.post(`/products/${product.id}/variants.json`, {
      variant: { option1: 'Yellow', option2: 'XXL', price: '2.00' },
    });
    expect(again.status).toBe(422);
    expect(again.json).toEqual({ errors: { base: ["The variant 'Yellow / XXL' already exists."] } });
    expect((await client.post('/products/1/variants.json', { variant: { option1: 'x' } })).status).toBe(404);
  });
});

describe('simulated shop: customers', () => {
  let shop: RunningShop;
  let client: ShopClient;
  beforeAll(async () => {
    shop = await startShop({ seed: 32, products: 10, customers: 40, orders: 400 });
    client = clientFor(shop);
  });
  afterAll(() => shop.close());

  it('creates a customer (201) with addresses and default_address', async () => {
    const created = await client.post('/customers.json', {
      customer: {
        first_name: 'Steve',
        last_name: 'Lastnameson',
        email: 'steve.lastnameson@example.com',
        phone: '+15142546011',
        verified_email: true,
        addresses: [{ address1: '123 Oak St', city: 'Ottawa', province: 'ON', zip: '123 ABC', country: 'CA' }],
      },
    });
    expect(created.status).toBe(201);
    const customer = one(created.json, 'customer');
    expect(customer).toMatchObject({ email: 'steve.lastnameson@example.com', orders_count: 0, state: 'disabled' });
    expect(customer.default_address).toEqual((customer.addresses as JsonObject[])[0]);
  });

  it.each([
    [{ note: 'nobody' }, { base: ['Customer must have a name, phone number or email address'] }],
    [{ email: 'not-an-email' }, { email: ['is invalid'] }],
  ])('rejects %j with 422', async (customer, errors) => {
    const served = await client.post('/customers.json', { customer });
    expect(served.status).toBe(422);
    expect(served.json).toEqual({ errors });
  });

  it('refuses an email or phone already taken by a generated customer', async () => {
    const taken = [...shop.records('customers')].find((c) => c.phone !== null) as JsonObject;
    const byEmail = await client.post('/customers.json', { customer: { email: taken.email } });
    expect(byEmail.json).toEqual({ errors: { email: ['has already been taken'] } });
    const byPhone = await client.post('/customers.json', { customer: { first_name: 'X', phone: taken.phone } });
    expect(byPhone.json).toEqual({ errors: { phone: ['has already been taken'] } });
  });

  it('updates with the seed flat body and with the wrapped body, bumping updated_at', async () => {
    const customer = [...shop.records('customers')][5] as JsonObject;
    const flat = await client.put(`/customers/${customer.id}.json`, {
      id: customer.id,
      email: 'changed@example.com',
      note: 'Line one\n"two"',
    });
    expect(flat.status).toBe(200);
    expect(one(flat.json, 'customer')).toMatchObject({ email: 'changed@example.com', note: 'Line one\n"two"' });
    expect(Date.parse(one(flat.json, 'customer').updated_at as string)).toBeGreaterThan(
      Date.parse(customer.updated_at as string),
    );
    const wrapped = await client.put(`/customers/${customer.id}.json`, { customer: { tags: 'vip, b' } });
    expect(one(wrapped.json, 'customer')).toMatchObject({ email: 'changed@example.com', tags: 'b, vip' });
  });

  it('deletes a customer', async () => {
    const customer = [...shop.records('customers')][7] as JsonObject;
    expect((await client.delete(`/customers/${customer.id}.json`)).text).toBe('{}');
    expect((await client.get(`/customers/${customer.id}.json`)).status).toBe(404);
    expect((await client.delete(`/customers/${customer.id}.json`)).status).toBe(404);
  });

  it('searches by exact email, wildcard, field combinations and bare words', async () => {
    const customers = [...shop.records('customers')];
    const target = customers[3] as JsonObject;
    const exact = await client.get(`/customers/search.json?query=${encodeURIComponent(`email:${target.email}`)}`);
    expect(listOf(exact, 'customers').map((c) => c.id)).toEqual([target.id]);
    const wildcard = await crawl(
      client,
      `/customers/search.json?limit=5&query=${encodeURIComponent('email:*@example.org')}`,
      'customers',
    );
    expect(wildcard.map((c) => String(c.id)).sort()).toEqual(
      customers
        .filter((c) => (c.email as string).endsWith('@example.org'))
        .map((c) => String(c.id))
        .sort(),
    );
    const country = (target.default_address as JsonObject).country as string;
    const combined = await client.get(
      `/customers/search.json?limit=250&query=${encodeURIComponent(`first_name:${target.first_name} country:${country}`)}`,
    );
    expect(listOf(combined, 'customers').map((c) => c.id)).toContain(target.id);
    const none = await client.get('/customers/search.json?query=email:nobody@nowhere.example');
    expect(none.json).toEqual({ customers: [] });
    expect(none.headers.get('link')).toBeNull();
  });

  it("lists a customer's orders (open by default, status=any for all)", async () => {
    const orders = [...shop.records('orders')];
    const customer = [...shop.records('customers')][2] as JsonObject;
    const mine = orders.filter((o) => o.customer !== null && (o.customer as JsonObject).id === customer.id);
    expect(mine.length).toBeGreaterThan(3);
    const all = await crawl(client, `/customers/${customer.id}/orders.json?status=any&limit=3`, 'orders');
    expect(all.map((o) => o.id)).toEqual(
      mine.sort((a, b) => Date.parse(b.created_at as string) - Date.parse(a.created_at as string)).map((o) => o.id),
    );
    const open = await client.get(`/customers/${customer.id}/orders.json`);
    expect(
      listOf(open, 'orders')
        .map((o) => o.id)
        .sort(),
    ).toEqual(
      mine
        .filter((o) => o.closed_at === null && o.cancelled_at === null)
        .map((o) => o.id)
        .sort(),
    );
    const other = orders.find(
      (o) => o.customer === null || (o.customer as JsonObject).id !== customer.id,
    ) as JsonObject;
    const scoped = await client.get(`/customers/${customer.id}/orders.json?status=any&ids=${other.id},${mine[0]?.id}`);
    expect(listOf(scoped, 'orders').map((o) => o.id)).toEqual([mine[0]?.id]);
    expect((await client.get('/customers/42/orders.json')).status).toBe(404);
  });

  it('creates an account activation URL, refused once the account is enabled', async () => {
    const customers = [...shop.records('customers')];
    const disabled = customers.find((c) => c.state === 'disabled') as JsonObject;
    const served = await client.post(`/customers/${disabled.id}/account_activation_url.json`);
    expect(served.status).toBe(200);
    expect((served.json as JsonObject).account_activation_url).toMatch(
      new RegExp(`^https://[\\w.-]+/account/activate/${disabled.id}/[0-9a-f]{32}-\\d+$`),
    );
    const enabled = customers.find((c) => c.state === 'enabled') as JsonObject;
    const refused = await client.post(`/customers/${enabled.id}/account_activation_url.json`);
    expect(refused.status).toBe(422);
    expect(refused.json).toEqual({ errors: ['account already enabled'] });
  });

  it('sends an invite (201) and moves the customer to invited', async () => {
    const disabled = [...shop.records('customers')].find((c) => c.state === 'disabled') as JsonObject;
    const served = await client.post(`/customers/${disabled.id}/send_invite.json`, {
      customer_invite: { subject: 'Welcome ✨', custom_message: 'Hi' },
    });
    expect(served.status).toBe(201);
    expect(one(served.json, 'customer_invite')).toMatchObject({ to: disabled.email, subject: 'Welcome ✨' });
    expect(one((await client.get(`/customers/${disabled.id}.json`)).json, 'customer').state).toBe('invited');
  });
});

describe('simulated shop: orders', () => {
  let shop: RunningShop;
  let client: ShopClient;
  beforeAll(async () => {
    shop = await startShop({ seed: 33, products: 10, customers: 20, orders: 300 });
    client = clientFor(shop);
  });
  afterAll(() => shop.close());

  const find = (test: (o: JsonObject) => boolean) => [...shop.records('orders')].find(test) as JsonObject;

  it('creates an order from variants and custom lines (201), open and paid', async () => {
    const product = [...shop.records('products')][0] as JsonObject;
    const variant = (product.variants as JsonObject[])[0] as JsonObject;
    const customer = [...shop.records('customers')][0] as JsonObject;
    const created = await client.post('/orders.json', {
      order: {
        line_items: [
          { variant_id: variant.id, quantity: 2 },
          { title: 'Red Leather Coat', price: 129.99, grams: '1700', quantity: 1 },
        ],
        customer: { id: customer.id },
        tax_lines: [{ price: 10.2, rate: 0.06, title: 'State tax' }],
      },
    });
    expect(created.status).toBe(201);
    const order = one(created.json, 'order');
    expect(order).toMatchObject({
      financial_status: 'paid',
      closed_at: null,
      cancelled_at: null,
      fulfillment_status: null,
    });
    expect((order.line_items as JsonObject[])[0]).toMatchObject({
      variant_id: variant.id,
      price: variant.price,
      quantity: 2,
    });
    expect((order.customer as JsonObject).id).toBe(customer.id);
    const cents = (text: unknown) => Math.round(Number(text) * 100);
    expect(cents(order.total_price)).toBe(cents(variant.price) * 2 + 12999 + 1020);
    const listed = listOf(await client.get('/orders.json?limit=1'), 'orders');
    expect(listed[0]?.id).toBe(order.id);
  });

  it('rejects an order without line items or with an unknown variant (422)', async () => {
    expect((await client.post('/orders.json', { order: { line_items: [] } })).json).toEqual({
      errors: { line_items: ["can't be blank"] },
    });
    expect((await client.post('/orders.json', { order: { line_items: [{ variant_id: 1 }] } })).status).toBe(422);
  });

  it('updates and deletes an order', async () => {
    const order = find((o) => o.closed_at === null);
    const updated = await client.put(`/orders/${order.id}.json`, {
      order: { id: order.id, note: 'Übergabe\tan Tür', tags: 'x' },
    });
    expect(one(updated.json, 'order')).toMatchObject({
      note: 'Übergabe\tan Tür',
      tags: 'x',
      created_at: order.created_at,
    });
    expect((await client.delete(`/orders/${order.id}.json`)).text).toBe('{}');
    expect((await client.get(`/orders/${order.id}.json`)).status).toBe(404);
  });

  it('cancels an unfulfilled pending order: cancelled_at, cancel_reason, voided, notice; closed_at untouched', async () => {
    const order = find(
      (o) =>
        o.cancelled_at === null &&
        o.closed_at === null &&
        (o.fulfillments as unknown[]).length === 0 &&
        o.financial_status === 'pending',
    );
    const served = await client.post(`/orders/${order.id}/cancel.json?reason=customer`);
    expect(served.status).toBe(200);
    const body = served.json as JsonObject;
    expect(body.notice).toBe('Order has been canceled');
    expect(one(body, 'order')).toMatchObject({
      cancel_reason: 'customer',
      financial_status: 'voided',
      closed_at: null,
    });
    expect(one(body, 'order').cancelled_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d-0[45]:00$/);
    const again = await client.post(`/orders/${order.id}/cancel.json`);
    expect(again.status).toBe(422);
    expect(again.json).toEqual({ errors: { base: ['Order has already been cancelled'] } });
    const open = listOf(await client.get(`/orders.json?limit=250&status=cancelled&ids=${String(order.id)}`), 'orders');
    expect(open).toHaveLength(1);
  });

  it('refunds on cancel with an amount, defaulting the reason to other', async () => {
    const order = find(
      (o) => o.cancelled_at === null && (o.fulfillments as unknown[]).length === 0 && o.financial_status === 'paid',
    );
    const served = await client.post(`/orders/${order.id}/cancel.json`, { amount: order.total_price, currency: 'USD' });
    expect(one(served.json, 'order')).toMatchObject({ cancel_reason: 'other', financial_status: 'refunded' });
  });

  it('refuses to cancel an order with fulfillments (422)', async () => {
    const order = find((o) => o.cancelled_at === null && (o.fulfillments as unknown[]).length > 0);
    const served = await client.post(`/orders/${order.id}/cancel.json`);
    expect(served.status).toBe(422);
    expect(served.json).toEqual({ errors: { base: ['Cannot cancel an order that has fulfillments'] } });
  });

  it('closes and reopens an order, bumping updated_at', async () => {
    const order = find((o) => o.closed_at === null && o.cancelled_at === null);
    const closed = one((await client.post(`/orders/${order.id}/close.json`)).json, 'order');
    expect(closed.closed_at).not.toBeNull();
    expect(Date.parse(closed.updated_at as string)).toBeGreaterThan(Date.parse(order.updated_at as string));
    const ids = `ids=${String(order.id)}`;
    expect(listOf(await client.get(`/orders.json?${ids}`), 'orders')).toHaveLength(0);
    expect(listOf(await client.get(`/orders.json?status=closed&${ids}`), 'orders')).toHaveLength(1);
    const reopened = one((await client.post(`/orders/${order.id}/open.json`)).json, 'order');
    expect(reopened.closed_at).toBeNull();
    expect(listOf(await client.get(`/orders.json?${ids}`), 'orders')).toHaveLength(1);
  });

  it('shows one order with fields, and 404 for unknown ids', async () => {
    const order = find(() => true);
    const served = await client.get(`/orders/${order.id}.json?fields=id,line_items,name,total_price`);
    expect(Object.keys(one(served.json, 'order'))).toEqual(['id', 'name', 'total_price', 'line_items']);
    expect((await client.get('/orders/5200000000001.json')).status).toBe(404);
    expect((await client.post('/orders/5200000000001/close.json')).status).toBe(404);
  });
});
