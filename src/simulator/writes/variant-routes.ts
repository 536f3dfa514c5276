import type { JsonObject, JsonValue } from '../../shopify/json.js';
import { ERRORS } from '../errors.js';
import { jsonReply, type Reply, ReplyError, type SimRequest } from '../reply.js';
import type { ShopState } from '../shop-state.js';
import { formatShopTime } from '../shop-time.js';
import { stringOr, unwrap } from './envelope.js';
import { linkImages, refuseUnknownImages } from './images.js';
import { readMetafields, saveMetafields } from './metafields.js';
import { existingProduct, productPlace } from './products.js';
import { applyVariantInput, findVariant, newVariant, optionsOf, refuseDuplicateOptions } from './variants.js';

/** A product's options rebuilt after one of its variants changed, keeping the option names. */
function refreshOptions(state: ShopState, product: JsonObject, productId: bigint): void {
  const { index, big } = productPlace(state, productId);
  const names = (product.options as JsonObject[]).map((option) => stringOr(option.name, null) ?? undefined);
  product.options = optionsOf(product.id as JsonValue, product.variants as JsonObject[], index, big, names);
}

/**
 * POST products/{id}/variants.json → 201 {"variant":{…}}: a variant with a new id, its options added to the
 * product's; 422 when a variant with the same options exists or its image is not the product's; 429 from the
 * variant-creation limit.
 */
export function createVariant(state: ShopState, request: SimRequest, id: bigint): Reply {
  const store = state.stores.products;
  const entry = existingProduct(state, id);
  const input = unwrap(request, 'variant');
  const metafields = readMetafields(input.metafields);
  const product = structuredClone(store.recordOf(entry));
  const variants = product.variants as JsonObject[];
  const { big } = productPlace(state, id);
  refuseDuplicateOptions([...variants, { option1: 'Default Title', ...input }]);
  refuseUnknownImages([input], product.images as JsonObject[]);
  state.limits.checkVariants(state, 1);
  const now = formatShopTime(state.nowMs());
  const ids = {
    id: state.ledger.childId('variant', big),
    productId: product.id as JsonValue,
    inventoryItemId: state.ledger.childId('inventoryItem', big),
  };
  // EX22 variant tests 9–11: the variant endpoint tracks stock by default, unlike a product create.
  const variant = newVariant({ inventory_management: 'shopify', ...input }, ids, now, state.ctx.currency);
  variant.position = variants.length + 1;
  variants.push(variant);
  linkImages(variants, product.images as JsonObject[], undefined);
  refreshOptions(state, product, id);
  product.updated_at = now;
  store.save(product, entry);
  state.ledger.variantOwners.set(BigInt(String(variant.id)), id);
  saveMetafields(state, 'variant', ids.id, metafields, now, big);
  state.limits.variantsCreated(1);
  return jsonReply(201, { variant }, 1);
}

function productOfVariant(state: ShopState, variantId: bigint) {
  const found = findVariant(state, variantId);
  if (!found) throw new ReplyError(ERRORS.notFound());
  return found;
}

/** GET variants/{id}.json → {"variant":{…}}. */
export function showVariant(state: ShopState, variantId: bigint): Reply {
  return jsonReply(200, { variant: productOfVariant(state, variantId).variant }, 1);
}

/**
 * PUT variants/{id}.json: the variant's writable fields (partial), one variant at a time, the way to repair a product
 * in place without replacing its variant array (restore.md §3.5). 422 for options another variant has or an image not
 * the product's. Bumps the variant's and the product's updated_at when something changed.
 */
export function updateVariant(state: ShopState, request: SimRequest, variantId: bigint): Reply {
  const store = state.stores.products;
  const found = productOfVariant(state, variantId);
  const productId = BigInt(String(found.product.id));
  const entry = existingProduct(state, productId);
  const input = unwrap(request, 'variant');
  const metafields = readMetafields(input.metafields);
  const product = structuredClone(store.recordOf(entry));
  const variants = product.variants as JsonObject[];
  const variant = variants.find((v) => String(v.id) === variantId.toString()) as JsonObject;
  const now = formatShopTime(state.nowMs());
  applyVariantInput(variant, input, now, state.ctx.currency);
  refuseDuplicateOptions(variants);
  refuseUnknownImages([input], product.images as JsonObject[]);
  linkImages(variants, product.images as JsonObject[], undefined);
  refreshOptions(state, product, productId);
  if (variant.updated_at === now) product.updated_at = now;
  store.save(product, entry);
  saveMetafields(state, 'variant', variant.id as bigint | number, metafields, now, productPlace(state, productId).big);
  return jsonReply(200, { variant }, 1);
}
