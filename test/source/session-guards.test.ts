import { afterEach, describe, expect, it } from 'vitest';
import { CursorLoopError, ForeignLinkError, LinkHeaderError, ShopAuthError } from '../../src/source/errors.js';
import { openShopSession } from '../../src/source/index.js';
import { type Handler, json, tinyServer } from './tiny-server.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function serve(handler: Handler) {
  const server = await tinyServer(handler);
  closers.push(server.close);
  return server;
}

/** A page of `n` products with ids from `first` going `step`. */
function products(first: number, n: number, step: number): string {
  const records = Array.from(
    { length: n },
    (_, i) => `{"id":${first + i * step},"title":"p","created_at":"2020-01-01T00:00:00-05:00"}`,
  );
  return `{"products":[${records.join(',')}]}`;
}

async function crawlProducts(url: string) {
  const session = openShopSession({ shopUrl: url, token: 'shpat_x', retry: { baseDelayMs: 1, maxDelayMs: 2 } });
  const { records, report } = session.crawl('products');
  const ids: string[] = [];
  const iterated = (async () => {
    for await (const record of records) ids.push(record.id);
  })();
  const outcome = await report.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  await iterated.catch(() => undefined);
  session.close();
  return { outcome, ids };
}

describe('crawl guards', () => {
  it('refuses a Link to another origin without sending it a request', async () => {
    const foreign = await serve((_request, response) => json(response, 200, products(1, 250, 1)));
    const shop = await serve((request, response) => {
      if (request.url?.includes('/count.json')) return json(response, 200, '{"count":500}');
      json(response, 200, products(1, 250, 1), {
        link: `<${foreign.url}/admin/api/2022-01/products.json?page_info=abc>; rel="next"`,
      });
    });
    const { outcome } = await crawlProducts(shop.url);
    expect('error' in outcome && outcome.error).toBeInstanceOf(ForeignLinkError);
    expect(foreign.requests).toHaveLength(0);
  });

  it('fails on a malformed Link header instead of ending the list', async () => {
    const shop = await serve((request, response) => {
      if (request.url?.includes('/count.json')) return json(response, 200, '{"count":500}');
      json(response, 200, products(1, 250, 1), {
        link: `<${'/admin/api/2022-01/products.json?page_info=a'}>; rel=next`,
      });
    });
    const { outcome } = await crawlProducts(shop.url);
    expect('error' in outcome && outcome.error).toBeInstanceOf(LinkHeaderError);
  });

  it('detects a server that ignores filters and then a cursor loop on its Link chain', async () => {
    const shop = await serve((request, response) => {
      if (request.url?.includes('/count.json')) return json(response, 200, '{"count":600}');
      // Descending ids whatever since_id says, and always the same cursor.
      json(response, 200, products(1000, 250, -1), {
        link: `<http://${request.headers.host}/admin/api/2022-01/products.json?limit=250&page_info=same>; rel="next"`,
      });
    });
    const { outcome, ids } = await crawlProducts(shop.url);
    expect('error' in outcome && outcome.error).toBeInstanceOf(CursorLoopError);
    expect(new Set(ids).size).toBe(ids.length);
    expect(shop.requests.filter((url) => url.includes('page_info=same'))).toHaveLength(1);
  });

  it('fails fast on a wrong token with a 401 message, surfaced through the records too', async () => {
    const shop = await serve((_request, response) =>
      json(response, 401, '{"errors":"[API] Invalid API key or access token (unrecognized login or wrong password)"}'),
    );
    const session = openShopSession({ shopUrl: shop.url, token: 'shpat_wrong' });
    const { records, report } = session.crawl('orders');
    await expect(report).rejects.toBeInstanceOf(ShopAuthError);
    await expect(
      (async () => {
        for await (const _ of records);
      })(),
    ).rejects.toThrow(/401/);
    session.close();
    // One count and one first page were in flight together; neither is retried.
    expect(shop.requests.length).toBeLessThanOrEqual(2);
  });
});
