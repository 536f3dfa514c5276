import type { JsonObject, JsonValue } from '../../shopify/json.js';
import { ERRORS } from '../errors.js';
import type { WireId } from '../ids.js';
import { jsonReply, type Reply, ReplyError, type SimRequest } from '../reply.js';
import type { ShopState } from '../shop-state.js';
import { isObject } from './envelope.js';

/** Owner kinds as Shopify names them in `owner_resource`. */
export type MetafieldOwner = 'product' | 'variant' | 'customer' | 'order';

const STORE_KEY: Record<MetafieldOwner, string> = {
  product: 'products',
  variant: 'variants',
  customer: 'customers',
  order: 'orders',
};

export function metafieldKey(owner: MetafieldOwner, id: WireId | bigint): string {
  return `${STORE_KEY[owner]}/${String(id)}`;
}

const filled = (value: JsonValue | undefined) => typeof value === 'string' && value.trim() !== '';

/**
 * Reads the `metafields` array of a create or update body (each with namespace, key, value and a type: `type` since
 * 2021-07, `value_type` before, both seen in 2022-01 examples). Validation happens before anything is written: a bad
 * entry refuses the whole request with a 422.
 */
export function readMetafields(value: JsonValue | undefined): JsonObject[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  for (const entry of list) {
    const valid =
      isObject(entry) &&
      filled(entry.namespace) &&
      filled(entry.key) &&
      entry.value !== undefined &&
      entry.value !== null &&
      (filled(entry.type) || filled(entry.value_type));
    if (!valid) throw new ReplyError(ERRORS.validation({ metafields: ['is invalid'] }));
  }
  return list as JsonObject[];
}

/** Stores metafields read by `readMetafields` as Shopify would serve them; same namespace and key replace. */
export function saveMetafields(
  state: ShopState,
  owner: MetafieldOwner,
  ownerId: WireId,
  inputs: JsonObject[],
  now: string,
  big: boolean,
): void {
  const ledger = state.ledger;
  ledger.addMetafields(
    metafieldKey(owner, ownerId),
    inputs.map((input) => {
      const id = ledger.childId('metafield', big);
      return {
        id,
        namespace: input.namespace as string,
        key: input.key as string,
        value: typeof input.value === 'string' ? input.value : String(input.value),
        description: typeof input.description === 'string' ? input.description : null,
        owner_id: ownerId,
        created_at: now,
        updated_at: now,
        owner_resource: owner,
        type: (filled(input.type) ? input.type : input.value_type) as string,
        admin_graphql_api_id: `gid://shopify/Metafield/${String(id)}`,
      };
    }),
  );
}

/**
 * `GET metafields.json?metafield[owner_id]=…&metafield[owner_resource]=product` (EX22 metafield test_3): the metafields
 * of one product, variant, customer or order as they were saved, optionally only those of a `namespace` and `key`; an
 * owner without any has `[]`. Without an owner (the shop's own metafields) the list is empty: the simulated shop keeps
 * none.
 */
export function listMetafields(state: ShopState, request: SimRequest, owner: MetafieldOwner | undefined): Reply {
  const ownerId = request.query.get('metafield[owner_id]') ?? '';
  if (owner !== undefined && !/^\d{1,20}$/.test(ownerId)) {
    throw new ReplyError(ERRORS.validation({ owner_id: ['is invalid'] }));
  }
  const namespace = request.query.get('namespace');
  const key = request.query.get('key');
  const saved = owner === undefined ? [] : (state.ledger.metafields.get(metafieldKey(owner, BigInt(ownerId))) ?? []);
  const metafields = saved.filter(
    (item) => (namespace === null || item.namespace === namespace) && (key === null || item.key === key),
  );
  return jsonReply(200, { metafields: structuredClone(metafields) }, metafields.length);
}
