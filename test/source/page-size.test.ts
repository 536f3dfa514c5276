import { describe, expect, it } from 'vitest';
import { FULL_PAGES, GROW_AFTER, type PageSize, pageSizeAfter } from '../../src/source/page-size.js';

describe('pageSizeAfter', () => {
  /** The sizes a chain asks for over pages answered with these limits (the client halves pages that keep failing). */
  function sizes(asked: number[]): number[] {
    let size: PageSize = FULL_PAGES;
    return asked.map((limit) => {
      size = pageSizeAfter(size, limit);
      return size.limit;
    });
  }

  it.each([
    ['full pages stay full', [250, 250, 250], [250, 250, 250]],
    ['a page that went through only at 62: the chain goes on at 62', [62], [62]],
    [
      `grows back, doubling after ${GROW_AFTER} calm pages`,
      [62, 62, 62, 124, 124, 124, 248, 248, 248],
      [62, 62, 124, 124, 124, 248, 248, 248, 250],
    ],
    [
      'shrinks again right after growing inside a heavy stretch, and waits twice as long before growing again',
      [62, 62, 62, 31, 31, 31, 31, 31, 31],
      [62, 62, 124, 31, 31, 31, 31, 31, 62],
    ],
    [
      'past the stretch, a grown size that goes through grows again after the short wait',
      [62, 62, 62, 31, 31, 31, 31, 31, 31, 62, 62, 62],
      [62, 62, 124, 31, 31, 31, 31, 31, 62, 62, 62, 124],
    ],
  ])('%s', (_name, asked, expected) => {
    expect(sizes(asked)).toEqual(expected);
  });
});
