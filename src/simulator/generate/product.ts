import type { JsonObject, JsonValue } from '../../shopify/json.js';
import { CHILD_BASES, childId, type WireId, wireId } from '../ids.js';
import { money } from '../money.js';
import { Rng, STREAM } from '../random.js';
import { formatShopTime } from '../shop-time.js';
import {
  COLORS,
  HTML_SNIPPETS,
  PRODUCT_ADJECTIVES,
  PRODUCT_NOUNS,
  PRODUCT_TYPES,
  SIZES,
  TAGS,
  VENDORS,
} from '../vocabulary.js';
import { createdMsOf, type GenContext, HISTORY_END_MS, KIND_OF, MAX_UPDATE_LAG_MS, slugify } from './context.js';
import type { ProductFacts } from './facts.js';

export function productFacts(ctx: GenContext, index: number): ProductFacts {
  const rng = new Rng(ctx.seed, STREAM.productFacts, index);
  let title = `${rng.pick(PRODUCT_ADJECTIVES)} ${rng.pick(PRODUCT_NOUNS)}`;
  if (rng.chance(0.3)) title += ` ${rng.pick(COLORS)}`;
  if (rng.chance(0.02)) title += ` — ${'extra long edition '.repeat(14).trim()}`;
  const status = rng.weighted([
    ['active', 85],
    ['draft', 9],
    ['archived', 6],
  ] as const);
  const createdMs = createdMsOf(ctx, KIND_OF.products, index, ctx.sizes.products);
  const updatedMs =
    createdMs + Math.floor((rng.float() * Math.min(MAX_UPDATE_LAG_MS, HISTORY_END_MS - createdMs)) / 1000) * 1000;
  const published = status === 'active' ? rng.chance(0.95) : status === 'archived' && rng.chance(0.5);
  const publishedMs = published ? createdMs + rng.int(3600) * 1000 : null;
  return {
    index,
    id: ctx.ids.products.idOf(index),
    title,
    handle: `${slugify(title)}-${index + 1}`,
    vendor: rng.pick(VENDORS),
    productType: rng.pick(PRODUCT_TYPES),
    status,
    createdMs,
    updatedMs,
    publishedMs,
  };
}

export interface VariantSketch {
  id: WireId;
  position: number;
  title: string;
  options: [string | null, string | null, string | null];
  priceCents: number;
  compareAtCents: number | null;
  sku: string;
  grams: number;
  quantity: number;
  imageSlot: number | null;
}

export interface ProductShape {
  options: { name: string; values: string[] }[];
  variants: VariantSketch[];
  imageCount: number;
}

/** Options, variants and image count of a generated product; orders use it for their line items. */
export function productShape(ctx: GenContext, index: number): ProductShape {
  const rng = new Rng(ctx.seed, STREAM.productVariants, index);
  const big = ctx.ids.products.isBig(index);
  const imageCount = rng.weighted([
    [0, 2],
    [1, 4],
    [2, 3],
    [3, 2],
  ] as const);
  const layout = rng.weighted([
    ['default', 4],
    ['color', 3],
    ['color-size', 3],
  ] as const);
  const options =
    layout === 'default'
      ? [{ name: 'Title', values: ['Default Title'] }]
      : layout === 'color'
        ? [{ name: 'Color', values: pickDistinct(rng, COLORS, rng.between(2, 4)) }]
        : [
            { name: 'Color', values: pickDistinct(rng, COLORS, 2) },
            { name: 'Size', values: pickDistinct(rng, SIZES, rng.between(1, 3)) },
          ];
  const combos: [string, string | null][] = [];
  for (const first of options[0]?.values ?? []) {
    const second = options[1]?.values ?? [null];
    for (const value of second) combos.push([first, value]);
  }
  const basePrice = rng.between(3, 400) * 100 + rng.pick([0, 50, 95, 99]);
  const variants = combos.map(([first, second], k): VariantSketch => {
    const priceCents = basePrice + (second === 'XL' ? 500 : 0);
    return {
      id: childId(CHILD_BASES.variant, index, k, big),
      position: k + 1,
      title: second === null ? first : `${first} / ${second}`,
      options: [first, second, null],
      priceCents,
      compareAtCents: rng.chance(0.2) ? priceCents + rng.between(1, 50) * 100 : null,
      sku: rng.chance(0.1) ? '' : `SKU-${index + 1}-${k + 1}`,
      grams: rng.between(0, 3000),
      quantity: rng.between(-3, 250),
      imageSlot: imageCount > 0 && rng.chance(0.4) ? rng.int(imageCount) : null,
    };
  });
  return { options, variants, imageCount };
}

function pickDistinct<T>(rng: Rng, items: readonly T[], count: number): T[] {
  const start = rng.int(items.length);
  return Array.from({ length: Math.min(count, items.length) }, (_, k) => items[(start + k) % items.length] as T);
}

