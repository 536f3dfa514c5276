import type { JsonObject } from '../shopify/json.js';
import type { ResourceName } from '../shopify/resources.js';
import type { AnyFacts } from './generate/facts.js';
import { Rng, STREAM } from './random.js';
import type { ShopState } from './shop-state.js';
import { formatShopTime } from './shop-time.js';
import type { Entry, ResourceStore } from './store.js';
import { normalizeTags } from './writes/envelope.js';

const PROBES = 64;

function pickGenerated(store: ResourceStore<AnyFacts>, rng: Rng): Entry<AnyFacts> | undefined {
  const size = store.model.size;
  if (size === 0) return undefined;
  const start = rng.int(size);
  for (let k = 0; k < PROBES; k++) {
    const index = (start + k) % size;
    if (!store.isShadowed(index)) return { facts: store.model.facts(index) };
  }
  return undefined;
}

/**
 * The churn fault: one record created (stamped now), one updated (updated_at bumped, so it moves in updated_at order)
 * and one deleted, in the resource being listed, as a live shop changes while a crawl runs.
 */
export function churn(state: ShopState, resource: ResourceName, round: number): void {
  const store = state.store(resource);
  const rng = new Rng(state.faults.options.seed ?? state.options.seed, STREAM.churn, round);
  const now = formatShopTime(state.nowMs());

  const { index } = store.allocate();
  const created = store.model.build(store.model.facts(index));
  created.created_at = now;
  created.updated_at = now;
  if (resource === 'products' && created.published_at !== null) created.published_at = now;
  if (resource === 'customers') Object.assign(created, { orders_count: 0, last_order_id: null, last_order_name: null });
  if (resource === 'orders') {
    Object.assign(created, { processed_at: now, closed_at: null, cancelled_at: null, cancel_reason: null });
  }
  store.save(created);

  const updated = pickGenerated(store, rng);
  if (updated) {
    const record: JsonObject = structuredClone(store.recordOf(updated));
    record.updated_at = now;
    record.tags = normalizeTags(`${String(record.tags ?? '')}, churned`) ?? 'churned';
    store.save(record, updated);
  }
  const deleted = pickGenerated(store, rng);
  if (deleted) store.remove(deleted);
}
