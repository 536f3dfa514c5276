import { ShopThrottledError } from './errors.js';

export interface RetryPolicy {
  /** Attempts for one request when failures are transport faults, bad bodies, 408 or 5xx. */
  maxAttempts: number;
  /** Attempts when the failures are 429s (a throttle storm is survivable, so it gets a larger allowance). */
  maxThrottledAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Wall-clock budget for one request including all its retries. */
  budgetMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 8,
  maxThrottledAttempts: 40,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  budgetMs: 10 * 60_000,
};

/** Exponential backoff with jitter in [½, 1] of the step, so retries of many requests do not arrive together. */
export function backoffMs(policy: RetryPolicy, attempt: number, random: number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(step * (0.5 + random / 2));
}

/**
 * How long to wait before retrying after `error` on attempt `attempt` (1-based). A bucket 429 waits what the server
 * asks (Shopify says `Retry-After: 2.0`) or one backoff step; a 429 while the bucket had room is some other limit, so
 * it waits at least four backoff steps and the server's hint, whichever is longer. Other errors honour a
 * `Retry-After` if present, else back off.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  error: Error & { retryAfterMs?: number | undefined },
  attempt: number,
  random: number,
): number {
  const backoff = backoffMs(policy, attempt, random);
  if (error instanceof ShopThrottledError && error.bucketHadRoom) {
    return Math.max(error.retryAfterMs ?? 0, Math.min(policy.maxDelayMs, backoff * 4));
  }
  if (error instanceof ShopThrottledError) return error.retryAfterMs ?? backoff;
  return Math.max(error.retryAfterMs ?? 0, backoff);
}
