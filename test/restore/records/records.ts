import { readFileSync } from 'node:fs';
import { type IdKind, type IdLookup, idLookup, idText, wireId } from '../../../src/restore/records/ids.js';
import { isJsonObject, type JsonObject, type JsonValue, parseJson } from '../../../src/shopify/json.js';
import { type ResourceName, SINGULAR } from '../../../src/shopify/resources.js';

/** Just below 2^63: Shopify's example ids (under 2^31) moved by this stay int64. */
export const NEAR_2_63 = 2n ** 63n - 2n ** 31n;
/** Just above 2^53, where a JS number would round. */
export const ABOVE_2_53 = 2n ** 53n + 1n;

/**
 * Shopify's own 2022-01 example record (test/fixtures/api) with every id moved by `shift`, rewritten in the JSON text
 * before the lossless parse, so ids beyond 2^53 are what the snapshot's raw archive would hold.
 */
export function exampleRecord(resource: ResourceName, shift = 0n): JsonObject {
  const name = SINGULAR[resource];
  const text = readFileSync(new URL(`../../fixtures/api/${name}.json`, import.meta.url), 'utf8');
  const moved = text.replace(/(?<=[:[,]\s*)\d{8,10}(?=\s*[,\]}])/g, (id) => (BigInt(id) + shift).toString());
  return (parseJson(moved) as JsonObject)[name] as JsonObject;
}

/** Every integer of `value` that is a key of `ids` (by exact decimal text) replaced by its mapped id. */
export function renumbered<T extends JsonValue>(value: T, ids: ReadonlyMap<string, bigint>): T {
  if (typeof value === 'number' || typeof value === 'bigint') {
    const moved = ids.get(idText(value) ?? '');
    return (moved === undefined ? value : wireId(moved.toString())) as T;
  }
  if (Array.isArray(value)) return value.map((item) => renumbered(item, ids)) as T;
  if (isJsonObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renumbered(item, ids)])) as T;
  }
  return value;
}

/**
 * The ids of a record's own objects (the record, its variants, images, options, addresses, line items), each given a
 * new id from `base` on: a copy "restored" into another shop, and the id lookup from the old ids to the new.
 */
export function restoredCopy(
  record: JsonObject,
  base: bigint,
): { copy: JsonObject; ids: IdLookup; moved: Map<string, bigint> } {
  const moved = new Map<string, bigint>();
  const kinds: Partial<Record<IdKind, Map<string, string>>> = {};
  const give = (kind: IdKind | undefined, id: JsonValue | undefined) => {
    const text = idText(id);
    if (text === undefined || moved.has(text)) return;
    const next = base + BigInt(moved.size);
    moved.set(text, next);
    if (kind === undefined) return;
    kinds[kind] ??= new Map();
    kinds[kind].set(text, next.toString());
  };
  const own = (value: JsonValue | undefined) => (Array.isArray(value) ? value.filter(isJsonObject) : []);
  const kind: IdKind = 'variants' in record ? 'products' : 'line_items' in record ? 'orders' : 'customers';
  give(kind, record.id);
  for (const variant of own(record.variants)) give('variants', variant.id);
  for (const image of own(record.images)) give('images', image.id);
  for (const item of [...own(record.options), ...own(record.addresses), ...own(record.line_items)]) {
    give(undefined, item.id);
  }
  return { copy: renumbered(record, moved), ids: idLookup(kinds), moved };
}

/** A deep copy of a record changed by `edit`. */
export function edited(record: JsonObject, edit: (record: JsonObject) => void): JsonObject {
  const copy = structuredClone(record);
  edit(copy);
  return copy;
}

/** The address of Shopify's example customer and order (their phones differ). */
export const CHESTNUT_STREET = {
  address1: 'Chestnut Street 92',
  address2: '',
  city: 'Louisville',
  province: 'Kentucky',
  province_code: 'KY',
  country: 'United States',
  country_code: 'US',
  zip: '40202',
};
