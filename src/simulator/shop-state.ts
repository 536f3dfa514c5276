import type { JsonObject } from '../shopify/json.js';
import type { ResourceName } from '../shopify/resources.js';
import { FaultPlan } from './faults.js';
import { createContext, type GenContext } from './generate/context.js';
import type { AnyFacts, BaseFacts, CustomerFacts, OrderFacts, ProductFacts } from './generate/facts.js';
import { LatencyDraws } from './latency.js';
import { customerModel, orderModel, productModel, type ResourceModel, withUnknownFields } from './models.js';
import type { FaultOptions, InjectedFaults, ResolvedShopOptions } from './options.js';
import { LeakyBucket } from './rate-limit.js';
import { ResourceStore } from './store.js';
import { WriteLedger } from './writes/ledger.js';
import { WriteLimits } from './writes/limits.js';

export interface Stores {
  products: ResourceStore<ProductFacts>;
  customers: ResourceStore<CustomerFacts>;
  orders: ResourceStore<OrderFacts>;
}

const CACHE_LIMIT = 64;

/** All mutable state of one simulated shop; the HTTP layer and the handlers share it. */
export class ShopState {
  readonly ctx: GenContext;
  readonly stores: Stores;
  faults: FaultPlan;
  readonly latency: LatencyDraws;
  readonly ledger = new WriteLedger();
  readonly limits: WriteLimits;
  private readonly buckets = new Map<string, LeakyBucket>();
  private readonly memo = new Map<string, unknown>();
  private readonly lasting = new Map<string, unknown>();
  readonly stats = {
    requests: 0,
    throttled: 0,
    byPath: {} as Record<string, number>,
    faults: {} as InjectedFaults,
    /** Write requests the shop applied (a 2xx, whether or not the client got the answer). */
    writes: 0,
    /** Writes refused by the limits beyond the bucket (also counted in `throttled`). */
    writeLimits: { orderCreate: 0, variantCreate: 0 },
  };

  constructor(readonly options: ResolvedShopOptions) {
    this.ctx = createContext(options.seed, options.sizes, options.bigIdShare);
    const unknown = options.unknownFields;
    const prepare = <F extends BaseFacts>(model: ResourceModel<F>) => {
      const withUnknown = withUnknownFields(model, unknown);
      return options.prerender ? withFactsKept(withUnknown) : withUnknown;
    };
    this.stores = {
      products: new ResourceStore(prepare(productModel(this.ctx)), this.ctx.ids.products, null),
      customers: new ResourceStore(prepare(customerModel(this.ctx)), this.ctx.ids.customers, null),
      // Generated orders are created in index order, so newest-first is highest index first.
      orders: new ResourceStore(prepare(orderModel(this.ctx)), this.ctx.ids.orders, 'descending'),
    };
    if (options.prerender) for (const store of Object.values(this.stores)) store.prerender();
    this.faults = new FaultPlan(options.faults, options.seed);
    this.latency = new LatencyDraws(options.latency, options.seed);
    this.limits = new WriteLimits(options);
  }

  store(resource: ResourceName): ResourceStore<AnyFacts> {
    return this.stores[resource] as unknown as ResourceStore<AnyFacts>;
  }

  /** Counts a fault that took effect, under the name of its knob. */
  injected(knob: keyof InjectedFaults): void {
    this.stats.faults[knob] = (this.stats.faults[knob] ?? 0) + 1;
  }

  setFaults(faults: FaultOptions): void {
    this.faults = new FaultPlan(faults, this.options.seed);
  }

  /** The access token's bucket; Shopify keeps one per app and shop, i.e. per token. */
  bucket(token: string): LeakyBucket {
    let bucket = this.buckets.get(token);
    if (!bucket) {
      bucket = new LeakyBucket(this.options.rate);
      this.buckets.set(token, bucket);
    }
    return bucket;
  }

  /** Caches a value computed from the shop's current contents (counts, search results) until the next write. */
  memoize<T>(key: string, compute: () => T): T {
    const version = `${this.stores.products.version}/${this.stores.customers.version}/${this.stores.orders.version}`;
    const fullKey = `${version}|${key}`;
    if (this.memo.has(fullKey)) return this.memo.get(fullKey) as T;
    const value = compute();
    if (this.memo.size >= CACHE_LIMIT) this.memo.delete(this.memo.keys().next().value as string);
    this.memo.set(fullKey, value);
    return value;
  }

  /** Caches a value computed from the generated records alone, which never change. */
  memoizeForever<T>(key: string, compute: () => T): T {
    if (this.lasting.has(key)) return this.lasting.get(key) as T;
    const value = compute();
    if (this.lasting.size >= CACHE_LIMIT) this.lasting.delete(this.lasting.keys().next().value as string);
    this.lasting.set(key, value);
    return value;
  }

  /** Now, in whole seconds: served timestamps have no fractions. */
  nowMs(): number {
    return Math.floor(Date.now() / 1000) * 1000;
  }

  recordsOf(resource: ResourceName): Iterable<JsonObject> {
    const store = this.store(resource);
    return (function* () {
      for (const entry of store.entries()) yield store.recordOf(entry);
    })();
  }
}

/** The model with the facts of every generated record computed once: list walks read them for every record passed. */
function withFactsKept<F extends BaseFacts>(model: ResourceModel<F>): ResourceModel<F> {
  const kept = Array.from({ length: model.size }, (_, index) => model.facts(index));
  return { ...model, facts: (index) => kept[index] ?? model.facts(index) };
}
