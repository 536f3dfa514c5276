import { type JsonObject, stringifyJson } from '../shopify/json.js';
import type { BaseFacts } from './generate/facts.js';
import type { IdSpace } from './ids.js';
import { jsonBytes } from './json-bytes.js';
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
  /** Position ranges [first, end) in which the index grows with the position; undefined when not known. */
  readonly ascendingRuns?: readonly (readonly [first: number, end: number])[];
}

const SERVED_CACHE_SIZE = 2000;

/**
 * The records of one resource: the generated ones (never stored, rebuilt from their index) plus a small overlay of
 * records created, updated or deleted through the API. Memory grows with the overlay only, so a million-record shop
 * costs little until it is written to.
 */
export class ResourceStore<F extends BaseFacts> {
  /** Generated indices that were updated (their current version is in the overlay) or deleted. */
  private readonly shadowed = new Set<number>();
  private readonly overlay = new Map<bigint, Entry<F>>();
  private readonly served = new Map<number, Uint8Array>();
  private servedCacheSize = SERVED_CACHE_SIZE;
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

  /**
   * `head`, the served JSON of the entries joined by commas, and `tail`, as UTF-8 bytes. A generated record's bytes
   * are kept in a small LRU for the next reply that serves it. Bytes rather than text: a kept string (two bytes a
   * character, as almost every order holds one above Latin-1) was copied out of V8's young generation by each
   * collection it survived; bytes live outside the heap, slices of the body they were sent in.
   */
  servedBody(head: string, entries: readonly Entry<F>[], tail: string): Buffer {
    const served = jsonBytes(head, entries, (entry) => this.servedOf(entry), tail);
    entries.forEach((entry, k) => {
      const part = served.parts[k];
      if (part?.encoded) this.keep(entry, part.bytes);
    });
    return served.body;
  }

  private servedOf(entry: Entry<F>): string | Uint8Array {
    if (entry.record) return serialize(entry.record);
    const index = entry.facts.index;
    const kept = this.served.get(index);
    if (kept === undefined) return serialize(this.model.build(entry.facts));
    this.served.delete(index);
    this.served.set(index, kept);
    return kept;
  }

  private keep(entry: Entry<F>, bytes: Uint8Array): void {
    if (entry.record) return;
    this.served.set(entry.facts.index, bytes);
    if (this.served.size > this.servedCacheSize) this.served.delete(this.served.keys().next().value as number);
  }

  /** Keeps the served bytes of every generated record from now on (see ShopOptions.prerender). */
  prerender(): void {
    this.servedCacheSize = Number.POSITIVE_INFINITY;
    for (let index = 0; index < this.model.size; index++) {
      const entry = { facts: this.model.facts(index) };
      this.keep(entry, Buffer.from(serialize(this.model.build(entry.facts))));
    }
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
    else if (this.defaultFollowsIndex === 'ascending')
      order = { length: size, indexAt: (p) => p, ascendingRuns: [[0, size]] };
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
    if (bigCount === 0) return { length: size, indexAt: (p) => p, ascendingRuns: [[0, size]] };
    // Normal ids grow with the index, big ids too, and every big id is above every normal one.
    const indices = new Uint32Array(size);
    let normal = 0;
    let big = size - bigCount;
    for (let index = 0; index < size; index++) {
      if (this.ids.isBig(index)) indices[big++] = index;
      else indices[normal++] = index;
    }
    return {
      length: size,
      indexAt: (p) => indices[p] as number,
      ascendingRuns: [
        [0, size - bigCount],
        [size - bigCount, size],
      ],
    };
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
