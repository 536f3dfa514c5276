import { type JsonObject, type JsonValue, parseJson } from '../../src/shopify/json.js';
import { API_PREFIX } from '../../src/shopify/resources.js';
import { ONLINE_GATEWAYS, type RunningShop } from '../../src/simulator/index.js';

export interface Served {
  status: number;
  headers: Headers;
  text: string;
  json: JsonValue;
}

/** A tiny client over fetch for the contract tests: paths are relative to the API prefix. */
export function clientFor(shop: RunningShop, token = shop.token) {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const url = path.startsWith('http') ? path : `${shop.url}${API_PREFIX}${path}`;
    const response = await fetch(url, {
      method,
      headers: { 'X-Shopify-Access-Token': token, 'Content-Type': 'application/json', ...headers },
      ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    let json: JsonValue = null;
    try {
      json = text === '' ? null : parseJson(text);
    } catch {
      json = null;
    }
    return { status: response.status, headers: response.headers, text, json } satisfies Served;
  };
  return {
    get: (path: string, headers?: Record<string, string>) => call('GET', path, undefined, headers),
    post: (path: string, body?: unknown) => call('POST', path, body),
    put: (path: string, body: unknown) => call('PUT', path, body),
    delete: (path: string) => call('DELETE', path),
  };
}

export type ShopClient = ReturnType<typeof clientFor>;

/** The `rel` → URL map of a Link header, parsed the way Shopify's own JS library does. */
export function links(header: string | null): Record<string, string> {
  const found: Record<string, string> = {};
  for (const part of (header ?? '').split(', ')) {
    const match = /<([^<]+)>; rel="([^"]+)"/.exec(part);
    if (match) found[match[2] as string] = match[1] as string;
  }
  return found;
}

export function listOf(served: Served, key: string): JsonObject[] {
  return (served.json as JsonObject)[key] as JsonObject[];
}

/** Follows `next` links from a first path; returns every record, in order. */
export async function crawl(client: ShopClient, firstPath: string, key: string): Promise<JsonObject[]> {
  const records: JsonObject[] = [];
  let next: string | undefined = firstPath;
  while (next) {
    const page = await client.get(next);
    if (page.status !== 200) throw new Error(`crawl got ${page.status} on ${next}: ${page.text}`);
    records.push(...listOf(page, key));
    next = links(page.headers.get('link')).next;
  }
  return records;
}

export function decodeToken(url: string): JsonObject {
  const token = new URL(url).searchParams.get('page_info') ?? '';
  return parseJson(Buffer.from(token, 'base64url').toString('utf8')) as JsonObject;
}

/** Orders Shopify lets an app delete: none paid through an online gateway (the simulated shop refuses those too). */
export function deletableOrders(shop: RunningShop): JsonObject[] {
  return [...shop.records('orders')].filter((order) => !ONLINE_GATEWAYS.includes(String(order.gateway)));
}

/** Customers Shopify lets an app delete: those without orders. */
export function customersWithoutOrders(shop: RunningShop): JsonObject[] {
  const buyers = new Set(
    [...shop.records('orders')].map((order) => String((order.customer as JsonObject | null)?.id ?? '')),
  );
  return [...shop.records('customers')].filter((customer) => !buyers.has(String(customer.id)));
}
