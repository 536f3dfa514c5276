import type { JsonObject, JsonValue } from '../../shopify/json.js';
import { CHILD_BASES, childId, wireId } from '../ids.js';
import type { ShopState } from '../shop-state.js';
import { formatShopTime } from '../shop-time.js';
import type { Line } from './order-lines.js';
import { findVariant } from './variants.js';

/**
 * The fulfillment an order is created with (`fulfillment_status: "fulfilled"`, `fulfillments:[…]` or lines marked
 * fulfilled, REF20 examples 3 and 4): one, at the shop's location, holding the fulfilled lines.
 */
export function fulfillmentOf(
  order: JsonObject,
  lines: Line[],
  place: { index: number; big: boolean },
  now: string,
): JsonObject {
  const id = childId(CHILD_BASES.fulfillment, place.index, 0, place.big);
  return {
    id,
    admin_graphql_api_id: `gid://shopify/Fulfillment/${String(id)}`,
    created_at: now,
    location_id: wireId(CHILD_BASES.location),
    name: `${String(order.name)}.1`,
    order_id: order.id as JsonValue,
    origin_address: {},
    receipt: {},
    service: 'manual',
    shipment_status: null,
    status: 'success',
    tracking_company: null,
    tracking_number: null,
    tracking_numbers: [],
    tracking_url: null,
    tracking_urls: [],
    updated_at: now,
    line_items: lines.map((line) => line.record),
  };
}

/**
 * Stock moved by an order: `-1` takes the lines' quantities from their variants (an order created without
 * `inventory_behaviour: bypass`), `+1` puts them back (cancel with `restock`). Counted in the side effects.
 */
export function moveStock(
  state: ShopState,
  lines: readonly { variantId: bigint | null; quantity: number }[],
  sign: 1 | -1,
): void {
  const products = state.stores.products;
  const now = formatShopTime(state.nowMs());
  for (const line of lines) {
    if (line.variantId === null) continue;
    const found = findVariant(state, line.variantId);
    const entry = found && products.find(BigInt(String(found.product.id)));
    if (!found || !entry) continue;
    const product = structuredClone(found.product);
    const variant = (product.variants as JsonObject[]).find((v) => String(v.id) === String(found.variant.id));
    if (!variant) continue;
    variant.old_inventory_quantity = variant.inventory_quantity as JsonValue;
    variant.inventory_quantity = Number(variant.inventory_quantity ?? 0) + sign * line.quantity;
    variant.updated_at = now;
    product.updated_at = now;
    products.save(product, entry);
    const moved = state.ledger.sideEffects.inventory;
    if (sign < 0) moved.decremented += line.quantity;
    else moved.restocked += line.quantity;
  }
}
