import type { ShopClient } from '../source/shop-client.js';
import type { TargetIndex } from './records/natural-keys.js';
import { inHandleFamily, readProductMarker } from './shop-reads.js';
import type { TargetRecord } from './target.js';

/**
 * The provenance markers of the target's products, read where a plan's match depends on them. A product's marker is
 * a metafield, and product lists carry none, so the index starts without them; the plan asks for the products that
 * may be a snapshot product's copy (its handle, or that handle made unique with `-1`, `-2` …) when no id or journal
 * entry settles the match. One read per product, once; each marker read is set in the index.
 */
export class ProductMarkers {
  readonly #families = new Map<string, TargetRecord[]>();
  readonly #read = new Set<string>();
  #reads = 0;

  constructor(
    private readonly client: ShopClient,
    private readonly index: TargetIndex<TargetRecord>,
    products: Iterable<TargetRecord>,
  ) {
    for (const product of products) {
      const handle = typeof product.record.handle === 'string' ? product.record.handle : '';
      // A handle ending in -N may be another's made unique: it belongs to both families.
      for (const stem of new Set([handle, handle.replace(/-\d+$/, '')])) {
        this.#families.set(stem, [...(this.#families.get(stem) ?? []), product]);
      }
    }
  }

  /** Requests sent so far. */
  get reads(): number {
    return this.#reads;
  }

  /** Whether target products of this handle's family have markers not read yet. */
  unread(handle: string): boolean {
    return this.#family(handle).some((product) => !this.#read.has(product.id));
  }

  /** Reads the markers of this handle's family not read yet and sets them in the index. */
  async readFamily(handle: string): Promise<void> {
    const unread = this.#family(handle).filter((product) => !this.#read.has(product.id));
    for (const product of unread) this.#read.add(product.id);
    const markers = await Promise.all(unread.map((product) => readProductMarker(this.client, product.id)));
    this.#reads += unread.length;
    unread.forEach((product, k) => {
      this.index.mark(product.id, markers[k]);
    });
  }

  #family(handle: string): TargetRecord[] {
    return (this.#families.get(handle) ?? []).filter((product) =>
      inHandleFamily(String(product.record.handle ?? ''), handle),
    );
  }
}
