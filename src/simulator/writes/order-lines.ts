import type { JsonObject, JsonValue } from '../../shopify/json.js';
import { ERRORS } from '../errors.js';
import { CHILD_BASES, childId } from '../ids.js';
import { centsOf, money, moneySet } from '../money.js';
import { ReplyError } from '../reply.js';
import type { ShopState } from '../shop-state.js';
import { isObject, stringOr } from './envelope.js';
import { findVariant } from './variants.js';

/** A line item being built, with the figures the order's totals need. */
export interface Line {
  record: JsonObject;
  cents: number;
  taxCents: number;
  grams: number;
  quantity: number;
  fulfilled: boolean;
  /** The variant a line sells, for stock moved by `inventory_behaviour`. */
  variantId: bigint | null;
}

const invalidLine = () => new ReplyError(ERRORS.validation({ line_items: ['is invalid'] }));

function quantityOf(value: JsonValue | undefined): number {
  if (value === undefined) return 1;
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) throw invalidLine();
  return n;
}

/** Tax lines as an order or line item serves them (`price` as money, `price_set`, `channel_liable`). */
export function taxLines(value: JsonValue | undefined, currency: string): { lines: JsonObject[]; cents: number } {
  const lines = (Array.isArray(value) ? value.filter(isObject) : []).map((tax) => {
    const cents = centsOf(tax.price ?? 0);
    if (Number.isNaN(cents)) throw new ReplyError(ERRORS.validation({ tax_lines: ['is invalid'] }));
    return {
      price: money(cents),
      rate: typeof tax.rate === 'number' ? tax.rate : Number(tax.rate ?? 0),
      title: stringOr(tax.title, 'Tax'),
      price_set: moneySet(cents, currency),
      channel_liable: null,
    };
  });
  return { lines, cents: lines.reduce((sum, tax) => sum + centsOf(tax.price), 0) };
}

/**
 * The line items of an order create: `{variant_id, quantity}` takes the product's title, the variant's title, SKU,
 * weight and price (a `price` given wins, so a restore keeps what was paid), or a custom item `{title, price,
 * quantity}`. An unknown variant, a custom item without title or price, or a quantity below 1 is a 422.
 * `fulfillment_status: "fulfilled"` on a line, or `allFulfilled`, marks it fulfilled.
 */
export function orderLines(
  state: ShopState,
  inputs: JsonObject[],
  place: { index: number; big: boolean },
  currency: string,
  allFulfilled: boolean,
): Line[] {
  return inputs.map((input, k) => {
    const quantity = quantityOf(input.quantity);
    let found: { product: JsonObject; variant: JsonObject } | undefined;
    if (input.variant_id !== undefined && input.variant_id !== null) {
      const text = String(input.variant_id);
      found = /^\d{1,20}$/.test(text) ? findVariant(state, BigInt(text)) : undefined;
      if (!found) throw invalidLine();
    } else if (typeof input.title !== 'string' || input.title.trim() === '' || input.price === undefined) {
      throw invalidLine();
    }
    const cents = centsOf(input.price ?? found?.variant.price);
    if (Number.isNaN(cents) || cents < 0) throw invalidLine();
    const grams = found ? Number(found.variant.grams) : Number(input.grams ?? 0) || 0;
    const title = found ? String(found.product.title) : (input.title as string);
    const variantTitle = found && found.variant.title !== 'Default Title' ? String(found.variant.title) : null;
    const fulfilled = allFulfilled || input.fulfillment_status === 'fulfilled';
    const tax = taxLines(input.tax_lines, currency);
    const id = childId(CHILD_BASES.lineItem, place.index, k, place.big);
    const record: JsonObject = {
      id,
      admin_graphql_api_id: `gid://shopify/LineItem/${String(id)}`,
      fulfillable_quantity: fulfilled ? 0 : quantity,
      fulfillment_service: 'manual',
      fulfillment_status: fulfilled ? 'fulfilled' : null,
      gift_card: input.gift_card === true,
      grams,
      name: variantTitle ? `${title} - ${variantTitle}` : title,
      price: money(cents),
      price_set: moneySet(cents, currency),
      product_exists: found !== undefined,
      product_id: found ? (found.product.id as JsonValue) : null,
      properties: Array.isArray(input.properties) ? input.properties.filter(isObject) : [],
      quantity,
      requires_shipping:
        typeof input.requires_shipping === 'boolean' ? input.requires_shipping : found ? grams > 0 : true,
      sku: found ? (found.variant.sku as JsonValue) : stringOr(input.sku, null),
      taxable: typeof input.taxable === 'boolean' ? input.taxable : found ? found.variant.taxable !== false : true,
      title,
      total_discount: '0.00',
      total_discount_set: moneySet(0, currency),
      variant_id: found ? (found.variant.id as JsonValue) : null,
      variant_inventory_management: found ? (found.variant.inventory_management as JsonValue) : null,
      variant_title: variantTitle,
      vendor: found ? (found.product.vendor as JsonValue) : stringOr(input.vendor, null),
      tax_lines: tax.lines,
      duties: [],
      discount_allocations: [],
    };
    const variantId = found ? BigInt(String(found.variant.id)) : null;
    return {
      record,
      cents: cents * quantity,
      taxCents: tax.cents,
      grams: grams * quantity,
      quantity,
      fulfilled,
      variantId,
    };
  });
}

/**
 * Spreads an order-level discount over its lines in proportion to their amounts (the last line takes the rounding),
 * as `discount_allocations` the way Shopify shows a discount code on each line.
 */
export function allocateDiscount(lines: Line[], discountCents: number, currency: string): void {
  const total = lines.reduce((sum, line) => sum + line.cents, 0);
  if (discountCents <= 0 || total <= 0) return;
  let left = discountCents;
  lines.forEach((line, k) => {
    const share = k === lines.length - 1 ? left : Math.round((discountCents * line.cents) / total);
    left -= share;
    line.record.discount_allocations = [
      { amount: money(share), amount_set: moneySet(share, currency), discount_application_index: 0 },
    ];
  });
}
