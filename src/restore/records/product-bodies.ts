import type { JsonObject, JsonValue } from '../../shopify/json.js';
import { fieldDiff, topField } from './field-diff.js';
import { type IdLookup, idLookup, idText, wireId } from './ids.js';
import { withMarker, withoutMarkerTags } from './natural-keys.js';
import { children, type Pair, pairImages, pairVariants } from './pairing.js';
import { RESTORABLE } from './restorable.js';
import { type FixedChange, present, type RecordUpdate } from './update.js';
import { tagList } from './values.js';

/** Products take at most this many variants in 2022-01. */
export const MAX_VARIANTS = 100;

/** The product's own fields, written as they are (the others are read or written specially). */
const PRODUCT_TEXT = RESTORABLE.products.fields.filter(
  (field) => !['published', 'tags', 'options', 'variants', 'images'].includes(field),
);
const VARIANT_FIELDS = (RESTORABLE.products.children.variants ?? []).filter((field) => field !== 'image_id');

/**
 * `POST products.json` for a snapshot product: its fields, options, variants and images in one create, with the
 * provenance marker among its metafields. Images go by `src` (the snapshot's address, which must still be reachable; `images: false`
 * leaves them out, for a retry when an address is gone); their links to variants need the new variant ids, so they
 * follow in `imageLinksBody`.
 */
export function productCreateBody(snapshot: JsonObject, options: { images?: boolean } = {}): JsonObject {
  const source = idText(snapshot.id) as string;
  const fields = present({
    ...Object.fromEntries(PRODUCT_TEXT.map((field) => [field, snapshot[field]])),
    published: isPublished(snapshot),
    tags: tagList(snapshot.tags).join(', '),
    options: children(snapshot.options).map((option) => present({ name: option.name, values: option.values })),
    variants: children(snapshot.variants).map((variant) => variantFields(variant)),
    images: options.images === false ? undefined : children(snapshot.images).map(newImage),
  });
  return { product: withMarker('products', fields, source) };
}

/**
 * The snapshot's variant and image ids paired with those of the product restore just created (by option values and
 * position, as they were sent): the id map's entries.
 */
export function createdChildIds(snapshot: JsonObject, created: JsonObject): { variants: IdPair[]; images: IdPair[] } {
  const none = idLookup({});
  return {
    variants: idPairs(pairVariants(snapshot, created, none)),
    images: idPairs(pairImages(snapshot, created, none)),
  };
}

export type IdPair = [source: string, target: string];

/**
 * `PUT products/{id}.json` linking the created product's images to its variants as in the snapshot, or undefined when
 * the snapshot has no such links. The images array is a full set, so every image of the created product is listed.
 */
export function imageLinksBody(snapshot: JsonObject, created: JsonObject): JsonObject | undefined {
  if (!hasImageLinks(snapshot)) return undefined;
  const none = idLookup({});
  const variantIds = new Map(idPairs(pairVariants(snapshot, created, none)));
  const pairs = pairImages(snapshot, created, none);
  if (!pairs.some((p) => linkedVariants(p.snapshot, variantIds).length > 0)) return undefined;
  const images = pairs.flatMap((p) =>
    p.target === undefined
      ? []
      : [{ id: p.target.id as JsonValue, variant_ids: linkedVariants(p.snapshot, variantIds) }],
  );
  return { product: { id: created.id as JsonValue, images } };
}

/** Whether a product's images show some of its variants: then its create is followed by imageLinksBody's PUT. */
export function hasImageLinks(snapshot: JsonObject): boolean {
  return children(snapshot.images).some((image) => Array.isArray(image.variant_ids) && image.variant_ids.length > 0);
}

/**
 * The snapshot variants the target product has no counterpart for (deleted since, or never created), each with its
 * `POST products/{id}/variants.json` body. Re-create them before productUpdate: a product PUT deletes every variant
 * its array does not name, so the update must see them (in the target record and the id map).
 */
export function lostVariants(
  snapshot: JsonObject,
  target: JsonObject,
  ids: IdLookup,
): Array<{ sourceId: string; body: JsonObject }> {
  return pairVariants(snapshot, target, ids).flatMap((p) =>
    p.snapshot !== undefined && p.target === undefined
      ? [{ sourceId: idText(p.snapshot.id) as string, body: { variant: variantFields(p.snapshot) } }]
      : [],
  );
}

/**
 * `PUT products/{id}.json` bringing an existing product to the snapshot's restorable fields, or no body when they are
 * equal. Scalars go when they differ. The variants and images arrays are full sets in a product PUT: when they differ
 * every kept variant and image is named by id (with the snapshot's values where it has a counterpart), images the
 * product lost are added by `src` with their variant links, and those the snapshot does not have are kept unless
 * `prune`. Option names follow the snapshot when the number of options is the same.
 */
