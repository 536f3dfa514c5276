import { COMPLETE_LIST_FILTERS, type ResourceName } from '../shopify/resources.js';
import { ACCESS_SCOPES_PATH, hasScope, READ_SCOPES } from '../shopify/scopes.js';
import { ShopBodyError } from './errors.js';
import { readJsonBody, scanListPage } from './list-page.js';
import { PAGE_LIMIT } from './page-size.js';
import { chainPageQuery } from './resource-crawl.js';
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
  /**
   * Round trips by kind, as the crawl tells them apart: a count's (the slowest of the counts) and a full page's of each
   * readable resource (its first 250 records, with the crawl's filters); undefined when nothing could be read.
   */
  roundTrips: { countMs: number; pageMs: Partial<Record<ResourceName, number>> } | undefined;
  /** `X-Shopify-API-Version` of the answers: the version that served them. */
  apiVersion: string | undefined;
}

/**
 * Asks a shop for the token's scopes (a 401 there means the token is wrong), then, all at once, for the count and the
 * first full page of every resource the token may read: a page of 250 orders takes ten times a count, and the
 * estimate needs both. A few retries, on a short budget: a check should answer in seconds, also when the shop does not.
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
    // A count and a page per resource, all in flight together.
    depth: 2 * options.resources.length,
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
    const [counted, pageMs] =
      readable.length === 0
        ? [undefined, []]
        : await Promise.all([
            countResources(client, readable),
            Promise.all(readable.map((resource) => firstPageMs(client, resource))),
          ]);
    return {
      scopes,
      records: Object.fromEntries(readable.map((resource, i) => [resource, counted?.records[i]])),
      bucketMax: client.pacer.state().max,
      roundTrips: counted && {
        countMs: counted.countMs,
        pageMs: Object.fromEntries(readable.map((resource, i) => [resource, pageMs[i]])),
      },
      apiVersion,
    };
  } finally {
    client.close();
  }
}

/** The round trip of a resource's first full page as a chain of the crawl asks for it: its filters, 250 records. */
async function firstPageMs(client: ShopClient, resource: ResourceName): Promise<number> {
  const url = client.apiUrl(`${resource}.json`, chainPageQuery(COMPLETE_LIST_FILTERS[resource], {}, 0n, PAGE_LIMIT));
  const read = (body: Buffer, shown: string) => scanListPage(body, resource, shown);
  return (await client.get(url, read, { shape: { kind: 'list', resource } })).elapsedMs;
}

/** `{"access_scopes":[{"handle":"read_orders"},…]}` → the handles. */
export function readAccessScopes(body: Buffer, url: string): string[] {
  const list = (readJsonBody(body, url) as { access_scopes?: unknown } | null)?.access_scopes;
  if (!Array.isArray(list) || list.some((entry) => typeof entry?.handle !== 'string')) {
    throw new ShopBodyError(url, 'no "access_scopes" list of {"handle": …} in the response');
  }
  return list.map((entry: { handle: string }) => entry.handle);
}

/** A count of a million orders takes Shopify a few seconds at most; a page of 250 heavy orders up to about 12 s. */
const CHECK_TIMEOUT_MS = 30_000;
/** Three attempts for faults and a few 429s (another client may be draining the bucket), within a minute. */
const CHECK_RETRY = { maxAttempts: 3, maxThrottledAttempts: 5, budgetMs: 60_000 };
