import type { ResourceName } from '../shopify/resources.js';
import { ACCESS_SCOPES_PATH, hasScope, READ_SCOPES } from '../shopify/scopes.js';
import { ShopBodyError } from './errors.js';
import { readJsonBody } from './list-page.js';
import { ShopClient } from './shop-client.js';
import { countResources } from './shop-probe.js';

/** What a shop tells a token before its first backup. */
export interface ShopCheck {
  /** The token's granted scopes, as the shop lists them. */
  scopes: string[];
  /** Records of each resource the token may read, with the crawl's own filters; a resource it may not read is absent. */
  records: Partial<Record<ResourceName, number>>;
  /** The bucket's size from `X-Shopify-Shop-Api-Call-Limit`; undefined for a shop that sends none (no limit). */
  bucketMax: number | undefined;
  /** The slowest of the counts, asked for together; undefined when nothing could be counted. */
  roundTripMs: number | undefined;
  /** `X-Shopify-API-Version` of the answers: the version that served them. */
  apiVersion: string | undefined;
}

/**
 * Asks a shop for the token's scopes (a 401 there means the token is wrong), then for the count of every resource the
 * token may read. A few retries, on a short budget: a check should answer in seconds, also when the shop does not.
 */
export async function checkShop(options: {
  shopUrl: string;
  token: string;
  resources: readonly ResourceName[];
  signal?: AbortSignal | undefined;
}): Promise<ShopCheck> {
  let apiVersion: string | undefined;
  const client = new ShopClient({
    shopUrl: options.shopUrl,
    token: options.token,
    depth: options.resources.length,
    signal: options.signal,
    requestTimeoutMs: CHECK_TIMEOUT_MS,
    retry: CHECK_RETRY,
    onApiVersion: (version) => {
      apiVersion = version;
    },
  });
  try {
    const scopesUrl = new URL(ACCESS_SCOPES_PATH, client.origin);
    const scopes = (await client.get(scopesUrl, readAccessScopes, { shape: { kind: 'single' } })).value;
    const readable = options.resources.filter((resource) => hasScope(scopes, READ_SCOPES[resource]));
    const counted = readable.length === 0 ? undefined : await countResources(client, readable);
    return {
      scopes,
      records: Object.fromEntries(readable.map((resource, i) => [resource, counted?.records[i]])),
      bucketMax: client.pacer.state().max,
      roundTripMs: counted?.roundTripMs,
      apiVersion,
    };
  } finally {
    client.close();
  }
}

/** `{"access_scopes":[{"handle":"read_orders"},…]}` → the handles. */
export function readAccessScopes(body: Buffer, url: string): string[] {
  const list = (readJsonBody(body, url) as { access_scopes?: unknown } | null)?.access_scopes;
  if (!Array.isArray(list) || list.some((entry) => typeof entry?.handle !== 'string')) {
    throw new ShopBodyError(url, 'no "access_scopes" list of {"handle": …} in the response');
  }
  return list.map((entry: { handle: string }) => entry.handle);
}

/** A count of a million orders takes Shopify a few seconds at most. */
const CHECK_TIMEOUT_MS = 30_000;
/** Three attempts for faults and a few 429s (another client may be draining the bucket), within a minute. */
const CHECK_RETRY = { maxAttempts: 3, maxThrottledAttempts: 5, budgetMs: 60_000 };
