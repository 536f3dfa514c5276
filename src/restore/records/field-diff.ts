import { isJsonObject, type JsonObject, type JsonValue } from '../../shopify/json.js';
import { type FieldChange, fieldChanges, type SameLeaf, sameScalar } from '../../shopify/json-diff.js';
import type { ResourceName } from '../../shopify/resources.js';
import { type IdKind, type IdLookup, idText } from './ids.js';
import { MARKER_ATTRIBUTE, noteAttributes, withoutMarkerTags } from './natural-keys.js';
import { children, type Pair, pairAddresses, pairImages, pairVariants } from './pairing.js';
import { FROM_VARIANT, RESTORABLE } from './restorable.js';
import { canonicalDecimal, canonicalInstant, emailKey, phoneKey, tagList } from './values.js';

export type { FieldChange } from '../../shopify/json-diff.js';

/**
 * Where a target record differs from the snapshot's on the restorable fields (restorable.ts), as JSON paths with the
 * snapshot's value (`before`) and the target's (`after`). The snapshot's references are read through the id maps
 * (and the pairing of a product's variants and images), so a restored copy with new ids is equal. Not differences:
 * how a decimal is written (`19.90` is `19.9`), a time's offset (the same instant), an email's case, a phone's
 * punctuation, the order of tags, restore's provenance marker. Child arrays are compared pair by pair (pairing.ts):
 * `$.variants[2]` is the snapshot's third variant and its counterpart.
 */
export function fieldDiff(
  resource: ResourceName,
  snapshot: JsonObject,
  target: JsonObject,
  ids: IdLookup,
): FieldChange[] {
  const [before, after] = PROJECTIONS[resource](snapshot, target, ids);
  return fieldChanges(before, after, { same: sameRestorable });
}

/** The top-level restorable field a diff path names: `$.variants[0].price` → `variants`. */
export function topField(path: string): string {
  return /^\$\.([A-Za-z_][A-Za-z0-9_]*)/.exec(path)?.[1] ?? path;
}

const DECIMALS = new Set([
  'price',
  'compare_at_price',
  'amount',
  'rate',
  'weight',
  'subtotal_price',
  'total_discounts',
  'total_tax',
  'total_price',
]);
const INSTANTS = new Set(['processed_at']);

const sameRestorable: SameLeaf = (before, after, key) => {
  if (key === undefined) return sameScalar(before, after);
  const read = DECIMALS.has(key)
    ? canonicalDecimal
    : INSTANTS.has(key)
      ? canonicalInstant
      : key === 'email'
        ? emailKey
        : key === 'phone'
          ? phoneKey
          : undefined;
  if (read === undefined) return sameScalar(before, after);
  const a = read(before);
  const b = read(after);
  return a !== undefined && b !== undefined ? a === b : sameScalar(before, after);
};

type Projection = (snapshot: JsonObject, target: JsonObject, ids: IdLookup) => [JsonObject, JsonObject];

/** A child array projected pair by pair; a side without a counterpart holds nothing at that index. */
function sides(pairs: readonly Pair[], project: (item: JsonObject, side: 'snapshot' | 'target') => JsonObject) {
  const missing = undefined as unknown as JsonValue;
  return [
    pairs.map((p) => (p.snapshot === undefined ? missing : project(p.snapshot, 'snapshot'))),
    pairs.map((p) => (p.target === undefined ? missing : project(p.target, 'target'))),
  ] as const;
}

/** The listed fields of a record, absent ones as null (absent and null are the same content). */
function pick(record: JsonObject | undefined, fields: readonly string[]): JsonObject {
  return Object.fromEntries(fields.map((field) => [field, record?.[field] ?? null]));
}

/** Tags as compared: a customer's without restore's marker (the only resource whose marker is a tag). */
function tagsText(record: JsonObject, resource: ResourceName): string {
  const tags = tagList(record.tags);
  return (resource === 'customers' ? withoutMarkerTags(tags) : tags).join(', ');
}

/** The snapshot's id as the target should hold it: mapped, the same (recover), else `absent`. */
function reference(kind: IdKind, source: JsonValue | undefined, held: JsonValue | undefined, ids: IdLookup) {
  const id = idText(source);
  if (id === undefined) return null;
  return ids.target(kind, id) ?? (idText(held) === id ? id : undefined);
}