export function productUpdate(
  snapshot: JsonObject,
  target: JsonObject,
  ids: IdLookup,
  options: { prune?: boolean } = {},
): RecordUpdate {
  const diff = fieldDiff('products', snapshot, target, ids);
  const changed = new Set(diff.map((change) => topField(change.path)));
  const cannotRollBack: FixedChange[] = [];
  const body: JsonObject = { id: target.id as JsonValue };
  for (const field of PRODUCT_TEXT) if (changed.has(field)) body[field] = snapshot[field] ?? null;
  if (changed.has('published')) body.published = isPublished(snapshot);
  if (changed.has('tags')) body.tags = withoutMarkerTags(tagList(snapshot.tags)).join(', ');
  const variantPairs = pairVariants(snapshot, target, ids);
  const imagePairs = pairImages(snapshot, target, ids);
  const variantIds = new Map(idPairs(variantPairs));
  const prune = options.prune === true;
  const at = (field: 'variants' | 'images', pairs: readonly Pair[]) =>
    diff.flatMap((change) => {
      const found = new RegExp(`^\\$\\.${field}\\[(\\d+)\\](.*)$`).exec(change.path);
      const pair = found === null ? undefined : pairs[Number(found[1])];
      return pair === undefined ? [] : [{ change, pair, rest: found?.[2] as string }];
    });
  for (const { change, pair } of [...at('variants', variantPairs), ...at('images', imagePairs)]) {
    if (pair.snapshot === undefined && !prune) {
      cannotRollBack.push({ ...change, reason: 'the snapshot does not have it: kept (--prune deletes it)' });
    }
  }
  // Links show on both sides (a variant's image_id, an image's variant_ids); the images array writes them.
  const variantsDiffer = at('variants', variantPairs).some(
    ({ pair, rest }) => pair.target !== undefined && (pair.snapshot === undefined ? prune : rest !== '.image_id'),
  );
  const imagesDiffer =
    at('variants', variantPairs).some(({ pair, rest }) => pair.snapshot && pair.target && rest === '.image_id') ||
    at('images', imagePairs).some(({ pair }) => pair.snapshot !== undefined || prune);
  if (variantsDiffer) {
    // A variant the target lacks is not named: lostVariants re-creates it through the variant endpoint.
    body.variants = variantPairs.flatMap((p) => {
      if (p.target === undefined) return [];
      if (p.snapshot === undefined) return prune ? [] : [{ id: p.target.id as JsonValue }];
      return [{ id: p.target.id as JsonValue, ...variantFields(p.snapshot, false) }];
    });
  }
  if (imagesDiffer) {
    body.images = imagePairs.flatMap((p: Pair): JsonValue[] => {
      if (p.snapshot === undefined) return prune ? [] : [{ id: p.target?.id as JsonValue }];
      const links = { variant_ids: linkedVariants(p.snapshot, variantIds) };
      if (p.target === undefined) return [{ ...newImage(p.snapshot), ...links }];
      return [
        { id: p.target.id as JsonValue, alt: p.snapshot.alt ?? null, position: p.snapshot.position ?? null, ...links },
      ];
    });
  }
  if (changed.has('options')) {
    const wanted = children(snapshot.options);
    const held = children(target.options);
    if (wanted.length === held.length) {
      body.options = held.map((option, k) => ({ id: option.id as JsonValue, name: wanted[k]?.name ?? null }));
    } else {
      const reason = 'adding or removing an option changes every variant of the product; restore does not';
      for (const change of diff.filter((c) => topField(c.path) === 'options'))
        cannotRollBack.push({ ...change, reason });
    }
  }
  return { body: Object.keys(body).length > 1 ? { product: body } : undefined, cannotRollBack };
}

function variantFields(variant: JsonObject, dropNulls = true): JsonObject {
  const entries = Object.fromEntries(VARIANT_FIELDS.map((field) => [field, variant[field]]));
  return dropNulls ? present(entries) : Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, v ?? null]));
}

function newImage(image: JsonObject): JsonObject {
  return present({ src: image.src, alt: image.alt, position: image.position });
}

/** The target ids of the variants a snapshot image shows, through the variant pairing. */
function linkedVariants(image: JsonObject | undefined, variantIds: ReadonlyMap<string, string>): JsonValue[] {
  const ids = Array.isArray(image?.variant_ids) ? image.variant_ids : [];
  return ids.flatMap((id) => {
    const target = variantIds.get(idText(id) ?? '');
    return target === undefined ? [] : [wireId(target)];
  });
}

function idPairs(pairs: readonly Pair[]): IdPair[] {
  return pairs.flatMap((p) => {
    const source = idText(p.snapshot?.id);
    const target = idText(p.target?.id);
    return source !== undefined && target !== undefined ? [[source, target] as IdPair] : [];
  });
}

function isPublished(product: JsonObject): boolean {
  return product.published_at !== null && product.published_at !== undefined;
}
