import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/shopify/json.js';
import { type RunningShop, type ShopOptions, ShopOptionsError, startShop } from '../../src/simulator/index.js';
import { clientFor } from './shop-client.js';

const ORDER_LIMIT_BODY = {
  errors:
    'Exceeded order API rate limit, please try again in a minute. Upgrade to a paid account to remove this limit.',
};
const VARIANT_LIMIT_BODY = {
  errors:
    'Daily variant creation limit reached. Please try again later. See https://help.shopify.com/api/getting-started/api-call-limit for more information about rate limits and how to avoid them.',
};
const customLine = { line_items: [{ title: 'x', price: '1.00' }] };

let shop: RunningShop | undefined;
afterEach(async () => {
  await shop?.close();
  shop = undefined;
});

async function open(options: ShopOptions) {
  shop = await startShop({ seed: 40, products: 3, customers: 3, orders: 3, ...options });
  return { shop, client: clientFor(shop) };
}

describe('simulated shop: writes and the bucket', () => {
  it('takes the write time of the latency model for every write', async () => {
    const { client } = await open({ latency: { writeMs: 300 } });
    const product = [...(shop as RunningShop).records('products')][0] as JsonObject;
    const writes = [
      () => client.post('/products.json', { product: { title: 'Slow' } }),
      () => client.put(`/products/${product.id}.json`, { product: { title: 'Slower' } }),
      () => client.post('/customers.json', { customer: { email: 'slow@example.com' } }),
      () => client.post('/orders.json', { order: customLine }),
    ];
    for (const write of writes) {
      const started = performance.now();
      const served = await write();
      expect(served.status).toBeLessThan(300);
      expect(performance.now() - started).toBeGreaterThanOrEqual(295);
    }
    const started = performance.now();
    expect((await client.get(`/products/${product.id}.json`)).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(250);
  });

  it('spends one call of the bucket per write and answers a full bucket with 429 and Retry-After', async () => {
    const { client } = await open({ rate: { bucket: 3, leakPerSecond: 0.1 } });
    const served = [];
    for (let k = 0; k < 4; k++)
      served.push(await client.post('/customers.json', { customer: { email: `b${k}@example.com` } }));
    expect(served.map((s) => [s.status, s.headers.get('x-shopify-shop-api-call-limit')])).toEqual([
      [201, '1/3'],
      [201, '2/3'],
      [201, '3/3'],
      [429, '3/3'],
    ]);
    expect(served[3]?.headers.get('retry-after')).toBe('2.0');
    expect((shop as RunningShop).stats()).toMatchObject({ writes: 3, throttled: 1 });
    expect((shop as RunningShop).count('customers')).toBe(6);
  });
});

describe('simulated shop: the development-store order limit', () => {
  it('answers the order past the limit with 429 and the body Shopify sends, without Retry-After, until the window moves', async () => {
    const { client } = await open({ rate: 'standard', orderCreateThrottle: { orders: 2, windowMs: 1500 } });
    const first = await client.post('/orders.json', { order: customLine });
    const started = performance.now();
    await client.post('/orders.json', { order: customLine });
    const refused = await client.post('/orders.json', { order: customLine });
    expect([first.status, refused.status]).toEqual([201, 429]);
    expect(refused.json).toEqual(ORDER_LIMIT_BODY);
    expect(refused.headers.get('retry-after')).toBeNull();
    // Not the bucket: its header is far from full.
    expect(refused.headers.get('x-shopify-shop-api-call-limit')).toBe('3/40');
    expect((shop as RunningShop).count('orders')).toBe(5);
    // Other writes are not limited.
    expect((await client.post('/customers.json', { customer: { email: 'free@example.com' } })).status).toBe(201);
    let accepted = refused;
    while (accepted.status === 429) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      accepted = await client.post('/orders.json', { order: customLine });
    }
    expect(accepted.status).toBe(201);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1400);
    const stats = (shop as RunningShop).stats();
    expect(stats.writeLimits.orderCreate).toBeGreaterThanOrEqual(1);
    expect(stats.throttled).toBe(stats.writeLimits.orderCreate);
    expect(stats.writes).toBe(4);
  });
});

describe('simulated shop: the variant-creation limit', () => {
  it('limits creations of variants once the shop has the threshold, through every write that creates them', async () => {
    const { client } = await open({ products: 0, variantCreateThrottle: { afterVariants: 3, variants: 4 } });
    const created = await client.post('/products.json', {
      product: { title: 'Base', variants: [{ option1: 'A' }, { option1: 'B' }] },
    });
    expect(created.status).toBe(201);
    // Below the threshold nothing is limited; from 3 variants on, 4 per day, counting the day's earlier creations.
    const id = ((created.json as JsonObject).product as JsonObject).id;
    expect((await client.post(`/products/${id}/variants.json`, { variant: { option1: 'C' } })).status).toBe(201);
    expect((await client.post(`/products/${id}/variants.json`, { variant: { option1: 'D' } })).status).toBe(201);
    const refused = await client.post(`/products/${id}/variants.json`, { variant: { option1: 'E' } });
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual(VARIANT_LIMIT_BODY);
    const put = await client.put(`/products/${id}.json`, {
      product: { variants: [{ option1: 'A' }, { option1: 'B' }, { option1: 'C' }, { option1: 'D' }, { option1: 'F' }] },
    });
    expect(put.status).toBe(429);
    const product = await client.post('/products.json', { product: { title: 'One more' } });
    expect(product.status).toBe(429);
    // Updates that create nothing pass.
    expect((await client.put(`/products/${id}.json`, { product: { title: 'Renamed' } })).status).toBe(200);
    expect((shop as RunningShop).stats().writeLimits.variantCreate).toBe(3);
  });

  it('refuses knobs that are not counts', async () => {
    await expect(startShop({ orderCreateThrottle: { orders: -1 } })).rejects.toThrow(ShopOptionsError);
    await expect(startShop({ variantCreateThrottle: { afterVariants: 1, variants: 1, windowMs: 0 } })).rejects.toThrow(
      /windowMs must be > 0/,
    );
  });
});

describe('simulated shop: writes applied whose answer is lost', () => {
  it('resets the connection of the chosen write after the work, counts it, and restarts its ordinals with setFaults', async () => {
    const { client } = await open({ faults: { lostAnswers: { writes: [2] } } });
    const customer = (k: number) => client.post('/customers.json', { customer: { email: `lost${k}@example.com` } });
    expect((await customer(1)).status).toBe(201);
    await expect(customer(2)).rejects.toThrow(/fetch failed/);
    expect((await customer(3)).status).toBe(201);
    const emails = [...(shop as RunningShop).records('customers')].map((c) => c.email);
    expect(emails).toEqual(expect.arrayContaining(['lost1@example.com', 'lost2@example.com', 'lost3@example.com']));
    (shop as RunningShop).setFaults({ lostAnswers: { writes: [1], as: 502 } });
    expect((await customer(4)).status).toBe(502);
    expect((shop as RunningShop).stats()).toMatchObject({ writes: 4, lostAnswers: 2, faults: { lostAnswers: 2 } });
  });

  it('never loses the answer of a refused write: a 422 or a 429 is answered as it is', async () => {
    const { client } = await open({ faults: { lostAnswers: { rate: 1 } } });
    const refused = await client.post('/customers.json', { customer: { note: 'nobody' } });
    expect(refused.status).toBe(422);
    expect((shop as RunningShop).stats()).toMatchObject({ writes: 0, lostAnswers: 0 });
  });
});
