import { get as httpsGet } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/shopify/json.js';
import { API_PREFIX } from '../../src/shopify/resources.js';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { LOOPBACK_TLS } from '../helpers/tls-fixture.js';
import { clientFor, type Served, type ShopClient } from './shop-client.js';

describe('simulated shop: HTTP, auth, errors and rate limit', () => {
  let shop: RunningShop;
  let client: ShopClient;
  beforeAll(async () => {
    shop = await startShop({ seed: 7, products: 5, customers: 5, orders: 5, rate: 'standard' });
    client = clientFor(shop);
  });
  afterAll(() => shop.close());

  it('binds 127.0.0.1 and serves JSON with the version, request id and call-limit headers', async () => {
    expect(shop.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(shop.token).toMatch(/^shpat_[0-9a-f]{32}$/);
    const served = await client.get('/products/count.json');
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(served.headers.get('x-shopify-api-version')).toBe('2022-01');
    expect(served.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(served.headers.get('x-shopify-shop-api-call-limit')).toMatch(/^\d+\/40$/);
  });

  it.each([
    ['no token', undefined],
    ['a wrong token', 'shpat_wrong'],
  ])('answers 401 with Shopify body and WWW-Authenticate for %s', async (_name, token) => {
    const response = await fetch(`${shop.url}${API_PREFIX}/orders.json`, {
      headers: token ? { 'X-Shopify-Access-Token': token } : {},
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Basic Realm="Shopify API Authentication"');
    expect(response.headers.get('x-shopify-shop-api-call-limit')).toBe('0/40');
    expect(await response.text()).toBe(
      '{"errors":"[API] Invalid API key or access token (unrecognized login or wrong password)"}',
    );
  });

  it.each([['/nothing.json'], ['/products/999.json'], ['/orders/123/refund-everything.json'], ['/customers/abc.json']])(
    'answers 404 {"errors":"Not Found"} for %s',
    async (path) => {
      const served = await client.get(path);
      expect(served.status).toBe(404);
      expect(served.text).toBe('{"errors":"Not Found"}');
    },
  );

  it('answers 404 outside the API prefix and for an unsupported method', async () => {
    expect((await client.get(`${shop.url}/admin/api/2019-04/products.json`)).status).toBe(404);
    expect((await client.put('/products.json', {})).status).toBe(404);
  });

  it('answers 406 for another format or an Accept without JSON', async () => {
    const xml = await client.get('/products.xml');
    expect(xml.status).toBe(406);
    expect(xml.json).toEqual({ errors: 'Not Acceptable' });
    const html = await client.get('/products.json', { Accept: 'text/html' });
    expect(html.status).toBe(406);
  });

  it('answers 400 for a body that is not JSON and for a missing envelope', async () => {
    const bad = await client.post('/products.json', '{"product":');
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ errors: 'Bad Request' });
    const missing = await client.post('/products.json', { title: 'no envelope' });
    expect(missing.status).toBe(400);
    expect(missing.json).toEqual({ errors: { product: 'Required parameter missing or invalid' } });
  });
});

describe('simulated shop: leaky bucket', () => {
  it('fills a 40-call bucket, then answers 429 with Retry-After 2.0 and Shopify body, per token', async () => {
    const shop = await startShop({ products: 1, customers: 1, orders: 1, rate: { bucket: 40, leakPerSecond: 0.001 } });
    try {
      const client = clientFor(shop);
      const limits: string[] = [];
      for (let k = 0; k < 40; k++) {
        const served = await client.get('/products/count.json');
        expect(served.status).toBe(200);
        limits.push(served.headers.get('x-shopify-shop-api-call-limit') ?? '');
      }
      expect(limits[0]).toBe('1/40');
      expect(limits[39]).toBe('40/40');
      const refused = await client.get('/products/count.json');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('2.0');
      expect(refused.headers.get('x-shopify-shop-api-call-limit')).toBe('40/40');
      expect(refused.text).toBe(
        '{"errors":"Exceeded 0.001 calls per second for api client. Reduce request rates to resume uninterrupted service."}',
      );
      expect(shop.stats().throttled).toBe(1);
      expect(shop.stats().requests).toBe(41);
      // A 401 does not drain the bucket of the real token, and bad tokens get their own answer.
      expect((await clientFor(shop, 'shpat_other').get('/products/count.json')).status).toBe(401);
    } finally {
      await shop.close();
    }
  });

  it('uses the standard preset body "Exceeded 2 calls per second" and leaks back', async () => {
    const shop = await startShop({ products: 1, customers: 1, orders: 1, rate: 'standard' });
    try {
      const client = clientFor(shop);
      const all = await Promise.all(Array.from({ length: 45 }, () => client.get('/customers/count.json')));
      const refused = all.filter((served) => served.status === 429);
      expect(refused.length).toBeGreaterThanOrEqual(1);
      expect(((refused[0] as Served).json as JsonObject).errors).toBe(
        'Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service.',
      );
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect((await client.get('/customers/count.json')).status).toBe(200);
    } finally {
      await shop.close();
    }
  });

  it('never throttles the unlimited preset', async () => {
    const shop = await startShop({ products: 1, customers: 1, orders: 1 });
    try {
      const client = clientFor(shop);
      const all = await Promise.all(Array.from({ length: 120 }, () => client.get('/orders/count.json')));
      expect(all.every((served) => served.status === 200)).toBe(true);
      expect(shop.stats().byPath['GET /orders/count.json']).toBe(120);
    } finally {
      await shop.close();
    }
  });
});

describe('simulated shop over https (the tls option)', () => {
  it('serves https on 127.0.0.1, with https Link URLs', async () => {
    const shop = await startShop({ seed: 7, products: 5, customers: 5, orders: 5, tls: LOOPBACK_TLS });
    try {
      expect(shop.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const served = await new Promise<{ status: number; link: string }>((resolve, reject) => {
        const request = httpsGet(
          `${shop.url}${API_PREFIX}/orders.json?status=any&limit=2`,
          { ca: LOOPBACK_TLS.cert, headers: { 'X-Shopify-Access-Token': shop.token } },
          (response) => {
            response.resume();
            response.on('end', () =>
              resolve({ status: response.statusCode ?? 0, link: String(response.headers.link) }),
            );
          },
        );
        request.on('error', reject);
      });
      expect(served.status).toBe(200);
      expect(served.link.startsWith(`<${shop.url}${API_PREFIX}/orders.json?limit=2&page_info=`)).toBe(true);
    } finally {
      await shop.close();
    }
  });
});
