import type { JsonObject, JsonValue } from '../../shopify/json.js';
import { ERRORS } from '../errors.js';
import { slugify } from '../generate/context.js';
import type { ProductFacts } from '../generate/facts.js';
import { CHILD_BASES, childId, wireId } from '../ids.js';
import { centsOf, money } from '../money.js';
import { jsonReply, type Reply, ReplyError, type SimRequest } from '../reply.js';
import type { ShopState } from '../shop-state.js';
import { formatShopTime } from '../shop-time.js';
import type { Entry } from '../store.js';
import { isObject, normalizeTags, stringOr, unwrap } from './envelope.js';

const EDITABLE = ['body_html', 'vendor', 'product_type', 'template_suffix', 'published_scope', 'handle'] as const;
const STATUSES = ['active', 'draft', 'archived'];
/** Variants created through the API take child slots from here on, clear of the generated ones. */
const FIRST_API_VARIANT_SLOT = 10;

function variantRecord(
  input: JsonObject,
  ids: { id: JsonValue; productId: JsonValue; inventoryItemId: JsonValue },
  position: number,
  now: string,
  currency: string,
): JsonObject {
  const priceCents = centsOf(input.price ?? '0.00');
  const compare =
    input.compare_at_price === undefined || input.compare_at_price === null ? null : centsOf(input.compare_at_price);
  const grams = typeof input.grams === 'number' ? input.grams : 0;
  return {
    id: ids.id,
    product_id: ids.productId,
    title:
      [input.option1, input.option2, input.option3].filter((o) => typeof o === 'string').join(' / ') || 'Default Title',
    price: money(Number.isNaN(priceCents) ? 0 : priceCents),
    sku: stringOr(input.sku, ''),
    position,
    inventory_policy: stringOr(input.inventory_policy, 'deny'),
    compare_at_price: compare === null || Number.isNaN(compare) ? null : money(compare),
    fulfillment_service: 'manual',
    inventory_management: stringOr(input.inventory_management, 'shopify'),
    option1: stringOr(input.option1, position === 1 ? 'Default Title' : null),
    option2: stringOr(input.option2, null),
    option3: stringOr(input.option3, null),
    created_at: now,
    updated_at: now,
    taxable: input.taxable !== false,
    barcode: stringOr(input.barcode, null),
    grams,
    image_id: null,
    weight: Math.round(grams / 4.5359237) / 100,
    weight_unit: 'lb',
    inventory_item_id: ids.inventoryItemId,
    inventory_quantity: 0,
    old_inventory_quantity: 0,
    presentment_prices: [
      {
        price: { amount: money(Number.isNaN(priceCents) ? 0 : priceCents), currency_code: currency },
        compare_at_price: null,
      },
    ],
    requires_shipping: input.requires_shipping !== false,
    admin_graphql_api_id: `gid://shopify/ProductVariant/${String(ids.id)}`,
  };
}

function optionsOf(productId: JsonValue, variants: JsonObject[], index: number, big: boolean): JsonObject[] {
  const names = ['Title', 'Option2', 'Option3'];
  const options: JsonObject[] = [];
  for (let slot = 0; slot < 3; slot++) {
    const key = `option${slot + 1}`;
    const values = [...new Set(variants.map((v) => v[key]).filter((v): v is string => typeof v === 'string'))];
    if (values.length === 0) continue;
    options.push({
      id: childId(CHILD_BASES.option, index, slot, big),
      product_id: productId,
      name: names[slot] as string,
      position: slot + 1,
      values,
    });
  }
  return options;
}

/** POST products.json → 201 {"product":{…}}; 422 when the title is blank. */
export function createProduct(state: ShopState, request: SimRequest): Reply {
  const input = unwrap(request, 'product');
  const title = typeof input.title === 'string' ? input.title.trim() : '';
  if (title === '') throw new ReplyError(ERRORS.validation({ title: ["can't be blank"] }));
  const status = stringOr(input.status, 'active') as string;
  if (!STATUSES.includes(status)) throw new ReplyError(ERRORS.validation({ status: ['is not included in the list'] }));
  const store = state.stores.products;
  const { index, id, big } = store.allocate();
  const productId = wireId(id);
  const nowMs = state.nowMs();
  const now = formatShopTime(nowMs);
  const variantInputs =
    Array.isArray(input.variants) && input.variants.length > 0 ? input.variants.filter(isObject) : [{}];
  const variants = variantInputs.map((variant, k) =>
    variantRecord(
      variant,
      {
        id: childId(CHILD_BASES.variant, index, k, big),
        productId,
        inventoryItemId: childId(CHILD_BASES.inventoryItem, index, k, big),
      },
      k + 1,
      now,
      state.ctx.currency,
    ),
  );
  const images: JsonObject[] = (Array.isArray(input.images) ? input.images.filter(isObject) : []).map((image, k) => {
    const imageId = childId(CHILD_BASES.image, index, k, big);
    return {
      id: imageId,
      product_id: productId,
      position: k + 1,
      created_at: now,
      updated_at: now,
      alt: stringOr(image.alt, null),
      width: 0,
      height: 0,
      src: stringOr(image.src, `https://cdn.shopify.com/s/files/1/0005/4838/0009/products/${String(imageId)}.jpg`),
      variant_ids: [],
      admin_graphql_api_id: `gid://shopify/ProductImage/${String(imageId)}`,
    };
  });
  const published = input.published !== false && status === 'active';
  const record: JsonObject = {
    id: productId,
    title,
    body_html: stringOr(input.body_html, ''),
    vendor: stringOr(input.vendor, 'shopsnap-sim'),
    product_type: stringOr(input.product_type, ''),
    created_at: now,
    handle: stringOr(input.handle, `${slugify(title)}-${index + 1}`),
    updated_at: now,
    published_at: published ? now : null,
    template_suffix: stringOr(input.template_suffix, null),
    status,
    published_scope: stringOr(input.published_scope, 'web'),
    tags: normalizeTags(input.tags) ?? '',
    admin_graphql_api_id: `gid://shopify/Product/${productId}`,
    variants,
    options: optionsOf(productId, variants, index, big),
    images,
    image: images[0] ?? null,
  };
  store.save(record);
  return jsonReply(201, { product: record }, 1);
}

