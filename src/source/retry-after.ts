/** Longest server-requested pause we honour; beyond it the value is treated as absurd and clamped. */
export const MAX_RETRY_AFTER_MS = 60_000;

const DELTA_SECONDS = /^\s*(\d+(?:\.\d+)?)\s*$/;

/**
 * `Retry-After` in milliseconds, or undefined when absent or unreadable (the caller then uses its own backoff).
 * Shopify sends decimal seconds (`2.0`); RFC 9110 also allows an HTTP date. Negative or past values mean "now";
 * values above MAX_RETRY_AFTER_MS are clamped to it.
 */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const seconds = DELTA_SECONDS.exec(value);
  let ms: number;
  if (seconds) ms = Number(seconds[1]) * 1000;
  else if (/^\s*-\d+(\.\d+)?\s*$/.test(value)) ms = 0;
  else if (/[a-z]/i.test(value) && /\d{4}/.test(value)) {
    const at = Date.parse(value);
    if (Number.isNaN(at)) return undefined;
    ms = at - nowMs;
  } else return undefined;
  return Math.round(Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS));
}
