import { describe, expect, it } from 'vitest';
import { minimumCrawl, scheduleFinishMs } from '../../src/bench/crawl-bound.js';
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
    const crawl = minimumCrawl([10_000, 15_000, 25_000], 250, { baseMs: 300, perRecordMs: 0.5 });
    const rate = { bucket: 40, leakPerSecond: 20, depth: 20 };
    const free = scheduleFinishMs({ latenciesMs: [...crawl.latenciesMs, 300, 300, 300], ...rate });
    expect(free).toBeCloseTo(8_600, 6);
    expect(scheduleFinishMs({ ...crawl, ...rate })).toBeGreaterThan(free + 100);
  });
});

describe('minimumCrawl', () => {
  it('lists every page and the count before of each resource, and its count after behind its pages', () => {
    expect(minimumCrawl([0, 251], 250, { baseMs: 100, perRecordMs: 1 })).toEqual({
      latenciesMs: [100, 100, 350, 101, 100],
      closing: [
        { latencyMs: 100, after: [0] },
        { latencyMs: 100, after: [2, 3] },
      ],
    });
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
