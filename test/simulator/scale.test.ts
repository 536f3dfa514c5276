import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/shopify/json.js';
import { startShop } from '../../src/simulator/index.js';
import { clientFor, links, listOf } from './shop-client.js';

const MB = 1024 * 1024;

describe('simulated shop: scale', () => {
  it('serves the first pages of a 1,000,000-order shop with the process under 300 MB RSS', async () => {
    const started = performance.now();
    const shop = await startShop({ seed: 1, orders: 1_000_000, customers: 50_000, products: 5_000, bigIdShare: 0.01 });
    try {
      const client = clientFor(shop);
      const first = await client.get('/orders.json?status=any&limit=250');
      const ready = performance.now() - started;
      expect(first.status).toBe(200);
      const orders = listOf(first, 'orders');
      expect(orders).toHaveLength(250);
      expect((orders[0] as JsonObject).name).toBe('#1001000');
      let next = links(first.headers.get('link')).next;
      for (let page = 0; page < 5 && next; page++) {
        const served = await client.get(next);
        expect(listOf(served, 'orders')).toHaveLength(250);
        next = links(served.headers.get('link')).next;
      }
      expect((await client.get('/orders/count.json?status=any')).json).toEqual({ count: 1_000_000 });
      expect(listOf(await client.get('/customers.json?limit=250'), 'customers')).toHaveLength(250);
      const rss = process.memoryUsage().rss;
      process.stdout.write(
        `1,000,000-order shop: first page after ${ready.toFixed(0)} ms, process RSS ${(rss / MB).toFixed(0)} MB\n`,
      );
      expect(rss).toBeLessThan(300 * MB);
    } finally {
      await shop.close();
    }
  });
});
