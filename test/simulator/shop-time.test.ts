import { describe, expect, it } from 'vitest';
import { formatShopTime, formatUtcCursorTime, parseShopTime } from '../../src/simulator/shop-time.js';

describe('shop time (America/New_York)', () => {
  it.each([
    ['2008-01-10T16:00:00Z', '2008-01-10T11:00:00-05:00'],
    ['2022-07-01T12:00:00Z', '2022-07-01T08:00:00-04:00'],
    // Summer time starts 2023-03-12 at 07:00 UTC and ends 2023-11-05 at 06:00 UTC.
    ['2023-03-12T06:59:59Z', '2023-03-12T01:59:59-05:00'],
    ['2023-03-12T07:00:00Z', '2023-03-12T03:00:00-04:00'],
    ['2023-11-05T05:59:59Z', '2023-11-05T01:59:59-04:00'],
    ['2023-11-05T06:00:00Z', '2023-11-05T01:00:00-05:00'],
    ['2024-02-29T23:30:00.900Z', '2024-02-29T18:30:00-05:00'],
  ])('formats %s as %s', (utc, shop) => {
    expect(formatShopTime(Date.parse(utc))).toBe(shop);
    expect(Date.parse(formatShopTime(Date.parse(utc)))).toBe(Math.floor(Date.parse(utc) / 1000) * 1000);
  });

  it.each([
    ['2014-04-25T16:15:47-04:00', '2014-04-25T20:15:47Z'],
    ['2014-04-25T16:15:47Z', '2014-04-25T16:15:47Z'],
    ['2022-11-08 15:23:42', '2022-11-08T20:23:42Z'],
    ['2022-07-08 15:23:42', '2022-07-08T19:23:42Z'],
    ['2022-07-08', '2022-07-08T04:00:00Z'],
    ['2023-10-17 16:29:30 UTC', '2023-10-17T16:29:30Z'],
    ['2014-04-25T16:15:47+0530', '2014-04-25T10:45:47Z'],
  ])('parses the filter value %s', (text, utc) => {
    expect(parseShopTime(text)).toBe(Date.parse(utc));
  });

  it.each([['yesterday'], ['2022-13-01'], ['2022-02-30'], [''], ['2022-01-01T25:00:00']])('rejects %j', (text) => {
    expect(parseShopTime(text)).toBeNaN();
  });

  it('writes order cursor times as UTC "YYYY-MM-DD HH:MM:SS"', () => {
    expect(formatUtcCursorTime(Date.parse('2020-01-14T01:49:26Z'))).toBe('2020-01-14 01:49:26');
  });
});
