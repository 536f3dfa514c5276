/**
 * `created_at` windows. created_at never changes, so a record stays in one window however often it is updated, and
 * inside a window we page by `since_id` (id order, also immutable): nothing can slide past the crawl.
 *
 * Shopify's docs disagree on whether `created_at_min/max` are inclusive, and timestamps have whole seconds. Adjacent
 * windows therefore overlap by one second: `[…, t]` and `[t - 1 s, …]`. A record at any second lies strictly inside
 * one of them whatever the server's reading, and the rare record on a boundary second is fetched twice and deduplicated.
 */
export interface CreatedWindow {
  /** Epoch ms (whole seconds) or undefined for "from the beginning". */
  minMs?: number | undefined;
  /** Epoch ms (whole seconds) or undefined for "up to now and whatever is created during the crawl". */
  maxMs?: number | undefined;
}

const SECOND = 1000;

/** `2024-03-01T12:00:00Z`: ISO 8601 in UTC, whole seconds. */
export function formatFilterTime(ms: number): string {
  return new Date(Math.floor(ms / SECOND) * SECOND).toISOString().replace('.000Z', 'Z');
}

export function windowFilters(window: CreatedWindow): Record<string, string> {
  const filters: Record<string, string> = {};
  if (window.minMs !== undefined) filters.created_at_min = formatFilterTime(window.minMs);
  if (window.maxMs !== undefined) filters.created_at_max = formatFilterTime(window.maxMs);
  return filters;
}

/**
 * Splits the part of `window` after `progressMs` (the created_at reached so far) at `atMs`: the left half keeps the
 * crawl's position, the right half is new work. Undefined when the remaining span is too short to split.
 */
export function splitWindow(window: CreatedWindow, atMs: number): [CreatedWindow, CreatedWindow] | undefined {
  const at = Math.round(atMs / SECOND) * SECOND;
  if (window.minMs !== undefined && at - SECOND <= window.minMs) return undefined;
  if (window.maxMs !== undefined && at >= window.maxMs) return undefined;
  return [
    { minMs: window.minMs, maxMs: at },
    { minMs: at - SECOND, maxMs: window.maxMs },
  ];
}

/**
 * Cuts `window` at each of `atMs` (ascending) where splitWindow can: the pieces in created_at order, the first keeping
 * the window's start (and so the crawl's position in it).
 */
export function cutWindow(window: CreatedWindow, atMs: readonly number[]): CreatedWindow[] {
  const pieces: CreatedWindow[] = [];
  let rest = window;
  for (const at of [...atMs].reverse()) {
    const halves = splitWindow(rest, at);
    if (halves === undefined) continue;
    rest = halves[0];
    pieces.unshift(halves[1]);
  }
  return [rest, ...pieces];
}

/** Whether a record created at `createdMs` may legitimately be returned for `window` (boundaries either way). */
export function inWindow(window: CreatedWindow, createdMs: number): boolean {
  return (
    (window.minMs === undefined || createdMs >= window.minMs - SECOND) &&
    (window.maxMs === undefined || createdMs <= window.maxMs + SECOND)
  );
}

/**
 * Records per ms of `records` created over `spanMs`: they span one gap fewer than their number (25 probed records are
 * 24 gaps). created_at has whole seconds, so a span under a second is taken as one.
 */
export function spacingDensity(records: number, spanMs: number): number {
  return Math.max(1, records - 1) / Math.max(1000, spanMs);
}

/**
 * Where the records not yet placed lie, from the oldest `placed` records (created from `startMs` to `reachedMs`) and
 * the count: at their spacing (spacingDensity), the rest ends `(total − placed)` gaps after them (the horizon), or now
 * if that is sooner (a shop that grew has more records late). The density is the rest's records per ms up to the
 * horizon.
 */
export function placeRest(input: {
  placed: number;
  startMs: number;
  reachedMs: number;
  total: number;
  nowMs: number;
}): { horizonMs: number; density: number } {
  const { placed, startMs, reachedMs, total, nowMs } = input;
  const oldest = spacingDensity(placed, reachedMs - startMs);
  const rest = Math.max(0, total - placed);
  const horizonMs = Math.min(reachedMs + rest / oldest, Math.max(reachedMs + 1000, nowMs));
  return { horizonMs, density: rest > 0 ? rest / Math.max(1000, horizonMs - reachedMs) : oldest };
}

/** The page in flight is expected to reach this much further than its records at the density ahead. */
const IN_FLIGHT_MARGIN = 1.25;

/**
 * Records the first of `windows` windows keeps when the `ahead` records of a chain are cut (the rest is shared equally
 * by the others): an equal share of the time ahead, in which `behind` records of the page in flight (`asked`) count as
 * done (their round trip has passed), so a chain whose page is about to land keeps a full share after it. Never less
 * than the page in flight will probably bring (IN_FLIGHT_MARGIN): the new windows start past it.
 */
export function firstWindowRecords(input: { ahead: number; windows: number; asked: number; behind: number }): number {
  const { ahead, windows, asked, behind } = input;
  return Math.max(behind + (ahead - behind) / windows, asked * IN_FLIGHT_MARGIN);
}
