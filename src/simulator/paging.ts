import type { BaseFacts } from './generate/facts.js';
import { compareSortValues, type SortSpec, type SortValue } from './models.js';
import type { BaseOrder, Entry } from './store.js';

/** A position in a sort order: the sort value of a record and its id (the tie-breaker), as a cursor carries them. */
export interface SortKey {
  value: SortValue;
  id: bigint;
}

export function keyOf<F extends BaseFacts>(sort: SortSpec<F>, facts: F): SortKey {
  return { value: sort.value(facts), id: facts.id };
}

/** Negative when `a` comes first in the sort order. */
export function compareKeys<F extends BaseFacts>(sort: SortSpec<F>, a: SortKey, b: SortKey): number {
  const byValue = compareSortValues(a.value, b.value);
  return (sort.descending ? -1 : 1) * (byValue !== 0 ? byValue : compareSortValues(a.id, b.id));
}

export interface ValueRange {
  min?: number;
  max?: number;
}

/**
 * What a list request walks: generated records in a base order (optionally narrowed to the positions whose sort value
 * can satisfy the filters) merged with extra entries (the overlay, or an explicit candidate list), then filtered.
 */
export interface View<F extends BaseFacts> {
  sort: SortSpec<F>;
  base: {
    order: BaseOrder;
    facts(index: number): F;
    skip(index: number): boolean;
    /** Bounds on the sort value that hold for every generated record the filters can match. */
    range: ValueRange | undefined;
    /**
     * Bounds on created_at that hold for every generated record the filters can match. Generated records are created
     * in index order (createdMsOf), so within each of the order's ascending runs the matches lie together: a since_id
     * page past the end of its created_at window skips the rest of the shop instead of building every record's facts.
     */
    created?: ValueRange | undefined;
  } | null;
  /** Sorted in `sort` order. */
  extras: readonly Entry<F>[];
  match(facts: F): boolean;
}

/** First position in [lo, hi) where the monotonic predicate holds (hi when none does). */
function firstPosition(lo: number, hi: number, holds: (position: number) => boolean): number {
  let low = lo;
  let high = hi;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (holds(mid)) high = mid;
    else low = mid + 1;
  }
  return low;
}

function* walkBase<F extends BaseFacts>(view: View<F>, from: SortKey | null, backward: boolean): Generator<Entry<F>> {
  const base = view.base;
  if (!base) return;
  const { order, range } = base;
  const sort = view.sort;
  const valueAt = (p: number) => sort.value(base.facts(order.indexAt(p))) as number;
  let lo = 0;
  let hi = order.length;
  if (range) {
    if (sort.descending) {
      if (range.max !== undefined) lo = firstPosition(lo, hi, (p) => valueAt(p) <= (range.max as number));
      if (range.min !== undefined) hi = firstPosition(lo, hi, (p) => valueAt(p) < (range.min as number));
    } else {
      if (range.min !== undefined) lo = firstPosition(lo, hi, (p) => valueAt(p) >= (range.min as number));
      if (range.max !== undefined) hi = firstPosition(lo, hi, (p) => valueAt(p) > (range.max as number));
    }
  }
  const keyAt = (p: number) => keyOf(sort, base.facts(order.indexAt(p)));
  const spans = createdSpans(base, lo, hi);
  if (!backward) {
    const start = from ? firstPosition(lo, hi, (p) => compareKeys(sort, keyAt(p), from) > 0) : lo;
    for (const [first, end] of spans) {
      for (let p = Math.max(first, start); p < end; p++) {
        const index = order.indexAt(p);
        if (!base.skip(index)) yield { facts: base.facts(index) };
      }
    }
  } else {
    const start = from ? firstPosition(lo, hi, (p) => compareKeys(sort, keyAt(p), from) >= 0) - 1 : hi - 1;
    for (let k = spans.length - 1; k >= 0; k--) {
      const [first, end] = spans[k] as Span;
      for (let p = Math.min(end - 1, start); p >= first; p--) {
        const index = order.indexAt(p);
        if (!base.skip(index)) yield { facts: base.facts(index) };
      }
    }
  }
}

