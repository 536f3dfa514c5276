/**
 * How many records a chain asks for per page. Large shops answer 500-504 to some pages of 250 orders, and the same
 * page at a smaller limit goes through (live-shop.md §1.2); the client halves a page that keeps failing (ShopClient),
 * and the chain goes on at the size that worked, growing back once a few pages went through at it: a heavy stretch
 * of records usually spans several pages, and growing back at once would fail again on the next one.
 */
export interface PageSize {
  limit: number;
  /** Pages that went through at `limit` since it last changed. */
  calm: number;
}

export const PAGE_LIMIT = 250;
/** Pages that must go through at a shrunk size before it doubles. */
export const GROW_AFTER = 3;

/** The page size after a page that was sent asking for `asked` records (fewer than the chain's if it shrank). */
export function pageSizeAfter(size: PageSize, asked: number): PageSize {
  if (asked < size.limit) return { limit: asked, calm: 1 };
  if (size.limit >= PAGE_LIMIT) return { limit: PAGE_LIMIT, calm: 0 };
  if (size.calm + 1 < GROW_AFTER) return { limit: size.limit, calm: size.calm + 1 };
  return { limit: Math.min(PAGE_LIMIT, size.limit * 2), calm: 0 };
}
