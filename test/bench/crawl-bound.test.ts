import { describe, expect, it } from 'vitest';
import {
  drawnFinishes,
  drawnFinishMs,
  expectedCrawl,
  meanOf,
  minimumCrawl,
  pageSizes,
  scheduleFinishMs,
} from '../../src/bench/crawl-bound.js';
import { LATENCY_PRESETS, uniformLatency } from '../../src/simulator/latency.js';
import { minimumRequests } from '../../src/source/chain-plan.js';

describe('scheduleFinishMs', () => {
  it.each([
    ['one request', [100], 40, 2, 20, 100],
    ['depth-limited, bucket roomy', [100, 100, 100, 100], 40, 2, 2, 200],
    ['bucket-limited: 3 fit, the 4th waits 1 s for a leak', [10, 10, 10, 10], 3, 1, 10, 1010],
    ['unlimited depth and bucket', Array(50).fill(300), 1000, 1000, 1000, 300],
    ['40 @ 20/s: 60 requests need 1 s of leak after the burst', Array(60).fill(0), 40, 20, 100, 1000],
  ])('%s', (_name, latenciesMs, bucket, leakPerSecond, depth, expected) => {
    expect(scheduleFinishMs({ latenciesMs, bucket, leakPerSecond, depth })).toBeCloseTo(expected, 6);
  });

  it.each([
    ['a closing request goes once its pages came back', [100, 100], [{ latencyMs: 50, after: [0, 1] }], 150],
    ['it waits for its own pages only', [100, 300], [{ latencyMs: 50, after: [0] }], 300],
    ['one without pages to wait for goes at once', [100], [{ latencyMs: 50, after: [] }], 100],
    [
      'two closing requests, each after its own longest page',
      [100, 200, 400],
      [
        { latencyMs: 50, after: [0, 1] },
        { latencyMs: 50, after: [2] },
      ],
      450,
    ],
  ])('%s', (_name, latenciesMs, closing, expected) => {
    expect(scheduleFinishMs({ latenciesMs, closing, bucket: 40, leakPerSecond: 2, depth: 20 })).toBeCloseTo(
      expected,
      6,
    );
  });

  it('a bucket-bound crawl ends a count later than its pages would alone', () => {
    const crawl = expectedCrawl(
      uniformLatency(300, 0.5),
      (['products', 'customers', 'orders'] as const).map((resource, i) => ({
        resource,
        pages: pageSizes([10_000, 15_000, 25_000][i] as number, 250).map((records) => ({ records })),
      })),
    );
    const rate = { bucket: 40, leakPerSecond: 20, depth: 20 };
    const free = scheduleFinishMs({ latenciesMs: [...crawl.latenciesMs, 300, 300, 300], ...rate });
    expect(free).toBeCloseTo(8_600, 6);
    expect(scheduleFinishMs({ ...crawl, ...rate })).toBeGreaterThan(free + 100);
  });
});

describe('scheduleFinishMs with hedges', () => {
  const unlimited = { bucket: Number.POSITIVE_INFINITY, leakPerSecond: Number.POSITIVE_INFINITY };
  const slowBucket = { bucket: 1, leakPerSecond: 0.25 };
  // Requests typically take 1 s, so one is late for a second copy 2 s out (hedgeAfterMs: 1 s more than typical).
  it.each([
    ['a stalled request and a free slot: its copy, sent once late, answers first', [10_000, 1000], 4, unlimited, 3000],
    ['no slot is ever free while it is out: it takes what it takes', [10_000, 1000], 1, unlimited, 11_000],
    ['the copy waits for a slot: two, hedged once the rest is done', [10_000, 1000, 1000], 2, unlimited, 3000],
    ['the copy waits for the bucket: room for 1, leaking one every 4 s', [10_000], 2, slowBucket, 5000],
  ])('%s', (_name, takesMs, depth, rate, expected) => {
    const ones = takesMs.map(() => 1000);
    const input = { latenciesMs: ones, takesMs, ...rate, depth, hedges: { typicalMs: ones, copyTakesMs: ones } };
    expect(scheduleFinishMs(input)).toBeCloseTo(expected, 6);
  });

  it('keeps the first answer when the copy would come back later', () => {
    const input = { latenciesMs: [1000, 1000], takesMs: [2500, 1000], ...unlimited, depth: 4 };
    const hedges = { typicalMs: [1000, 1000], copyTakesMs: [5000, 1000] };
    expect(scheduleFinishMs({ ...input, hedges })).toBeCloseTo(2500, 6);
  });
});

