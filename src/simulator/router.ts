import type { ResourceName } from '../shopify/resources.js';
import { SINGULAR } from '../shopify/resources.js';
import { ERRORS } from './errors.js';
import { parseFields, project } from './fields.js';
import { handleCount, handleList } from './list.js';
import { jsonReply, type Reply, ReplyError, type SimRequest } from './reply.js';
import { ordersVisibleFromMs } from './scopes.js';
import type { ShopState } from './shop-state.js';
import { activationUrl, createCustomer, deleteCustomer, sendInvite, updateCustomer } from './writes/customers.js';
import { listMetafields, type MetafieldOwner } from './writes/metafields.js';
import { cancelOrder, setClosed } from './writes/order-actions.js';
import { createOrder } from './writes/order-create.js';
import { deleteOrder, updateOrder } from './writes/orders.js';
import { createProduct, deleteProduct, updateProduct } from './writes/products.js';
import { createVariant, showVariant, updateVariant } from './writes/variant-routes.js';

export interface Route {
  /** For stats: method and path with ids replaced, e.g. `GET /orders/{id}.json`. */
  label: string;
  /** Sets the response time; lists and counts are where faults strike, and lists drive churn. */
  kind: 'list' | 'count' | 'single' | 'write';
  resource: ResourceName;
  run(state: ShopState, request: SimRequest): Reply;
}

const PATH = /^\/(products|customers|orders)(?:\/(\d{1,20}|count|search))?(?:\/([a-z_]+))?\.json$/;
const VARIANT_PATH = /^\/variants\/(\d{1,20})\.json$/;

/** `GET` and `PUT variants/{id}.json`: a variant alone, under the products scope. */
function matchVariant(method: string, path: string): Route | undefined {
  const match = VARIANT_PATH.exec(path);
  if (!match) return undefined;
  const id = BigInt(match[1] as string);
  const route = (kind: Route['kind'], run: Route['run']): Route => ({
    label: `${method} /variants/{id}.json`,
    kind,
    resource: 'products',
    run,
  });
  if (method === 'GET') return route('single', (s) => showVariant(s, id));
  if (method === 'PUT') return route('write', (s, r) => updateVariant(s, r, id));
  return undefined;
}

/** Owners `metafields.json` serves, by `metafield[owner_resource]`, with the resource whose scope reads them. */
const METAFIELD_OWNERS: Record<string, { owner: MetafieldOwner; resource: ResourceName }> = {
  product: { owner: 'product', resource: 'products' },
  variant: { owner: 'variant', resource: 'products' },
  customer: { owner: 'customer', resource: 'customers' },
  order: { owner: 'order', resource: 'orders' },
};

/** `GET metafields.json`, under the scope of the owner's resource (the shop's own: products, as any token reads it). */
function matchMetafields(method: string, query: URLSearchParams): Route | undefined {
  if (method !== 'GET') return undefined;
  const named = query.get('metafield[owner_resource]');
  const owner = named === null ? undefined : METAFIELD_OWNERS[named];
  if (named !== null && owner === undefined) return undefined;
  return {
    label: 'GET /metafields.json',
    kind: 'single',
    resource: owner?.resource ?? 'products',
    run: (s, r) => listMetafields(s, r, owner?.owner),
  };
}

function showOne(state: ShopState, resource: ResourceName, request: SimRequest, id: bigint): Reply {
  const store = state.store(resource);
  const entry = store.find(id);
  const from = resource === 'orders' ? ordersVisibleFromMs(state.options.scopes, state.nowMs()) : undefined;
  if (!entry || (from !== undefined && entry.facts.createdMs < from)) throw new ReplyError(ERRORS.notFound());
  const fields = parseFields(request.query.get('fields'));
  const key = SINGULAR[resource];
  if (fields) return jsonReply(200, { [key]: project(store.recordOf(entry), fields) }, 1);
  return { status: 200, text: store.servedBody(`{"${key}":`, [entry], '}'), records: 1 };
}

/**
 * Maps a method and a path under the API prefix to its handler. Returns undefined for an unknown route (404); throws
 * 406 for a known route asked for in another format (`.xml`).
 */
export function matchRoute(method: string, path: string, query = new URLSearchParams()): Route | undefined {
  const match = PATH.exec(path);
  if (!match) {
    if (VARIANT_PATH.test(path)) return matchVariant(method, path);
    if (path === '/metafields.json') return matchMetafields(method, query);
    if (/^\/(products|customers|orders)[/\w]*\.(?!json$)\w+$/.test(path)) throw new ReplyError(ERRORS.notAcceptable());
    return undefined;
  }
  const resource = match[1] as ResourceName;
  const second = match[2];
  const action = match[3];
  const id = second !== undefined && /^\d+$/.test(second) ? BigInt(second) : undefined;
  const route = (label: string, kind: Route['kind'], run: Route['run']): Route => ({
    label: `${method} /${resource}${label}`,
    kind,
    resource,
    run,
  });
  if (second === undefined && action === undefined) {
    if (method === 'GET') return route('.json', 'list', (s, r) => handleList(s, resource, r, { kind: 'all' }));
    if (method === 'POST') {
      const create = { products: createProduct, customers: createCustomer, orders: createOrder }[resource];
      return route('.json', 'write', create);
    }
    return undefined;
  }
  if (second === 'count' && action === undefined && method === 'GET') {
    return route('/count.json', 'count', (s, r) => handleCount(s, resource, r));
  }
  if (second === 'search' && action === undefined && method === 'GET' && resource === 'customers') {
    return route('/search.json', 'list', (s, r) => handleList(s, 'customers', r, { kind: 'search' }));
  }
  if (id === undefined) return undefined;
  if (action === undefined) {
    if (method === 'GET') return route('/{id}.json', 'single', (s, r) => showOne(s, resource, r, id));
    if (method === 'PUT') {
      const update = { products: updateProduct, customers: updateCustomer, orders: updateOrder }[resource];
      return route('/{id}.json', 'write', (s, r) => update(s, r, id));
    }
    if (method === 'DELETE') {
      const remove = { products: deleteProduct, customers: deleteCustomer, orders: deleteOrder }[resource];
      return route('/{id}.json', 'write', (s) => remove(s, id));
    }
    return undefined;
  }
  const key = `${method} ${resource}/${action}`;
  switch (key) {
    case 'POST products/variants':
      return route('/{id}/variants.json', 'write', (s, r) => createVariant(s, r, id));
    case 'GET customers/orders':
      return {
        ...route('/{id}/orders.json', 'list', (s, r) => {
          if (!s.stores.customers.find(id)) throw new ReplyError(ERRORS.notFound());
          return handleList(s, 'orders', r, { kind: 'customer-orders', customerId: id });
        }),
        resource: 'orders',
      };
    case 'POST customers/account_activation_url':
      return route('/{id}/account_activation_url.json', 'write', (s) => activationUrl(s, id));
    case 'POST customers/send_invite':
      return route('/{id}/send_invite.json', 'write', (s, r) => sendInvite(s, r, id));
    case 'POST orders/cancel':
      return route('/{id}/cancel.json', 'write', (s, r) => cancelOrder(s, r, id));
    case 'POST orders/close':
      return route('/{id}/close.json', 'write', (s) => setClosed(s, id, true));
    case 'POST orders/open':
      return route('/{id}/open.json', 'write', (s) => setClosed(s, id, false));
    default:
      return undefined;
  }
}
