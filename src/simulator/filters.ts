import type { ResourceName } from '../shopify/resources.js';
import { MAX_UPDATE_LAG_MS } from './generate/context.js';
import type { AnyFacts, OrderFacts, ProductFacts } from './generate/facts.js';
import type { ValueRange } from './paging.js';
import { parseShopTime } from './shop-time.js';

/** Which filters a first request may carry, per endpoint, as Shopify's 2022-01 reference lists them. */
const TIME_FILTERS = ['created_at_min', 'created_at_max', 'updated_at_min', 'updated_at_max'] as const;
export const FILTERS = {
  products: {
    list: [
      'ids',
      'since_id',
      'title',
      'vendor',
      'handle',
      'product_type',
      'status',
      'collection_id',
      ...TIME_FILTERS,
      'published_at_min',
      'published_at_max',
      'published_status',
      'presentment_currencies',
    ],
    // No `status`: products/count.json counts every status.
    count: [
      'vendor',
      'product_type',
      'collection_id',
      ...TIME_FILTERS,
      'published_at_min',
      'published_at_max',
      'published_status',
    ],
  },
  customers: {
    list: ['ids', 'since_id', ...TIME_FILTERS],
    count: [...TIME_FILTERS],
  },
  orders: {
    list: [
      'ids',
      'since_id',
      ...TIME_FILTERS,
      'processed_at_min',
      'processed_at_max',
      'attribution_app_id',
      'status',
      'financial_status',
      'fulfillment_status',
    ],
    count: [...TIME_FILTERS, 'status', 'financial_status', 'fulfillment_status'],
  },
} as const satisfies Record<ResourceName, { list: readonly string[]; count: readonly string[] }>;

export type FilterEndpoint = 'list' | 'count';

export interface FilterOptions {
  /** Shopify's products.json shows only active products unless `status` says otherwise. */
  productsDefaultActiveOnly: boolean;
  /** The unpartitionable-server fault: every filter is ignored, or only created_at_min/max. */
  ignoreFilters: boolean | 'created_at';
}

export interface Filters<F extends AnyFacts> {
  /** The filters as sent (only known ones); embedded into page_info cursors. */
  sent: Record<string, string>;
  match(facts: F): boolean;
  /** Bounds on the default sort value of generated records; see View.base.range. */
  range: ValueRange | undefined;
  /** Bounds on created_at of generated records; see View.base.created. */
  created: ValueRange | undefined;
  sinceId: bigint | undefined;
  ids: bigint[] | undefined;
  /** No filter applies: every record matches. */
  trivial: boolean;
}

export class FilterError extends Error {
  override name = 'FilterError';
  readonly code = 'ERR_SIM_FILTER';
  constructor(readonly param: string) {
    super(`invalid value for query parameter ${param}`);
  }
}

type Predicate<F> = (facts: F) => boolean;

function timeParam(params: Record<string, string>, name: string): number | undefined {
  const text = params[name];
  if (text === undefined || text === '') return undefined;
  const ms = parseShopTime(text);
  if (Number.isNaN(ms)) throw new FilterError(name);
  return ms;
}

function idParam(text: string, name: string): bigint {
  if (!/^\d{1,20}$/.test(text.trim())) throw new FilterError(name);
  return BigInt(text.trim());
}

