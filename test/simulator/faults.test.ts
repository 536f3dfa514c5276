import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type JsonObject, parseJson } from '../../src/shopify/json.js';
import { API_PREFIX } from '../../src/shopify/resources.js';
import { type FaultOptions, type LatencyOptions, type RunningShop, startShop } from '../../src/simulator/index.js';
import { clientFor, links, listOf } from './shop-client.js';

let shops: RunningShop[] = [];
afterEach(async () => {
  await Promise.all(shops.map((shop) => shop.close()));
  shops = [];
});

async function shopWith(faults: FaultOptions, seed = 41): Promise<RunningShop> {
  const shop = await startShop({ seed, products: 10, customers: 30, orders: 200, faults });
  shops.push(shop);
  return shop;
}

interface RawOutcome {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  error?: string;
}

/**
 * Raw outcome of one GET (never following a redirect): status, headers and full body, or the transport error when
 * the body never completed.
 */
function rawGet(shop: RunningShop, path: string): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const url = path.startsWith('http') ? path : `${shop.url}${API_PREFIX}${path}`;
    const req = httpRequest(url, { headers: { 'X-Shopify-Access-Token': shop.token } });
    req.on('response', (response) => {
      const chunks: Buffer[] = [];
      const outcome = (error?: string) => ({
        status: response.statusCode ?? 0,
        headers: response.headers,
        body: Buffer.concat(chunks).toString(),
        ...(error !== undefined && { error }),
      });
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve(outcome()));
      response.on('error', (error) => resolve(outcome(error.message)));
    });
    req.on('error', (error) => resolve({ status: 0, headers: {}, body: '', error: error.message }));
    req.end();
  });
}

/** The next link of a list reply, read strictly (quoted rel), or undefined. */
function nextLink(outcome: RawOutcome): string | undefined {
  return links((outcome.headers.link as string | undefined) ?? null).next;
}

const statuses = async (shop: RunningShop, n: number) => {
  const client = clientFor(shop);
  const out: number[] = [];
  for (let k = 0; k < n; k++) out.push((await client.get('/orders/count.json')).status);
  return out;
};

