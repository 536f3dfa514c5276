import { describe, expect, it } from 'vitest';
import {
  type ChainPlanInput,
  chainsWorthRunning,
  expectedFinishMs,
  splittableChains,
  spreadChains,
} from '../../src/source/chain-plan.js';

// The fleet bench's large Basic shop when all three resources know their size: 80 pages and 3 counts ahead.
const BASIC: ChainPlanInput = {
  requests: 84,
  chains: 3,
  room: 31,
  leakPerSecond: 2,
  roundTripMs: 200,
  depth: 20,
  splittable: 40,
};

describe('chainsWorthRunning', () => {
  it.each([
    ['Basic (40 @ 2/s): one chain per resource outruns the leak, no window pays', BASIC, 3],
    ['Basic at its end: one chain with 15 pages, bucket full', { ...BASIC, requests: 15, chains: 1, room: 0 }, 1],
    [
      'the same work without a limit: every chain it can use',
      { ...BASIC, leakPerSecond: Number.POSITIVE_INFINITY },
      20,
    ],
    [
      'the crawl bench (40 @ 20/s, 425 ms): enough chains to keep the leak busy, not the depth',
      { ...BASIC, requests: 200, room: 35, leakPerSecond: 20, roundTripMs: 425 },
      13,
    ],
    [
      'a small Plus shop whose work fits in the room: as many windows as its pages allow',
      { ...BASIC, requests: 10, room: 391, leakPerSecond: 20, splittable: 2 },
      5,
    ],
    [
      'Basic behind slow answers (1.5 s): chains are the limit until the leak is',
      { ...BASIC, chains: 1, roundTripMs: 1500 },
      6,
    ],
    ['nothing left to cut', { ...BASIC, leakPerSecond: Number.POSITIVE_INFINITY, splittable: 0 }, 3],
    ['never past the depth', { ...BASIC, leakPerSecond: Number.POSITIVE_INFINITY, depth: 4 }, 4],
    [
      'a gain under a tenth is noise, not a reason',
      // 4 chains: 4.95 s instead of 5 s.
      { ...BASIC, requests: 10, chains: 3, room: 0.6, leakPerSecond: 2, roundTripMs: 1000 },
      3,
    ],
  ])('%s', (_name, input, expected) => {
    expect(chainsWorthRunning(input)).toBe(expected);
  });

  it('counts the partial last page of every extra window against the bucket', () => {
    // Leak-bound: 3 chains finish when (84 - 31) requests have leaked; 5 chains add one request, half a second.
    expect(expectedFinishMs(BASIC, 3)).toBe(26_500);
    expect(expectedFinishMs(BASIC, 5)).toBe(27_000);
  });
});

describe('spreading new windows', () => {
  it.each([
    ['to the chain that would finish last', [30, 12, 5], [1, 1, 1], 1, [2, 1, 1]],
    ['evening out the pages per window', [30, 12, 5], [1, 1, 1], 5, [5, 2, 1]],
    ['while windows keep three pages each', [30, 12, 5], [1, 1, 1], 50, [10, 4, 1]],
    ['on top of cuts already asked for', [9], [2], 1, [3]],
    ['none to hand out', [30], [1], 0, [1]],
  ])('%s', (_name, pages, windows, extra, expected) => {
    expect(spreadChains(pages, windows, extra)).toEqual(expected);
  });

  it.each([
    [[30, 12, 5], [1, 1, 1], 12],
    [[30, 12, 5], [10, 4, 1], 0],
    [[2.9], [1], 0],
  ])('pages %j in %j windows can take %i more', (pages, windows, expected) => {
    expect(splittableChains(pages, windows)).toBe(expected);
  });
});
