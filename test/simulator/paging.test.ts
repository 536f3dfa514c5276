import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/shopify/json.js';
import { API_PREFIX, type ResourceName } from '../../src/shopify/resources.js';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { clientFor, crawl, decodeToken, deletableOrders, links, listOf, type ShopClient } from './shop-client.js';

const ALL: Record<ResourceName, string> = {
  products: 'status=active,draft,archived',
  customers: '',
  orders: 'status=any',
};
const idText = (record: JsonObject) => String(record.id);

describe('simulated shop: paging', () => {
  let shop: RunningShop;
  let client: ShopClient;
  beforeAll(async () => {
    shop = await startShop({ seed: 11, products: 60, customers: 90, orders: 180, bigIdShare: 0.1 });
    client = clientFor(shop);
  });
  afterAll(() => shop.close());

  it.each(['products', 'customers', 'orders'] as const)(
    'a crawl of %s with complete filters returns every record exactly once',
    async (resource) => {
      const records = await crawl(client, `/${resource}.json?limit=7&${ALL[resource]}`, resource);
      const served = records.map(idText);
      expect(new Set(served).size).toBe(served.length);
      expect(served.sort()).toEqual([...shop.records(resource)].map(idText).sort());
      expect(served.length).toBe(shop.count(resource));
    },
  );

  it('formats Link as Shopify: absolute URLs on the request host, previous before next, joined by ", "', async () => {
    const port = new URL(shop.url).port;
    const first = await client.get(
      `http://localhost:${port}${API_PREFIX}/orders.json?status=any&limit=5&fields=id,name`,
    );
    const firstLinks = links(first.headers.get('link'));
    expect(Object.keys(firstLinks)).toEqual(['next']);
    expect(firstLinks.next).toMatch(
      new RegExp(
        `^http://localhost:${port}/admin/api/2022-01/orders\\.json\\?limit=5&fields=id%2Cname&page_info=[\\w-]+$`,
      ),
    );
    const second = await client.get(firstLinks.next as string);
    const header = second.headers.get('link') ?? '';
    expect(header).toMatch(/^<[^>]+>; rel="previous", <[^>]+>; rel="next"$/);
    expect(listOf(second, 'orders').every((order) => Object.keys(order).join() === 'id,name')).toBe(true);
  });

  it('sends no Link header when everything fits on one page, and no next link on the last page', async () => {
    const single = await client.get('/products.json?limit=250&status=active,draft,archived');
    expect(single.headers.get('link')).toBeNull();
    expect(listOf(single, 'products')).toHaveLength(60);
    let next: string | undefined = '/customers.json?limit=40';
    let last = single;
    while (next) {
      last = await client.get(next);
      next = links(last.headers.get('link')).next;
    }
    expect(Object.keys(links(last.headers.get('link')))).toEqual(['previous']);
  });

  it('walks back through previous links to the same pages', async () => {
    const pages: string[][] = [];
    let next: string | undefined = '/orders.json?status=any&limit=30';
    let previous: string | undefined;
    while (next) {
      const page = await client.get(next);
      pages.push(listOf(page, 'orders').map(idText));
      previous = links(page.headers.get('link')).previous;
      next = links(page.headers.get('link')).next;
    }
    const back: string[][] = [];
    while (previous) {
      const page = await client.get(previous);
      back.unshift(listOf(page, 'orders').map(idText));
      previous = links(page.headers.get('link')).previous;
    }
    expect(back).toEqual(pages.slice(0, -1));
  });

  it('makes page_info opaque base64url JSON carrying the filters, last_id, last_value and direction', async () => {
    const page = await client.get('/orders.json?status=any&financial_status=paid&limit=3');
    const token = decodeToken(links(page.headers.get('link')).next as string);
    const last = listOf(page, 'orders')[2] as JsonObject;
    expect(token).toMatchObject({ status: 'any', financial_status: 'paid', direction: 'next', last_id: last.id });
    expect(token.last_value).toBe(
      new Date(Date.parse(last.created_at as string)).toISOString().slice(0, 19).replace('T', ' '),
    );
    const customers = await client.get('/customers.json?limit=2');
    const customerToken = decodeToken(links(customers.headers.get('link')).next as string);
    expect(customerToken.last_value).toBe(
      Date.parse((listOf(customers, 'customers')[1] as JsonObject).updated_at as string),
    );
    const products = await client.get('/products.json?limit=2');
    const productToken = decodeToken(links(products.headers.get('link')).next as string);
    expect(productToken.last_value).toBe((listOf(products, 'products')[1] as JsonObject).title);
  });

  it.each([['status'], ['created_at_min'], ['since_id'], ['order'], ['anything']])(
    'rejects %s together with page_info (400, Shopify message)',
    async (param) => {
      const first = await client.get('/orders.json?status=any&limit=2');
      const next = links(first.headers.get('link')).next as string;
      const served = await client.get(`${next}&${param}=x`);
      expect(served.status).toBe(400);
      expect(served.json).toEqual({
        errors: {
          [param]: `${param} cannot be passed when page_info is present. See https://shopify.dev/api/usage/pagination-rest for more information.`,
        },
      });
    },
  );

  it.each([
    ['garbage', 'not!base64'],
    ['not JSON', Buffer.from('hello').toString('base64url')],
    ['no direction', Buffer.from('{"last_id":1,"last_value":"x"}').toString('base64url')],
    ['wrong value type', Buffer.from('{"last_id":1,"last_value":5,"direction":"next"}').toString('base64url')],
    [
      'unknown filter',
      Buffer.from('{"vendor":"x","last_id":1,"last_value":"2020-01-01 00:00:00","direction":"next"}').toString(
        'base64url',
      ),
    ],
  ])('answers 400 page_info "Invalid value." for %s', async (_name, token) => {
    const served = await client.get(`/orders.json?page_info=${token}`);
    expect(served.status).toBe(400);
    expect(served.text).toBe('{"errors":{"page_info":"Invalid value."}}');
  });

  it('pages from a page_info with limit and fields and keeps the embedded filters', async () => {
    const first = await client.get('/orders.json?status=closed&limit=4');
    const next = links(first.headers.get('link')).next as string;
    const url = new URL(next);
    url.searchParams.set('limit', '6');
    url.searchParams.set('fields', 'id,closed_at');
    const second = await client.get(url.toString());
    expect(second.status).toBe(200);
    const orders = listOf(second, 'orders');
    expect(orders).toHaveLength(6);
    expect(orders.every((order) => order.closed_at !== null && Object.keys(order).length === 2)).toBe(true);
  });

  it.each([
    ['251', 400],
    ['0', 400],
    ['-1', 400],
    ['ten', 400],
    ['250', 200],
  ])('limit=%s answers %i', async (limit, status) => {
    const served = await client.get(`/customers.json?limit=${limit}`);
    expect(served.status).toBe(status);
    if (status === 400) expect(served.json).toEqual({ errors: { limit: 'Invalid value.' } });
  });

  it('defaults to 50 records a page and rejects the old page parameter', async () => {
    expect(listOf(await client.get('/customers.json'), 'customers')).toHaveLength(50);
    const paged = await client.get('/customers.json?page=2');
    expect(paged.status).toBe(400);
    expect(paged.json).toEqual({ errors: { page: 'page cannot be passed.' } });
  });

  it('sorts products by title, customers by updated_at and orders by created_at, newest first', async () => {
    const products = await crawl(client, `/products.json?limit=250&${ALL.products}`, 'products');
    const titles = products.map((p) => p.title as string);
    expect(titles).toEqual([...titles].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    const customers = listOf(await client.get('/customers.json?limit=250'), 'customers');
    const updated = customers.map((c) => Date.parse(c.updated_at as string));
    expect(updated).toEqual([...updated].sort((a, b) => b - a));
    const orders = listOf(await client.get('/orders.json?limit=250&status=any'), 'orders');
    const created = orders.map((o) => Date.parse(o.created_at as string));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    const ids = orders.map((o) => BigInt(o.id as number));
    expect(ids).not.toEqual([...ids].sort((a, b) => (a < b ? -1 : 1)));
  });

  it('with since_id returns only greater ids, sorted by id ascending, big ids last', async () => {
    const all = [...shop.records('orders')].map((o) => BigInt(o.id as number)).sort((a, b) => (a < b ? -1 : 1));
    const since = all[20] as bigint;
    const served = await crawl(client, `/orders.json?status=any&limit=25&since_id=${since}`, 'orders');
    expect(served.map((o) => BigInt(o.id as number))).toEqual(all.slice(21));
    expect(served.some((o) => typeof o.id === 'bigint')).toBe(true);
  });

  it.each(['products', 'customers', 'orders'] as const)(
    'records(%s) equals what is served, parsed losslessly',
    async (resource) => {
      const served = await crawl(client, `/${resource}.json?limit=250&${ALL[resource]}`, resource);
      const byId = new Map([...shop.records(resource)].map((record) => [String(record.id), record]));
      for (const record of served) expect(record).toEqual(byId.get(String(record.id)));
    },
  );

  it('serves ids above 2^53 with their exact digits', async () => {
    const big = [...shop.records('orders')].find((o) => typeof o.id === 'bigint') as JsonObject;
    const digits = String(big.id);
    expect(BigInt(digits)).toBeGreaterThan(2n ** 53n);
    const served = await client.get(`/orders/${digits}.json`);
    expect(served.text.startsWith(`{"order":{"id":${digits},`)).toBe(true);
    expect(served.text).toContain(`"admin_graphql_api_id":"gid://shopify/Order/${digits}"`);
    const listed = await client.get(`/orders.json?status=any&ids=${digits}`);
    expect(listed.text.startsWith(`{"orders":[{"id":${digits},`)).toBe(true);
  });

  it('keeps only the requested top-level fields, tolerating spaces', async () => {
    const served = await client.get('/customers.json?limit=3&fields=id, email, tags');
    for (const customer of listOf(served, 'customers')) expect(Object.keys(customer)).toEqual(['id', 'email', 'tags']);
    const one = [...shop.records('products')][0] as JsonObject;
    const show = await client.get(`/products/${one.id}.json?fields=title,id,nope`);
    expect(show.json).toEqual({ product: { id: one.id, title: one.title } });
  });
});

describe('simulated shop: paging while records change (keyset cursors)', () => {
  it('moves a customer updated mid-crawl to the front, so a crawl by updated_at misses it and duplicates none', async () => {
    const shop = await startShop({ seed: 5, products: 1, customers: 60, orders: 1 });
    try {
      const client = clientFor(shop);
      const first = await client.get('/customers.json?limit=20');
      const seen = listOf(first, 'customers').map(idText);
      const unseen = [...shop.records('customers')].map(idText).filter((id) => !seen.includes(id));
      const moved = unseen[unseen.length - 1] as string;
      expect((await client.put(`/customers/${moved}.json`, { customer: { note: 'changed mid-crawl' } })).status).toBe(
        200,
      );
      let next = links(first.headers.get('link')).next;
      while (next) {
        const page = await client.get(next);
        seen.push(...listOf(page, 'customers').map(idText));
        next = links(page.headers.get('link')).next;
      }
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).not.toContain(moved);
      expect(seen).toHaveLength(59);
      const restart = listOf(await client.get('/customers.json?limit=1'), 'customers');
      expect(restart.map(idText)).toEqual([moved]);
    } finally {
      await shop.close();
    }
  });

  it('keeps order pages stable when orders are created or deleted mid-crawl (created_at cursors)', async () => {
    const shop = await startShop({ seed: 6, products: 3, customers: 3, orders: 40 });
    try {
      const client = clientFor(shop);
      const first = await client.get('/orders.json?status=any&limit=10');
      const seen = listOf(first, 'orders').map(idText);
      const created = await client.post('/orders.json', { order: { line_items: [{ title: 'Late', price: '1.00' }] } });
      expect(created.status).toBe(201);
      await client.delete(`/orders/${seen[0]}.json`);
      const second = await client.get(links(first.headers.get('link')).next as string);
      const next = listOf(second, 'orders').map(idText);
      expect(next.some((id) => seen.includes(id))).toBe(false);
      expect(next).toHaveLength(10);
    } finally {
      await shop.close();
    }
  });
});