describe('simulated shop: fault knobs', () => {
  it('serves 500, 502, 503 and 504 with Shopify-like bodies when serverErrorRate is 1', async () => {
    const shop = await shopWith({ serverErrorRate: 1 });
    const client = clientFor(shop);
    const served = await Promise.all([0, 1, 2, 3].map(() => client.get('/orders.json')));
    const byStatus = Object.fromEntries(served.map((s) => [s.status, s]));
    expect(Object.keys(byStatus).sort()).toEqual(['500', '502', '503', '504']);
    expect(byStatus[500]?.text).toBe('{"errors":"Internal Server Error"}');
    expect(byStatus[503]?.text).toBe('{"errors":"Unavailable Shop"}');
    expect(byStatus[502]?.headers.get('content-type')).toContain('text/html');
    expect(byStatus[504]?.text).toContain('504 Gateway Time-out');
    // Faults strike lists and counts only.
    const order = [...shop.records('orders')][0] as JsonObject;
    expect((await client.get(`/orders/${order.id}.json`)).status).toBe(200);
    expect(shop.stats().faults).toEqual({ serverErrorRate: 4 });
  });

  it('repeats a drawn 5xx for serverErrorBurst requests, reproducibly for a seed', async () => {
    const run = await statuses(await shopWith({ serverErrorRate: 0.15, serverErrorBurst: 3, seed: 9 }), 80);
    const again = await statuses(await shopWith({ serverErrorRate: 0.15, serverErrorBurst: 3, seed: 9 }), 80);
    const other = await statuses(await shopWith({ serverErrorRate: 0.15, serverErrorBurst: 3, seed: 10 }), 80);
    expect(again).toEqual(run);
    expect(other).not.toEqual(run);
    const runs = run
      .map((status) => (status >= 500 ? 'x' : '.'))
      .join('')
      .split('.')
      .filter((part) => part !== '');
    expect(runs.length).toBeGreaterThan(0);
    for (const burst of runs) expect(burst.length).toBeGreaterThanOrEqual(3);
  });

  it('destroys the socket mid-body when resetRate is 1', async () => {
    const shop = await shopWith({ resetRate: 1 });
    const outcome = await rawGet(shop, '/orders.json?status=any&limit=50');
    expect(outcome.error).toBeDefined();
    await expect(clientFor(shop).get('/customers.json')).rejects.toThrow();
    expect(shop.stats().faults).toEqual({ resetRate: 2 });
  });

  it('cuts 200 bodies both ways (honest Content-Length, or chunked then closed) when truncateRate is 1', async () => {
    const shop = await shopWith({ truncateRate: 1 });
    const outcomes = await Promise.all(
      Array.from({ length: 16 }, () => rawGet(shop, '/orders.json?status=any&limit=20')),
    );
    const honest = outcomes.filter((o) => o.error === undefined);
    const closed = outcomes.filter((o) => o.error !== undefined);
    expect(honest.length).toBeGreaterThan(0);
    expect(closed.length).toBeGreaterThan(0);
    for (const outcome of honest) {
      expect(outcome.status).toBe(200);
      expect(outcome.body.startsWith('{"orders":[')).toBe(true);
      expect(() => parseJson(outcome.body)).toThrow();
    }
    expect(shop.stats().faults).toEqual({ truncateRate: 16 });
  });

  it('stalls bodies for slowMs when slowRate is 1, and still delivers them whole', async () => {
    const shop = await shopWith({ slowRate: 1, slowMs: 200 });
    const started = performance.now();
    const outcome = await rawGet(shop, '/customers.json?limit=10');
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
    expect(listOf({ json: parseJson(outcome.body) } as never, 'customers')).toHaveLength(10);
    expect(shop.stats().faults).toEqual({ slowRate: 1 });
  });

  it('answers the requests lateAnswers names that much later, and only those', async () => {
    const shop = await shopWith({ lateAnswers: { requests: ['GET /orders/count.json#2'], ms: 300 } });
    const took: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      expect((await rawGet(shop, '/orders/count.json')).status).toBe(200);
      took.push(performance.now() - started);
    }
    expect(took[1]).toBeGreaterThanOrEqual(290);
    expect(Math.max(took[0] as number, took[2] as number)).toBeLessThan(250);
    expect(shop.stats().faults).toEqual({ lateAnswers: 1 });
  });

  it('answers 429 with Retry-After 2.0 although the bucket has room when throttleStormRate is 1', async () => {
    const shop = await shopWith({ throttleStormRate: 1 });
    const served = await clientFor(shop).get('/products.json');
    expect(served.status).toBe(429);
    expect(served.headers.get('retry-after')).toBe('2.0');
    expect(served.headers.get('x-shopify-shop-api-call-limit')).toBe('1/40');
    expect((served.json as JsonObject).errors).toMatch(/^Exceeded \d+ calls per second for api client/);
    expect(shop.stats().throttled).toBe(1);
    expect(shop.stats().faults).toEqual({ throttleStormRate: 1 });
  });

  it('ignores every list and count filter except limit and page_info when ignoreFilters is set', async () => {
    const shop = await shopWith({ ignoreFilters: true });
    const client = clientFor(shop);
    const all = shop.count('orders');
    expect((await client.get('/orders/count.json?status=closed&created_at_min=2024-01-01')).json).toEqual({
      count: all,
    });
    const page = await client.get(
      '/orders.json?limit=3&status=cancelled&since_id=99999999999999&created_at_max=2019-01-01',
    );
    expect(listOf(page, 'orders')).toHaveLength(3);
    const created = listOf(page, 'orders').map((o) => Date.parse(o.created_at as string));
    expect(created).toEqual([...created].sort((a, b) => b - a));
  });

  it('ignores only created_at_min/max when ignoreFilters is created_at', async () => {
    const shop = await shopWith({ ignoreFilters: 'created_at' });
    const client = clientFor(shop);
    const all = shop.count('orders');
    expect((await client.get('/orders/count.json?status=any&created_at_min=2100-01-01')).json).toEqual({ count: all });
    const page = await client.get('/orders.json?status=any&limit=3&since_id=1&created_at_max=2000-01-01');
    const ids = listOf(page, 'orders').map((o) => BigInt(o.id as number | bigint));
    expect(ids).toHaveLength(3);
    expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : 1)));
    expect((await client.get('/orders/count.json?status=closed&created_at_min=2100-01-01')).json).not.toEqual({
      count: all,
    });
  });

  it('creates, updates and deletes one record every N list requests (churn)', async () => {
    const shop = await shopWith({ churn: { everyRequests: 2 } });
    const client = clientFor(shop);
    const before = new Map([...shop.records('customers')].map((c) => [String(c.id), c]));
    await client.get('/customers.json?limit=1');
    expect(shop.count('customers')).toBe(before.size);
    await client.get('/customers.json?limit=1');
    const after = new Map([...shop.records('customers')].map((c) => [String(c.id), c]));
    expect(after.size).toBe(before.size);
    const added = [...after.keys()].filter((id) => !before.has(id));
    const removed = [...before.keys()].filter((id) => !after.has(id));
    const changed = [...after.values()].filter(
      (c) => before.has(String(c.id)) && c.updated_at !== before.get(String(c.id))?.updated_at,
    );
    expect(added).toHaveLength(1);
    expect(removed).toHaveLength(1);
    expect(changed).toHaveLength(1);
    expect(changed[0]?.tags).toContain('churned');
  });

  it('changes faults while running with setFaults', async () => {
    const shop = await shopWith({});
    const client = clientFor(shop);
    expect((await client.get('/orders/count.json')).status).toBe(200);
    shop.setFaults({ serverErrorRate: 1 });
    expect((await client.get('/orders/count.json')).status).toBeGreaterThanOrEqual(500);
    shop.setFaults({});
    expect((await client.get('/orders/count.json')).status).toBe(200);
  });

  it('answers a 429 storm with the bucket shown full for list/count requests after+1 to after+requests', async () => {
    const shop = await shopWith({ throttleStorm: { after: 2, requests: 3 } });
    const served = [];
    for (let k = 0; k < 7; k++) served.push(await rawGet(shop, k % 2 ? '/orders/count.json' : '/orders.json?limit=5'));
    expect(served.map((s) => s.status)).toEqual([200, 200, 429, 429, 429, 200, 200]);
    for (const throttled of served.filter((s) => s.status === 429)) {
      expect(throttled.headers['retry-after']).toBe('2.0');
      expect(throttled.headers['x-shopify-shop-api-call-limit']).toBe('40/40');
      expect(throttled.body).toMatch(/Exceeded \d+ calls per second/);
    }
    expect(shop.stats().throttled).toBe(3);
    expect(shop.stats().faults).toEqual({ throttleStorm: 3 });
  });

  it.each([
    [402, 'Unavailable Shop'],
    [423, 'Locked'],
  ] as const)('answers %i (%s) to every list/count request after the first `after`', async (status, errors) => {
    const shop = await shopWith({ failFromRequest: { after: 2, status } });
    const served = [];
    for (let k = 0; k < 5; k++) served.push(await rawGet(shop, k % 2 ? '/customers/count.json' : '/customers.json'));
    expect(served.map((s) => s.status)).toEqual([200, 200, status, status, status]);
    expect(JSON.parse(served[4]?.body ?? '')).toEqual({ errors });
    expect(shop.stats().faults).toEqual({ failFromRequest: 3 });
  });

  it.each([301, 302, 307, 308] as const)(
    'redirects with %i to location + the path and query from request after+1 on',
    async (status) => {
      const shop = await shopWith({ failFromRequest: { after: 1, status, location: 'http://127.0.0.1:9' } });
      expect((await rawGet(shop, '/orders/count.json')).status).toBe(200);
      const redirected = await rawGet(shop, '/orders.json?status=any&limit=7');
      expect(redirected.status).toBe(status);
      expect(redirected.headers.location).toBe(`http://127.0.0.1:9${API_PREFIX}/orders.json?status=any&limit=7`);
    },
  );

  it('sends Link headers with rel unquoted from list request malformedLinkAfter+1 on', async () => {
    const shop = await shopWith({ malformedLinkAfter: 1 });
    const first = await rawGet(shop, '/orders.json?status=any&limit=5');
    expect(first.headers.link).toMatch(/; rel="next"$/);
    // Counts are not list requests: they move nothing.
    await rawGet(shop, '/orders/count.json');
    const second = await rawGet(shop, '/orders.json?status=any&limit=5');
    expect(second.headers.link).toMatch(/^<[^>]+page_info=[\w-]+>; rel=next$/);
    expect(nextLink(second)).toBeUndefined();
    expect(shop.stats().faults).toEqual({ malformedLinkAfter: 1 });
  });

  it('hands back the request own page_info as the next link from cursor request cursorLoopAfter+1 on', async () => {
    const shop = await shopWith({ cursorLoopAfter: 1 });
    const first = nextLink(await rawGet(shop, '/orders.json?status=any&limit=5')) as string;
    const second = nextLink(await rawGet(shop, first)) as string;
    expect(second).not.toBe(first);
    const third = nextLink(await rawGet(shop, second));
    expect(third).toBe(second);
    expect(nextLink(await rawGet(shop, second))).toBe(second);
    expect(shop.stats().faults).toEqual({ cursorLoopAfter: 2 });
  });

  it('answers 400 page_info Invalid value at pageInfoErrorRate, only to requests carrying a page_info', async () => {
    const outcomes = async (seed: number) => {
      const shop = await shopWith({ pageInfoErrorRate: 0.5 }, seed);
      const first = await rawGet(shop, '/orders.json?status=any&limit=5');
      expect(first.status).toBe(200);
      const next = nextLink(first) as string;
      const served = [];
      for (let k = 0; k < 30; k++) served.push(await rawGet(shop, next));
      return served;
    };
    const run = await outcomes(5);
    expect(new Set(run.map((s) => s.status))).toEqual(new Set([200, 400]));
    expect(JSON.parse(run.find((s) => s.status === 400)?.body ?? '')).toEqual({
      errors: { page_info: 'Invalid value.' },
    });
    expect((await outcomes(5)).map((s) => s.status)).toEqual(run.map((s) => s.status));
    const shop = await shopWith({ pageInfoErrorRate: 1 });
    for (let k = 0; k < 5; k++) expect((await rawGet(shop, '/orders.json?status=any&limit=5')).status).toBe(200);
    expect(shop.stats().faults).toEqual({});
  });

  it('writes linkOrigin into the Link URLs instead of the origin the client called', async () => {
    const shop = await shopWith({ linkOrigin: 'https://elsewhere.example:8443' });
    const next = nextLink(await rawGet(shop, '/orders.json?status=any&limit=5')) as string;
    expect(next.startsWith(`https://elsewhere.example:8443${API_PREFIX}/orders.json?limit=5&page_info=`)).toBe(true);
    expect(shop.stats().faults).toEqual({ linkOrigin: 1 });
  });
});

