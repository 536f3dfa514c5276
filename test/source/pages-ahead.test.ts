import { describe, expect, it } from 'vitest';
import { pagesAheadLimit } from '../../src/source/pages-ahead.js';

describe('pagesAheadLimit', () => {
  it.each([
    ['nothing measured yet: the chains alone bound the pages', undefined, undefined, Number.POSITIVE_INFINITY],
    ['a shop answering at once', 3, 75, 3],
    ['the snapshot bench: a page served in 40 ms, written in 80 ms', 40, 80, 3],
    ['a real shop: 400 ms round trips, a page written in 50 ms', 400, 50, 10],
    ['orders pages of 2 s, written in 75 ms (default formats)', 2000, 75, 29],
    ['a consumer that takes 2 ms a page', 300, 2, 152],
    ['nothing consumed yet: the chains alone bound the pages', 250, undefined, Number.POSITIVE_INFINITY],
    ['no page measured yet, a consumer known', undefined, 75, 2],
    ['a consumer faster than the clock', 5, 0, 7],
  ])('%s', (_name, roundTrip, interval, expected) => {
    expect(pagesAheadLimit(roundTrip, interval)).toBe(expected);
  });
});
