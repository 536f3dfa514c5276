import { describe, expect, it } from 'vitest';
import {
  type ChainPlanInput,
  chainsWorthRunning,
  expectedFinishMs,
  minPagesPerWindow,
  splittableChains,
  spreadChains,
} from '../../src/source/chain-plan.js';

// The fleet bench's large Basic shop when all three resources know their size: 80 pages and 3 counts ahead, 200 ms
// each.
const BASIC: ChainPlanInput = {
  requests: 84,
  chains: 3,
  room: 31,
  leakPerSecond: 2,
  workMs: 84 * 200,
  depth: 20,
  splittable: 40,
};

describe('chainsWorthRunning', () => {
  it.each([
    ['Basic (40 @ 2/s): one chain per resource outruns the leak, no window pays', BASIC, 3],
    [
      'Basic at its end: one chain with 15 pages, bucket full',
      { ...BASIC, requests: 15, workMs: 15 * 200, chains: 1, room: 0 },
      1,
    ],
    [
      'the same work without a limit: every chain it can use',
      { ...BASIC, leakPerSecond: Number.POSITIVE_INFINITY },
      20,
    ],
    [
      'the crawl bench (40 @ 20/s, 425 ms): enough chains to keep the leak busy, not the depth',
      { ...BASIC, requests: 200, room: 35, leakPerSecond: 20, workMs: 200 * 425 },
      13,
    ],
    [
      'a small Plus shop whose work fits in the room: as many windows as its pages allow',
      { ...BASIC, requests: 10, room: 391, leakPerSecond: 20, workMs: 10 * 200, splittable: 2 },
      5,
    ],
    [
      'Basic behind slow answers (1.5 s): chains are the limit until the leak is',
      { ...BASIC, chains: 1, workMs: 84 * 1500 },
      6,
    ],
    [
      // The shop: 68 pages of about 1.9 s and 6 counts answered at once. About four chains keep up with the
      // leak; more spend the room sooner, until the partial pages they add outweigh it.
      'Basic with real pages (1.9 s) and instant counts: the chains that fill the leak and burn the room',
      { ...BASIC, requests: 71, room: 33, workMs: 68 * 1900, chains: 3 },
      9,
    ],
    [
      'the same shop on Plus (400 @ 20/s): its work fits in the room, every chain the pages allow',
      { ...BASIC, requests: 71, room: 390, leakPerSecond: 20, workMs: 68 * 1900, chains: 3 },
      20,
    ],
    ['nothing left to cut', { ...BASIC, leakPerSecond: Number.POSITIVE_INFINITY, splittable: 0 }, 3],
    ['never past the depth', { ...BASIC, leakPerSecond: Number.POSITIVE_INFINITY, depth: 4 }, 4],
    [
      'a gain under a tenth is noise, not a reason',
      // 4 chains: 4.95 s instead of 5 s.
      { ...BASIC, requests: 10, chains: 3, room: 0.6, leakPerSecond: 2, workMs: 10 * 1000 },
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

/** Chains with these pages ahead, every page taking `pageMs`. */
const even = (pages: number[], pageMs = 1000) => pages.map((n) => ({ pages: n, pageMs }));

describe('spreading new windows', () => {
  it.each([
    ['to the chain that would finish last', even([30, 12, 5]), [1, 1, 1], 1, [2, 1, 1]],
    ['evening out the pages per window', even([30, 12, 5]), [1, 1, 1], 5, [5, 2, 1]],
    ['while windows keep three pages each', even([30, 12, 5]), [1, 1, 1], 50, [10, 4, 1]],
    ['on top of cuts already asked for', even([9]), [2], 1, [3]],
    ['none to hand out', even([30]), [1], 0, [1]],
    [
      'by time, not pages: 20 pages of orders (2 s) outlast 30 of customers (0.9 s)',
      [...even([20], 2000), ...even([30], 900)],
      [1, 1],
      3,
      [3, 2],
    ],
  ])('%s', (_name, chains, windows, extra, expected) => {
    expect(spreadChains(chains, windows, extra, 3)).toEqual(expected);
  });

  it.each([
    [[30, 12, 5], [1, 1, 1], 12],
    [[30, 12, 5], [10, 4, 1], 0],
    [[2.9], [1], 0],
  ])('pages %j in %j windows can take %i more', (pages, windows, expected) => {
    expect(splittableChains(even(pages), windows, 3)).toBe(expected);
  });

  it.each([
    ['the leak limits: three pages a window', false, 3, [10, 4, 1]],
    ['the bucket has room for every request: two', true, 2, [15, 6, 2]],
  ])('%s', (_name, room, minPages, spread) => {
    expect(minPagesPerWindow(room)).toBe(minPages);
    expect(spreadChains(even([30, 12, 5]), [1, 1, 1], 50, minPagesPerWindow(room))).toEqual(spread);
  });
});
