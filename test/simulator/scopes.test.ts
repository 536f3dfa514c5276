import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/shopify/json.js';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { DEFAULT_SCOPES } from '../../src/simulator/scopes.js';
import { clientFor, type ShopClient } from './shop-client.js';

describe('simulated shop: access scopes', () => {
  let full: RunningShop;
  let limited: RunningShop;
  let fullClient: ShopClient;
  let limitedClient: ShopClient;
  beforeAll(async () => {
    full = await startShop({ seed: 4, products: 3, customers: 3, orders: 20 });
    limited = await startShop({
      seed: 4,
      products: 3,
      customers: 3,
      orders: 20,
      scopes: ['read_orders', 'write_orders'],
    });
    fullClient = clientFor(full);
    limitedClient = clientFor(limited);
  });
  afterAll(async () => {
    await full.close();
    await limited.close();
  });

  it('lists the granted scopes at /admin/oauth/access_scopes.json, outside the versioned prefix', async () => {
    const served = await limitedClient.get(`${limited.url}/admin/oauth/access_scopes.json`);
    expect(served.status).toBe(200);
    expect(served.text).toBe('{"access_scopes":[{"handle":"read_orders"},{"handle":"write_orders"}]}');
    expect(served.headers.get('x-shopify-shop-api-call-limit')).toMatch(/^\d+\/40$/);
    const all = await fullClient.get(`${full.url}/admin/oauth/access_scopes.json`);
    const handles = (all.json as { access_scopes: { handle: string }[] }).access_scopes.map((s) => s.handle);
    expect(handles).toEqual(DEFAULT_SCOPES);
    expect(handles).toContain('read_all_orders');
  });

  it('answers a wrong token there with 401', async () => {
    const served = await clientFor(limited, 'shpat_wrong').get(`${limited.url}/admin/oauth/access_scopes.json`);
    expect(served.status).toBe(401);
  });

  it('answers 403 with Shopify’s body for a resource whose scope is missing', async () => {
    const served = await limitedClient.get('/products/count.json');
    expect(served.status).toBe(403);
    expect(served.text).toBe('{"errors":"[API] This action requires merchant approval for read_products scope."}');
    expect((await limitedClient.post('/customers.json', { customer: { email: 'a@b.example' } })).status).toBe(403);
  });

  it('without read_all_orders shows only orders created in the last 60 days', async () => {
    // Every generated order lies in the simulated shop's past (up to 2024): all older than 60 days.
    const old = [...full.records('orders')][0] as JsonObject;
    expect((await fullClient.get(`/orders/${old.id}.json`)).status).toBe(200);
    expect((await limitedClient.get(`/orders/${old.id}.json`)).status).toBe(404);
    expect((await limitedClient.get('/orders/count.json?status=any')).json).toEqual({ count: 0 });

    const created = await limitedClient.post('/orders.json', {
      order: { line_items: [{ title: 'Fresh', price: '5.00', quantity: 1 }] },
    });
    expect(created.status).toBe(201);
    const id = (created.json as { order: JsonObject }).order.id;
    expect((await limitedClient.get('/orders/count.json?status=any')).json).toEqual({ count: 1 });
    const listed = await limitedClient.get('/orders.json?status=any&limit=250');
    expect((listed.json as { orders: JsonObject[] }).orders.map((o) => o.id)).toEqual([id]);
    const bySinceId = await limitedClient.get('/orders.json?status=any&since_id=0&limit=250');
    expect((bySinceId.json as { orders: JsonObject[] }).orders.map((o) => o.id)).toEqual([id]);
    expect((await fullClient.get('/orders/count.json?status=any')).json).toEqual({ count: 20 });
  });
});