function existing(state: ShopState, id: bigint): Entry<ProductFacts> {
  const entry = state.stores.products.find(id);
  if (!entry) throw new ReplyError(ERRORS.notFound());
  return entry;
}

/** PUT products/{id}.json: merges the given fields; variants merge by id; bumps updated_at. */
export function updateProduct(state: ShopState, request: SimRequest, id: bigint): Reply {
  const store = state.stores.products;
  const entry = existing(state, id);
  const input = unwrap(request, 'product');
  const record = structuredClone(store.recordOf(entry));
  if (input.title !== undefined) {
    const title = typeof input.title === 'string' ? input.title.trim() : '';
    if (title === '') throw new ReplyError(ERRORS.validation({ title: ["can't be blank"] }));
    record.title = title;
  }
  if (input.status !== undefined) {
    if (typeof input.status !== 'string' || !STATUSES.includes(input.status)) {
      throw new ReplyError(ERRORS.validation({ status: ['is not included in the list'] }));
    }
    record.status = input.status;
  }
  for (const key of EDITABLE) if (typeof input[key] === 'string' || input[key] === null) record[key] = input[key];
  const tags = normalizeTags(input.tags);
  if (tags !== undefined) record.tags = tags;
  const now = formatShopTime(state.nowMs());
  if (input.published === true && record.published_at === null) record.published_at = now;
  if (input.published === false) record.published_at = null;
  if (Array.isArray(input.variants)) {
    const variants = record.variants as JsonObject[];
    for (const change of input.variants.filter(isObject)) {
      const target = variants.find((v) => String(v.id) === String(change.id));
      if (!target) continue;
      for (const [key, value] of Object.entries(change)) {
        if (key === 'id' || key === 'product_id') continue;
        target[key] = key === 'price' || key === 'compare_at_price' ? priceOrNull(value) : value;
      }
      target.updated_at = now;
    }
  }
  record.updated_at = now;
  store.save(record, entry);
  return jsonReply(200, { product: record }, 1);
}

function priceOrNull(value: JsonValue): JsonValue {
  const cents = centsOf(value);
  return value === null || Number.isNaN(cents) ? null : money(cents);
}

/** DELETE products/{id}.json → 200 {}. */
export function deleteProduct(state: ShopState, id: bigint): Reply {
  state.stores.products.remove(existing(state, id));
  return jsonReply(200, {});
}

/** POST products/{id}/variants.json → 201 {"variant":{…}}; 422 when a variant with the same options exists. */
export function createVariant(state: ShopState, request: SimRequest, id: bigint): Reply {
  const store = state.stores.products;
  const entry = existing(state, id);
  const input = unwrap(request, 'variant');
  const record = structuredClone(store.recordOf(entry));
  const variants = record.variants as JsonObject[];
  const option = (v: JsonObject, k: number) => (typeof v[`option${k}`] === 'string' ? v[`option${k}`] : null);
  const wanted = [1, 2, 3].map((k) => option(input, k));
  if (wanted[0] === null) wanted[0] = 'Default Title';
  const clash = variants.find((v) => [1, 2, 3].every((k) => option(v, k) === wanted[k - 1]));
  if (clash) {
    throw new ReplyError(ERRORS.validation({ base: [`The variant '${String(clash.title)}' already exists.`] }));
  }
  const index = state.ctx.ids.products.indexOf(id);
  const big = state.ctx.ids.products.isBig(index);
  const slot = FIRST_API_VARIANT_SLOT + variants.length;
  const now = formatShopTime(state.nowMs());
  const variant = variantRecord(
    { ...input, option1: wanted[0] as string },
    {
      id: childId(CHILD_BASES.variant, index, slot, big),
      productId: record.id as JsonValue,
      inventoryItemId: childId(CHILD_BASES.inventoryItem, index, slot, big),
    },
    variants.length + 1,
    now,
    state.ctx.currency,
  );
  variants.push(variant);
  record.options = optionsOf(record.id as JsonValue, variants, index, big).map((built, k) => {
    const previous = (record.options as JsonObject[])[k];
    return previous ? { ...previous, values: built.values as JsonValue } : built;
  });
  record.updated_at = now;
  store.save(record, entry);
  return jsonReply(201, { variant }, 1);
}
