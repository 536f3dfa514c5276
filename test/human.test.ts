import { describe, expect, it } from 'vitest';
import { bytes, count, duration, plural, textTable } from '../src/human.js';
import { stormGuard } from '../src/log.js';

describe('human units', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1536, '1.5 KiB'],
    [102_400, '100 KiB'],
    [5 * 1024 ** 3, '5.0 GiB'],
    [1024 ** 5, '1024 TiB'],
  ])('bytes(%i) is %s', (n, text) => {
    expect(bytes(n)).toBe(text);
  });

  it.each([
    [0, '0 s'],
    [9.4, '9 s'],
    [59.6, '1 min 0 s'],
    [125, '2 min 5 s'],
    [7_380, '2 h 3 min'],
  ])('duration(%d) is %s', (seconds, text) => {
    expect(duration(seconds)).toBe(text);
  });

  it('counts with thousands separators and plurals', () => {
    expect(count(1_234_567.4)).toBe('1,234,567');
    expect([plural(1, 'page'), plural(2, 'page'), plural(1_000, 'retry', 'retries')]).toEqual([
      '1 page',
      '2 pages',
      '1,000 retries',
    ]);
  });
});

describe('textTable', () => {
  it('aligns columns two spaces apart, figures to the right, with no trailing spaces', () => {
    const rows = [
      ['shop', 'orders', 'note'],
      ['a-long-shop', '5', ''],
      ['b', '12,000', 'x'],
    ];
    expect(textTable(rows, new Set([1])).split('\n')).toEqual([
      'shop         orders  note',
      'a-long-shop       5',
      'b            12,000  x',
    ]);
  });
});

describe('stormGuard', () => {
  it('logs the first of a kind at once, then at most one per interval, counting the ones left out', () => {
    const time = { ms: 0 };
    const guard = stormGuard(10_000, () => time.ms);
    const logged: string[] = [];
    for (let i = 0; i < 1_000; i++) {
      time.ms = i * 100;
      guard('retry', (left) => logged.push(`retry at ${time.ms} (${left} left out)`));
      if (i === 500) guard('429', (left) => logged.push(`429 at ${time.ms} (${left} left out)`));
    }
    expect(logged).toEqual([
      'retry at 0 (0 left out)',
      'retry at 10000 (99 left out)',
      'retry at 20000 (99 left out)',
      'retry at 30000 (99 left out)',
      'retry at 40000 (99 left out)',
      'retry at 50000 (99 left out)',
      '429 at 50000 (0 left out)',
      'retry at 60000 (99 left out)',
      'retry at 70000 (99 left out)',
      'retry at 80000 (99 left out)',
      'retry at 90000 (99 left out)',
    ]);
  });
});
