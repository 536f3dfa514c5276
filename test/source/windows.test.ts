import { describe, expect, it } from 'vitest';
import {
  cutWindow,
  firstWindowRecords,
  formatFilterTime,
  inWindow,
  placeRest,
  spacingDensity,
  splitWindow,
  windowFilters,
} from '../../src/source/windows.js';

const T = Date.UTC(2020, 0, 1);
const s = (seconds: number) => T + seconds * 1000;

describe('created_at windows', () => {
  it('formats filter times in UTC whole seconds', () => {
    expect(formatFilterTime(s(1.7))).toBe('2020-01-01T00:00:01Z');
    expect(windowFilters({ minMs: s(0), maxMs: s(60) })).toEqual({
      created_at_min: '2020-01-01T00:00:00Z',
      created_at_max: '2020-01-01T00:01:00Z',
    });
    expect(windowFilters({})).toEqual({});
  });

  it.each([
    ['no cut', [], [{}]],
    [
      'two cuts of all time, open at both ends, overlapping by one second',
      [s(100), s(200)],
      [{ maxMs: s(100) }, { minMs: s(99), maxMs: s(200) }, { minMs: s(199) }],
    ],
    ['two cuts in the same second: one boundary', [s(100), s(100.4)], [{ maxMs: s(100) }, { minMs: s(99) }]],
  ])('cuts the whole of time: %s', (_name, cuts, expected) => {
    expect(cutWindow({}, cuts)).toEqual(expected.map((w) => ({ minMs: undefined, maxMs: undefined, ...w })));
  });

  it('cuts a bounded window only inside its bounds', () => {
    expect(cutWindow({ minMs: s(10), maxMs: s(100) }, [s(11), s(50), s(100)])).toEqual([
      { minMs: s(10), maxMs: s(50) },
      { minMs: s(49), maxMs: s(100) },
    ]);
  });

  it('covers every whole second even if the server reads both bounds as exclusive', () => {
    const windows = cutWindow({}, [s(100), s(200)]);
    for (let second = -5; second <= 305; second++) {
      const holding = windows.filter(
        (w) => (w.minMs === undefined || s(second) > w.minMs) && (w.maxMs === undefined || s(second) < w.maxMs),
      );
      expect(holding.length, `second ${second}`).toBeGreaterThanOrEqual(1);
      expect(windows.every((w) => !holding.includes(w) || inWindow(w, s(second)))).toBe(true);
    }
  });

  it.each([
    [
      'middle of a bounded window',
      { minMs: s(0), maxMs: s(100) },
      s(50),
      [
        { minMs: s(0), maxMs: s(50) },
        { minMs: s(49), maxMs: s(100) },
      ],
    ],
    [
      'open-ended window',
      { minMs: s(10) },
      s(50),
      [
        { minMs: s(10), maxMs: s(50) },
        { minMs: s(49), maxMs: undefined },
      ],
    ],
    ['too close to the lower bound', { minMs: s(10), maxMs: s(100) }, s(11), undefined],
    ['at the upper bound', { minMs: s(10), maxMs: s(100) }, s(100), undefined],
  ])('splits: %s', (_name, window, at, expected) => {
    expect(splitWindow(window, at)).toEqual(expected);
  });
});

describe('placeRest', () => {
  const DAY = 86_400_000;
  const NOW = Date.UTC(2026, 10, 27);
  const START = Date.UTC(2019, 0, 3);
  it.each([
    // 25 probed records a day apart are 24 days of spacing: 975 more end 975 days after the 25th, not 936.
    ['25 probed records, one a day, of 1,000', 25, START + 24 * DAY, 1_000, START + (24 + 975) * DAY, 1 / DAY],
    ['a first page of 250, one a day, of 1,000', 250, START + 249 * DAY, 1_000, START + (249 + 750) * DAY, 1 / DAY],
    [
      'a shop that grew: the rest ends by now, denser',
      25,
      START + 24 * DAY,
      100_000,
      NOW,
      99_975 / (NOW - START - 24 * DAY),
    ],
    ['every record placed: the spacing stands', 25, START + 24 * DAY, 25, START + 24 * DAY, 1 / DAY],
    ['one record: no spacing, a second by convention', 1, START, 10, START + 9_000, 1 / 1000],
  ])('%s', (_name, placed, reachedMs, total, horizonMs, density) => {
    const placement = placeRest({ placed, startMs: START, reachedMs, total, nowMs: NOW });
    expect(placement.horizonMs).toBe(horizonMs);
    expect(placement.density).toBeCloseTo(density, 15);
  });
});

describe('spacingDensity', () => {
  it.each([
    ['250 records a second apart: 249 gaps', 250, 249_000, 1 / 1000],
    ['25 records over 24 s', 25, 24_000, 1 / 1000],
    ['250 records in one second (created_at has whole seconds)', 250, 0, 249 / 1000],
    ['one record: a gap by convention', 1, 0, 1 / 1000],
  ])('%s', (_name, records, spanMs, density) => {
    expect(spacingDensity(records, spanMs)).toBeCloseTo(density, 15);
  });
});

describe('firstWindowRecords', () => {
  it.each([
    // The first window's share of a chain's 777 records ahead, 250 of them on the page in flight.
    ['no page in flight: equal shares', 777, 2, 0, 0, 388.5],
    ['a page just sent: equal shares, as with none in flight', 777, 2, 250, 0, 388.5],
    ['a page just sent, a share short of its records: past them, with the margin', 500, 2, 250, 0, 312.5],
    ['a page about to land is behind the chain: a full share after it', 777, 2, 250, 250, 513.5],
    ['half of its round trip passed', 777, 2, 250, 125, 451],
    ['three windows, the page about to land', 777, 3, 250, 250, 425.67],
    ['a share smaller than the page in flight: past its records', 300, 4, 250, 250, 312.5],
  ])('%s', (_name, ahead, windows, asked, behind, first) => {
    expect(firstWindowRecords({ ahead, windows, asked, behind })).toBeCloseTo(first, 2);
  });
});
