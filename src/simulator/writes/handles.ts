import type { ShopState } from '../shop-state.js';

/** A generated handle ends in `-<index + 1>`, so the one generated product that could hold it is found without a scan. */
const GENERATED_SUFFIX = /-(\d+)$/;

export function handleTaken(state: ShopState, handle: string, self: bigint | null): boolean {
  const store = state.stores.products;
  for (const entry of store.overlayEntries()) {
    if (entry.facts.handle === handle && entry.facts.id !== self) return true;
  }
  const match = GENERATED_SUFFIX.exec(handle);
  if (!match) return false;
  const index = Number(match[1]) - 1;
  if (index < 0 || index >= store.model.size || store.isShadowed(index)) return false;
  const facts = store.model.facts(index);
  return facts.handle === handle && facts.id !== self;
}

/**
 * The handle a product gets: the wanted one, or on a collision the first free of `<wanted>-1`, `<wanted>-2`, … as
 * Shopify does for handles derived from titles ("two products called Potion → potion and potion-1"). Whether REST
 * 2022-01 does the same for an explicitly given handle or answers 422 is unverified (restore.md §1.2); the simulated
 * shop suffixes both, so a client must compare the handle it gets with the one it asked for.
 */
export function uniqueHandle(taken: (handle: string) => boolean, wanted: string): string {
  if (!taken(wanted)) return wanted;
  for (let n = 1; ; n++) {
    const candidate = `${wanted}-${n}`;
    if (!taken(candidate)) return candidate;
  }
}
