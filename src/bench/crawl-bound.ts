import type { ResourceName } from '../shopify/resources.js';
import { expectedLatencyMs, LatencyDraws, type LatencyModel } from '../simulator/latency.js';
import { minimumRequests } from '../source/chain-plan.js';
import { hedgeAfterMs } from '../source/hedged-requests.js';

/**
 * The finish time of the best schedule we know for a crawl's requests against one shop: at most `depth` in flight,
 * each taking its latency, each adding 1 to a leaky bucket of size `bucket` that leaks `leakPerSecond` and may never
 * overflow. Pages are independent here (a lower bound ignores that real pages depend on earlier ones) and go longest
 * first, which for equal-cost bucket slots is the classic near-optimal order. The one dependency kept is the one no
 * complete crawl can escape: a resource's count after the crawl is taken once its last page has come back.
 */
export interface BoundInput {
  /** Requests that may go at any time: pages and the counts before the crawl. */
  latenciesMs: readonly number[];
  /** Requests that may go only once the requests at the indices `after` (into latenciesMs) have come back. */
  closing?: ReadonlyArray<{ latencyMs: number; after: readonly number[] }>;
  bucket: number;
  leakPerSecond: number;
  depth: number;
  /**
   * What each of `latenciesMs` really takes, where that differs from what the schedule expects (see drawnFinishMs):
   * the order stays that of the expected latencies.
   */
  takesMs?: readonly number[];
  /**
   * Late requests asked for again, as the crawl does (hedged-requests.ts): once nothing is left to send, a request out
   * longer than `hedgeAfterMs` of its typical time (`typicalMs[i]`) gets a second copy where a slot and the bucket
   * spare it, which takes `copyTakesMs[i]`; the first answer wins and frees both slots.
   */
  hedges?: { typicalMs: readonly number[]; copyTakesMs: readonly number[] };
}

interface Flight {
  startMs: number;
  endMs: number;
  request: Pending;
  hedged: boolean;
}

interface Pending {
  latencyMs: number;
  takesMs: number;
  /** When it is late enough for a second copy, counted from its send; Infinity where none may go. */
  lateAfterMs: number;
  copyTakesMs: number;
  /** Requests still to come back before this one may go. */
  waitingFor: number;
  /** Closing requests waiting for this one. */
  unblocks: Pending[];
}

export function scheduleFinishMs(input: BoundInput): number {
  const free: Pending[] = input.latenciesMs.map((latencyMs, i) => ({
    latencyMs,
    takesMs: input.takesMs?.[i] ?? latencyMs,
    lateAfterMs: input.hedges ? hedgeAfterMs(input.hedges.typicalMs[i] ?? latencyMs) : Number.POSITIVE_INFINITY,
    copyTakesMs: input.hedges?.copyTakesMs[i] ?? latencyMs,
    waitingFor: 0,
    unblocks: [],
  }));
  const closings = (input.closing ?? []).map(({ latencyMs, after }) => {
    const closing: Pending = {
      latencyMs,
      takesMs: latencyMs,
      lateAfterMs: Number.POSITIVE_INFINITY,
      copyTakesMs: latencyMs,
      waitingFor: after.length,
      unblocks: [],
    };
    for (const index of after) (free[index] as Pending).unblocks.push(closing);
    return closing;
  });
  const ready = [...free, ...closings.filter((closing) => closing.waitingFor === 0)];
  let waiting = closings.length - (ready.length - free.length);
  // An unlimited shop never holds a request back.
  const limited = Number.isFinite(input.leakPerSecond) && Number.isFinite(input.bucket);
  const leakPerMs = input.leakPerSecond / 1000;
  const inFlight: Flight[] = [];
  // A hedged request holds two slots until its first answer.
  const slotsUsed = () => inFlight.reduce((slots, flight) => slots + (flight.hedged ? 2 : 1), 0);
  let now = 0;
  let level = 0;
  let levelAt = 0;
  let finish = 0;
  /** Ms until the bucket takes one more request (0: now), counting it in when it does. */
  const bucketWaitMs = (): number => {
    const current = limited ? Math.max(0, level - (now - levelAt) * leakPerMs) : 0;
    if (current + 1 > input.bucket + 1e-9) return (current + 1 - input.bucket) / leakPerMs;
    level = current + 1;
    levelAt = now;
    return 0;
  };
  while (ready.length > 0 || waiting > 0 || inFlight.length > 0) {
    for (let i = inFlight.length - 1; i >= 0; i--) {
      const flight = inFlight[i] as Flight;
      if (flight.endMs > now) continue;
      inFlight.splice(i, 1);
      finish = Math.max(finish, flight.endMs);
      for (const closing of flight.request.unblocks) {
        if (--closing.waitingFor > 0) continue;
        ready.push(closing);
        waiting--;
      }
    }
    const slotFree = slotsUsed() < input.depth;
    if (ready.length > 0 && slotFree) {
      const waitMs = bucketWaitMs();
      if (waitMs > 0) {
        now += waitMs;
        continue;
      }
      ready.sort((a, b) => b.latencyMs - a.latencyMs);
      const request = ready.shift() as Pending;
      inFlight.push({ startMs: now, endMs: now + request.takesMs, request, hedged: false });
      continue;
    }
    if (inFlight.length === 0) break;
    let next = Math.min(...inFlight.map((flight) => flight.endMs));
    if (ready.length === 0 && slotFree) {
      const late = inFlight
        .filter((flight) => !flight.hedged && flight.startMs + flight.request.lateAfterMs <= now)
        .sort((a, b) => a.startMs - b.startMs)[0];
      if (late !== undefined) {
        const waitMs = bucketWaitMs();
        if (waitMs === 0) {
          late.hedged = true;
          late.endMs = Math.min(late.endMs, now + late.request.copyTakesMs);
          continue;
        }
        next = Math.min(next, now + waitMs);
      }
      for (const flight of inFlight) {
        const dueMs = flight.startMs + flight.request.lateAfterMs;
        if (!flight.hedged && dueMs > now) next = Math.min(next, dueMs);
      }
    }
    now = next;
  }
  return finish;
}

