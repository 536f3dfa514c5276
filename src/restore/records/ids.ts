import type { JsonValue } from '../../shopify/json.js';

/** The kinds of record whose ids a restore maps from the snapshot's shop to the target shop. */
export type IdKind = 'products' | 'variants' | 'images' | 'customers' | 'orders';

/**
 * Where a snapshot record's reference points in the target: the target id of the record the snapshot's id names, or
 * undefined when the target has none (not restored, not matched). Ids are exact decimal strings. In recover the
 * engine answers with the same id for records that still exist in the shop.
 */
export interface IdLookup {
  target(kind: IdKind, sourceId: string): string | undefined;
}

/** A lookup over source → target maps; kinds without a map have no targets. */
export function idLookup(maps: Partial<Record<IdKind, ReadonlyMap<string, string>>>): IdLookup {
  return { target: (kind, sourceId) => maps[kind]?.get(sourceId) };
}

const DECIMAL_ID = /^-?(?:0|[1-9]\d*)$/;

/**
 * The exact decimal text of an id as parsed by the lossless JSON reader (a safe number, a bigint beyond 2^53, or an
 * id sent as a decimal string); undefined for anything else (null, absent, a fraction).
 */
export function idText(value: JsonValue | undefined): string | undefined {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : undefined;
  if (typeof value === 'string' && DECIMAL_ID.test(value)) return BigInt(value).toString();
  return undefined;
}

/** An id as a request body carries it: a JSON number when safe, else a bigint (a bare integer literal on the wire). */
export function wireId(text: string): number | bigint {
  const exact = BigInt(text);
  return exact <= BigInt(Number.MAX_SAFE_INTEGER) && exact >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(exact) : exact;
}
