import { orderIndicesOfCustomer } from './generate/context.js';
import type { AnyFacts, OrderFacts } from './generate/facts.js';
import type { ShopState } from './shop-state.js';
import type { Entry } from './store.js';

/** The orders of one customer now: its generated ones still shown, and the orders written through the API. */
export function customerOrderEntries(state: ShopState, customerId: bigint): Entry<AnyFacts>[] {
  const orders = state.stores.orders;
  const entries: Entry<AnyFacts>[] = [];
  const customerIndex = state.ctx.ids.customers.indexOf(customerId);
  if (customerIndex >= 0 && customerIndex < state.ctx.sizes.customers) {
    const { first, step, count } = orderIndicesOfCustomer(state.ctx, customerIndex);
    for (let k = 0, index = first; k < count; k++, index += step) {
      if (!orders.isShadowed(index)) entries.push({ facts: orders.model.facts(index) });
    }
  }
  for (const entry of orders.overlayEntries()) {
    if ((entry.facts as OrderFacts).customerId === customerId) entries.push(entry);
  }
  return entries;
}
