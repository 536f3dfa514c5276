/**
 * The ids a crawl has handed over, for deduplication: every record's id stays in it until the resource is done, so
 * at a million records a Set of id strings holds about 53 MB. Here an int64 id takes 8 bytes in an open-addressing
 * table kept at most half full (about 18 bytes an id): the same million in 18 MB. Ids are decimal integer strings
 * (the list page scanner makes them canonical); any other string, or an id outside int64, goes to a plain Set, so
 * the class behaves exactly as a Set of strings would.
 */
export class IdSet {
  /** Two 32-bit halves (high, low) of each slot's id; `occupied` says which slots hold one. */
  #halves = new Uint32Array(2 * MIN_CAPACITY);
  #occupied = new Uint8Array(MIN_CAPACITY);
  #packed = 0;
  readonly #others = new Set<string>();

  get size(): number {
    return this.#packed + this.#others.size;
  }

  has(id: string): boolean {
    const key = keyOf(id);
    if (key === undefined) return this.#others.has(id);
    return this.#occupied[this.#find(key.high, key.low)] === 1;
  }

  /** Adds the id; false when it was there already. */
  add(id: string): boolean {
    const key = keyOf(id);
    if (key === undefined) {
      const before = this.#others.size;
      this.#others.add(id);
      return this.#others.size > before;
    }
    const slot = this.#find(key.high, key.low);
    if (this.#occupied[slot] === 1) return false;
    this.#put(slot, key.high, key.low);
    if (2 * this.#packed > this.#occupied.length) this.#grow();
    return true;
  }

  /** The slot holding this id, or the empty slot where it belongs (linear probing). */
  #find(high: number, low: number): number {
    const mask = this.#occupied.length - 1;
    for (let slot = hash(high, low) & mask; ; slot = (slot + 1) & mask) {
      if (this.#occupied[slot] === 0) return slot;
      if (this.#halves[2 * slot] === high && this.#halves[2 * slot + 1] === low) return slot;
    }
  }

  #put(slot: number, high: number, low: number): void {
    this.#occupied[slot] = 1;
    this.#halves[2 * slot] = high;
    this.#halves[2 * slot + 1] = low;
    this.#packed++;
  }

  #grow(): void {
    const halves = this.#halves;
    const occupied = this.#occupied;
    this.#halves = new Uint32Array(2 * 2 * occupied.length);
    this.#occupied = new Uint8Array(2 * occupied.length);
    this.#packed = 0;
    for (let slot = 0; slot < occupied.length; slot++) {
      if (occupied[slot] !== 1) continue;
      const high = halves[2 * slot] as number;
      const low = halves[2 * slot + 1] as number;
      this.#put(this.#find(high, low), high, low);
    }
  }
}

const MIN_CAPACITY = 1024;
const TWO_TO_32 = 2 ** 32;
/** Up to 15 digits a decimal id is below 2^53, exact as a double: no BigInt needed. */
const SAFE_DIGITS = 15;
/** Canonical decimal integers only: "007" and "7" are different strings, so different ids. */
const CANONICAL = /^(?:0|-?[1-9]\d*)$/;

/** The id's 64 bits as two halves; undefined for a string that is not a canonical int64. */
function keyOf(id: string): { high: number; low: number } | undefined {
  if (!CANONICAL.test(id)) return undefined;
  if (id.length <= SAFE_DIGITS && id[0] !== '-') {
    const value = Number(id);
    return { high: Math.floor(value / TWO_TO_32), low: value >>> 0 };
  }
  const value = BigInt(id);
  if (BigInt.asIntN(64, value) !== value) return undefined;
  const bits = BigInt.asUintN(64, value);
  return { high: Number(bits >> 32n), low: Number(bits & 0xffffffffn) };
}

/** Mixes both halves (ids are often sequential in their low bits and equal in their high ones). */
function hash(high: number, low: number): number {
  let h = Math.imul(low ^ Math.imul(high, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 15;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 13)) >>> 0;
}
