/** The API version every path is served and requested under. */
export const API_VERSION = '2022-01';
export const API_PREFIX = `/admin/api/${API_VERSION}`;

export const RESOURCES = ['products', 'customers', 'orders'] as const;
export type ResourceName = (typeof RESOURCES)[number];

export function isResourceName(name: string): name is ResourceName {
  return (RESOURCES as readonly string[]).includes(name);
}

/** The singular envelope key of one record: `{"product":{…}}`. */
export const SINGULAR: Record<ResourceName, string> = { products: 'product', customers: 'customer', orders: 'order' };

/**
 * Filters that make a list and its count return every record. Without them Shopify silently hides closed and
 * cancelled orders (`status` defaults to `open`) and draft or archived products (`status` defaults to `active`).
 */
export const COMPLETE_LIST_FILTERS: Record<ResourceName, Readonly<Record<string, string>>> = {
  products: { status: 'active,archived,draft' },
  customers: {},
  orders: { status: 'any' },
};
