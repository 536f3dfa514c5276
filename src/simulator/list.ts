import type { ResourceName } from '../shopify/resources.js';
import { API_PREFIX } from '../shopify/resources.js';
import { customerOrderEntries } from './customer-orders.js';
import { ERRORS } from './errors.js';
import { oversizedPageReply } from './fault-replies.js';
import { parseFields, project } from './fields.js';
import { FILTERS, FilterError, type Filters, parseFilters } from './filters.js';
import { customerIndexFromEmail } from './generate/customer.js';
import type { AnyFacts, CustomerFacts, OrderFacts } from './generate/facts.js';
import { productShape } from './generate/product.js';
import { jsonBytes } from './json-bytes.js';
import type { SortSpec } from './models.js';
import { decodePageInfo, encodePageInfo } from './page-info.js';
import { countView, readPage, type SortKey, type View } from './paging.js';
import { type Reply, ReplyError, type SimRequest } from './reply.js';
import { ordersVisibleFromMs } from './scopes.js';
import { exactEmailOf, parseCustomerQuery } from './search.js';
import type { ShopState } from './shop-state.js';
import { compareFacts, type Entry, serialize } from './store.js';

export type ListScope =
  | { kind: 'all' }
  /** `customers/{id}/orders.json` */
  | { kind: 'customer-orders'; customerId: bigint }
  /** `customers/search.json` */
  | { kind: 'search' };

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 250;
const PAGING_PARAMS = new Set(['limit', 'fields', 'page_info']);
const SEARCH_PARAMS = ['query', 'order'];

function parseLimit(text: string | null): number {
  if (text === null) return DEFAULT_LIMIT;
  const limit = Number(text);
  if (!/^\d+$/.test(text.trim()) || limit < 1 || limit > MAX_LIMIT) throw new ReplyError(ERRORS.invalidParam('limit'));
  return limit;
}

function filtersOf(
  state: ShopState,
  resource: ResourceName,
  scope: ListScope,
  sent: Record<string, string>,
  endpoint: 'list' | 'count',
): Filters<AnyFacts> {
  if (scope.kind === 'search') {
    const query = state.faults.ignoreFilters === true ? '' : (sent.query ?? '');
    const test = parseCustomerQuery(query);
    const kept = Object.fromEntries(Object.entries(sent).filter(([name]) => SEARCH_PARAMS.includes(name)));
    return {
      sent: kept,
      match: (facts) => test(facts as CustomerFacts),
      range: undefined,
      created: undefined,
      sinceId: undefined,
      ids: undefined,
      trivial: query.trim() === '',
    };
  }
  const filters = parseFilters(resource, endpoint, sent, {
    productsDefaultActiveOnly: state.options.productsDefaultActiveOnly,
    ignoreFilters: state.faults.ignoreFilters,
  });
  const from = resource === 'orders' ? ordersVisibleFromMs(state.options.scopes, state.nowMs()) : undefined;
  return from === undefined ? filters : createdFrom(filters, from);
}

/** Only orders created from `fromMs` on: what a token without read_all_orders sees, whatever the filters say. */
function createdFrom(filters: Filters<AnyFacts>, fromMs: number): Filters<AnyFacts> {
  const min = Math.max(filters.range?.min ?? fromMs, fromMs);
  return {
    ...filters,
    match: (facts) => facts.createdMs >= fromMs && filters.match(facts),
    range: { ...filters.range, min },
    trivial: false,
  };
}

/** Entries of an explicit candidate list, sorted the way the view walks them. */
function sortedCandidates(sort: SortSpec<AnyFacts>, entries: Entry<AnyFacts>[]): Entry<AnyFacts>[] {
  return entries.sort((a, b) => compareFacts(sort, a.facts, b.facts));
}

