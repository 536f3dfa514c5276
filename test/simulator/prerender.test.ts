import { afterEach, describe, expect, it } from 'vitest';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { clientFor } from './shop-client.js';

const shops: RunningShop[] = [];
afterEach(async () => {
  for (const shop of shops.splice(0)) await shop.close();
});

const SIZES = { seed: 21, products: 300, customers: 300, orders: 600, bigIdShare: 0.05, token: 'shpat_same' };

describe('a prerendered shop', () => {
  it('serves byte for byte what a shop building its pages on demand serves, before and after writes', async () => {
    const pair = await Promise.all([startShop(SIZES), startShop({ ...SIZES, prerender: true })]);
    shops.push(...pair);
    const clients = pair.map((shop) => clientFor(shop));
    const paths = [
      '/orders.json?status=any&limit=250',
      '/orders.json?status=any&since_id=1&created_at_min=2021-01-01T00:00:00Z&created_at_max=2023-01-01T00:00:00Z',
      '/products.json?status=active,archived,draft&limit=50',
      '/customers.json?limit=250&since_id=1',
      '/customers/count.json?created_at_min=2022-01-01T00:00:00Z',
    ];
    const served = async () =>
      Promise.all(clients.map((client) => Promise.all(paths.map(async (path) => (await client.get(path)).text))));
    const [onDemand, prerendered] = await served();
    expect(prerendered).toEqual(onDemand);
    const first = (await clients[0]?.get('/customers.json?limit=1&since_id=1'))?.text.match(/"id":(\d+)/)?.[1];
    for (const client of clients) {
      expect((await client.put(`/customers/${first}.json`, { customer: { id: first, tags: 'edited' } })).status).toBe(
        200,
      );
    }
    // The two writes may fall into different seconds: the edited record's updated_at may differ.
    const [onDemandAfter, prerenderedAfter] = (await served()).map((texts) =>
      texts.map((text) => text.replace(/"updated_at":"[^"]*"/g, '')),
    );
    expect(prerenderedAfter).toEqual(onDemandAfter);
    expect(prerenderedAfter?.[3]).toContain('"tags":"edited"');
  });
});
