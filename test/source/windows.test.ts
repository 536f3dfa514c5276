import { describe, expect, it } from 'vitest';
import { cutWindow, formatFilterTime, inWindow, splitWindow, windowFilters } from '../../src/source/windows.js';

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