type Span = readonly [first: number, end: number];

/** The positions in [lo, hi) a walk visits, in order: all of them, or the created_at bounds' part of each run. */
function createdSpans<F extends BaseFacts>(base: NonNullable<View<F>['base']>, lo: number, hi: number): Span[] {
  const { order, created } = base;
  if (created === undefined || order.ascendingRuns === undefined) return [[lo, hi]];
  const createdAt = (p: number) => base.facts(order.indexAt(p)).createdMs;
  const spans: Span[] = [];
  for (const [runFirst, runEnd] of order.ascendingRuns) {
    const end = Math.min(runEnd, hi);
    let first = Math.max(runFirst, lo);
    if (first >= end) continue;
    if (created.min !== undefined) first = firstPosition(first, end, (p) => createdAt(p) >= (created.min as number));
    const last =
      created.max === undefined ? end : firstPosition(first, end, (p) => createdAt(p) > (created.max as number));
    if (first < last) spans.push([first, last]);
  }
  return spans;
}

function* walkExtras<F extends BaseFacts>(view: View<F>, from: SortKey | null, backward: boolean): Generator<Entry<F>> {
  const extras = view.extras;
  const sort = view.sort;
  if (!backward) {
    const start = from
      ? firstPosition(0, extras.length, (i) => compareKeys(sort, keyOf(sort, (extras[i] as Entry<F>).facts), from) > 0)
      : 0;
    for (let i = start; i < extras.length; i++) yield extras[i] as Entry<F>;
  } else {
    const start = from
      ? firstPosition(
          0,
          extras.length,
          (i) => compareKeys(sort, keyOf(sort, (extras[i] as Entry<F>).facts), from) >= 0,
        ) - 1
      : extras.length - 1;
    for (let i = start; i >= 0; i--) yield extras[i] as Entry<F>;
  }
}

/** Matching entries strictly after (or, backward, strictly before) `from`, in sort order (or reverse). */
export function* walk<F extends BaseFacts>(view: View<F>, from: SortKey | null, backward = false): Generator<Entry<F>> {
  const sort = view.sort;
  const sign = backward ? -1 : 1;
  const a = walkBase(view, from, backward);
  const b = walkExtras(view, from, backward);
  let nextA = a.next();
  let nextB = b.next();
  while (!nextA.done || !nextB.done) {
    let take: Entry<F>;
    if (
      nextB.done ||
      (!nextA.done && sign * compareKeys(sort, keyOf(sort, nextA.value.facts), keyOf(sort, nextB.value.facts)) <= 0)
    ) {
      take = nextA.value as Entry<F>;
      nextA = a.next();
    } else {
      take = nextB.value;
      nextB = b.next();
    }
    if (view.match(take.facts)) yield take;
  }
}

export interface Page<F extends BaseFacts> {
  entries: Entry<F>[];
  hasNext: boolean;
  hasPrevious: boolean;
}

/**
 * One page as Shopify serves it: the first page has no previous link; a page reached through a `next` cursor always
 * has one; a page reached through a `previous` cursor always has a next link. `from` is the cursor's key, or on a
 * first request the `since_id` position.
 */
export function readPage<F extends BaseFacts>(
  view: View<F>,
  limit: number,
  from: SortKey | null,
  direction: 'next' | 'prev',
  firstPage: boolean,
): Page<F> {
  const backward = direction === 'prev';
  const entries: Entry<F>[] = [];
  for (const entry of walk(view, from, backward)) {
    entries.push(entry);
    if (entries.length > limit) break;
  }
  const more = entries.length > limit;
  if (more) entries.pop();
  if (backward) {
    entries.reverse();
    return { entries, hasNext: true, hasPrevious: more };
  }
  return { entries, hasNext: more, hasPrevious: !firstPage };
}

export function countView<F extends BaseFacts>(view: View<F>): number {
  let count = 0;
  for (const _ of walk(view, null)) count++;
  return count;
}
