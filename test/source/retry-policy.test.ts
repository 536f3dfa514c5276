import { describe, expect, it } from 'vitest';
import { ShopHttpError, ShopThrottledError, ShopTransportError } from '../../src/source/errors.js';
import { backoffMs, type RetryPolicy, retryDelayMs } from '../../src/source/retry-policy.js';

const policy: RetryPolicy = {
  maxAttempts: 8,
  maxThrottledAttempts: 40,
  baseDelayMs: 100,
  maxDelayMs: 10_000,
  budgetMs: 60_000,
};

describe('retry delays', () => {
  it.each([
    [1, 0, 50],
    [1, 1, 100],
    [3, 1, 400],
    [20, 1, 10_000],
  ])('backoff of attempt %i with jitter %f is %i ms', (attempt, random, expected) => {
    expect(backoffMs(policy, attempt, random)).toBe(expected);
  });

  it.each([
    ['bucket 429 with Retry-After', new ShopThrottledError('u', '', 2000, false), 1, 2000],
    ['bucket 429 without Retry-After', new ShopThrottledError('u', '', undefined, false), 1, 100],
    ['429 while the bucket had room: four backoff steps', new ShopThrottledError('u', '', undefined, true), 2, 800],
    ['429 while the bucket had room: the hint if longer', new ShopThrottledError('u', '', 5000, true), 1, 5000],
    ['503 with Retry-After', new ShopHttpError(503, 'u', '', { retryAfterMs: 3000 }), 1, 3000],
    ['500', new ShopHttpError(500, 'u', ''), 2, 200],
    ['reset', new ShopTransportError('u', new Error('ECONNRESET')), 3, 400],
  ])('%s', (_name, error, attempt, expected) => {
    expect(retryDelayMs(policy, error, attempt, 1)).toBe(expected);
  });

  it.each([
    [400, false],
    [401, false],
    [402, false],
    [403, false],
    [404, false],
    [422, false],
    [423, false],
    [408, true],
    [429, true],
    [500, true],
    [502, true],
    [503, true],
    [504, true],
    [520, true],
  ])('status %i retryable: %s', (status, retryable) => {
    expect(new ShopHttpError(status, 'u', '').retryable).toBe(retryable);
  });
});