function buildView(
  state: ShopState,
  resource: ResourceName,
  scope: ListScope,
  filters: Filters<AnyFacts>,
): View<AnyFacts> {
  const store = state.store(resource);
  const sort = filters.sinceId !== undefined ? store.model.idSort : store.model.defaultSort;
  const match =
    scope.kind === 'customer-orders'
      ? (facts: AnyFacts) => (facts as OrderFacts).customerId === scope.customerId && filters.match(facts)
      : filters.match;
  const explicit = (entries: () => Entry<AnyFacts>[]): View<AnyFacts> => ({
    sort,
    base: null,
    extras: entries(),
    match,
  });
  if (filters.ids) {
    const ids = filters.ids;
    return explicit(() => {
      const found = new Map<bigint, Entry<AnyFacts>>();
      for (const id of ids) {
        const entry = store.find(id);
        if (entry) found.set(id, entry);
      }
      return sortedCandidates(sort, [...found.values()]);
    });
  }
  if (scope.kind === 'customer-orders') {
    const customerId = scope.customerId;
    return explicit(() =>
      state.memoize(`customer-orders:${customerId}:${sort.kind}`, () =>
        sortedCandidates(sort, customerOrderEntries(state, customerId)),
      ),
    );
  }
  if (scope.kind === 'search' && !filters.trivial) {
    const query = filters.sent.query ?? '';
    return explicit(() =>
      state.memoize(`search:${query}`, () => {
        const customers = state.stores.customers;
        const email = exactEmailOf(query);
        let entries: Entry<AnyFacts>[];
        if (email !== undefined) {
          // Generated emails name their index: look one record up instead of scanning the shop.
          entries = [...customers.overlayEntries()];
          const index = customerIndexFromEmail(email);
          if (index >= 0 && index < customers.model.size && !customers.isShadowed(index)) {
            entries.push({ facts: customers.model.facts(index) });
          }
        } else {
          entries = [...customers.entries()];
        }
        return sortedCandidates(
          sort,
          entries.filter((entry) => filters.match(entry.facts)),
        );
      }),
    );
  }
  return {
    sort,
    base: {
      order: store.baseOrder(sort),
      facts: (index) => store.model.facts(index),
      skip: (index) => store.isShadowed(index),
      range: sort.kind === 'default' ? filters.range : undefined,
      created: filters.created,
    },
    extras: store.sortedOverlay(sort),
    match: filters.match,
  };
}