describe('drawnFinishMs', () => {
  const crawl = (model: typeof LATENCY_PRESETS.realistic) =>
    expectedCrawl(
      model,
      (['products', 'customers', 'orders'] as const).map((resource) => ({
        resource,
        pages: pageSizes(10_000, 250).map((records) => ({ records, variants: 0 })),
      })),
    );
  const unlimited = { bucket: Number.POSITIVE_INFINITY, leakPerSecond: Number.POSITIVE_INFINITY, depth: 20 };

  it('a request that takes what it takes: the bound itself', () => {
    const input = { ...crawl(uniformLatency(300, 7)), ...unlimited };
    expect(drawnFinishMs(input, uniformLatency(300, 7), 5, 1)).toBeCloseTo(scheduleFinishMs(input), 6);
  });

  it('a spread of p95 = 3x the median: later than every request at its mean, the same for the same seed', () => {
    const model = LATENCY_PRESETS.realistic;
    const input = { ...crawl(model), ...unlimited };
    const drawn = drawnFinishMs(input, model, 50, 7);
    expect(drawn).toBeGreaterThan(scheduleFinishMs(input) * 1.05);
    expect(drawnFinishMs(input, model, 50, 7)).toBe(drawn);
  });

  it('hedged as the crawl hedges: the same as the bound without a spread; sooner than unhedged with one', () => {
    const fixed = uniformLatency(300, 7);
    const input = { ...crawl(fixed), ...unlimited };
    expect(drawnFinishMs(input, fixed, 5, 1, { hedged: true })).toBeCloseTo(scheduleFinishMs(input), 6);
    const model = LATENCY_PRESETS.realistic;
    const spread = { ...crawl(model), ...unlimited };
    const hedged = drawnFinishMs(spread, model, 50, 7, { hedged: true });
    // 0.90 of the unhedged finish on this crawl (11.5 s for 12.8 s): the late pages at its end come back from copies.
    expect(hedged).toBeLessThan(drawnFinishMs(spread, model, 50, 7) * 0.95);
    expect(hedged).toBeGreaterThan(scheduleFinishMs(spread));
  });

  it('one finish a round: hedged, a realistic spread still leaves rounds well past the mean, which is drawnFinishMs', () => {
    const model = LATENCY_PRESETS.realistic;
    const input = { ...crawl(model), ...unlimited };
    const finishes = drawnFinishes(input, model, 50, 7, { hedged: true });
    expect(finishes).toHaveLength(50);
    const mean = meanOf(finishes);
    expect(drawnFinishMs(input, model, 50, 7, { hedged: true })).toBeCloseTo(mean, 6);
    // One run of a realistic row is one round: some rounds finish a tenth or more past the mean.
    expect(Math.max(...finishes)).toBeGreaterThan(mean * 1.1);
    expect(Math.min(...finishes)).toBeGreaterThan(scheduleFinishMs(input) * 0.9);
  });

  it("draws each request around its own median: one request's mean finish is its mean", () => {
    const model = { ...LATENCY_PRESETS.realistic, stallShare: 0 };
    const meanMs = 150 * Math.exp(model.spread ** 2 / 2);
    const drawn = drawnFinishMs({ latenciesMs: [meanMs], ...unlimited }, model, 2000, 3);
    // Within the sampling error of 2,000 rounds (a standard error of about 2%).
    expect(drawn / meanMs).toBeCloseTo(1, 1);
  });
});

describe('minimumCrawl', () => {
  it('lists every page and the count before of each resource, and its count after behind its pages', () => {
    const pages = (records: number) => pageSizes(records, 250).map((n) => 100 + n);
    expect(
      minimumCrawl([
        { pagesMs: pages(0), countMs: 100 },
        { pagesMs: pages(251), countMs: 100 },
      ]),
    ).toEqual({
      latenciesMs: [100, 100, 350, 101, 100],
      closing: [
        { latencyMs: 100, after: [0] },
        { latencyMs: 100, after: [2, 3] },
      ],
    });
  });

  it('takes each request at its expected time under a latency model: a page of products by its variants', () => {
    const { latenciesMs } = expectedCrawl(LATENCY_PRESETS.realistic, [
      { resource: 'products', pages: [{ records: 250, variants: 1000 }] },
      { resource: 'orders', pages: [{ records: 250 }] },
    ]);
    // Medians 150 + 4 × 250 + 0.4 × 1000 ms and 150 + 7 × 250 ms, counts 150 ms; each × e^(σ²/2) plus 5 ms of stalls.
    const mean = (median: number) => median * Math.exp(LATENCY_PRESETS.realistic.spread ** 2 / 2) + 5;
    expect(latenciesMs.map(Math.round)).toEqual([1550, 150, 1900, 150].map(mean).map(Math.round));
  });
});

describe('minimumRequests', () => {
  it.each([
    [[0, 250, 251], { pages: [1, 1, 2], counts: 6 }],
    [[10_000], { pages: [40], counts: 2 }],
  ])('%j', (counts, expected) => {
    expect(minimumRequests(counts, 250)).toEqual(expected);
  });
});
