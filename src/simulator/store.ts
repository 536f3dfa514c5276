import { type JsonObject, stringifyJson } from '../shopify/json.js';
import type { BaseFacts } from './generate/facts.js';
import type { IdSpace } from './ids.js';
import { compareSortValues, type ResourceModel, type SortSpec } from './models.js';

/** One live record: generated (facts only, record built on demand) or held in the overlay (record present). */
export interface Entry<F extends BaseFacts> {
  facts: F;
  record?: JsonObject;
}

/** Positions of the generated records in one sort order; position p holds generated index `indexAt(p)`. */
export interface BaseOrder {
  readonly length: number;
  indexAt(position: number): number;
}

const TEXT_CACHE_SIZE = 2000;

/**
 * The records of one resource: the generated ones (never stored, rebuilt from their index) plus a small overlay of
 * records created, updated or deleted through the API. Memory grows with the overlay only, so a million-record shop
 * costs little until it is written to.
 */
export class ResourceStore<F extends BaseFacts> {
  /** Generated indices that were updated (their current version is in the overlay) or deleted. */
  private readonly shadowed = new Set<number>();
  private readonly overlay = new Map<bigint, Entry<F>>();
  private readonly texts = new Map<number, string>();
  private textCacheSize = TEXT_CACHE_SIZE;
  private readonly baseOrders = new Map<string, BaseOrder>();
  private readonly overlaySortCache = new Map<string, { version: number; entries: Entry<F>[] }>();
  private created = 0;
  /** Bumped by every write; caches keyed on it (counts, sorted overlays, candidate lists) go stale with it. */
  version = 0;

  constructor(
    readonly model: ResourceModel<F>,
    private readonly ids: IdSpace,
    /** The generated default sort follows index order (orders: created_at grows with the index). */
    private readonly defaultFollowsIndex: 'ascending' | 'descending' | null,
  ) {}

  get size(): number {
    return this.model.size - this.shadowed.size + this.overlay.size;
  }

  find(id: bigint): Entry<F> | undefined {
    const held = this.overlay.get(id);
    if (held) return held;
    const index = this.ids.indexOf(id);
    if (index < 0 || index >= this.model.size || this.shadowed.has(index)) return undefined;
    return { facts: this.model.facts(index) };
  }

  shadowedIndices(): IterableIterator<number> {
    return this.shadowed.values();
  }

  isShadowed(index: number): boolean {
    return this.shadowed.has(index);
  }

  recordOf(entry: Entry<F>): JsonObject {
    return entry.record ?? this.model.build(entry.facts);
  }

  /** The served JSON text of a record; generated records are cached in a small LRU. */
  textOf(entry: Entry<F>): string {
    if (entry.record) return serialize(entry.record);
    const index = entry.facts.index;
    const cached = this.texts.get(index);
    if (cached !== undefined) {
      this.texts.delete(index);
      this.texts.set(index, cached);
      return cached;
    }
    const text = serialize(this.model.build(entry.facts));
    this.texts.set(index, text);
    if (this.texts.size > this.textCacheSize) this.texts.delete(this.texts.keys().next().value as number);
    return text;
  }

  /** Keeps the served text of every generated record from now on (see ShopOptions.prerender). */
  prerender(): void {
    this.textCacheSize = Number.POSITIVE_INFINITY;
    for (let index = 0; index < this.model.size; index++) this.textOf({ facts: this.model.facts(index) });
  }

  /** The index and size class `allocate` will hand out next, without taking it (to validate children's ids first). */
  nextIndex(): { index: number; big: boolean } {
    const index = this.model.size + this.created;
    return { index, big: this.ids.isBig(index) };
  }

  /** A fresh index and id for a record created now (indices past the generated ones). */
  allocate(): { index: number; id: bigint; big: boolean } {
    const index = this.model.size + this.created++;
    return { index, id: this.ids.idOf(index), big: this.ids.isBig(index) };
  }

