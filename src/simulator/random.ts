/**
 * Seeded randomness for the simulated shop. Every record is generated from `(seed, stream, index)` alone, so any record
 * of a million-record shop can be rebuilt on demand, in any order, identically.
 */

/** Mixes integers into one uniformly spread uint32 (FNV-style fold, then the murmur3 finaliser). */
export function hash32(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    h = Math.imul(h ^ (part | 0), 0x01000193);
    h = Math.imul(h ^ Math.floor(part / 0x100000000), 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A uniform number in [0, 1) drawn from `hash32(...parts)`. */
export function unitHash(...parts: number[]): number {
  return hash32(...parts) / 0x100000000;
}

const HEX_BYTES: readonly string[] = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

function hexByte(byte: number): string {
  return HEX_BYTES[byte] as string;
}

/** mulberry32: small, fast and good enough for test data; one instance per record keeps records independent. */
export class Rng {
  private state: number;

  constructor(...seedParts: number[]) {
    this.state = hash32(...seedParts);
  }

  uint32(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.uint32() / 0x100000000;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** Uniform integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(probability: number): boolean {
    return this.float() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  /** Picks by weight: `weighted([['a', 3], ['b', 1]])` returns 'a' three times as often as 'b'. */
  weighted<T>(choices: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, weight] of choices) total += weight;
    let roll = this.float() * total;
    for (const [value, weight] of choices) {
      roll -= weight;
      if (roll < 0) return value;
    }
    return (choices[choices.length - 1] as readonly [T, number])[0];
  }

  /** Lowercase hex digits, 8 per uint32 drawn (high byte first); a byte table is ten times toString(16) here. */
  hex(length: number): string {
    let out = '';
    while (out.length < length) {
      const value = this.uint32();
      out +=
        hexByte(value >>> 24) + hexByte((value >>> 16) & 0xff) + hexByte((value >>> 8) & 0xff) + hexByte(value & 0xff);
    }
    return out.length === length ? out : out.slice(0, length);
  }
}

/** Stream numbers keep the draws of different record kinds apart even for the same index. */
export const STREAM = {
  productFacts: 11,
  productBody: 12,
  productVariants: 13,
  customerFacts: 21,
  customerBody: 22,
  orderFacts: 31,
  orderBody: 32,
  bigIds: 41,
  idJitter: 42,
  faults: 51,
  churn: 52,
  latency: 53,
  oversizedPages: 54,
  lostAnswers: 55,
  token: 61,
} as const;