function listParam(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

function timeWindow<F extends AnyFacts>(
  predicates: Predicate<F>[],
  params: Record<string, string>,
  field: string,
  read: (facts: F) => number | null,
): { min?: number; max?: number } {
  const min = timeParam(params, `${field}_min`);
  const max = timeParam(params, `${field}_max`);
  if (min !== undefined) predicates.push((facts) => (read(facts) ?? Number.NEGATIVE_INFINITY) >= min);
  if (max !== undefined) predicates.push((facts) => (read(facts) ?? Number.POSITIVE_INFINITY) <= max);
  return { ...(min !== undefined && { min }), ...(max !== undefined && { max }) };
}

function tightest(range: ValueRange, min: number | undefined, max: number | undefined): void {
  if (min !== undefined) range.min = range.min === undefined ? min : Math.max(range.min, min);
  if (max !== undefined) range.max = range.max === undefined ? max : Math.min(range.max, max);
}

const FULFILLMENT: Record<string, (status: string | null) => boolean> = {
  any: () => true,
  shipped: (status) => status === 'fulfilled',
  fulfilled: (status) => status === 'fulfilled',
  partial: (status) => status === 'partial',
  unshipped: (status) => status === null,
  unfulfilled: (status) => status === null || status === 'partial',
};

/**
 * Parses the filters of a first list/count request into a predicate over facts. Unknown parameters are ignored, as
 * Shopify ignores them; malformed values of known ones throw FilterError.
 */
export function parseFilters(
  resource: ResourceName,
  endpoint: FilterEndpoint,
  query: Record<string, string>,
  options: FilterOptions,
): Filters<AnyFacts> {
  const allowed: readonly string[] = FILTERS[resource][endpoint];
  const sent: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) if (allowed.includes(name)) sent[name] = value;
  if (options.ignoreFilters === true) {
    return {
      sent: {},
      match: () => true,
      range: undefined,
      created: undefined,
      sinceId: undefined,
      ids: undefined,
      trivial: true,
    };
  }
  const params =
    options.ignoreFilters === 'created_at'
      ? Object.fromEntries(Object.entries(sent).filter(([name]) => !name.startsWith('created_at_')))
      : sent;
  const predicates: Predicate<AnyFacts>[] = [];
  const range: ValueRange = {};
  const created = timeWindow(predicates, params, 'created_at', (f) => f.createdMs);
  const updated = timeWindow(predicates, params, 'updated_at', (f) => f.updatedMs);
  const sinceId = params.since_id === undefined ? undefined : idParam(params.since_id, 'since_id');
  if (sinceId !== undefined) predicates.push((facts) => facts.id > sinceId);
  const ids = params.ids === undefined ? undefined : (listParam(params.ids) ?? []).map((id) => idParam(id, 'ids'));

  if (resource === 'products') {
    const p = predicates as Predicate<ProductFacts>[];
    timeWindow(p, params, 'published_at', (f) => f.publishedMs);
    const statuses =
      listParam(params.status) ?? (endpoint === 'list' && options.productsDefaultActiveOnly ? ['active'] : undefined);
    if (statuses) p.push((f) => statuses.includes(f.status));
    for (const [param, read] of [
      ['title', (f: ProductFacts) => f.title],
      ['vendor', (f: ProductFacts) => f.vendor],
      ['product_type', (f: ProductFacts) => f.productType],
    ] as const) {
      const wanted = params[param];
      if (wanted !== undefined) p.push((f) => read(f) === wanted);
    }
    const handles = listParam(params.handle);
    if (handles) p.push((f) => handles.includes(f.handle));
    // The simulated shop has no collections, so no product is in any of them.
    if (params.collection_id !== undefined) p.push(() => false);
    const published = params.published_status;
    if (published === 'published') p.push((f) => f.publishedMs !== null);
    else if (published === 'unpublished') p.push((f) => f.publishedMs === null);
    else if (published !== undefined && published !== 'any') throw new FilterError('published_status');
  } else if (resource === 'customers') {
    // Generated customers: created ≤ updated ≤ created + MAX_UPDATE_LAG_MS; the default sort is updated_at.
    tightest(range, updated.min, updated.max);
    tightest(range, created.min, created.max === undefined ? undefined : created.max + MAX_UPDATE_LAG_MS);
  } else {
    const o = predicates as Predicate<OrderFacts>[];
    const processed = timeWindow(o, params, 'processed_at', (f) => f.processedMs);
    // Generated orders: processed = created ≤ updated ≤ created + MAX_UPDATE_LAG_MS; the default sort is created_at.
    tightest(range, created.min, created.max);
    tightest(range, processed.min, processed.max);
    tightest(range, updated.min === undefined ? undefined : updated.min - MAX_UPDATE_LAG_MS, updated.max);
    const status = params.status ?? 'open';
    if (status === 'open') o.push((f) => f.closedMs === null && f.cancelledMs === null);
    else if (status === 'closed') o.push((f) => f.closedMs !== null);
    else if (status === 'cancelled') o.push((f) => f.cancelledMs !== null);
    else if (status !== 'any') throw new FilterError('status');
    const financial = listParam(params.financial_status);
    if (financial && !financial.includes('any')) {
      const wanted = financial.flatMap((value) => (value === 'unpaid' ? ['authorized', 'partially_paid'] : [value]));
      o.push((f) => wanted.includes(f.financialStatus));
    }
    const fulfillment = params.fulfillment_status;
    if (fulfillment !== undefined) {
      const test = FULFILLMENT[fulfillment];
      if (!test) throw new FilterError('fulfillment_status');
      o.push((f) => test(f.fulfillmentStatus));
    }
    if (params.attribution_app_id !== undefined && params.attribution_app_id !== 'current') {
      const app = Number(params.attribution_app_id);
      if (!Number.isSafeInteger(app)) throw new FilterError('attribution_app_id');
      o.push((f) => f.appId === app);
    }
  }
  return {
    sent,
    match: (facts) => {
      for (const predicate of predicates) if (!predicate(facts)) return false;
      return true;
    },
    range: range.min === undefined && range.max === undefined ? undefined : range,
    created: created.min === undefined && created.max === undefined ? undefined : created,
    sinceId,
    ids,
    trivial: predicates.length === 0 && ids === undefined,
  };
}