  /** Stores the current version of a record (created or updated); the generated version, if any, is hidden. */
  save(record: JsonObject, previous?: Entry<F>): Entry<F> {
    const entry: Entry<F> = { facts: this.model.factsOf(record), record };
    if (previous && !previous.record) this.shadowed.add(previous.facts.index);
    this.overlay.set(entry.facts.id, entry);
    this.version++;
    return entry;
  }

  remove(entry: Entry<F>): void {
    if (entry.record) this.overlay.delete(entry.facts.id);
    else this.shadowed.add(entry.facts.index);
    this.version++;
  }

  *entries(): Generator<Entry<F>> {
    for (let index = 0; index < this.model.size; index++) {
      if (!this.shadowed.has(index)) yield { facts: this.model.facts(index) };
    }
    yield* this.overlay.values();
  }

  overlayEntries(): IterableIterator<Entry<F>> {
    return this.overlay.values();
  }

  /** Overlay records in the given sort order (rebuilt after writes; the overlay is small). */
  sortedOverlay(sort: SortSpec<F>): Entry<F>[] {
    const cached = this.overlaySortCache.get(sort.kind);
    if (cached && cached.version === this.version) return cached.entries;
    const entries = [...this.overlay.values()].sort((a, b) => compareFacts(sort, a.facts, b.facts));
    this.overlaySortCache.set(sort.kind, { version: this.version, entries });
    return entries;
  }

  /**
   * The generated records in a sort order, built once on first use. Id order and index-following orders need no
   * table; other orders sort a Uint32Array of indices (4 bytes per record).
   */
  baseOrder(sort: SortSpec<F>): BaseOrder {
    let order = this.baseOrders.get(sort.kind);
    if (order) return order;
    const size = this.model.size;
    if (sort.kind === 'id') order = this.idOrder();
    else if (this.defaultFollowsIndex === 'ascending') order = { length: size, indexAt: (p) => p };
    else if (this.defaultFollowsIndex === 'descending') order = { length: size, indexAt: (p) => size - 1 - p };
    else {
      const values: (string | number | bigint)[] = new Array(size);
      for (let index = 0; index < size; index++) values[index] = sort.value(this.model.facts(index));
      const indices = new Uint32Array(size);
      for (let index = 0; index < size; index++) indices[index] = index;
      const direction = sort.descending ? -1 : 1;
      indices.sort((a, b) => {
        const byValue = compareSortValues(values[a] as string, values[b] as string);
        if (byValue !== 0) return direction * byValue;
        return direction * compareSortValues(this.ids.idOf(a), this.ids.idOf(b));
      });
      order = { length: size, indexAt: (p) => indices[p] as number };
    }
    this.baseOrders.set(sort.kind, order);
    return order;
  }

  private idOrder(): BaseOrder {
    const size = this.model.size;
    let bigCount = 0;
    for (let index = 0; index < size; index++) if (this.ids.isBig(index)) bigCount++;
    if (bigCount === 0) return { length: size, indexAt: (p) => p };
    // Normal ids grow with the index, big ids too, and every big id is above every normal one.
    const indices = new Uint32Array(size);
    let normal = 0;
    let big = size - bigCount;
    for (let index = 0; index < size; index++) {
      if (this.ids.isBig(index)) indices[big++] = index;
      else indices[normal++] = index;
    }
    return { length: size, indexAt: (p) => indices[p] as number };
  }
}

export function compareFacts<F extends BaseFacts>(sort: SortSpec<F>, a: F, b: F): number {
  const direction = sort.descending ? -1 : 1;
  const byValue = compareSortValues(sort.value(a), sort.value(b));
  return direction * (byValue !== 0 ? byValue : compareSortValues(a.id, b.id));
}

/** JSON.stringify is several times faster than a replacer; it throws on bigint, which only shops with big ids pay. */
export function serialize(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (error instanceof TypeError) return stringifyJson(value);
    throw error;
  }
}
