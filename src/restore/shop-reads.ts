import { type JsonObject, type JsonValue, parseJson } from '../shopify/json.js';
import { COMPLETE_LIST_FILTERS, type ResourceName } from '../shopify/resources.js';
import { ShopBodyError } from '../source/errors.js';
import { parseNextLink } from '../source/link-header.js';
import { readCount, scanListPage } from '../source/list-page.js';
import type { ShopClient } from '../source/shop-client.js';
import { fetchRecord } from '../source/single-record.js';
import { formatFilterTime } from '../source/windows.js';
import { MARKER_METAFIELD, markerInMetafields, markerOf } from './records/natural-keys.js';
import type { TargetRecord } from './target.js';

/**
 * How far before a write's intent the shop is searched for what it created: the shop's clock may be behind ours, and
 * created_at is the shop's. A wider margin only costs pages of records restore itself created.
 */
const CLOCK_MARGIN_MS = 5 * 60_000;
const PAGE = '250';

/**
 * The records of `resource` the shop created since `sinceMs` (less the clock margin) that carry restore's marker for
 * one of `wanted`'s source ids: what became of creates whose answer never came (a crash between the intent and its
 * result, a timeout, a 5xx). One list walk for any number of them; each marker's newest record wins (there is one
 * unless the shop holds copies made outside restore). A product's marker is a metafield, which lists do not show: it
 * is read for the products listed whose handle is one a wanted product asked for (`wanted`'s value, its handle), or
 * that handle made unique with `-1`, `-2` …; without a handle, for every product listed.
 */
export async function findCreated(
  client: ShopClient,
  resource: ResourceName,
  wanted: ReadonlyMap<string, string | undefined>,
  sinceMs: number,
): Promise<Map<string, TargetRecord>> {
  const found = new Map<string, TargetRecord>();
  const query = {
    ...COMPLETE_LIST_FILTERS[resource],
    created_at_min: formatFilterTime(sinceMs - CLOCK_MARGIN_MS),
  };
  const handles = [...wanted.values()];
  const candidates: TargetRecord[] = [];
  for await (const listed of listAll(client, resource, `${resource}.json`, query)) {
    if (resource === 'products') {
      const handle = typeof listed.record.handle === 'string' ? listed.record.handle : '';
      if (handles.some((asked) => asked === undefined || inHandleFamily(handle, asked))) candidates.push(listed);
      continue;
    }
    const marker = markerOf(resource, listed.record);
    if (marker !== undefined && wanted.has(marker)) found.set(marker, listed);
  }
  const markers = await Promise.all(candidates.map((candidate) => readProductMarker(client, candidate.id)));
  candidates.forEach((candidate, k) => {
    const marker = markers[k];
    if (marker !== undefined && wanted.has(marker)) found.set(marker, candidate);
  });
  return found;
}

/** Whether `handle` is `asked`, or `asked` made unique by Shopify (`asked-1`, `asked-2`, …). */
export function inHandleFamily(handle: string, asked: string): boolean {
  return handle === asked || (handle.startsWith(`${asked}-`) && /^\d+$/.test(handle.slice(asked.length + 1)));
}

/**
 * The provenance marker of a target product: its metafield `shopsnap.source_id`, read through `metafields.json` with
 * the product as owner (EX22 metafield test_3), narrowed to that namespace and key (and checked again here).
 */
export async function readProductMarker(client: ShopClient, productId: string): Promise<string | undefined> {
  const url = client.apiUrl('metafields.json', {
    'metafield[owner_id]': productId,
    'metafield[owner_resource]': 'product',
    namespace: MARKER_METAFIELD.namespace,
    key: MARKER_METAFIELD.key,
  });
  const response = await client.get(url, readMetafieldList, { shape: { kind: 'single', resource: 'products' } });
  return markerInMetafields(response.value);
}

