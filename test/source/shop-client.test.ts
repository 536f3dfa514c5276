import type http from 'node:http';
import nock from 'nock';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CrawlAbortedError,
  RetriesExhaustedError,
  ShopAuthError,
  ShopBodyError,
  ShopHttpError,
  ShopRedirectError,
  ShopThrottledError,
  ShopUnavailableError,
  ShopWriteUnsureError,
} from '../../src/source/errors.js';
import { readCount, scanListPage } from '../../src/source/list-page.js';
import { ShopClient } from '../../src/source/shop-client.js';
import { type Handler, json, tinyServer } from './tiny-server.js';

const FAST = { baseDelayMs: 1, maxDelayMs: 5, maxAttempts: 4, maxThrottledAttempts: 4 };
const COUNT = { shape: { kind: 'count' as const, resource: 'orders' as const } };
const ORDERS_PAGE = { shape: { kind: 'list' as const, resource: 'orders' as const } };
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function clientFor(handler: Handler, options: { requestTimeoutMs?: number } = {}) {
  const server = await tinyServer(handler);
  const client = new ShopClient({ shopUrl: server.url, token: 'shpat_secret', depth: 4, retry: FAST, ...options });
  closers.push(async () => {
    client.close();
    await server.close();
  });
  return { server, client, url: client.apiUrl('orders/count.json', { status: 'any' }) };
}