/**
 * The finishes of the same schedule when each request takes a draw of the latency model (its lognormal spread and its
 * stalls, as the simulated shop draws them) instead of its mean, one per seeded round: a page turns out slow only once
 * it is under way, so the order stays that of the means. Against scheduleFinishMs, which takes every request at its
 * mean, this is what the spread alone costs a schedule that learns a page's time by asking for it; the counts after a
 * crawl are taken at their means. `hedged`: late requests are asked for again as the crawl does (BoundInput.hedges:
 * their typical time the median, a second copy a draw of its own), the first draws unchanged.
 */
export function drawnFinishes(
  input: BoundInput,
  model: LatencyModel,
  rounds: number,
  seed: number,
  { hedged = false }: { hedged?: boolean } = {},
): number[] {
  const draws = new LatencyDraws(model, seed);
  const copyDraws = new LatencyDraws(model, seed + COPY_SEED_OFFSET);
  const lognormalMean = Math.exp((model.spread * model.spread) / 2);
  const typicalMs = input.latenciesMs.map((meanMs) => (meanMs - model.stallShare * model.stallMs) / lognormalMean);
  const drawn = (medianMs: number, { factor, stallMs }: { factor: number; stallMs: number }) =>
    medianMs * factor + stallMs;
  return Array.from({ length: rounds }, () => {
    const takesMs = typicalMs.map((medianMs) => drawn(medianMs, draws.next()));
    const hedges = hedged
      ? { typicalMs, copyTakesMs: typicalMs.map((medianMs) => drawn(medianMs, copyDraws.next())) }
      : undefined;
    return scheduleFinishMs({ ...input, takesMs, ...(hedges && { hedges }) });
  });
}

/** The mean of drawnFinishes over `rounds` rounds: the finish such a schedule can expect. */
export function drawnFinishMs(
  input: BoundInput,
  model: LatencyModel,
  rounds: number,
  seed: number,
  options: { hedged?: boolean } = {},
): number {
  return meanOf(drawnFinishes(input, model, rounds, seed, options));
}

/** The arithmetic mean of the values (NaN for none). */
export function meanOf(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Second copies draw from a stream of their own, so that a round's first copies are the unhedged round's. */
const COPY_SEED_OFFSET = 1_000_003;

/** Records on each page of a list of `records` records read in pages of `pageLimit` (an empty list still takes one). */
export function pageSizes(records: number, pageLimit: number): number[] {
  const { pages } = minimumRequests([records], pageLimit);
  return Array.from({ length: pages[0] as number }, (_, page) =>
    Math.max(0, Math.min(pageLimit, records - page * pageLimit)),
  );
}

/**
 * The minimum requests of a crawl, one entry per resource with the latency of each of its pages and of its counts:
 * every page, a count before each resource, and its count after, which follows its pages.
 */
export function minimumCrawl(
  resources: ReadonlyArray<{ pagesMs: readonly number[]; countMs: number }>,
): Required<Pick<BoundInput, 'latenciesMs' | 'closing'>> {
  const latenciesMs: number[] = [];
  const closing: Array<{ latencyMs: number; after: number[] }> = [];
  for (const { pagesMs, countMs } of resources) {
    const after = pagesMs.map((ms) => latenciesMs.push(ms) - 1);
    latenciesMs.push(countMs);
    closing.push({ latencyMs: countMs, after });
  }
  return { latenciesMs, closing };
}

/** A page of a crawl: its records, and for products the variants on it (they make a page slower). */
export interface PageShape {
  records: number;
  variants?: number;
}

/** The minimum crawl of a simulated shop whose latency follows `model`: each request at its expected (mean) time. */
export function expectedCrawl(
  model: LatencyModel,
  resources: ReadonlyArray<{ resource: ResourceName; pages: readonly PageShape[] }>,
): Required<Pick<BoundInput, 'latenciesMs' | 'closing'>> {
  return minimumCrawl(
    resources.map(({ resource, pages }) => ({
      pagesMs: pages.map(({ records, variants }) =>
        expectedLatencyMs(model, { kind: 'list', resource, records, ...(variants !== undefined && { variants }) }),
      ),
      countMs: expectedLatencyMs(model, { kind: 'count' }),
    })),
  );
}
