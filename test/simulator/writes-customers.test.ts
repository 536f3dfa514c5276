import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/shopify/json.js';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { clientFor, crawl, customersWithoutOrders, listOf, type ShopClient } from './shop-client.js';

const one = (json: unknown, key: string) => (json as JsonObject)[key] as JsonObject;

describe('simulated shop: customer writes', () => {
  let shop: RunningShop;
  let client: ShopClient;
  beforeAll(async () => {
    shop = await startShop({ seed: 32, products: 10, customers: 40, orders: 30 });
    client = clientFor(shop);
  });
  afterAll(() => shop.close());

  const create = async (customer: Record<string, unknown>) => {
    const served = await client.post('/customers.json', { customer });
    expect(served.status, served.text).toBe(201);
    return one(served.json, 'customer');
  };
  const emails = () => shop.stats().sideEffects.emails;

  it('creates a customer (201) as EX22 shows: addresses with places spelled out, default_address, no mail', async () => {
    const before = emails();
    const customer = await create({
      first_name: 'Steve',
      last_name: 'Lastnameson',
      email: 'steve.lastnameson@example.com',
      phone: '+15142546011',
      verified_email: true,
      tags: 'vip, b',
      note: 'Line one\n"two"',
      addresses: [{ address1: '123 Oak St', city: 'Montréal', province: 'QC', zip: 'H2X 1Y4', country: 'CA' }],
      metafields: [{ namespace: 'shopsnap', key: 'source_id', value: '6100000000001', type: 'single_line_text_field' }],
    });
    expect(customer).toMatchObject({
      email: 'steve.lastnameson@example.com',
      orders_count: 0,
      total_spent: '0.00',
      state: 'disabled',
      tags: 'b, vip',
      note: 'Line one\n"two"',
      accepts_marketing: false,
      email_marketing_consent: { state: 'not_subscribed', opt_in_level: null },
      sms_marketing_consent: { state: 'not_subscribed', opt_in_level: 'single_opt_in' },
    });
    const address = (customer.addresses as JsonObject[])[0] as JsonObject;
    expect(address).toMatchObject({
      customer_id: customer.id,
      first_name: 'Steve',
      name: 'Steve Lastnameson',
      province: 'Quebec',
      province_code: 'QC',
      country: 'Canada',
      country_code: 'CA',
      country_name: 'Canada',
      default: true,
    });
    expect(customer.default_address).toEqual(address);
    expect(emails()).toEqual(before);
    expect(shop.metafields('customers', BigInt(String(customer.id)))).toHaveLength(1);
    expect(one((await client.get(`/customers/${customer.id}.json`)).json, 'customer')).toEqual(customer);
    const found = await client.get(
      `/customers/search.json?query=${encodeURIComponent('email:"steve.lastnameson@example.com"')}`,
    );
    expect(listOf(found, 'customers').map((c) => c.id)).toEqual([customer.id]);
  });

  it('counts the mails Shopify would send: the invite asked for, the welcome of an account made with a password', async () => {
    const before = emails();
    const invited = await create({ email: 'invited@example.com', send_email_invite: true });
    expect(invited.state).toBe('invited');
    const quiet = await create({
      email: 'quiet@example.com',
      password: 'newpass',
      password_confirmation: 'newpass',
      send_email_welcome: false,
    });
    expect(quiet.state).toBe('enabled');
    await create({ email: 'welcomed@example.com', password: 'newpass', password_confirmation: 'newpass' });
    expect(emails()).toEqual({ ...before, invites: before.invites + 1, welcomes: before.welcomes + 1 });
  });

  it.each([
    [{ note: 'nobody' }, { base: ['Customer must have a name, phone number or email address'] }],
    [{ email: 'not-an-email' }, { email: ['is invalid'] }],
    [{ email: 'short@example.com', password: 'abc' }, { password: ['is too short (minimum is 5 characters)'] }],
    [
      { email: 'mismatch@example.com', password: 'abcdef', password_confirmation: 'abcdeg' },
      { password_confirmation: ["doesn't match Password"] },
    ],
  ])('refuses %j with 422, nothing created', async (customer, errors) => {
    const before = shop.count('customers');
    const served = await client.post('/customers.json', { customer });
    expect(served.status).toBe(422);
    expect(served.json).toEqual({ errors });
    expect(shop.count('customers')).toBe(before);
  });

  it('refuses an email (any case) or phone already taken, by a generated customer or a created one', async () => {
    const taken = [...shop.records('customers')].find((c) => c.phone !== null) as JsonObject;
    const byEmail = await client.post('/customers.json', { customer: { email: String(taken.email).toUpperCase() } });
    expect(byEmail.status).toBe(422);
    expect(byEmail.json).toEqual({ errors: { email: ['has already been taken'] } });
    const byPhone = await client.post('/customers.json', { customer: { first_name: 'X', phone: taken.phone } });
    expect(byPhone.json).toEqual({ errors: { phone: ['has already been taken'] } });
    const again = await client.post('/customers.json', { customer: { email: 'invited@example.com' } });
    expect(again.json).toEqual({ errors: { email: ['has already been taken'] } });
    const other = [...shop.records('customers')].find((c) => c.id !== taken.id) as JsonObject;
    const update = await client.put(`/customers/${other.id}.json`, { customer: { email: taken.email } });
    expect(update.status).toBe(422);
  });

  it('updates partially, with the seed flat body and the wrapped body, bumping updated_at', async () => {
    const customer = [...shop.records('customers')][5] as JsonObject;
    const flat = await client.put(`/customers/${customer.id}.json`, {
      id: customer.id,
      email: 'changed@example.com',
      note: 'Übergabe\tan Tür',
    });
    expect(flat.status).toBe(200);
    const changed = one(flat.json, 'customer');
    expect(changed).toMatchObject({
      email: 'changed@example.com',
      note: 'Übergabe\tan Tür',
      first_name: customer.first_name,
    });
    expect(Date.parse(changed.updated_at as string)).toBeGreaterThan(Date.parse(customer.updated_at as string));
    const wrapped = await client.put(`/customers/${customer.id}.json`, {
      customer: { tags: ['x', 'a'], accepts_marketing: true, marketing_opt_in_level: 'confirmed_opt_in' },
    });
    expect(one(wrapped.json, 'customer')).toMatchObject({
      email: 'changed@example.com',
      tags: 'a, x',
      accepts_marketing: true,
      email_marketing_consent: { state: 'subscribed', opt_in_level: 'confirmed_opt_in' },
    });
  });

  it('merges addresses on update: one with an id is changed, one without is added, the others stay', async () => {
    const customer = [...shop.records('customers')].find((c) => (c.addresses as unknown[]).length >= 2) as JsonObject;
    const [first, second] = customer.addresses as [JsonObject, JsonObject];
    const served = await client.put(`/customers/${customer.id}.json`, {
      customer: {
        addresses: [
          { id: second.id, city: 'Reykjavík' },
          { address1: '1 New Rd', city: 'Louisville', country: 'US', province: 'KY' },
        ],
      },
    });
    const addresses = one(served.json, 'customer').addresses as JsonObject[];
    expect(addresses).toHaveLength((customer.addresses as unknown[]).length + 1);
    expect(addresses[0]).toEqual(first);
    expect(addresses[1]).toMatchObject({ id: second.id, city: 'Reykjavík', address1: second.address1 });
    expect(addresses.at(-1)).toMatchObject({
      city: 'Louisville',
      country: 'United States',
      province_code: 'KY',
      default: false,
    });
  });

  it('refuses to delete a customer with orders (422), deletes one without (200 {}), then 404', async () => {
    const withOrders = [...shop.records('orders')].find((o) => o.customer !== null)?.customer as JsonObject;
    const refused = await client.delete(`/customers/${withOrders.id}.json`);
    expect(refused.status).toBe(422);
    expect(refused.json).toEqual({ errors: { base: ['Cannot delete a customer who has orders'] } });
    expect((await client.get(`/customers/${withOrders.id}.json`)).status).toBe(200);
    const free = customersWithoutOrders(shop)[0] as JsonObject;
    const deleted = await client.delete(`/customers/${free.id}.json`);
    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe('{}');
    expect((await client.get(`/customers/${free.id}.json`)).status).toBe(404);
    expect((await client.delete(`/customers/${free.id}.json`)).status).toBe(404);
  });

  it("lists a customer's orders (open by default, status=any for all)", async () => {
    const orders = [...shop.records('orders')];
    const customer = [...shop.records('customers')][2] as JsonObject;
    const mine = orders.filter((o) => o.customer !== null && (o.customer as JsonObject).id === customer.id);
    expect(mine.length).toBeGreaterThan(0);
    const all = await crawl(client, `/customers/${customer.id}/orders.json?status=any&limit=1`, 'orders');
    expect(all.map((o) => o.id).sort()).toEqual(mine.map((o) => o.id).sort());
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

  it('sends an invite (201), moves the customer to invited and counts the mail', async () => {
    const before = emails().invites;
    const disabled = [...shop.records('customers')].find((c) => c.state === 'disabled') as JsonObject;
    const served = await client.post(`/customers/${disabled.id}/send_invite.json`, {
      customer_invite: { subject: 'Welcome ✨', custom_message: 'Hi' },
    });
    expect(served.status).toBe(201);
    expect(one(served.json, 'customer_invite')).toMatchObject({ to: disabled.email, subject: 'Welcome ✨' });
    expect(one((await client.get(`/customers/${disabled.id}.json`)).json, 'customer').state).toBe('invited');
    expect(emails().invites).toBe(before + 1);
  });
});

describe('simulated shop: a customer create whose answer is lost', () => {
  it('is applied: the client sees a 504, the retry a 422 "has already been taken", search finds the customer', async () => {
    const shop = await startShop({
      seed: 33,
      products: 1,
      customers: 3,
      orders: 0,
      faults: { lostAnswers: { writes: ['POST /customers.json#1'], as: 504 } },
    });
    try {
      const client = clientFor(shop);
      const body = { customer: { email: 'lost@example.com', first_name: 'Lost' } };
      const first = await client.post('/customers.json', body);
      expect(first.status).toBe(504);
      expect(first.headers.get('content-type')).toMatch(/^text\/html/);
      const retry = await client.post('/customers.json', body);
      expect(retry.json).toEqual({ errors: { email: ['has already been taken'] } });
      const found = await client.get(`/customers/search.json?query=${encodeURIComponent('email:"lost@example.com"')}`);
      expect(listOf(found, 'customers').map((c) => c.first_name)).toEqual(['Lost']);
      expect(shop.stats()).toMatchObject({ writes: 1, lostAnswers: 1 });
    } finally {
      await shop.close();
    }
  });
});
