import { type JsonObject, parseJson } from '../shopify/json.js';
import { COMPLETE_LIST_FILTERS, type ResourceName } from '../shopify/resources.js';
import { ShopBodyError } from '../source/errors.js';
import { parseNextLink } from '../source/link-header.js';
import { readCount, scanListPage } from '../source/list-page.js';
import type { ShopClient } from '../source/shop-client.js';
import { fetchRecord } from '../source/single-record.js';
import { formatFilterTime } from '../source/windows.js';
import { markerOf } from './records/natural-keys.js';
import type { TargetRecord } from './target.js';

/**
 * How far before a write's intent the shop is searched for what it created: the shop's clock may be behind ours, and
 * created_at is the shop's. A wider margin only costs pages of records restore itself created.
 */
const CLOCK_MARGIN_MS = 5 * 60_000;
const PAGE = '250';

/**
 * The records of `resource` the shop created since `sinceMs` (less the clock margin) that carry restore's marker for
 * one of `sourceIds`: what became of creates whose answer never came (a crash between the intent and its result, a
 * timeout, a 5xx). One list walk for any number of them; each marker's newest record wins (there is one unless the
 * shop holds copies made outside restore).
 */
export async function findCreated(
  client: ShopClient,
  resource: ResourceName,
  sourceIds: ReadonlySet<string>,
  sinceMs: number,
): Promise<Map<string, TargetRecord>> {
  const found = new Map<string, TargetRecord>();
  const query = {
    ...COMPLETE_LIST_FILTERS[resource],
    created_at_min: formatFilterTime(sinceMs - CLOCK_MARGIN_MS),
  };
  for await (const listed of listAll(client, resource, `${resource}.json`, query)) {
    const marker = markerOf(resource, listed.record);
    if (marker !== undefined && sourceIds.has(marker)) found.set(marker, listed);
  }
  return found;
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
