import { hash32, STREAM, unitHash } from './random.js';

/** Ids become JSON numbers when they are safe and bigint (bare integer literals on the wire) when they are not. */
export type WireId = number | bigint;

export function wireId(id: bigint): WireId {
  return id <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(id) : id;
}

/** Ids of one record kind: realistic 13-digit ids, and a seeded share of 18-digit ids above 2^53. */
const STRIDE = 1000n;
const JITTER = 900;

export interface IdSpaceBases {
  normal: bigint;
  big: bigint;
}

/**
 * Index i (0-based; indices ≥ the generated size are records created later) maps to one id, increasing with i among
 * normal ids and among big ids, so `since_id` and lookups by id are O(1)/O(log n) without any table.
 */
export class IdSpace {
  constructor(
    private readonly seed: number,
    private readonly kind: number,
    private readonly bases: IdSpaceBases,
    private readonly bigShare: number,
  ) {}

  isBig(index: number): boolean {
    return this.bigShare > 0 && unitHash(this.seed, STREAM.bigIds, this.kind, index) < this.bigShare;
  }

  idOf(index: number): bigint {
    const base = this.isBig(index) ? this.bases.big : this.bases.normal;
    return base + BigInt(index) * STRIDE + BigInt(hash32(this.seed, STREAM.idJitter, this.kind, index) % JITTER);
  }

  /** The index an id belongs to, or -1 when no index produces exactly this id. */
  indexOf(id: bigint): number {
    const big = id >= this.bases.big;
    const base = big ? this.bases.big : this.bases.normal;
    if (id < base) return -1;
    const index = Number((id - base) / STRIDE);
    if (!Number.isSafeInteger(index) || index > 0x7fffffff) return -1;
    return this.isBig(index) === big && this.idOf(index) === id ? index : -1;
  }
}

/** Id of a nested object (variant, line item, address, …): `k`-th child of the record at `index`. */
export function childId(base: bigint, index: number, k: number, big: boolean): WireId {
  const offset = big ? 1_000_000_000_000_000_000n : 0n;
  return wireId(base + offset + BigInt(index) * 100n + BigInt(k));
}

export const ID_BASES = {
  products: { normal: 7_400_000_000_000n, big: 610_000_000_000_000_000n },
  customers: { normal: 6_100_000_000_000n, big: 115_000_000_000_000_000n },
  orders: { normal: 5_200_000_000_000n, big: 820_000_000_000_000_000n },
} as const;

/** Bases of nested ids; a big parent gives its children big ids too, so exporters meet them at every depth. */
export const CHILD_BASES = {
  variant: 40_000_000_000_000n,
  option: 9_100_000_000_000n,
  image: 30_000_000_000_000n,
  inventoryItem: 42_000_000_000_000n,
  address: 8_200_000_000_000n,
  lineItem: 12_000_000_000_000n,
  shippingLine: 3_900_000_000_000n,
  fulfillment: 4_300_000_000_000n,
  refund: 8_900_000_000_000n,
  refundLineItem: 1_060_000_000_000n,
  transaction: 5_900_000_000_000n,
  checkout: 2_500_000_000_000n,
  location: 655_441_491n,
  user: 548_380_009n,
} as const;
