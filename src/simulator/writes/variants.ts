import type { JsonObject, JsonValue } from '../../shopify/json.js';
import { ERRORS } from '../errors.js';
import { CHILD_BASES, childId, type WireId } from '../ids.js';
import { centsOf, money } from '../money.js';
import { ReplyError } from '../reply.js';
import type { ShopState } from '../shop-state.js';
import { serialize } from '../store.js';
import { isObject, stringOr } from './envelope.js';

const BIG_OFFSET = 1_000_000_000_000_000_000n;
const OPTION_KEYS = ['option1', 'option2', 'option3'] as const;
const GRAMS_PER: Record<string, number> = { g: 1, kg: 1000, lb: 453.59237, oz: 28.349523125 };
const TEXT = ['sku', 'barcode', 'inventory_policy', 'fulfillment_service', 'inventory_management'] as const;
const FLAGS = ['taxable', 'requires_shipping'] as const;

export interface VariantIds {
  id: WireId;
  productId: JsonValue;
  inventoryItemId: WireId;
}

/** A new variant: Shopify's defaults (EX22 product create response), then what the request gives. */
export function newVariant(input: JsonObject, ids: VariantIds, now: string, currency: string): JsonObject {
  const variant: JsonObject = {
    id: ids.id,
    product_id: ids.productId,
    title: 'Default Title',
    price: '0.00',
    sku: '',
    position: 1,
    inventory_policy: 'deny',
    compare_at_price: null,
    fulfillment_service: 'manual',
    inventory_management: null,
    option1: 'Default Title',
    option2: null,
    option3: null,
    created_at: now,
    updated_at: now,
    taxable: true,
    barcode: null,
    grams: 0,
    image_id: null,
    weight: 0,
    weight_unit: 'lb',
    inventory_item_id: ids.inventoryItemId,
    inventory_quantity: 0,
    old_inventory_quantity: 0,
    presentment_prices: [],
    requires_shipping: true,
    admin_graphql_api_id: `gid://shopify/ProductVariant/${String(ids.id)}`,
  };
  applyVariantInput(variant, input, now, currency);
  return variant;
}

/**
 * Writes the writable fields a request gives onto a variant. `inventory_quantity` is read-only (restore.md §1.2) and
 * ignored, as are ids; the title follows the options, the weight follows `grams` (or `grams` a given weight).
 */
export function applyVariantInput(variant: JsonObject, input: JsonObject, now: string, currency: string): void {
  const before = serialize({ ...variant, updated_at: null });
  for (const key of ['price', 'compare_at_price'] as const) {
    if (input[key] === undefined) continue;
    const cents = centsOf(input[key]);
    if (input[key] !== null && Number.isNaN(cents)) throw new ReplyError(ERRORS.validation({ [key]: ['is invalid'] }));
    variant[key] = input[key] === null ? (key === 'price' ? '0.00' : null) : money(cents);
  }
  for (const key of TEXT) if (typeof input[key] === 'string' || input[key] === null) variant[key] = input[key];
  for (const key of FLAGS) if (typeof input[key] === 'boolean') variant[key] = input[key];
  for (const key of OPTION_KEYS) if (typeof input[key] === 'string' || input[key] === null) variant[key] = input[key];
  if (variant.option1 === null) variant.option1 = 'Default Title';
  if (input.image_id !== undefined) variant.image_id = input.image_id;
  if (typeof input.weight_unit === 'string' && input.weight_unit in GRAMS_PER) variant.weight_unit = input.weight_unit;
  if (typeof input.grams === 'number' || (typeof input.grams === 'string' && /^\d+$/.test(input.grams))) {
    variant.grams = Number(input.grams);
    variant.weight = Math.round((Number(input.grams) / (GRAMS_PER[String(variant.weight_unit)] ?? 1)) * 100) / 100;
  } else if (typeof input.weight === 'number') {
    variant.weight = input.weight;
    variant.grams = Math.round(input.weight * (GRAMS_PER[String(variant.weight_unit)] ?? 1));
  }
  variant.title = titleOf(variant);
  const compare = variant.compare_at_price;
  variant.presentment_prices = [
    {
      price: { amount: variant.price as string, currency_code: currency },
      compare_at_price: typeof compare === 'string' ? { amount: compare, currency_code: currency } : null,
    },
  ];
  if (serialize({ ...variant, updated_at: null }) !== before) variant.updated_at = now;
}

function titleOf(variant: JsonObject): string {
  return OPTION_KEYS.map((key) => variant[key])
    .filter((value): value is string => typeof value === 'string')
    .join(' / ');
}