export function buildProduct(ctx: GenContext, facts: ProductFacts): JsonObject {
  const index = facts.index;
  const rng = new Rng(ctx.seed, STREAM.productBody, index);
  const shape = productShape(ctx, index);
  const big = ctx.ids.products.isBig(index);
  const id = wireId(facts.id);
  const created = formatShopTime(facts.createdMs);
  const updated = formatShopTime(facts.updatedMs);
  const imageIds = Array.from({ length: shape.imageCount }, (_, k) => childId(CHILD_BASES.image, index, k, big));
  const bodyHtml = rng.chance(0.1)
    ? ''
    : Array.from({ length: rng.between(1, 3) }, () => rng.pick(HTML_SNIPPETS)).join('\n');
  const tagCount = rng.weighted([
    [0, 3],
    [1, 3],
    [2, 2],
    [4, 1],
  ] as const);
  const tags = [...new Set(Array.from({ length: tagCount }, () => rng.pick(TAGS)))].sort().join(', ');
  const variants: JsonValue[] = shape.variants.map((v) => ({
    id: v.id,
    product_id: id,
    title: v.title,
    price: money(v.priceCents),
    sku: v.sku,
    position: v.position,
    inventory_policy: v.quantity < 0 ? 'continue' : 'deny',
    compare_at_price: v.compareAtCents === null ? null : money(v.compareAtCents),
    fulfillment_service: 'manual',
    inventory_management: 'shopify',
    option1: v.options[0],
    option2: v.options[1],
    option3: v.options[2],
    created_at: created,
    updated_at: updated,
    taxable: true,
    barcode: v.sku === '' ? null : `0${String(index * 10 + v.position).padStart(11, '0')}`,
    grams: v.grams,
    image_id: v.imageSlot === null ? null : (imageIds[v.imageSlot] ?? null),
    weight: Math.round(v.grams / 4.5359237) / 100,
    weight_unit: 'lb',
    inventory_item_id: childId(CHILD_BASES.inventoryItem, index, v.position - 1, big),
    inventory_quantity: v.quantity,
    old_inventory_quantity: v.quantity,
    presentment_prices: [
      {
        price: { amount: money(v.priceCents), currency_code: ctx.currency },
        compare_at_price:
          v.compareAtCents === null ? null : { amount: money(v.compareAtCents), currency_code: ctx.currency },
      },
    ],
    requires_shipping: v.grams > 0,
    admin_graphql_api_id: `gid://shopify/ProductVariant/${v.id}`,
  }));
  const images: JsonObject[] = imageIds.map((imageId, k) => ({
    id: imageId,
    product_id: id,
    position: k + 1,
    created_at: created,
    updated_at: updated,
    alt: rng.chance(0.5) ? null : `${facts.title} — view ${k + 1}`,
    width: rng.pick([600, 1024, 2048]),
    height: rng.pick([600, 800, 2048]),
    src: `https://cdn.shopify.com/s/files/1/0005/4838/0009/products/${facts.handle}-${k + 1}.jpg?v=${Math.floor(facts.updatedMs / 1000)}`,
    variant_ids: shape.variants.filter((v) => v.imageSlot === k).map((v) => v.id),
    admin_graphql_api_id: `gid://shopify/ProductImage/${imageId}`,
  }));
  return {
    id,
    title: facts.title,
    body_html: bodyHtml,
    vendor: facts.vendor,
    product_type: facts.productType,
    created_at: created,
    handle: facts.handle,
    updated_at: updated,
    published_at: facts.publishedMs === null ? null : formatShopTime(facts.publishedMs),
    template_suffix: rng.chance(0.1) ? 'alternate' : null,
    status: facts.status,
    published_scope: rng.chance(0.8) ? 'web' : 'global',
    tags,
    admin_graphql_api_id: `gid://shopify/Product/${id}`,
    variants,
    options: shape.options.map((option, k) => ({
      id: childId(CHILD_BASES.option, index, k, big),
      product_id: id,
      name: option.name,
      position: k + 1,
      values: option.values,
    })),
    images,
    image: images[0] ?? null,
  };
}

const LINE_CACHE_LIMIT = 8192;
const lineCaches = new WeakMap<GenContext, Map<number, { facts: ProductFacts; shape: ProductShape }>>();

/** Facts and shape of a generated product as order line items need them; memoised, since orders reuse products. */
export function productForLines(ctx: GenContext, index: number): { facts: ProductFacts; shape: ProductShape } {
  let cache = lineCaches.get(ctx);
  if (!cache) {
    cache = new Map();
    lineCaches.set(ctx, cache);
  }
  let found = cache.get(index);
  if (!found) {
    found = { facts: productFacts(ctx, index), shape: productShape(ctx, index) };
    if (cache.size >= LINE_CACHE_LIMIT) cache.clear();
    cache.set(index, found);
  }
  return found;
}