describe('ShopClient', () => {
  it('sends the token and the API prefix, and keeps ids above 2^53 exact', async () => {
    let token: string | undefined;
    const { client, url } = await clientFor((request, response) => {
      token = request.headers['x-shopify-access-token'] as string;
      json(response, 200, '{"orders":[{"id":9007199254740993}]}');
    });
    const response = await client.get(url, (body, shown) => scanListPage(body, 'orders', shown), ORDERS_PAGE);
    expect(token).toBe('shpat_secret');
    expect(url.pathname).toBe('/admin/api/2022-01/orders/count.json');
    expect(response.value[0]?.id).toBe('9007199254740993');
    expect(response.value[0]?.record.id).toBe(9007199254740993n);
  });

  it('abandons a request when its own signal aborts (a hedged copy that lost): no retry, the client goes on', async () => {
    const { client, server, url } = await clientFor((request, response) => {
      // The first request hangs; later ones answer at once.
      if (server.requests.length > 1) json(response, 200, '{"count":7}');
      else request.on('close', () => response.destroy());
    });
    const abandon = new AbortController();
    const hanging = client.get(url, readCount, { ...COUNT, signal: abandon.signal }).catch((caught: unknown) => caught);
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    abandon.abort();
    expect(await hanging).toBeInstanceOf(CrawlAbortedError);
    expect((await client.get(url, readCount, COUNT)).value).toBe(7);
    expect(server.requests).toHaveLength(2);
  });

  it('says a request is sent once the pacer lets it go, and again for each attempt', async () => {
    // A hedged page's age counts from here: a page the bucket holds back is not late (hedged-requests.ts).
    const { client, server, url } = await clientFor((_request, response) => {
      if (server.requests.length === 1) json(response, 503, '{"errors":"busy"}');
      else json(response, 200, '{"count":7}');
    });
    const askedMs = performance.now();
    const sentMs: number[] = [];
    client.pacer.pause(300);
    await client.get(url, readCount, { ...COUNT, onSent: () => sentMs.push(performance.now() - askedMs) });
    expect(sentMs).toHaveLength(2);
    expect(sentMs[0]).toBeGreaterThanOrEqual(290);
  });

  it('fails fast on 401 with a clear message, without retrying and without the token', async () => {
    const { client, server, url } = await clientFor((_request, response) =>
      json(response, 401, '{"errors":"[API] Invalid API key or access token (unrecognized login or wrong password)"}'),
    );
    const error = await client.get(url, readCount, COUNT).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ShopAuthError);
    expect((error as Error).message).toMatch(/rejected the access token \(401/);
    expect((error as Error).message).not.toContain('shpat_secret');
    expect(server.requests).toHaveLength(1);
  });

  it.each([400, 402, 403, 404, 423])('does not retry %i', async (status) => {
    const { client, server, url } = await clientFor((_request, response) => json(response, status, '{"errors":"no"}'));
    const error = await client.get(url, readCount, COUNT).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ShopHttpError);
    expect((error as ShopHttpError).status).toBe(status);
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    [402, /^the shop is frozen \(402 Payment Required\): http:.* answered \{"errors":"no"\}$/],
    [423, /^the shop is locked \(423 Locked\): http:/],
  ])('names a %i shop as unavailable', async (status, message) => {
    const { client, url } = await clientFor((_request, response) => json(response, status, '{"errors":"no"}'));
    const error = await client.get(url, readCount, COUNT).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ShopUnavailableError);
    expect(error).toMatchObject({ code: 'ERR_SHOP_UNAVAILABLE', status, message: expect.stringMatching(message) });
  });

  it.each([301, 302, 303, 307, 308])('refuses a %i redirect without following it', async (status) => {
    const { client, server, url } = await clientFor((_request, response) => {
      response.writeHead(status, { location: 'http://127.0.0.1:1/elsewhere' });
      response.end();
    });
    const error = await client.get(url, readCount, COUNT).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ShopRedirectError);
    expect(error).toMatchObject({ code: 'ERR_SHOP_REDIRECT', status });
    expect((error as Error).message).toMatch(
      new RegExp(`redirect \\(${status}\\) from http://.* to http://127\\.0\\.0\\.1:1/elsewhere`),
    );
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    ['500 then success', (response: Parameters<Handler>[1]) => json(response, 500, '<html>oops</html>')],
    ['503 with HTML', (response: Parameters<Handler>[1]) => json(response, 503, '<html>busy</html>')],
    ['408', (response: Parameters<Handler>[1]) => json(response, 408, '')],
    ['a reset connection', (response: Parameters<Handler>[1]) => response.socket?.destroy()],
    [
      'a body shorter than its Content-Length',
      (response: Parameters<Handler>[1]) => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        response.write('{"count":');
        response.socket?.destroy();
      },
    ],
    [
      'a truncated body without length',
      (response: Parameters<Handler>[1]) => {
        response.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
        response.end('{"count":12');
      },
    ],
  ])('retries %s', async (_name, fault) => {
    const { client, server, url } = await clientFor((_request, response, hit) =>
      hit === 1 ? fault(response) : json(response, 200, '{"count":12}'),
    );
    const response = await client.get(url, readCount, COUNT);
    expect(response.value).toBe(12);
    expect(response.retries).toBe(1);
    expect(server.requests).toHaveLength(2);
  });

  it.each([
    ['a list page', ORDERS_PAGE, [250, 250, 125, 62]],
    ['a count, which has no size to shrink', COUNT, [250, 250, 250, 250]],
  ])(
    'asks again for %s that keeps failing with 5xx at half its limit after the second failure',
    async (_name, shape, limits) => {
      // A shop that cannot answer pages of more than 100 records in time (500), but answers smaller ones.
      const { client, server } = await clientFor((request, response) => {
        const limit = Number(new URL(request.url ?? '', 'http://x').searchParams.get('limit'));
        if (limit > 100) json(response, 500, '{"errors":"Internal Server Error"}');
        else json(response, 200, `{"orders":[],"count":${limit}}`);
      });
      const result = await client
        .get(
          client.apiUrl('orders.json', { limit: '250' }),
          (body, shown) => (shape === COUNT ? readCount(body, shown) : []),
          shape,
        )
        .catch((error: unknown) => error);
      expect(server.requests.map((path) => Number(new URL(path, 'http://x').searchParams.get('limit')))).toEqual(
        limits,
      );
      if (shape === COUNT) expect(result).toBeInstanceOf(RetriesExhaustedError);
      else expect((result as { url: URL }).url.searchParams.get('limit')).toBe('62');
    },
  );

  it('honours Retry-After in seconds on 429', async () => {
    const stamps: number[] = [];
    const { client, url } = await clientFor((_request, response, hit) => {
      stamps.push(performance.now());
      if (hit === 1)
        json(response, 429, '{"errors":"Exceeded"}', {
          'retry-after': '0.3',
          'x-shopify-shop-api-call-limit': '40/40',
        });
      else json(response, 200, '{"count":1}');
    });
    await client.get(url, readCount, COUNT);
    expect((stamps[1] as number) - (stamps[0] as number)).toBeGreaterThanOrEqual(290);
  });

  it('gives up after the attempt budget and names the last failure', async () => {
    const { client, server, url } = await clientFor((_request, response) =>
      json(response, 429, '{"errors":"Exceeded"}', {
        'retry-after': '0.001',
        'x-shopify-shop-api-call-limit': '40/40',
      }),
    );
    const error = await client.get(url, readCount, COUNT).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect((error as Error).cause).toBeInstanceOf(ShopThrottledError);
    expect(server.requests).toHaveLength(FAST.maxThrottledAttempts);
  });

  it('enforces a total deadline on a trickling body', async () => {
    // nock's request interceptor re-raises got's TimeoutError as a second, unhandled rejection; this test talks to
    // its own loopback server only, so the interceptor is switched off for it.
    nock.restore();
    try {
      const { client, server, url } = await clientFor(
        (_request, response, hit) => {
          if (hit > 1) return json(response, 200, '{"count":3}');
          response.writeHead(200, { 'content-type': 'application/json' });
          const timer = setInterval(() => response.write(' '), 20);
          response.on('close', () => clearInterval(timer));
        },
        { requestTimeoutMs: 300 },
      );
      const response = await client.get(url, readCount, COUNT);
      expect(response.value).toBe(3);
      expect(server.requests).toHaveLength(2);
    } finally {
      nock.activate();
    }
  });
});