describe('simulated shop: pages too large to answer (oversizedPages)', () => {
  /** Orders by generated index (ids grow with it); the default list is newest first, i.e. highest index first. */
  const heavyShop = async (rate?: number, latency?: LatencyOptions) => {
    const shop = await startShop({ seed: 41, orders: 200, ...(latency && { latency }) });
    shops.push(shop);
    const ids = [...shop.records('orders')]
      .map((order) => BigInt(order.id as number | bigint))
      .sort((a, b) => (a < b ? -1 : 1));
    shop.setFaults({
      oversizedPages: {
        resource: 'orders',
        aboveLimit: 50,
        minId: ids[100] as bigint,
        maxId: ids[109] as bigint,
        rate,
      },
    });
    return { shop, ids };
  };
  const withLimit = (url: string, limit: number) => url.replace(/limit=\d+/, `limit=${limit}`);

  it('answers 500, 502, … to a page above the limit reaching the heavy ids; the same page at a smaller limit is served', async () => {
    const { shop } = await heavyShop(undefined, { perRecordMs: { orders: 3 } });
    const client = clientFor(shop);
    const statuses: number[] = [];
    const seen: bigint[] = [];
    let failedMs = 0;
    let next: string | undefined = '/orders.json?status=any&limit=100&fields=id';
    while (next) {
      const started = performance.now();
      let page = await client.get(next);
      statuses.push(page.status);
      if (page.status !== 200) {
        failedMs ||= performance.now() - started;
        page = await client.get(withLimit(next, 50));
        statuses.push(page.status);
      }
      seen.push(...listOf(page, 'orders').map((order) => BigInt(order.id as number | bigint)));
      const link = links(page.headers.get('link')).next;
      next = link && withLimit(link, 100);
    }
    // 199..100 holds the heavy ids, so does 149..50; 199..150, 149..100 (at 50) and 99..0 are served.
    expect(statuses).toEqual([500, 200, 502, 200, 200]);
    expect(seen).toHaveLength(200);
    expect(new Set(seen).size).toBe(200);
    // It takes the time of the 100-record page it gave up on.
    expect(failedMs).toBeGreaterThanOrEqual(100 * 3);
    expect(shop.stats().faults).toEqual({ oversizedPages: 2 });
  });

  it('leaves counts, other resources and pages without the heavy ids alone', async () => {
    const { shop, ids } = await heavyShop();
    const client = clientFor(shop);
    expect((await client.get('/orders/count.json?status=any')).status).toBe(200);
    expect((await client.get('/customers.json?limit=250')).status).toBe(200);
    expect((await client.get(`/orders.json?status=any&limit=250&since_id=${ids[109]}`)).status).toBe(200);
    expect((await client.get(`/orders.json?status=any&limit=250&since_id=${ids[108]}`)).status).toBe(500);
    expect((await client.get(`/orders.json?status=any&limit=50&since_id=${ids[99]}`)).status).toBe(200);
    expect(shop.stats().faults).toEqual({ oversizedPages: 1 });
  });

  it('strikes with its probability, the same way for the same seed', async () => {
    const run = async () => {
      const { shop } = await heavyShop(0.5);
      const client = clientFor(shop);
      const out: number[] = [];
      for (let k = 0; k < 24; k++) out.push((await client.get('/orders.json?status=any&limit=250&fields=id')).status);
      return out;
    };
    const first = await run();
    expect(first.filter((status) => status === 200).length).toBeGreaterThan(3);
    expect(first.filter((status) => status !== 200).length).toBeGreaterThan(3);
    expect(await run()).toEqual(first);
  });
});
