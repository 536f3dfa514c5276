import { describe, expect, it } from 'vitest';
import {
  CHAIN_MARGIN,
  type ChainPlanInput,
  chainsToCut,
  chainsWorthRunning,
  closingPageLimit,
  expectedFinishMs,
  lastSendMs,
  leakDecides,
  minPagesPerWindow,
  splittableChains,
  spreadChains,
} from '../../src/source/chain-plan.js';

/** Chains with these pages ahead, every page taking `pageMs`. */
const even = (pages: number[], pageMs = 1000) => pages.map((n) => ({ pages: n, pageMs }));

// The fleet bench's large Basic shop when all three resources know their size: 80 pages and 3 counts ahead, 200 ms
// each.
const BASIC: ChainPlanInput = {
  requests: 84,
  chains: 3,
  room: 31,
  leakPerSecond: 2,
  workMs: 84 * 200,
  depth: 20,
  open: [27, 27, 26].map((pages) => ({ pages, pageMs: 200 })),
  minPages: 1,
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
      // 20 windows cannot share three chains of 27, 27 and 26 pages evenly; a 21st, waiting for a slot, evens them.
      'the same work without a limit: every chain it can use, and one beyond the depth',
      { ...BASIC, leakPerSecond: Number.POSITIVE_INFINITY },
      21,
    ],
    [
      'the crawl bench (40 @ 20/s, 425 ms): enough chains to keep the leak busy, not the depth',
      { ...BASIC, requests: 200, room: 35, leakPerSecond: 20, workMs: 200 * 425 },
      12,
    ],
    [
      'a small Plus shop whose work fits in the room: as many windows as its pages allow, half a page each',
      {
        ...BASIC,
        requests: 10,
        room: 391,
        leakPerSecond: 20,
        workMs: 10 * 200,
        open: [{ pages: 3, pageMs: 200 }],
        minPages: 0.5,
      },
      8,
    ],
    [
      'Basic behind slow answers (1.5 s): chains are the limit until the leak is',
      { ...BASIC, chains: 1, workMs: 84 * 1500 },
      5,
    ],
    [
      // The shop: 68 pages of about 1.9 s and 6 counts answered at once. About four chains keep up with the
      // leak; more spend the room sooner, until the partial pages they add outweigh it.
      'Basic with real pages (1.9 s) and instant counts: the chains that fill the leak and burn the room',
      { ...BASIC, requests: 71, room: 33, workMs: 68 * 1900, chains: 3 },
      8,
    ],
    [
      'the same shop on Plus (400 @ 20/s): its work fits in the room, every chain the pages allow',
      { ...BASIC, requests: 71, room: 390, leakPerSecond: 20, workMs: 68 * 1900, chains: 3 },
      20,
    ],
    ['nothing left to cut', { ...BASIC, leakPerSecond: Number.POSITIVE_INFINITY, open: [] }, 3],
    [
      // 4 chains finish in 9.24 s by the depth but hold two windows of 27 pages (11.9 s); a fifth and sixth window,
      // waiting for a slot, cut them.
      'beyond the depth where windows are free: windows waiting for a slot even out the longest chains',
      { ...BASIC, leakPerSecond: Number.POSITIVE_INFINITY, depth: 4, workMs: 84 * 400, open: even([27, 27, 26], 400) },
      6,
    ],
    [
      // Where each window costs a request of the leak (40 @ 2/s, the bucket full) the longest chain (23 pages of 2.4 s)
      // would want windows beyond the depth of 5: none.
      'never past the depth where the leak decides',
      { ...BASIC, requests: 30, chains: 3, room: 0, depth: 5, workMs: 27 * 2400, open: even([23, 2, 2], 2400) },
      5,
    ],
    [
      'a gain under a tenth is noise, not a reason',
      // 4 chains: 4.95 s instead of 5 s.
      {
        ...BASIC,
        requests: 10,
        chains: 3,
        room: 0.6,
        leakPerSecond: 2,
        workMs: 10 * 1000,
        open: [3, 3, 3].map((pages) => ({ pages, pageMs: 1000 })),
      },
      3,
    ],
  ])('%s', (_name, input, expected) => {
    expect(chainsWorthRunning(input)).toBe(expected);
  });

  it('buys no window for a gain under a quarter second: a shop answering in milliseconds', () => {
    // Without a limit 20 chains would finish 16 pages of 20 ms in 25 ms instead of 133.
    const open = [6, 5, 5].map((pages) => ({ pages, pageMs: 20 }));
    const input = { ...BASIC, requests: 16, workMs: 16 * 20, leakPerSecond: Number.POSITIVE_INFINITY, open };
    expect(chainsWorthRunning(input)).toBe(3);
  });

  it('no sooner than the longest chain: one resource with all the work wants windows the fluid model would not buy', () => {
    // 23 pages of orders (2.4 s) in one chain beside two nearly done: 55 s one after another, where the leak needs 15 s.
    const input = {
      ...BASIC,
      requests: 30,
      chains: 3,
      room: 0,
      workMs: 27 * 2400,
      open: [{ pages: 23, pageMs: 2400 }, ...even([2, 2], 2400)],
    };
    expect(expectedFinishMs(input, 3)).toBeCloseTo(23 * 2400 * CHAIN_MARGIN, 6);
    expect(chainsWorthRunning(input)).toBeGreaterThanOrEqual(6);
  });

  it('counts the partial last page of every extra window against the bucket', () => {
    // Leak-bound: 3 chains finish when (84 - 31) requests have leaked; 5 chains add one request, half a second.
    expect(expectedFinishMs(BASIC, 3)).toBe(26_500);
    expect(expectedFinishMs(BASIC, 5)).toBe(27_000);
  });
});

