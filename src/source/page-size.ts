/**
 * How many records a chain asks for per page. Large shops answer 500-504 to some pages of 250 orders, and the same
 * page at a smaller limit goes through (live-shop.md §1.2); the client halves a page that keeps failing (ShopClient),
 * and the chain goes on at the size that worked, growing back once a few pages went through at it: a heavy stretch
 * of records usually spans several pages, and growing back at once would fail again on the next one. A size that
 * fails right after growing doubles the pages it waits before growing again (up to MOST_PATIENCE), so a long heavy
 * stretch is not probed at the larger size every few pages; once a grown size goes through, the wait is short again.
 */
export interface PageSize {
  limit: number;
  /** Pages that went through at `limit` since it last changed. */
  calm: number;
  /** Calm pages it takes to double `limit`. */
  patience: number;
}

export const PAGE_LIMIT = 250;
/** Calm pages before a shrunk size first doubles. */
export const GROW_AFTER = 3;
const MOST_PATIENCE = 24;

export const FULL_PAGES: PageSize = { limit: PAGE_LIMIT, calm: 0, patience: GROW_AFTER };

/** The page size after a page that was sent asking for `asked` records (fewer than the chain's if it shrank). */
export function pageSizeAfter(size: PageSize, asked: number): PageSize {
  const grown = size.calm === 0 && size.limit < PAGE_LIMIT;
  if (asked < size.limit) {
    return { limit: asked, calm: 1, patience: grown ? Math.min(MOST_PATIENCE, size.patience * 2) : GROW_AFTER };
  }
  if (size.limit >= PAGE_LIMIT) return FULL_PAGES;
  const patience = grown ? GROW_AFTER : size.patience;
  if (size.calm + 1 < patience) return { ...size, calm: size.calm + 1, patience };
  return { ...size, limit: Math.min(PAGE_LIMIT, size.limit * 2), calm: 0 };
}
