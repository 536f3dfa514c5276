import type { JsonObject, JsonValue } from '../../shopify/json.js';
import { ERRORS } from '../errors.js';
import { slugify } from '../generate/context.js';
import type { ProductFacts } from '../generate/facts.js';
import { CHILD_BASES, childId, type WireId, wireId } from '../ids.js';
import { jsonReply, type Reply, ReplyError, type SimRequest } from '../reply.js';
import type { ShopState } from '../shop-state.js';
import { formatShopTime } from '../shop-time.js';
import type { Entry } from '../store.js';
import { isObject, normalizeTags, stringOr, timeInput, unwrap } from './envelope.js';
import { handleTaken, uniqueHandle } from './handles.js';
import { byPosition, linkImages, newImage, refuseUnknownImages, refuseWithoutFile, replaceImages } from './images.js';
import { metafieldKey, readMetafields, saveMetafields } from './metafields.js';
import { newVariant, optionNames, optionsOf, refuseDuplicateOptions, replaceVariants } from './variants.js';

const EDITABLE = ['body_html', 'vendor', 'product_type', 'template_suffix', 'published_scope'] as const;
const STATUSES = ['active', 'draft', 'archived'];

function titleOf(value: JsonValue | undefined): string {
  const title = typeof value === 'string' ? value.trim() : '';
  if (title === '') throw new ReplyError(ERRORS.validation({ title: ["can't be blank"] }));
  return title;
}

function statusOf(value: JsonValue | undefined): string {
  if (typeof value !== 'string' || !STATUSES.includes(value)) {
    throw new ReplyError(ERRORS.validation({ status: ['is not included in the list'] }));
  }
  return value;
}

function objects(value: JsonValue | undefined): JsonObject[] | undefined {
  return Array.isArray(value) ? value.filter(isObject) : undefined;
}

/** Where a product's index and size class come from: its id (generated and created ids both map back). */
export function productPlace(state: ShopState, id: bigint): { index: number; big: boolean } {
  const index = state.ctx.ids.products.indexOf(id);
  return { index, big: state.ctx.ids.products.isBig(index) };
}

/**
 * `published_at` as Shopify sets it: null for a product not published (`published: false`, or a draft); an archived
 * product keeps being published as it was when active (generated shops hold such products, so a restore must be able
 * to write them; whether 2022-01 publishes an archived product created as such is unverified); else the time given (whether 2022-01 keeps a historical value is unverified, restore.md §1.2: the simulated
 * shop keeps it), else the time it was published, else now.
 */
function publishedAt(input: JsonObject, status: string, current: JsonValue | undefined, now: string): JsonValue {
  const given = timeInput(input.published_at, 'published_at');
  if (input.published === false || input.published_at === null || status === 'draft') return null;
  if (given !== undefined) return formatShopTime(given);
  return typeof current === 'string' ? current : now;
}

/**
 * POST products.json → 201 {"product":{…}}: options, variants and images in one create; the handle made unique;
 * metafields on the product and its variants kept. 422 for a blank title, an unknown status, duplicate option values,
 * an image without a file or a bad metafield; 429 from the variant-creation limit.
 */
export function createProduct(state: ShopState, request: SimRequest): Reply {
  const input = unwrap(request, 'product');
  const title = titleOf(input.title);
  const status = input.status === undefined ? 'active' : statusOf(input.status);
  const metafields = readMetafields(input.metafields);
  const listed = objects(input.variants) ?? [];
  const variantInputs = listed.length > 0 ? listed : [{}];
  const variantMetafields = variantInputs.map((variant) => readMetafields(variant.metafields));
  refuseDuplicateOptions(variantInputs.map((variant) => ({ option1: 'Default Title', ...variant })));
  const imageInputs = objects(input.images) ?? [];
  for (const image of imageInputs) refuseWithoutFile(image);
  state.limits.checkVariants(state, variantInputs.length);

  const store = state.stores.products;
  const { index, id, big } = store.allocate();
  const productId = wireId(id);
  const nowMs = state.nowMs();
  const now = formatShopTime(nowMs);
  const variants = variantInputs.map((variant, k) => {
    const ids = {
      id: childId(CHILD_BASES.variant, index, k, big),
      productId,
      inventoryItemId: childId(CHILD_BASES.inventoryItem, index, k, big),
    };
    const made = newVariant(variant, ids, now, state.ctx.currency);
    made.position = k + 1;
    return made;
  });
  const images = imageInputs.map((image, k) =>
    newImage(image, { id: childId(CHILD_BASES.image, index, k, big), productId }, k + 1, { text: now, ms: nowMs }),
  );
  linkImages(variants, images, undefined);
  const wantedHandle = stringOr(input.handle, '')?.trim() || slugify(title);
  const record: JsonObject = {
    id: productId,
    title,
    body_html: stringOr(input.body_html, ''),
    vendor: stringOr(input.vendor, state.ctx.shopDomain.split('.')[0] ?? ''),
    product_type: stringOr(input.product_type, ''),
    created_at: now,
    handle: uniqueHandle((handle) => handleTaken(state, handle, null), wantedHandle),
    updated_at: now,
    published_at: publishedAt(input, status, undefined, now),
    template_suffix: stringOr(input.template_suffix, null),
    status,
    published_scope: stringOr(input.published_scope, 'web'),
    tags: normalizeTags(input.tags) ?? '',
    admin_graphql_api_id: `gid://shopify/Product/${productId}`,
    variants,
    options: optionsOf(productId, variants, index, big, optionNames(input.options)),
    images,
    image: images[0] ?? null,
  };
  store.save(record);
  saveMetafields(state, 'product', productId, metafields, now, big);
  variants.forEach((variant, k) => {
    saveMetafields(state, 'variant', variant.id as WireId, variantMetafields[k] ?? [], now, big);
  });
  state.limits.variantsCreated(variants.length);
  return jsonReply(201, { product: record }, 1);
}