/** GET products.json, customers.json, orders.json, customers/search.json, customers/{id}/orders.json. */
export function handleList(state: ShopState, resource: ResourceName, request: SimRequest, scope: ListScope): Reply {
  const query = request.query;
  if (query.has('page')) throw new ReplyError(ERRORS.pageParam());
  const limit = parseLimit(query.get('limit'));
  const fieldsText = query.get('fields');
  const fields = parseFields(fieldsText);
  const pageInfoText = query.get('page_info');
  const allowed: readonly string[] = scope.kind === 'search' ? SEARCH_PARAMS : FILTERS[resource].list;
  let filters: Filters<AnyFacts>;
  let cursor: { key: SortKey; direction: 'next' | 'prev' } | null = null;
  if (pageInfoText !== null) {
    for (const name of query.keys()) if (!PAGING_PARAMS.has(name)) throw new ReplyError(ERRORS.paramWithPageInfo(name));
    const info = decodePageInfo(pageInfoText);
    if (!info || Object.keys(info.filters).some((name) => !allowed.includes(name))) {
      throw new ReplyError(ERRORS.pageInfoInvalid());
    }
    try {
      filters = filtersOf(state, resource, scope, info.filters, 'list');
    } catch (error) {
      if (error instanceof FilterError) throw new ReplyError(ERRORS.pageInfoInvalid());
      throw error;
    }
    const sort =
      filters.sinceId !== undefined ? state.store(resource).model.idSort : state.store(resource).model.defaultSort;
    const value = sort.parseCursorValue(info.lastValue);
    if (value === undefined) throw new ReplyError(ERRORS.pageInfoInvalid());
    cursor = { key: { value, id: info.lastId }, direction: info.direction };
  } else {
    const sent: Record<string, string> = {};
    for (const [name, value] of query) if (!PAGING_PARAMS.has(name)) sent[name] = value;
    try {
      filters = filtersOf(state, resource, scope, sent, 'list');
    } catch (error) {
      if (error instanceof FilterError) throw new ReplyError(ERRORS.invalidParam(error.param));
      throw error;
    }
  }
  const hidden = state.faults.options.hiddenFromLists;
  if (hidden !== undefined && hidden.length > 0) {
    const shown = filters.match;
    filters = { ...filters, match: (facts) => !hidden.includes(String(facts.id)) && shown(facts) };
  }
  const view = buildView(state, resource, scope, filters);
  const sinceId = filters.sinceId;
  const from = cursor?.key ?? (sinceId !== undefined ? { value: sinceId, id: sinceId } : null);
  const page = readPage(view, limit, from, cursor?.direction ?? 'next', cursor === null);
  const oversized = oversizedPageReply(state, resource, limit, page.entries);
  if (oversized) return oversized;
  const store = state.store(resource);
  const envelope = scope.kind === 'customer-orders' ? 'orders' : resource;
  const head = `{"${envelope}":[`;
  const body = fields
    ? jsonBytes(head, page.entries, (entry) => serialize(project(store.recordOf(entry), fields)), ']}').body
    : store.servedBody(head, page.entries, ']}');
  const reply: Reply = { status: 200, text: body, records: page.entries.length, faultable: true };
  if (resource === 'products' && state.options.latency.perVariantMs > 0)
    reply.variants = variantsOf(state, page.entries);
  const first = page.entries[0];
  const last = page.entries[page.entries.length - 1];
  const links: string[] = [];
  const faults = request.linkFaults;
  const link = (entry: Entry<AnyFacts>, direction: 'next' | 'prev') => {
    const token =
      faults?.cursorLoop && direction === 'next' && pageInfoText !== null
        ? pageInfoText
        : encodePageInfo({
            filters: filters.sent,
            lastId: entry.facts.id,
            lastValue: view.sort.cursorValue(entry.facts),
            direction,
          });
    const fieldsPart = fieldsText === null ? '' : `&fields=${encodeURIComponent(fieldsText)}`;
    const rel = direction === 'prev' ? 'previous' : 'next';
    return `<${request.origin}${API_PREFIX}${request.path}?limit=${limit}${fieldsPart}&page_info=${token}>; rel=${faults?.malformed ? rel : `"${rel}"`}`;
  };
  if (page.hasPrevious && first) links.push(link(first, 'prev'));
  if (page.hasNext && last) links.push(link(last, 'next'));
  if (links.length > 0) {
    reply.headers = { Link: links.join(', ') };
    if (faults?.malformed) state.injected('malformedLinkAfter');
    if (faults?.cursorLoop && page.hasNext) state.injected('cursorLoopAfter');
    if (state.faults.options.linkOrigin !== undefined) state.injected('linkOrigin');
  }
  return reply;
}

/** Variants of the products on a page: generated ones from their shape, without building the records. */
function variantsOf(state: ShopState, entries: readonly Entry<AnyFacts>[]): number {
  let variants = 0;
  for (const entry of entries) {
    const listed = entry.record?.variants;
    variants += Array.isArray(listed) ? listed.length : productShape(state.ctx, entry.facts.index).variants.length;
  }
  return variants;
}

/** GET products/count.json, customers/count.json, orders/count.json. */
export function handleCount(state: ShopState, resource: ResourceName, request: SimRequest): Reply {
  const sent: Record<string, string> = {};
  for (const [name, value] of request.query) sent[name] = value;
  let filters: Filters<AnyFacts>;
  try {
    filters = filtersOf(state, resource, { kind: 'all' }, sent, 'count');
  } catch (error) {
    if (error instanceof FilterError) throw new ReplyError(ERRORS.invalidParam(error.param));
    throw error;
  }
  const store = state.store(resource);
  let count = store.size;
  if (!filters.trivial) {
    // Generated records never change, so their count per filter is computed once; writes only adjust it.
    const view = buildView(state, resource, { kind: 'all' }, filters);
    const base = view.base;
    count = base
      ? state.memoizeForever(`count:${resource}:${JSON.stringify(filters.sent)}`, () =>
          countView({ ...view, extras: [], base: { ...base, skip: () => false } }),
        )
      : 0;
    if (base) for (const index of store.shadowedIndices()) if (filters.match(store.model.facts(index))) count--;
    for (const entry of store.overlayEntries()) if (filters.match(entry.facts)) count++;
  }
  return { status: 200, text: `{"count":${count}}`, records: 0, faultable: true };
}
