import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/shopify/json.js';
import {
  expectedLatencyMs,
  LATENCY_PRESETS,
  type LatencyModel,
  type LatencyOptions,
  type LatencyRequest,
  medianLatencyMs,
  type RunningShop,
  ShopOptionsError,
  startShop,
  uniformLatency,
} from '../../src/simulator/index.js';
import { LatencyDraws } from '../../src/simulator/latency.js';
import { resolveShopOptions } from '../../src/simulator/options.js';
import { clientFor, listOf } from './shop-client.js';

const realistic = LATENCY_PRESETS.realistic;
/** The benchmark's fixed model: 150 ms + 7 ms per record, counts at once. */
const fixed = resolveShopOptions({
  latency: { listMs: 150, perRecordMs: { products: 7, customers: 7, orders: 7 } },
}).latency;
const sigma = Math.log(3) / 1.6448536269514722;

describe('latency model: median time of a response', () => {
  it.each<[string, LatencyModel, LatencyRequest, number]>([
    ['realistic count', realistic, { kind: 'count' }, 150],
    ['realistic single record', realistic, { kind: 'single' }, 250],
    ['realistic write', realistic, { kind: 'write' }, 500],
    ['realistic 429', realistic, { kind: 'rejected' }, 50],
    ['realistic 250 orders', realistic, { kind: 'list', resource: 'orders', records: 250 }, 150 + 7 * 250],
    ['realistic 250 customers', realistic, { kind: 'list', resource: 'customers', records: 250 }, 150 + 3 * 250],
    [
      'realistic 250 products of 625 variants: 4 × (1 + variants/10) each',
      realistic,
      { kind: 'list', resource: 'products', records: 250, variants: 625 },
      150 + 4 * 250 + 0.4 * 625,
    ],
    ['realistic empty page', realistic, { kind: 'list', resource: 'orders', records: 0 }, 150],
    ['fixed count, at once', fixed, { kind: 'count' }, 0],
    [
      'fixed 250 products, variants cost nothing',
      fixed,
      { kind: 'list', resource: 'products', records: 250, variants: 900 },
      1900,
    ],
    ['uniform count', uniformLatency(20, 0.5), { kind: 'count' }, 20],
    ['uniform 100 orders', uniformLatency(20, 0.5), { kind: 'list', resource: 'orders', records: 100 }, 70],
    ['none', LATENCY_PRESETS.none, { kind: 'list', resource: 'orders', records: 250 }, 0],
  ])('%s', (_name, model, request, ms) => {
    expect(medianLatencyMs(model, request)).toBeCloseTo(ms, 9);
  });
});

describe('latency model: expected (mean) time, stalls included', () => {
  const meanFactor = Math.exp((sigma * sigma) / 2);
  it.each<[string, LatencyModel, LatencyRequest, number]>([
    ['exact without spread or stalls', fixed, { kind: 'list', resource: 'orders', records: 250 }, 1900],
    ['realistic count', realistic, { kind: 'count' }, 150 * meanFactor + 0.001 * 5000],
    [
      'realistic 250 orders',
      realistic,
      { kind: 'list', resource: 'orders', records: 250 },
      1900 * meanFactor + 0.001 * 5000,
    ],
    ['stalls alone', { ...fixed, stallShare: 0.01, stallMs: 3000 }, { kind: 'count' }, 30],
  ])('%s', (_name, model, request, ms) => {
    expect(expectedLatencyMs(model, request)).toBeCloseTo(ms, 9);
  });

  it('puts the realistic p95 at 3× the median (mean factor about 1.25)', () => {
    expect(realistic.spread).toBeCloseTo(sigma, 12);
    expect(meanFactor).toBeCloseTo(1.2499, 4);
  });
});

describe('latency model: seeded draws', () => {
  const drawMany = (model: LatencyModel, seed: number, n: number) => {
    const draws = new LatencyDraws(model, seed);
    return Array.from({ length: n }, () => draws.next());
  };
  const quantile = (sorted: number[], q: number) => sorted[Math.floor(q * (sorted.length - 1))] as number;

  it('draws a lognormal factor of median 1 and p95 3, and stalls about their share', () => {
    const draws = drawMany(realistic, 1, 40_000);
    const factors = draws.map((draw) => draw.factor).sort((a, b) => a - b);
    expect(quantile(factors, 0.5)).toBeCloseTo(1, 1);
    expect(quantile(factors, 0.95)).toBeGreaterThan(2.8);
    expect(quantile(factors, 0.95)).toBeLessThan(3.2);
    const mean = factors.reduce((sum, factor) => sum + factor, 0) / factors.length;
    expect(mean).toBeCloseTo(Math.exp((sigma * sigma) / 2), 1);
    const stalls = draws.filter((draw) => draw.stallMs > 0);
    expect(stalls.every((draw) => draw.stallMs === 5000)).toBe(true);
    expect(stalls.length).toBeGreaterThan(20);
    expect(stalls.length).toBeLessThan(65);
  });

  it('draws the same for the same seed and differently for another', () => {
    expect(drawMany(realistic, 3, 50)).toEqual(drawMany(realistic, 3, 50));
    expect(drawMany(realistic, 4, 50)).not.toEqual(drawMany(realistic, 3, 50));
  });

  it('is exact with spread 0 and no stalls', () => {
    expect(drawMany(fixed, 1, 1000).every((draw) => draw.factor === 1 && draw.stallMs === 0)).toBe(true);
  });
});