describe('ShopClient writes', () => {
  const CREATE = { method: 'POST', body: { order: { id: 9007199254740993n } }, repeatable: false } as const;
  const WRITE = { shape: { kind: 'write' as const, resource: 'orders' as const } };
  const readBody = (body: Buffer) => body.toString('utf8');

  async function writeServer(handler: Handler) {
    const bodies: string[] = [];
    const { client, server } = await clientFor((request, response, hit) => {
      let text = '';
      request.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      request.on('end', () => {
        bodies.push(`${request.method} ${text}`);
        handler(request, response, hit);
      });
    });
    return { client, server, bodies, url: client.apiUrl('orders.json') };
  }

  it('sends the body as JSON, big ids exact, and retries a 429 (the shop refused it unread)', async () => {
    const { client, bodies, url } = await writeServer((_request, response, hit) =>
      hit === 1
        ? json(
            response,
            429,
            '{"errors":"Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service."}',
            { 'retry-after': '0.01', 'x-shopify-shop-api-call-limit': '40/40' },
          )
        : json(response, 201, '{"order":{"id":1}}'),
    );
    const response = await client.send(url, CREATE, readBody, WRITE);
    expect(response.value).toBe('{"order":{"id":1}}');
    expect(bodies).toEqual(['POST {"order":{"id":9007199254740993}}', 'POST {"order":{"id":9007199254740993}}']);
  });

  it.each([
    ['a 503', (response: http.ServerResponse) => json(response, 503, '{"errors":"unavailable"}')],
    ['a reset connection', (response: http.ServerResponse) => response.socket?.destroy()],
    ['a garbled 201', (response: http.ServerResponse) => json(response, 201, '{"order":{"id":1')],
  ])('never sends a create again after %s: it may have been applied', async (_what, answer) => {
    const { client, bodies, url } = await writeServer((request, response) =>
      answer(response as http.ServerResponse & { req: typeof request }),
    );
    const read = (body: Buffer, shown: string) => {
      try {
        return JSON.parse(body.toString('utf8'));
      } catch (error) {
        throw new ShopBodyError(shown, 'not JSON', error);
      }
    };
    const error = await client.send(url, CREATE, read, WRITE).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ShopWriteUnsureError);
    expect(error).toMatchObject({ code: 'ERR_SHOP_WRITE_UNSURE', retryable: false });
    expect((error as Error).message).toMatch(
      /^POST http:\/\/127\.0\.0\.1:\d+\/admin\/api\/2022-01\/orders\.json may or may not have been applied: /,
    );
    expect(bodies).toHaveLength(1);
  });

  it('retries a repeatable write after a 503', async () => {
    const { client, bodies, url } = await writeServer((_request, response, hit) =>
      hit === 1 ? json(response, 503, '{"errors":"unavailable"}') : json(response, 200, '{"order":{"id":1}}'),
    );
    await client.send(url, { method: 'PUT', body: { order: { note: 'x' } }, repeatable: true }, readBody, WRITE);
    expect(bodies).toEqual(['PUT {"order":{"note":"x"}}', 'PUT {"order":{"note":"x"}}']);
  });

  it('throws a 429 the caller waits out itself (ownLimit) instead of retrying it', async () => {
    const { client, bodies, url } = await writeServer((_request, response) =>
      json(response, 429, '{"errors":"Exceeded order API rate limit, please try again in a minute."}', {
        'x-shopify-shop-api-call-limit': '3/40',
      }),
    );
    const ownLimit = (error: ShopThrottledError) => /order API rate limit/.test(error.bodyExcerpt);
    const error = await client.send(url, CREATE, readBody, { ...WRITE, ownLimit }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ShopThrottledError);
    expect(error).toMatchObject({ bucketHadRoom: true });
    expect(bodies).toHaveLength(1);
  });

  it('keeps the whole errors of a 422, and does not retry it', async () => {
    const { client, bodies, url } = await writeServer((_request, response) =>
      json(response, 422, '{"errors":{"email":["has already been taken"],"phone":["is invalid"]}}'),
    );
    const error = await client.send(url, CREATE, readBody, WRITE).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ShopHttpError);
    expect(error).toMatchObject({
      status: 422,
      errors: { email: ['has already been taken'], phone: ['is invalid'] },
    });
    expect(bodies).toHaveLength(1);
  });
});