export function existingProduct(state: ShopState, id: bigint): Entry<ProductFacts> {
  const entry = state.stores.products.find(id);
  if (!entry) throw new ReplyError(ERRORS.notFound());
  return entry;
}

/**
 * PUT products/{id}.json: scalar fields are partial (omitted ones kept); `variants` and `images` are whole sets that
 * replace the product's (see replaceVariants, replaceImages); a new handle is made unique; bumps updated_at.
 */
export function updateProduct(state: ShopState, request: SimRequest, id: bigint): Reply {
  const store = state.stores.products;
  const entry = existingProduct(state, id);
  const input = unwrap(request, 'product');
  const record = structuredClone(store.recordOf(entry));
  const { index, big } = productPlace(state, id);
  const nowMs = state.nowMs();
  const now = formatShopTime(nowMs);
  const currency = state.ctx.currency;
  if (input.title !== undefined) record.title = titleOf(input.title);
  if (input.status !== undefined) record.status = statusOf(input.status);
  for (const key of EDITABLE) if (typeof input[key] === 'string' || input[key] === null) record[key] = input[key];
  if (typeof input.handle === 'string' && input.handle.trim() !== '' && input.handle !== record.handle) {
    record.handle = uniqueHandle((handle) => handleTaken(state, handle, id), input.handle.trim());
  }
  const tags = normalizeTags(input.tags);
  if (tags !== undefined) record.tags = tags;
  if (input.published !== undefined || input.published_at !== undefined || input.status !== undefined) {
    record.published_at = publishedAt(input, record.status as string, record.published_at, now);
  }
  const metafields = readMetafields(input.metafields);

  const variantInputs = objects(input.variants);
  let variants = record.variants as JsonObject[];
  let created: JsonObject[] = [];
  let removed: JsonObject[] = [];
  if (variantInputs) {
    const make = (variant: JsonObject) => {
      const ids = {
        id: state.ledger.childId('variant', big),
        productId: record.id as JsonValue,
        inventoryItemId: state.ledger.childId('inventoryItem', big),
      };
      return newVariant(variant, ids, now, currency);
    };
    ({ variants, created, removed } = replaceVariants(
      variants,
      variantInputs.length > 0 ? variantInputs : [{}],
      make,
      now,
      currency,
    ));
    state.limits.checkVariants(state, created.length);
  }
  const listed = objects(input.images);
  const imageInputs = listed && byPosition(listed);
  let images = record.images as JsonObject[];
  if (imageInputs) {
    const make = (image: JsonObject, position: number) =>
      newImage(image, { id: state.ledger.childId('image', big), productId: record.id as JsonValue }, position, {
        text: now,
        ms: nowMs,
      });
    images = replaceImages(images, imageInputs, make, { text: now, ms: nowMs });
  }
  refuseUnknownImages(variantInputs ?? [], images);
  linkImages(variants, images, imageInputs);
  const previousNames = (record.options as JsonObject[]).map((option) => stringOr(option.name, null) ?? undefined);
  const names = optionNames(input.options);
  record.variants = variants;
  record.options = optionsOf(
    record.id as JsonValue,
    variants,
    index,
    big,
    [0, 1, 2].map((k) => names[k] ?? previousNames[k]),
  );
  record.images = images;
  record.image = images[0] ?? null;
  record.updated_at = now;
  store.save(record, entry);

  for (const variant of created) state.ledger.variantOwners.set(BigInt(String(variant.id)), id);
  for (const variant of removed) {
    state.ledger.variantOwners.delete(BigInt(String(variant.id)));
    state.ledger.metafields.delete(metafieldKey('variant', BigInt(String(variant.id))));
  }
  saveMetafields(state, 'product', record.id as WireId, metafields, now, big);
  state.limits.variantsCreated(created.length);
  return jsonReply(200, { product: record }, 1);
}

/** DELETE products/{id}.json → 200 {}: the product goes with its variants, images and metafields. */
export function deleteProduct(state: ShopState, id: bigint): Reply {
  const store = state.stores.products;
  const entry = existingProduct(state, id);
  for (const variant of store.recordOf(entry).variants as JsonObject[]) {
    const variantId = BigInt(String(variant.id));
    state.ledger.variantOwners.delete(variantId);
    state.ledger.metafields.delete(metafieldKey('variant', variantId));
  }
  state.ledger.metafields.delete(metafieldKey('product', id));
  store.remove(entry);
  return jsonReply(200, {});
}
