import { API_VERSION, COMPLETE_LIST_FILTERS, type ResourceName } from '../shopify/resources.js';
import { ALL_ORDERS_SCOPE, missingScopes, READ_SCOPES } from '../shopify/scopes.js';
import { type RateTier, rateTier } from '../shopify/tiers.js';
import { expectedCrawlMs, minimumCrawlRequests, type ShopCheck, tierLeakPerSecond } from '../source/index.js';

/** `shopsnap check`'s answer (its `--json` output): what a backup of the shop will meet. */
export interface CheckReport {
  shop: string;
  /** Every scope a backup needs is granted. */
  ok: boolean;
  scopes: { granted: string[]; missing: string[] };
  api_version: { requested: string; answered: string | null };
  /** Records per resource with the crawl's own filters; null where the token may not read the resource. */
  resources: Partial<Record<ResourceName, { records: number | null; filters: Record<string, string> }>>;
  bucket: { size: number | null; tier: RateTier; leak_per_second: number | null };
  /**
   * Round trips by kind: a count's (the slowest of the counts, asked for together) and a full page's of each resource
   * the token may read (its first 250 records, with the crawl's filters).
   */
  round_trip_ms: { count: number; page: Partial<Record<ResourceName, number>> } | null;
  /**
   * The backup's fewest requests and the crawl's own model of their duration (shop-probe.ts `expectedCrawlMs`): an
   * estimate from the tier's leak and the measured round trips of each kind, over the resources the token may read.
   */
  estimate: { requests: number; duration_ms: number; depth: number } | null;
  /** Why a backup would fail or be incomplete, one sentence each. */
  problems: string[];
  /** What is worth knowing but stops nothing. */
  notes: string[];
}

export function buildCheckReport(
  check: ShopCheck,
  request: { shop: string; resources: readonly ResourceName[]; depth: number },
): CheckReport {
  const missing = missingScopes(check.scopes, request.resources);
  const readable = request.resources.filter((resource) => check.records[resource] !== undefined);
  const records = readable.map((resource) => check.records[resource] as number);
  const problems = missing.map((scope) => scopeProblem(scope, request.resources));
  const roundTrips = check.roundTrips;
  const pageMs = (resource: ResourceName): number => roundTrips?.pageMs[resource] ?? 0;
  const notes: string[] = [];
  if (check.apiVersion !== undefined && check.apiVersion !== API_VERSION) {
    notes.push(
      `the shop answers with API version ${check.apiVersion}, not the ${API_VERSION} requested: Shopify serves a retired version as the oldest one it supports, and the records have that version's shape`,
    );
  }
  return {
    shop: request.shop,
    ok: missing.length === 0,
    scopes: { granted: check.scopes, missing },
    api_version: { requested: API_VERSION, answered: check.apiVersion ?? null },
    resources: Object.fromEntries(
      request.resources.map((resource) => [
        resource,
        { records: check.records[resource] ?? null, filters: { ...COMPLETE_LIST_FILTERS[resource] } },
      ]),
    ),
    bucket: {
      size: check.bucketMax ?? null,
      tier: rateTier(check.bucketMax),
      leak_per_second: check.bucketMax === undefined ? null : tierLeakPerSecond(check.bucketMax),
    },
    round_trip_ms:
      roundTrips === undefined
        ? null
        : {
            count: Math.round(roundTrips.countMs),
            page: Object.fromEntries(readable.map((resource) => [resource, Math.round(pageMs(resource))])),
          },
    estimate:
      roundTrips === undefined || readable.length === 0
        ? null
        : {
            requests: minimumCrawlRequests(records),
            duration_ms: Math.round(
              expectedCrawlMs(
                { records, bucketMax: check.bucketMax, countMs: roundTrips.countMs, pageMs: readable.map(pageMs) },
                request.depth,
              ),
            ),
            depth: request.depth,
          },
    problems,
    notes,
  };
}

function scopeProblem(scope: string, resources: readonly ResourceName[]): string {
  if (scope === ALL_ORDERS_SCOPE) {
    return `${ALL_ORDERS_SCOPE} is missing: orders older than 60 days are invisible to this token (absent from lists and counts, with no error), so a backup would hold only the last 60 days of orders`;
  }
  const resource = resources.find((r) => READ_SCOPES[r] === scope) as ResourceName;
  return `${scope} is missing: the token cannot read ${resource} at all (a backup would stop with 403)`;
}
