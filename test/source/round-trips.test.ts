import { describe, expect, it } from 'vitest';
import {
  answerTiming,
  fitRoundTrips,
  type RoundTripSample,
  RoundTrips,
  roundTripPassed,
} from '../../src/source/round-trips.js';

/** Answers of a shop that takes `baseMs + perRecordMs × records`, each stretched by a factor. */
const answers = (baseMs: number, perRecordMs: number, sizes: number[], factors: number[] = []): RoundTripSample[] =>
  sizes.map((records, i) => ({ records, ms: (baseMs + perRecordMs * records) * (factors[i] ?? 1) }));

describe('fitRoundTrips', () => {
  it.each([
    ['no answers', [], undefined],
    ['one count', answers(150, 0, [0]), { interceptMs: 150, msPerRecord: 0 }],
    [
      'full pages only: their time, half of it per record',
      answers(150, 7, [250, 250, 250]),
      { interceptMs: 950, msPerRecord: 3.8 },
    ],
    [
      // 325 ms for 25 orders: a full page at 1,787 ms (1,900 really); flat, 325 ms, it planned a fifth of the chains.
      'a probe only: a full page from it',
      answers(150, 7, [25]),
      { interceptMs: 162.5, msPerRecord: 6.5 },
    ],
    [
      'a probe and full pages: the cost of a record',
      answers(150, 7, [1, 250, 250, 250, 17]),
      {
        interceptMs: 150,
        msPerRecord: 7,
      },
    ],
    [
      // Lognormal-like tail: one page took 3 times as long, one 10 times (a stall): the median slope ignores them.
      'a long tail and a stall',
      answers(150, 7, [1, 250, 250, 250, 250, 250, 120, 250], [1, 1, 3, 1, 10, 1, 1, 1]),
      { interceptMs: 150, msPerRecord: 7 },
    ],
  ])('%s', (_name, samples, expected) => {
    const line = fitRoundTrips(samples);
    if (expected === undefined) expect(line).toBeUndefined();
    else {
      expect(line?.interceptMs).toBeCloseTo(expected.interceptMs, 6);
      expect(line?.msPerRecord).toBeCloseTo(expected.msPerRecord, 6);
    }
  });
});

describe('RoundTrips', () => {
  it('keeps each kind of request to each resource apart: an instant count is no yardstick for a 2 s page', () => {
    const roundTrips = new RoundTrips();
    for (let i = 0; i < 5; i++) roundTrips.observe('count', 'orders', { records: 0, ms: 2 });
    for (const sample of answers(150, 7, [1, 250, 250])) roundTrips.observe('list', 'orders', sample);
    for (const sample of answers(150, 3, [1, 250])) roundTrips.observe('list', 'customers', sample);
    expect(roundTrips.typicalMs('count', 'orders', 0)).toBe(2);
    expect(roundTrips.typicalMs('list', 'orders', 250)).toBeCloseTo(1900, 6);
    expect(roundTrips.typicalMs('list', 'customers', 250)).toBeCloseTo(900, 6);
    expect(roundTrips.typicalMs('list', 'products', 250)).toBeUndefined();
    expect(roundTrips.typicalMs('single', 'orders', 1)).toBeUndefined();
  });

  it.each([
    ['pages that take exactly their time: the line', [1, 1, 1, 1], 1900],
    ['a tail: one page of four took three times as long', [1, 1, 3, 1], 1900 * 1.5],
    ['a stall counts as four times the line, however long', [1, 1, 30, 1], 1900 * 1.75],
  ])('expects the mean round trip: %s', (_name, factors, expected) => {
    const roundTrips = new RoundTrips();
    for (const sample of answers(150, 7, [250, 250, 250, 250], factors)) roundTrips.observe('list', 'orders', sample);
    expect(roundTrips.typicalMs('list', 'orders', 250)).toBeCloseTo(1900, 6);
    expect(roundTrips.expectedMs('list', 'orders', 250)).toBeCloseTo(expected, 6);
  });

  it('follows a shop that slows down: old answers are forgotten', () => {
    const roundTrips = new RoundTrips();
    for (let i = 0; i < 100; i++) roundTrips.observe('count', undefined, { records: 0, ms: i < 50 ? 100 : 400 });
    expect(roundTrips.typicalMs('count', undefined, 0)).toBe(400);
  });
});

describe('answerTiming', () => {
  const roundTrips = new RoundTrips();
  for (const sample of answers(150, 7, [1, 250, 250, 250], [1, 1, 0.6, 1.4])) {
    roundTrips.observe('list', 'orders', sample);
  }
  roundTrips.observe('count', 'orders', { records: 0, ms: 2 });

  it.each([
    ['the first answer of its kind', 'single', 250, 900, { prompt: true, wayThereMs: 450 }],
    ['a page as fast as pages are', 'list', 250, 1950, { prompt: true, wayThereMs: 570 }],
    ['a page twice as slow as pages are: it may have waited', 'list', 250, 3800, { prompt: false, wayThereMs: 570 }],
    ['a count as slow as a page', 'count', 0, 1900, { prompt: false, wayThereMs: 1 }],
    ['a partial page, against the line at its size', 'list', 20, 290, { prompt: true, wayThereMs: 87 }],
  ] as const)('%s', (_name, kind, records, ms, expected) => {
    const timing = answerTiming(roundTrips, kind, 'orders', records, ms);
    expect(timing.prompt).toBe(expected.prompt);
    expect(timing.wayThereMs).toBeCloseTo(expected.wayThereMs, 6);
  });
});

describe('roundTripPassed', () => {
  it.each([
    ['not on the wire yet', undefined, 5_000, 2_000, 0],
    ['just sent', 5_000, 5_000, 2_000, 0],
    ['half way', 5_000, 6_000, 2_000, 0.5],
    ['due', 5_000, 7_000, 2_000, 1],
    ['late: no more than all of it', 5_000, 9_000, 2_000, 1],
    ['no estimate yet: nothing counted as passed', 5_000, 5_100, 0, 0],
  ])('%s', (_name, sentMs, nowMs, expectedMs, share) => {
    expect(roundTripPassed(sentMs, nowMs, expectedMs)).toBe(share);
  });
});
