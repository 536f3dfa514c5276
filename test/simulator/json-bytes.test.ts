import { afterEach, describe, expect, it } from 'vitest';
import { rawArrayElements, stringifyJson } from '../../src/shopify/json.js';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { jsonBytes } from '../../src/simulator/json-bytes.js';
import { clientFor } from './shop-client.js';

const shops: RunningShop[] = [];
afterEach(async () => {
  for (const shop of shops.splice(0)) await shop.close();
});

describe('jsonBytes', () => {
  it('writes what the joined text encodes to, whatever mix of text and bytes its parts are', () => {
    const texts = ['{"a":"ascii"}', '{"b":"Für Oma ❤ 陈 🔥"}', '{"c":"\\ud800 escaped, \\"quoted\\""}', '{}'];
    const asBytes = (k: number) => k % 2 === 1;
    const served = jsonBytes(
      '{"orders":[',
      [0, 1, 2, 3],
      (k) => (asBytes(k) ? Buffer.from(texts[k] as string) : (texts[k] as string)),
      ']}',
    );
    expect(served.body.equals(Buffer.from(`{"orders":[${texts.join(',')}]}`))).toBe(true);
    expect(served.parts.map((part) => part.bytes.toString())).toEqual(texts);
    expect(served.parts.map((part) => part.encoded)).toEqual([true, false, true, false]);
    expect(jsonBytes('{"orders":[', [], String, ']}').body.toString()).toBe('{"orders":[]}');
  });

  it('grows its scratch buffer in the middle of a body, keeping what it wrote', () => {
    const large = `"${'陈'.repeat(1_000_000)}"`;
    const parts = ['{"first":1}', large, large];
    expect(jsonBytes('[', parts, (part) => part, ']').body.equals(Buffer.from(`[${parts.join(',')}]`))).toBe(true);
  });
});

describe('list pages written as bytes', () => {
  it('serve every record as its own text, the same bytes again once kept, and alone by id', async () => {
    const shop = await startShop({ seed: 5, products: 50, customers: 80, orders: 300, bigIdShare: 0.05 });
    shops.push(shop);
    const client = clientFor(shop);
    const expected = new Map(
      [...shop.records('orders')].map((record) => [String(record.id), stringifyJson(record)] as const),
    );
    const first = await client.get('/orders.json?status=any&limit=250');
    const again = await client.get('/orders.json?status=any&limit=250');
    expect(again.text).toBe(first.text);
    expect(Number(first.headers.get('content-length'))).toBe(Buffer.byteLength(first.text));
    const elements = rawArrayElements(first.text, 'orders');
    expect(elements).toHaveLength(250);
    for (const element of elements) {
      const id = /^\{"id":(\d+)/.exec(element)?.[1] as string;
      expect(element).toBe(expected.get(id));
    }
    const big = elements.find((element) => /^\{"id":\d{17,}/.test(element)) as string;
    const bigId = /^\{"id":(\d+)/.exec(big)?.[1];
    expect((await client.get(`/orders/${bigId}.json?status=any`)).text).toBe(`{"order":${big}}`);
  });
});