describe('latency options', () => {
  it.each<[string, LatencyOptions | undefined, LatencyModel]>([
    ['none by default', undefined, LATENCY_PRESETS.none],
    ['a preset by name', 'realistic', realistic],
    ['omitted fields are 0', { countMs: 5 }, { ...LATENCY_PRESETS.none, countMs: 5 }],
    [
      'omitted resources cost nothing per record',
      { perRecordMs: { orders: 7 } },
      { ...LATENCY_PRESETS.none, perRecordMs: { products: 0, customers: 0, orders: 7 } },
    ],
  ])('%s', (_name, latency, model) => {
    expect(resolveShopOptions({ latency }).latency).toEqual(model);
  });

  it.each<[string, unknown, RegExp]>([
    ['an unknown preset', 'slow', /unknown latency "slow"/],
    ['the old shape', { baseMs: 300, perRecordMs: 0.5 }, /latency baseMs is not a latency field/],
    ['an unknown resource', { perRecordMs: { refunds: 2 } }, /latency perRecordMs\.refunds is not a latency field/],
    ['a negative median', { writeMs: -1 }, /latency writeMs must be a finite number ≥ 0, got -1/],
    ['an infinite per-record cost', { perRecordMs: { orders: Infinity } }, /perRecordMs\.orders must be a finite/],
    ['a stall share above 1', { stallShare: 2 }, /stallShare must be within 0\.\.1, got 2/],
  ])('rejects %s', (_name, latency, message) => {
    expect(() => resolveShopOptions({ latency: latency as LatencyOptions })).toThrow(ShopOptionsError);
    expect(() => resolveShopOptions({ latency: latency as LatencyOptions })).toThrow(message);
  });
});

describe('latency over HTTP: counted from arrival, per kind', () => {
  let shop: RunningShop | undefined;
  afterEach(() => shop?.close());

  /** Sends every request at once (in the order given: a shop that ignores kinds answers in it); returns each one's status and time, and the order they came back in. */
  const race = async (calls: Record<string, () => Promise<{ status: number }>>) => {
    const started = performance.now();
    const order: string[] = [];
    const timed = await Promise.all(
      Object.entries(calls).map(async ([name, call]) => {
        const { status } = await call();
        order.push(name);
        return [name, { status, ms: performance.now() - started }] as const;
      }),
    );
    return { order, by: Object.fromEntries(timed) };
  };

  it('answers each kind after its own median: list page, write, single record, count', async () => {
    shop = await startShop({
      seed: 2,
      products: 3,
      customers: 3,
      orders: 40,
      latency: { countMs: 1700, singleMs: 1200, writeMs: 700, perRecordMs: { orders: 5 } },
    });
    const client = clientFor(shop);
    const [order] = shop.records('orders');
    const id = String((order as JsonObject).id);
    const { order: finished, by } = await race({
      count: () => client.get('/orders/count.json'),
      single: () => client.get(`/orders/${id}.json`),
      write: () => client.put(`/orders/${id}.json`, { order: { id, note: 'latency' } }),
      list: () => client.get('/orders.json?status=any&limit=40'),
    });
    expect(finished).toEqual(['list', 'write', 'single', 'count']);
    expect(Object.values(by).every(({ status }) => status === 200)).toBe(true);
    expect(by.list?.ms).toBeGreaterThanOrEqual(40 * 5);
    expect(by.write?.ms).toBeGreaterThanOrEqual(700);
    expect(by.single?.ms).toBeGreaterThanOrEqual(1200);
    expect(by.count?.ms).toBeGreaterThanOrEqual(1700);
  });

  it('answers a 429 fast while the page that filled the bucket is still being built', async () => {
    shop = await startShop({
      seed: 2,
      orders: 10,
      rate: { bucket: 1, leakPerSecond: 0.01 },
      latency: { listMs: 1000, rejectedMs: 0 },
    });
    const client = clientFor(shop);
    const page = client.get('/orders.json');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const { order, by } = await race({ throttled: () => client.get('/orders.json'), page: () => page });
    expect(order).toEqual(['throttled', 'page']);
    expect([by.throttled?.status, by.page?.status]).toEqual([429, 200]);
  });

  it('charges a products page for its variants', async () => {
    shop = await startShop({ seed: 4, products: 20, latency: { perVariantMs: 25 } });
    const client = clientFor(shop);
    const started = performance.now();
    const page = await client.get('/products.json?limit=20');
    const elapsed = performance.now() - started;
    const variants = listOf(page, 'products').reduce((sum, product) => sum + (product.variants as unknown[]).length, 0);
    expect(variants).toBeGreaterThan(20);
    expect(elapsed).toBeGreaterThanOrEqual(25 * variants);
  });

  it('makes a share of responses stall', async () => {
    shop = await startShop({ seed: 4, customers: 2, latency: { stallShare: 1, stallMs: 400 } });
    const client = clientFor(shop);
    const started = performance.now();
    expect((await client.get('/customers/count.json')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(400);
  });
});
