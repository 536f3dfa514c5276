import { describe, expect, it } from 'vitest';
import { minimumRequests, scheduleFinishMs } from '../../src/bench/crawl-bound.js';

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
});

describe('minimumRequests', () => {
  it.each([
    [[0, 250, 251], { pages: [1, 1, 2], counts: 6 }],
    [[10_000], { pages: [40], counts: 2 }],
  ])('%j', (counts, expected) => {
    expect(minimumRequests(counts, 250)).toEqual(expected);
  });
});
