import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/shopify/json.js';
import type { ResourceName } from '../../src/shopify/resources.js';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { clientFor, crawl, type ShopClient } from './shop-client.js';

type Oracle = (record: JsonObject) => boolean;
const ms = (value: unknown) => (typeof value === 'string' ? Date.parse(value) : Number.NaN);
const at = (iso: string) => Date.parse(iso);
const isOpen: Oracle = (o) => o.closed_at === null && o.cancelled_at === null;

describe('simulated shop: filters on lists and counts', () => {
  let shop: RunningShop;
  let client: ShopClient;
  beforeAll(async () => {
    shop = await startShop({ seed: 21, products: 120, customers: 150, orders: 600, bigIdShare: 0.05 });
    client = clientFor(shop);
  });
  afterAll(() => shop.close());

  const expectList = async (resource: ResourceName, query: string, oracle: Oracle) => {
    const served = await crawl(client, `/${resource}.json?limit=250&${query}`, resource);
    const expected = [...shop.records(resource)].filter(oracle).map((r) => String(r.id));
    expect(served.map((r) => String(r.id)).sort()).toEqual(expected.sort());
    return expected.length;
  };
  const expectCount = async (resource: ResourceName, query: string, oracle: Oracle) => {
    const served = await client.get(`/${resource}/count.json?${query}`);
    expect(served.status).toBe(200);
    const expected = [...shop.records(resource)].filter(oracle).length;
    expect(served.json).toEqual({ count: expected });
    return expected;
  };

  it('orders default to status=open on the list and the count', async () => {
    const open = await expectList('orders', '', isOpen);
    expect(await expectCount('orders', '', isOpen)).toBe(open);
    expect(open).toBeLessThan(shop.count('orders') * 0.8);
  });

  it('products list defaults to status=active while products count counts every status', async () => {
    const active = await expectList('products', '', (p) => p.status === 'active');
    expect(active).toBeLessThan(shop.count('products'));
    expect((await client.get('/products/count.json')).json).toEqual({ count: shop.count('products') });
    expect((await client.get('/products/count.json?status=active')).json).toEqual({ count: shop.count('products') });
  });

  it('lists every product without a status when productsDefaultActiveOnly is off', async () => {
    const open = await startShop({
      seed: 21,
      products: 120,
      customers: 1,
      orders: 1,
      productsDefaultActiveOnly: false,
    });
    try {
      const served = await crawl(clientFor(open), '/products.json?limit=250', 'products');
      expect(served).toHaveLength(120);
    } finally {
      await open.close();
    }
  });

  const orderCases: [string, Oracle][] = [
    ['status=any', () => true],
    ['status=closed', (o) => o.closed_at !== null],
    ['status=cancelled', (o) => o.cancelled_at !== null],
    ['status=any&financial_status=paid', (o) => o.financial_status === 'paid'],
    [
      'status=any&financial_status=unpaid',
      (o) => ['authorized', 'partially_paid'].includes(o.financial_status as string),
    ],
    ['status=any&fulfillment_status=shipped', (o) => o.fulfillment_status === 'fulfilled'],
    ['status=any&fulfillment_status=unshipped', (o) => o.fulfillment_status === null],
    [
      'status=any&fulfillment_status=unfulfilled',
      (o) => o.fulfillment_status === null || o.fulfillment_status === 'partial',
    ],
    ['status=any&created_at_min=2021-01-01T00:00:00-05:00', (o) => ms(o.created_at) >= at('2021-01-01T05:00:00Z')],
    [
      'status=any&created_at_min=2020-06-01&created_at_max=2022-06-30 12:00:00',
      (o) => ms(o.created_at) >= at('2020-06-01T04:00:00Z') && ms(o.created_at) <= at('2022-06-30T16:00:00Z'),
    ],
    ['status=any&updated_at_min=2023-02-01T00:00:00Z', (o) => ms(o.updated_at) >= at('2023-02-01T00:00:00Z')],
    ['status=any&updated_at_max=2020-02-01T00:00:00Z', (o) => ms(o.updated_at) <= at('2020-02-01T00:00:00Z')],
    ['status=any&processed_at_max=2019-12-31', (o) => ms(o.processed_at) <= at('2019-12-31T05:00:00Z')],
    ['status=any&attribution_app_id=129785', (o) => o.app_id === 129785],
    [
      'status=open&financial_status=pending&fulfillment_status=any',
      (o) => isOpen(o) && o.financial_status === 'pending',
    ],
  ];
  it.each(orderCases)('orders.json?%s', async (query, oracle) => {
    const n = await expectList('orders', query, oracle);
    expect(n).toBeGreaterThan(0);
  });

  it.each(orderCases.filter(([query]) => !query.includes('processed') && !query.includes('attribution')))(
    'orders/count.json?%s',
    async (query, oracle) => {
      await expectCount('orders', query, oracle);
    },
  );

  const productCases: [string, Oracle][] = [
    ['status=draft,archived', (p) => p.status !== 'active'],
    ['status=archived', (p) => p.status === 'archived'],
    ['status=any-other', () => false],
    ['status=active,draft,archived&vendor=Acme', (p) => p.vendor === 'Acme'],
    ['status=active,draft,archived&product_type=Food', (p) => p.product_type === 'Food'],
    ['status=active,draft,archived&published_status=unpublished', (p) => p.published_at === null],
    ['published_status=published', (p) => p.published_at !== null && p.status === 'active'],
    ['status=active,draft,archived&collection_id=841564295', () => false],
    [
      'status=active,draft,archived&updated_at_min=2022-01-01&updated_at_max=2023-12-31',
      (p) => ms(p.updated_at) >= at('2022-01-01T05:00:00Z') && ms(p.updated_at) <= at('2023-12-31T05:00:00Z'),
    ],
    [
      'status=active,draft,archived&published_at_max=2020-01-01',
      (p) => p.published_at !== null && ms(p.published_at) <= at('2020-01-01T05:00:00Z'),
    ],
  ];
  it.each(productCases)('products.json?%s', async (query, oracle) => {
    await expectList('products', query, oracle);
  });

  it('products.json?handle= and title= match exactly', async () => {
    const some = [...shop.records('products')].slice(3, 6);
    const handles = some.map((p) => p.handle as string);
    await expectList('products', `status=active,draft,archived&handle=${encodeURIComponent(handles.join(','))}`, (p) =>
      handles.includes(p.handle as string),
    );
    const title = some[0]?.title as string;
    await expectList(
      'products',
      `status=active,draft,archived&title=${encodeURIComponent(title)}`,
      (p) => p.title === title,
    );
  });

  it.each([
    ['vendor=Acme', (p: JsonObject) => p.vendor === 'Acme'],
    ['published_status=unpublished', (p: JsonObject) => p.published_at === null],
    ['created_at_max=2021-01-01', (p: JsonObject) => ms(p.created_at) <= at('2021-01-01T05:00:00Z')],
  ])('products/count.json?%s counts every status', async (query, oracle) => {
    await expectCount('products', query, oracle);
  });

  const customerCases: [string, Oracle][] = [
    ['created_at_min=2022-01-01', (c) => ms(c.created_at) >= at('2022-01-01T05:00:00Z')],
    ['updated_at_max=2021-06-01T00:00:00Z', (c) => ms(c.updated_at) <= at('2021-06-01T00:00:00Z')],
    [
      'created_at_min=2020-01-01&created_at_max=2020-12-31&updated_at_min=2020-03-01',
      (c) =>
        ms(c.created_at) >= at('2020-01-01T05:00:00Z') &&
        ms(c.created_at) <= at('2020-12-31T05:00:00Z') &&
        ms(c.updated_at) >= at('2020-03-01T05:00:00Z'),
    ],
  ];
  it.each(customerCases)('customers.json and customers/count.json ?%s', async (query, oracle) => {
    const n = await expectList('customers', query, oracle);
    expect(await expectCount('customers', query, oracle)).toBe(n);
    expect(n).toBeGreaterThan(0);
  });

  it('ids= returns exactly the listed records (and ignores unknown ids)', async () => {
    const some = [...shop.records('customers')].filter((_, k) => k % 17 === 0);
    const ids = some.map((c) => String(c.id));
    await expectList('customers', `ids=${[...ids, '1234'].join(',')}`, (c) => ids.includes(String(c.id)));
  });

  it.each([
    ['/orders.json?created_at_min=yesterday', 'created_at_min'],
    ['/orders.json?status=sometimes', 'status'],
    ['/orders.json?since_id=abc', 'since_id'],
    ['/orders/count.json?updated_at_max=soon', 'updated_at_max'],
    ['/customers.json?ids=1,x', 'ids'],
    ['/orders.json?fulfillment_status=teleported', 'fulfillment_status'],
  ])('%s answers 400 naming %s', async (path, param) => {
    const served = await client.get(path);
    expect(served.status).toBe(400);
    expect(served.json).toEqual({ errors: { [param]: 'Invalid value.' } });
  });

  it('ignores unknown parameters on a first request', async () => {
    await expectList('customers', 'colour=blue', () => true);
  });
});