describe('spreading new windows', () => {
  it.each([
    ['to the chain that would finish last', even([30, 12, 5]), 1, [2, 1, 1]],
    ['evening out the pages per window', even([30, 12, 5]), 5, [5, 2, 1]],
    ['while windows keep three pages each', even([30, 12, 5]), 50, [10, 4, 1]],
    ['none to hand out', even([30]), 0, [1]],
    [
      'by time, not pages: 20 pages of orders (2 s) outlast 30 of customers (0.9 s)',
      [...even([20], 2000), ...even([30], 900)],
      3,
      [3, 2],
    ],
  ])('%s', (_name, chains, extra, expected) => {
    expect(spreadChains(chains, extra, 3)).toEqual(expected);
  });

  it.each([
    [[30, 12, 5], 3, 12],
    [[2.9], 3, 0],
    [[1.9], 0.5, 2],
    [[0.4], 0.5, 0],
  ])('pages %j, windows of %d pages at least, can take %i more', (pages, minPages, expected) => {
    expect(splittableChains(even(pages), minPages)).toBe(expected);
  });

  it.each([
    ['the leak decides: a page a window', true, 1, [30, 12, 5]],
    ['windows are free: half a page', false, 0.5, [33, 14, 6]],
  ])('%s', (_name, leak, minPages, spread) => {
    expect(minPagesPerWindow(leak)).toBe(minPages);
    expect(spreadChains(even([30, 12, 5]), 50, minPagesPerWindow(leak))).toEqual(spread);
  });
});

describe('chainsToCut', () => {
  // The Plus row of the crawl bench when orders (80 of 161 pages) placed its records first: products and customers
  // still run their first chains, and their share of 20 chains is 10.
  it.each([
    ['the unplaced crawls keep their share, their running chains in it', 20, 3, { workMs: 81, chains: 2 }, 161, 9],
    ['every crawl placed: the rest of the chains', 20, 3, { workMs: 0, chains: 0 }, 161, 17],
    ['the unplaced crawls already run their share', 20, 12, { workMs: 20, chains: 5 }, 100, 8],
    ['no work known: nothing reserved', 20, 3, { workMs: 0, chains: 2 }, 0, 17],
    ['as many as wanted already run', 5, 5, { workMs: 0, chains: 0 }, 50, 0],
  ])('%s', (_name, wanted, running, unplanned, workMs, expected) => {
    expect(chainsToCut({ wanted, running, unplanned, workMs })).toBe(expected);
  });
});

describe('closingPageLimit', () => {
  it.each([
    ['two full pages of work a slot or more: full pages', 20 * 2 * 2_000, 20, 2_000, 250],
    ['one page a slot: pages of half as many records', 20 * 2_000, 20, 2_000, 125],
    ['almost nothing left: the smallest page', 20 * 100, 20, 2_000, 50],
    ['one slot: nothing idles, full pages', 1_000, 1, 2_000, 250],
    ['pages of 300 ms: half a page is not worth a request', 20 * 300, 20, 300, 250],
  ])('%s', (_name, workMs, slots, pageMs, expected) => {
    expect(closingPageLimit(workMs, slots, pageMs, 250, 1_000)).toBe(expected);
  });

  it.each([
    ['a window of 100 left after a slow page: one page of 150, not two of 50', 100, 150],
    ['a window of 40: one page of 60', 40, 60],
    ['a window of 160: one page of 240', 160, 240],
    ['a window of 230, which no other window can take part of: one full page, not two in a row', 230, 250],
    ['a window of 400: the closing size, the rest goes to other windows', 400, 50],
  ])('%s', (_name, chainRecords, expected) => {
    expect(closingPageLimit(20 * 100, 20, 2_000, 250, chainRecords)).toBe(expected);
  });
});

describe('leakDecides', () => {
  it.each([
    ['Basic: the leak decides from the first second', BASIC, true],
    ['the same work on Plus: the room takes it all', { ...BASIC, room: 390, leakPerSecond: 20 }, false],
    [
      'the crawl bench on 40 @ 20/s with 2 s pages: the depth decides',
      { ...BASIC, requests: 166, room: 37, leakPerSecond: 20, workMs: 160 * 2000 },
      false,
    ],
    [
      'the crawl bench on Advanced (80 @ 4/s): the leak decides',
      { ...BASIC, requests: 166, room: 78, leakPerSecond: 4, workMs: 160 * 2000 },
      true,
    ],
    ['no limit', { ...BASIC, leakPerSecond: Number.POSITIVE_INFINITY }, false],
  ])('%s', (_name, input, expected) => {
    expect(leakDecides(input)).toBe(expected);
  });
});

describe('lastSendMs', () => {
  const ADVANCED_END = { ...BASIC, requests: 12, room: 1, leakPerSecond: 4 };
  it.each([
    ['Advanced near its end: 12 requests ahead, 6 of them in flight, room for 1', ADVANCED_END, 6, 1_250],
    ['every request ahead in flight: nothing waits for the leak', ADVANCED_END, 12, 0],
    ['more in flight than the estimate ahead (partial pages)', ADVANCED_END, 15, 0],
    ['the room takes what is left', { ...ADVANCED_END, room: 9 }, 4, 0],
    ['no limit', { ...ADVANCED_END, leakPerSecond: Number.POSITIVE_INFINITY }, 0, 0],
  ])('%s', (_name, input, inFlight, expected) => {
    expect(lastSendMs(input, inFlight)).toBe(expected);
  });
});
