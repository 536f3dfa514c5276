/**
 * The finish time of the best schedule we know for a set of requests against one shop: at most `depth` in flight,
 * each taking its latency, each adding 1 to a leaky bucket of size `bucket` that leaks `leakPerSecond` and may never
 * overflow. Requests are independent here (a lower bound ignores that real pages depend on earlier ones) and go
 * longest first, which for equal-cost bucket slots is the classic near-optimal order.
 */
export interface BoundInput {
  latenciesMs: readonly number[];
  bucket: number;
  leakPerSecond: number;
  depth: number;
}

export function scheduleFinishMs(input: BoundInput): number {
  const latencies = [...input.latenciesMs].sort((a, b) => b - a);
  const leakPerMs = input.leakPerSecond / 1000;
  const inFlight: number[] = [];
  let now = 0;
  let level = 0;
  let levelAt = 0;
  let finish = 0;
  for (const latency of latencies) {
    for (;;) {
      for (let i = inFlight.length - 1; i >= 0; i--) if ((inFlight[i] as number) <= now) inFlight.splice(i, 1);
      if (inFlight.length >= input.depth) {
        now = Math.min(...inFlight);
        continue;
      }
      const current = Math.max(0, level - (now - levelAt) * leakPerMs);
      if (current + 1 > input.bucket + 1e-9) {
        now += (current + 1 - input.bucket) / leakPerMs;
        continue;
      }
      level = current + 1;
      levelAt = now;
      break;
    }
    inFlight.push(now + latency);
    finish = Math.max(finish, now + latency);
  }
  return finish;
}

/** The fewest requests a complete crawl needs: full pages of `pageLimit`, plus a count before and after each resource. */
export function minimumRequests(
  recordCounts: readonly number[],
  pageLimit: number,
): { pages: number[]; counts: number } {
  return { pages: recordCounts.map((n) => Math.max(1, Math.ceil(n / pageLimit))), counts: 2 * recordCounts.length };
}