describe('simulated shop: since_id pages inside a created_at window', () => {
  it.each(['products', 'customers', 'orders'] as const)(
    'list of %s exactly the records a scan of the whole shop finds, forward and back, big ids and writes included',
    async (resource) => {
      const shop = await startShop({ seed: 12, products: 150, customers: 150, orders: 300, bigIdShare: 0.1 });
      try {
        const client = clientFor(shop);
        if (resource === 'orders') {
          const [deleted, updated] = deletableOrders(shop).slice(120, 122);
          expect((await client.delete(`/orders/${deleted?.id}.json`)).status).toBe(200);
          const put = await client.put(`/orders/${updated?.id}.json`, { order: { id: updated?.id, tags: 'moved' } });
          expect(put.status).toBe(200);
        }
        const records = [...shop.records(resource)];
        const createdMs = (record: JsonObject) => Date.parse(String(record.created_at));
        const byCreated = records.map(createdMs).sort((a, b) => a - b);
        const [min, max] = [byCreated[40] as number, byCreated[110] as number];
        const inWindow = records
          .filter((record) => createdMs(record) >= min && createdMs(record) <= max)
          .map((record) => BigInt(record.id as number | bigint))
          .sort((a, b) => (a < b ? -1 : 1));
        expect(inWindow.some((id) => id > 2n ** 53n)).toBe(true);
        const since = inWindow[5] as bigint;
        const window = `created_at_min=${new Date(min).toISOString()}&created_at_max=${new Date(max).toISOString()}`;
        const first = `/${resource}.json?limit=7&${ALL[resource]}&since_id=${since}&${window}`;
        const pages: string[][] = [];
        let last = '';
        for (let next: string | undefined = first; next !== undefined; ) {
          const page = await client.get(next);
          pages.push(listOf(page, resource).map(idText));
          last = next;
          next = links(page.headers.get('link')).next;
        }
        expect(pages.flat()).toEqual(inWindow.filter((id) => id > since).map(String));
        const back: string[][] = [];
        for (let previous = links((await client.get(last)).headers.get('link')).previous; previous !== undefined; ) {
          const page = await client.get(previous);
          back.unshift(listOf(page, resource).map(idText));
          previous = links(page.headers.get('link')).previous;
        }
        expect(back.flat()).toEqual(pages.slice(0, -1).flat());
      } finally {
        await shop.close();
      }
    },
  );
});
