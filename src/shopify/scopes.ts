import type { ResourceName } from './resources.js';

/** Where a token's granted scopes are listed: outside the versioned prefix, the same for every API version. */
export const ACCESS_SCOPES_PATH = '/admin/oauth/access_scopes.json';

/** Without it only the last 60 days of orders are visible: older ones are absent from lists and counts, no error. */
export const ALL_ORDERS_SCOPE = 'read_all_orders';

/** The scope that lets a token read each resource at all. */
export const READ_SCOPES: Record<ResourceName, string> = {
  products: 'read_products',
  customers: 'read_customers',
  orders: 'read_orders',
};

/** The scopes a complete backup of each resource needs. */
export const BACKUP_SCOPES: Record<ResourceName, readonly string[]> = {
  products: [READ_SCOPES.products],
  customers: [READ_SCOPES.customers],
  orders: [READ_SCOPES.orders, ALL_ORDERS_SCOPE],
};

/** Whether `granted` includes `scope`; a `write_X` scope grants `read_X` as well (Shopify's access-scope rule). */
export function hasScope(granted: readonly string[], scope: string): boolean {
  return granted.includes(scope) || (scope.startsWith('read_') && granted.includes(`write_${scope.slice(5)}`));
}

/** The scopes a backup of `resources` needs that `granted` lacks, in resource order. */
export function missingScopes(granted: readonly string[], resources: readonly ResourceName[]): string[] {
  return resources.flatMap((resource) => BACKUP_SCOPES[resource].filter((scope) => !hasScope(granted, scope)));
}
