import { isJsonObject } from '../shopify/json.js';
import { isResourceName, RESOURCES, type ResourceName } from '../shopify/resources.js';
import { RestoreError } from './errors.js';
import { idText } from './records/ids.js';
import type { RestoreSource } from './source.js';

/** The snapshot records a restore takes, per resource: all of them, some by id, or none. */
export type Scope = Record<ResourceName, 'all' | Set<string>>;

/**
 * `--only orders:450789469,450789470 --only customers:207119551` as resource → ids. Each item is `<resource>:<id>`, or
 * a bare id that belongs to the resource named before it (the comma-separated list splits `orders:1,2` in two).
 */
export function parseOnly(items: readonly string[]): Partial<Record<ResourceName, Set<string>>> {
  const only: Partial<Record<ResourceName, Set<string>>> = {};
  let current: ResourceName | undefined;
  for (const item of items) {
    const [head, id] = item.includes(':') ? item.split(':', 2) : [undefined, item];
    if (head !== undefined) {
      if (!isResourceName(head)) {
        throw new RestoreError(
          'ERR_USAGE',
          `--only ${JSON.stringify(item)}: ${JSON.stringify(head)} is not one of ${RESOURCES.join(', ')}`,
        );
      }
      current = head;
    }
    if (current === undefined) {
      throw new RestoreError('ERR_USAGE', `--only ${JSON.stringify(item)}: name the resource first (orders:${item})`);
    }
    if (id === undefined || !/^\d{1,20}$/.test(id)) {
      throw new RestoreError('ERR_USAGE', `--only ${JSON.stringify(item)}: ${JSON.stringify(id)} is not a record id`);
    }
    const ids = only[current] ?? new Set<string>();
    ids.add(BigInt(id).toString());
    only[current] = ids;
  }
  return only;
}

/**
 * The records a restore takes: the resources asked for (with `--only`, just those ids), and what their orders need:
 * each order's customer and the products its line items name, restored too when the target lacks them. A record named
 * by --only that the snapshot does not hold is an error, named.
 */
export async function resolveScope(
  source: RestoreSource,
  resources: readonly ResourceName[],
  only: Partial<Record<ResourceName, Set<string>>>,
): Promise<Scope> {
  const asked = new Set<ResourceName>(Object.keys(only).length > 0 ? (Object.keys(only) as ResourceName[]) : resources);
  const scope: Scope = { products: new Set(), customers: new Set(), orders: new Set() };
  for (const resource of RESOURCES) {
    if (!asked.has(resource) || !source.resources.includes(resource)) continue;
    scope[resource] = only[resource] ?? 'all';
  }
  const orders = scope.orders;
  if (orders === 'all' || orders.size > 0) {
    const found = new Set<string>();
    for await (const { id, record } of source.records('orders')) {
      if (orders !== 'all' && !orders.has(id)) continue;
      found.add(id);
      const customer = isJsonObject(record.customer) ? idText(record.customer.id) : undefined;
      if (customer !== undefined) add(scope, 'customers', customer);
      for (const line of Array.isArray(record.line_items) ? record.line_items : []) {
        const product = isJsonObject(line) ? idText(line.product_id) : undefined;
        if (product !== undefined) add(scope, 'products', product);
      }
    }
    if (orders !== 'all') missing('orders', orders, found, source);
  }
  for (const resource of ['products', 'customers'] as const) {
    const ids = only[resource];
    if (ids === undefined) continue;
    const found = new Set<string>();
    for await (const { id } of source.records(resource)) if (ids.has(id)) found.add(id);
    missing(resource, ids, found, source);
  }
  return scope;
}

export function inScope(scope: Scope, resource: ResourceName, id: string): boolean {
  const ids = scope[resource];
  return ids === 'all' || ids.has(id);
}

function add(scope: Scope, resource: ResourceName, id: string): void {
  const ids = scope[resource];
  if (ids !== 'all') ids.add(id);
}

function missing(resource: ResourceName, wanted: Set<string>, found: Set<string>, source: RestoreSource): void {
  const absent = [...wanted].filter((id) => !found.has(id));
  if (absent.length > 0) {
    throw new RestoreError(
      'ERR_USAGE',
      `--only: the snapshot ${source.location} holds no ${resource} ${absent.slice(0, 5).join(', ')}${absent.length > 5 ? ', …' : ''}`,
    );
  }
}