function readMetafieldList(body: Buffer, shown: string): JsonValue[] {
  let parsed: unknown;
  try {
    parsed = parseJson(body.toString('utf8'));
  } catch (error) {
    throw new ShopBodyError(shown, (error as Error).message, error);
  }
  const list = (parsed as Record<string, unknown> | null)?.metafields;
  if (!Array.isArray(list)) throw new ShopBodyError(shown, 'expected {"metafields":[…]}');
  return list as JsonValue[];
}

/**
 * The customers whose email is exactly `email` (case aside), by Shopify's customer search with the value quoted: an
 * unquoted `email:` search is tokenised and matches other addresses (restore.md §0.10). The search index can lag, so
 * an empty answer proves nothing; a 422 "has already been taken" names a customer that exists.
 */
export async function searchCustomersByEmail(client: ShopClient, email: string): Promise<TargetRecord[]> {
  const url = client.apiUrl('customers/search.json', { query: `email:"${email.replaceAll('"', '\\"')}"`, limit: PAGE });
  const response = await client.get(url, (body, shown) => scanListPage(body, 'customers', shown), {
    shape: { kind: 'list', resource: 'customers' },
  });
  const wanted = email.trim().toLowerCase();
  return response.value
    .filter((listed) => String(listed.record.email ?? '').toLowerCase() === wanted)
    .map((listed) => ({ id: listed.id, record: listed.record }));
}

/** One record as the shop holds it now, parsed; undefined when the shop answers 404. */
export async function fetchTarget(
  client: ShopClient,
  resource: ResourceName,
  id: string,
): Promise<TargetRecord | undefined> {
  const fetched = await fetchRecord(client, resource, id);
  return fetched === undefined ? undefined : { id, record: parseJson(fetched.bytes.toString('utf8')) as JsonObject };
}

/** The shop's count of a resource, with the crawl's filters (every status). */
export async function countRecords(client: ShopClient, resource: ResourceName): Promise<number> {
  const url = client.apiUrl(`${resource}/count.json`, COMPLETE_LIST_FILTERS[resource]);
  return (await client.get(url, readCount, { shape: { kind: 'count', resource } })).value;
}

/** The ids of a customer's orders, every status, through the customer-orders endpoint. */
export async function customerOrderIds(client: ShopClient, customerId: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for await (const listed of listAll(client, 'orders', `customers/${customerId}/orders.json`, { status: 'any' })) {
    ids.add(listed.id);
  }
  return ids;
}

/** Every record of a list, page by page through its `Link` headers (250 a page). */
async function* listAll(
  client: ShopClient,
  resource: ResourceName,
  path: string,
  query: Readonly<Record<string, string>>,
): AsyncIterable<TargetRecord> {
  const first = client.apiUrl(path, { ...query, limit: PAGE });
  let url: URL | undefined = first;
  while (url !== undefined) {
    const response = await client.get(url, (body, shown) => scanListPage(body, resource, shown), {
      shape: { kind: 'list', resource },
    });
    for (const listed of response.value) yield { id: listed.id, record: listed.record };
    const next = parseNextLink(response.headers.link as string | undefined, first);
    url =
      next === undefined
        ? undefined
        : client.apiUrl(path, { page_info: next.pageInfo, ...(next.limit === undefined ? {} : { limit: next.limit }) });
  }
}

/** A write's answer: the record under its envelope key, parsed exactly. */
export function readEnvelope(key: string): (body: Buffer, shown: string) => JsonObject {
  return (body, shown) => {
    let parsed: unknown;
    try {
      parsed = parseJson(body.toString('utf8'));
    } catch (error) {
      throw new ShopBodyError(shown, (error as Error).message, error);
    }
    const record = (parsed as Record<string, unknown> | null)?.[key];
    if (record === null || typeof record !== 'object' || Array.isArray(record)) {
      throw new ShopBodyError(shown, `expected {"${key}":{…}}`);
    }
    return record as JsonObject;
  };
}
