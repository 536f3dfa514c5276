import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS, parseRetryAfterMs } from '../../src/source/retry-after.js';

const now = Date.UTC(2024, 0, 1, 12, 0, 0);

describe('parseRetryAfterMs', () => {
  it.each([
    ['missing', undefined, undefined],
    ["Shopify's decimal seconds", '2.0', 2000],
    ['integer seconds', '3', 3000],
    ['fraction below a second', '0.5', 500],
    ['zero', '0', 0],
    ['negative', '-1', 0],
    ['surrounding spaces', ' 1.5 ', 1500],
    ['garbage', 'abc', undefined],
    ['empty', '', undefined],
    ['absurd', '86400', MAX_RETRY_AFTER_MS],
    ['HTTP date 4 s ahead', 'Mon, 01 Jan 2024 12:00:04 GMT', 4000],
    ['HTTP date in the past', 'Mon, 01 Jan 2024 11:00:00 GMT', 0],
    ['HTTP date far ahead', 'Tue, 02 Jan 2024 12:00:00 GMT', MAX_RETRY_AFTER_MS],
    ['broken date', 'Mon, 99 Foo 2024 99:00:00 GMT', undefined],
  ])('%s', (_name, value, expected) => {
    expect(parseRetryAfterMs(value, now)).toBe(expected);
  });
});