const products: Projection = (snapshot, target, ids) => {
  const spec = RESTORABLE.products;
  const variantPairs = pairVariants(snapshot, target, ids);
  const imagePairs = pairImages(snapshot, target, ids);
  const counterpart = (pairs: readonly Pair[]) =>
    new Map(
      pairs.flatMap((p) => {
        const from = idText(p.snapshot?.id);
        const to = idText(p.target?.id);
        return from !== undefined && to !== undefined ? [[from, to] as const] : [];
      }),
    );
  const variantIds = counterpart(variantPairs);
  const imageIds = counterpart(imagePairs);
  // A snapshot reference without a counterpart stays the snapshot's id, which the target cannot hold: a difference.
  const through = (map: Map<string, string>, side: 'snapshot' | 'target', value: JsonValue | undefined) => {
    const id = idText(value);
    return id === undefined ? null : side === 'snapshot' ? (map.get(id) ?? id) : id;
  };
  const variants = sides(variantPairs, (variant, side) => ({
    ...pick(variant, spec.children.variants ?? []),
    image_id: through(imageIds, side, variant.image_id),
  }));
  const images = sides(imagePairs, (image, side) => ({
    ...pick(image, spec.children.images ?? []),
    variant_ids: (Array.isArray(image.variant_ids) ? image.variant_ids : [])
      .map((id) => through(variantIds, side, id))
      .filter((id): id is string => id !== null)
      .sort(),
  }));
  const project = (record: JsonObject, side: 0 | 1): JsonObject => ({
    ...pick(record, spec.fields),
    published: record.published_at !== null && record.published_at !== undefined,
    tags: tagsText(record, 'products'),
    options: children(record.options).map((option) => pick(option, spec.children.options ?? [])),
    variants: variants[side] as JsonValue[],
    images: images[side] as JsonValue[],
  });
  return [project(snapshot, 0), project(target, 1)];
};

const customers: Projection = (snapshot, target) => {
  const spec = RESTORABLE.customers;
  const addresses = sides(pairAddresses(snapshot, target), (address) => pick(address, spec.children.addresses ?? []));
  const project = (record: JsonObject, side: 0 | 1): JsonObject => ({
    ...pick(record, spec.fields),
    tags: tagsText(record, 'customers'),
    addresses: addresses[side] as JsonValue[],
  });
  return [project(snapshot, 0), project(target, 1)];
};

const orders: Projection = (snapshot, target, ids) => {
  const spec = RESTORABLE.orders;
  const targetLines = children(target.line_items);
  // A variant without a counterpart is restored as a custom line item: no variant, no product.
  const variants = children(snapshot.line_items).map(
    (line, k) => reference('variants', line.variant_id, targetLines[k]?.variant_id, ids) ?? null,
  );
  const projectLines = (record: JsonObject, side: 0 | 1) =>
    children(record.line_items).map((line, k) => {
      const variant = variants[k] ?? null;
      const fields = (spec.children.line_items ?? []).filter((field) => variant === null || !FROM_VARIANT.has(field));
      const held = targetLines[k];
      return {
        ...pick(line, fields),
        ...(side === 0 && {
          variant_id: variant,
          product_id: variant === null ? null : (reference('products', line.product_id, held?.product_id, ids) ?? null),
        }),
        ...(side === 1 && { variant_id: idText(line.variant_id) ?? null, product_id: idText(line.product_id) ?? null }),
      };
    });
  // A snapshot customer without a counterpart is restored as none (as a guest order is: created without its email,
  // which would make order create link or create a customer, and given it afterwards).
  const customer = reference('customers', customerId(snapshot), customerId(target), ids) ?? null;
  const project = (record: JsonObject, side: 0 | 1): JsonObject => ({
    ...pick(record, spec.fields),
    fulfillment_status: record.fulfillment_status === 'fulfilled' ? 'fulfilled' : null,
    tags: tagsText(record, 'orders'),
    note_attributes: noteAttributes(record.note_attributes)
      .filter((item) => item.name !== MARKER_ATTRIBUTE)
      .map((item) => pick(item, spec.children.note_attributes ?? [])),
    billing_address: address(record.billing_address),
    shipping_address: address(record.shipping_address),
    line_items: projectLines(record, side),
    tax_lines: children(record.tax_lines).map((item) => pick(item, spec.children.tax_lines ?? [])),
    shipping_lines: children(record.shipping_lines).map((item) => pick(item, spec.children.shipping_lines ?? [])),
    discount_codes: children(record.discount_codes).map((item) => pick(item, spec.children.discount_codes ?? [])),
    cancelled: record.cancelled_at !== null && record.cancelled_at !== undefined,
    closed: record.closed_at !== null && record.closed_at !== undefined,
    customer: side === 0 ? customer : (customerId(record) ?? null),
  });
  return [project(snapshot, 0), project(target, 1)];
};

function customerId(order: JsonObject): string | undefined {
  return isJsonObject(order.customer) ? idText(order.customer.id) : undefined;
}

function address(value: JsonValue | undefined): JsonValue {
  return isJsonObject(value) ? pick(value, RESTORABLE.orders.children.billing_address ?? []) : null;
}

const PROJECTIONS: Record<ResourceName, Projection> = { products, customers, orders };
