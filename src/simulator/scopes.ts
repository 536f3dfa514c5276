import type { ResourceName } from '../shopify/resources.js';
import { ALL_ORDERS_SCOPE, hasScope } from '../shopify/scopes.js';
import { ERRORS } from './errors.js';
import { jsonReply, type Reply, ReplyError } from './reply.js';

/** What a custom app made for shopsnap (and for restores) is granted: everything the simulated shop serves. */
export const DEFAULT_SCOPES: readonly string[] = [
  'read_products',
  'write_products',
  'read_customers',
  'write_customers',
  'read_orders',
  'write_orders',
  'read_all_orders',
];

/** Without `read_all_orders`, orders created longer ago than this are invisible: absent from lists, 404 alone. */
export const ORDERS_WINDOW_MS = 60 * 24 * 60 * 60 * 1000;

/** `{"access_scopes":[{"handle":"read_products"},…]}`, in the order granted. */
export function accessScopesReply(granted: readonly string[]): Reply {
  return jsonReply(200, { access_scopes: granted.map((handle) => ({ handle })) });
}

/** Answers 403 when the token lacks the scope a request needs: `read_X` to read (`write_X` grants it too), `write_X` to change. */
export function requireScope(granted: readonly string[], method: string, resource: ResourceName): void {
  const needed = `${method === 'GET' ? 'read' : 'write'}_${resource}`;
  if (!hasScope(granted, needed)) throw new ReplyError(ERRORS.missingScope(needed));
}

/** The oldest creation time of an order the token may see: undefined with `read_all_orders`. */
export function ordersVisibleFromMs(granted: readonly string[], nowMs: number): number | undefined {
  return granted.includes(ALL_ORDERS_SCOPE) ? undefined : nowMs - ORDERS_WINDOW_MS;
}