function optionTuple(variant: JsonObject): string {
  return JSON.stringify(OPTION_KEYS.map((key) => (typeof variant[key] === 'string' ? variant[key] : null)));
}

/** Shopify's 422 for two variants with the same option values (Shopify/shopify-api-ruby#193). */
export function refuseDuplicateOptions(variants: JsonObject[]): void {
  const seen = new Set<string>();
  for (const variant of variants) {
    const tuple = optionTuple(variant);
    if (seen.has(tuple)) {
      const message = `The variant '${titleOf(variant)}' already exists. Please change at least one option value.`;
      throw new ReplyError(ERRORS.validation({ base: [message] }));
    }
    seen.add(tuple);
  }
}

/**
 * A product's options, rebuilt from its variants: values in the order the variants first use them, names from the
 * request's `options`, else the previous names, else Shopify's "Title" for the first.
 */
export function optionsOf(
  productId: JsonValue,
  variants: JsonObject[],
  productIndex: number,
  big: boolean,
  names: (string | undefined)[],
): JsonObject[] {
  const options: JsonObject[] = [];
  OPTION_KEYS.forEach((key, slot) => {
    const values = [...new Set(variants.map((v) => v[key]).filter((v): v is string => typeof v === 'string'))];
    if (values.length === 0) return;
    options.push({
      id: childId(CHILD_BASES.option, productIndex, slot, big),
      product_id: productId,
      name: names[slot] ?? (slot === 0 ? 'Title' : `Option${slot + 1}`),
      position: slot + 1,
      values,
    });
  });
  return options;
}

/** Option names a request gives (`options:[{name},…]`), by slot. */
export function optionNames(value: JsonValue | undefined): (string | undefined)[] {
  if (!Array.isArray(value)) return [];
  return value.map((option) => (isObject(option) ? (stringOr(option.name, null) ?? undefined) : undefined));
}

/** The product and variant records of a variant id, through the products store (so edited products count). */
export function findVariant(
  state: ShopState,
  variantId: bigint,
): { product: JsonObject; variant: JsonObject } | undefined {
  const products = state.stores.products;
  let productId = state.ledger.variantOwners.get(variantId);
  if (productId === undefined) {
    const offset = (variantId >= BIG_OFFSET ? variantId - BIG_OFFSET : variantId) - CHILD_BASES.variant;
    if (offset < 0n) return undefined;
    productId = state.ctx.ids.products.idOf(Number(offset / 100n));
  }
  const entry = products.find(productId);
  if (!entry) return undefined;
  const product = products.recordOf(entry);
  const variant = (product.variants as JsonObject[]).find((v) => String(v.id) === variantId.toString());
  return variant ? { product, variant } : undefined;
}

export interface VariantReplacement {
  variants: JsonObject[];
  created: JsonObject[];
  removed: JsonObject[];
}

/**
 * PUT products/{id}.json with `variants`: the array is the product's whole set (restore.md §1.6). A variant with an id
 * is updated; one without is matched by its option values to a variant the array does not name (Shopify's 2019
 * change) and updated, else created; variants the array leaves out are deleted. Ids that are not the product's
 * refuse the request with Shopify's 422 (Shopify/shopify-api-ruby#381).
 */
export function replaceVariants(
  existing: JsonObject[],
  inputs: JsonObject[],
  create: (input: JsonObject) => JsonObject,
  now: string,
  currency: string,
): VariantReplacement {
  const named = new Set(inputs.filter((input) => input.id !== undefined).map((input) => String(input.id)));
  const stale = [...named].filter((id) => !existing.some((variant) => String(variant.id) === id));
  if (stale.length > 0) {
    const message = `Variants have not been changed. The following IDs do not exist or do not belong to the product: ${stale.join(', ')}`;
    throw new ReplyError(ERRORS.validation({ base: [message] }));
  }
  const used = new Set<string>();
  const created: JsonObject[] = [];
  const variants = inputs.map((input, k) => {
    let target =
      input.id !== undefined
        ? existing.find((variant) => String(variant.id) === String(input.id))
        : existing.find(
            (variant) =>
              !named.has(String(variant.id)) &&
              !used.has(String(variant.id)) &&
              optionTuple(variant) === optionTuple({ option1: 'Default Title', ...input }),
          );
    if (target) {
      target = structuredClone(target);
      applyVariantInput(target, input, now, currency);
    } else {
      target = create(input);
      created.push(target);
    }
    used.add(String(target.id));
    target.position = k + 1;
    return target;
  });
  refuseDuplicateOptions(variants);
  return { variants, created, removed: existing.filter((variant) => !used.has(String(variant.id))) };
}
