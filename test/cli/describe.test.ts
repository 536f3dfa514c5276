import { describe, expect, it } from 'vitest';
import { describeBytes, describeSeconds, textTable } from '../../src/cli/describe.js';

describe('how listings write figures', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1.0 KiB'],
    [1_163_395, '1.1 MiB'],
    [5 * 1024 ** 4, '5.0 TiB'],
    [3 * 1024 ** 5, '3072.0 TiB'],
  ])('%i bytes → %s', (bytes, text) => {
    expect(describeBytes(bytes)).toBe(text);
  });

  it.each([
    [0.04, '0.0 s'],
    [1.96, '2.0 s'],
    [59.94, '59.9 s'],
    [59.96, '1 min 00 s'],
    [198, '3 min 18 s'],
    [3599.4, '59 min 59 s'],
    [7500, '2 h 05 min'],
  ])('%f seconds → %s', (seconds, text) => {
    expect(describeSeconds(seconds)).toBe(text);
  });

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
