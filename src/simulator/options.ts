import { randomBytes } from 'node:crypto';
import type { JsonObject } from '../shopify/json.js';
import { API_VERSION, type ResourceName } from '../shopify/resources.js';
import { LATENCY_PRESETS, type LatencyModel, type LatencyOptions } from './latency.js';
import { type BucketShape, RATE_PRESETS, type RatePreset } from './rate-limit.js';
import { DEFAULT_SCOPES } from './scopes.js';
import type { OrderCreateThrottle, VariantCreateThrottle } from './writes/limits.js';

export type { RatePreset } from './rate-limit.js';

/** Faults are drawn from their own seeded stream, so a run with the same options fails the same way. */
export interface FaultOptions {
  /** Probability per list/count request of a 5xx (500, 502, 503, 504 in turn, with Shopify-like bodies). @default 0 */
  serverErrorRate?: number;
  /** A drawn 5xx repeats for this many consecutive list/count requests. @default 1 */
  serverErrorBurst?: number;
  /**
   * Pages too large to answer, as on shops with heavy orders (live-shop.md §1.2): a list request of `resource` whose
   * `limit` is above `aboveLimit` and whose page would include a record with an id from `minId` to `maxId` answers a
   * 5xx (500, 502, 503, 504 in turn, worded as Shopify's) with probability `rate` (@default 1), after the time the page
   * would have taken. The same page at a limit of `aboveLimit` or less is served.
   */
  oversizedPages?: { resource: ResourceName; aboveLimit: number; minId: bigint; maxId: bigint; rate?: number };
  /** Probability of sending the headers and part of the body, then destroying the socket. @default 0 */
  resetRate?: number;
  /**
   * Probability of a 200 whose body is cut: either with a Content-Length honest to the cut (the HTTP exchange
   * completes; the JSON is broken) or chunked and then closed (premature close). @default 0
   */
  truncateRate?: number;
  /** Probability of a body that stalls halfway for `slowMs`. @default 0 */
  slowRate?: number;
  /** @default 2000 */
  slowMs?: number;
  /** Probability of a 429 with `Retry-After: 2.0` although the bucket has room (Shopify's other limits). @default 0 */
  throttleStormRate?: number;
  /**
   * A 429 storm: list/count requests `after + 1` to `after + requests` get a bucket 429 (`Retry-After: 2.0`, the
   * call-limit header at its maximum), as when another client of the same token has drained the bucket.
   */
  throttleStorm?: { after: number; requests: number };
  /**
   * From list/count request `after + 1` on, every one is answered with `status`: 402 (a frozen shop, "Unavailable
   * Shop") or 423 (a locked shop), as when the shop's state changes mid-run; or a redirect to `location` followed by
   * the request's path and query, which a client must never follow.
   */
  failFromRequest?:
    | { after: number; status: 402 | 423 }
    | { after: number; status: 301 | 302 | 307 | 308; location: string };
  /**
   * From list request `N + 1` on, `Link` headers carry an unquoted `rel=next`: a loose parser sees no next page and
   * ends the list early.
   */
  malformedLinkAfter?: number;
  /** From the list request carrying a `page_info` number `N + 1` on, the next link hands back that same page_info. */
  cursorLoopAfter?: number;
  /**
   * Probability per list request carrying a `page_info` of Shopify's 400 `{"errors":{"page_info":"Invalid value."}}`,
   * as for an expired or corrupted cursor. @default 0
   */
  pageInfoErrorRate?: number;
  /** Origin written into `Link` URLs instead of the one the client called (a link to another host or scheme). */
  linkOrigin?: string;
  /**
   * Ignore every list/count filter except `limit` and `page_info` (a shop a client cannot partition), or with
   * 'created_at' only `created_at_min/max` (a shop that pages by `since_id` but cannot be split by date). @default false
   */
  ignoreFilters?: boolean | 'created_at';
  /** Every N list requests: create one record, update one (bumping updated_at) and delete one of the listed resource. */
  churn?: { everyRequests: number };
  /**
   * Records (exact decimal ids) that lists never show while counts still count them and the shop otherwise holds still:
   * a server that silently loses records from its listing.
   */
  hiddenFromLists?: readonly string[];
  /**
   * Writes the shop applies whose answer never reaches the client, as when a connection drops or a gateway gives up
   * after the server did the work: the record exists, the client saw an error. `rate` loses a seeded share of the
   * applied writes (2xx); `writes` names them: a number is the ordinal of an applied write (1-based, counted from the
   * shop's start or the last setFaults), a string a route label (`POST /orders.json`, every one) or a label with the
   * ordinal among its own applied writes (`POST /orders.json#2`). `as` is how the answer is lost: `reset` (the
   * connection is destroyed before any byte, after the write's response time; @default), or a 502 or 504 with
   * Shopify's edge HTML body.
   */
  lostAnswers?: { rate?: number; writes?: readonly (number | string)[]; as?: LostAnswer };
  /**
   * Answers that come back `ms` later than the latency model has them, as one slow answer among prompt ones: each
   * named by its route label and its ordinal among that route's requests (`GET /products/count.json#2`, counted from
   * the shop's start or the last setFaults).
   */
  lateAnswers?: { requests: readonly string[]; ms: number };
  /** @default the shop seed */
  seed?: number;
}

/** How a lost answer reaches the client. */
export type LostAnswer = 'reset' | 502 | 504;

/** How many times each fault knob took effect (a request answered or a body or header damaged by it). */
export type InjectedFaults = Partial<
  Record<
    Exclude<keyof FaultOptions, 'serverErrorBurst' | 'slowMs' | 'ignoreFilters' | 'churn' | 'hiddenFromLists' | 'seed'>,
    number
  >
>;

export interface ShopOptions {
  /** Same seed and sizes give identical data. @default 1 */
  seed?: number;
  /** @default 25 */
  products?: number;
  /** @default 50 */
  customers?: number;
  /** Up to 1,000,000; records are generated on demand. @default 100 */
  orders?: number;
  /** @default 'unlimited' */
  rate?: RatePreset | BucketShape;
  /**
   * Response times per kind of request (see LatencyModel), counted from the request's arrival; the shop's own work
   * happens inside them. 'realistic' follows live-shop.md §6b. @default 'none'
   */
  latency?: LatencyOptions;
  /** Share (0..1) of products, customers and orders whose ids (and their children's) are above 2^53. @default 0 */
  bigIdShare?: number;
  /** The accepted `X-Shopify-Access-Token`. @default a random 'shpat_…' string */
  token?: string;
  /** @default 0 (a free port); the server always binds 127.0.0.1 */
  port?: number;
  /** products.json without `status` lists only active products, as Shopify documents. @default true */
  productsDefaultActiveOnly?: boolean;
  /**
   * Added to every generated record of every resource, after its own fields: fields the client's schema does not
   * know, as Shopify adds them over time. @default {}
   */
  unknownFields?: JsonObject;
  faults?: FaultOptions;
  /**
   * The version sent in `X-Shopify-API-Version`, as the one that served each request. Shopify answers a retired
   * version with the oldest supported one ("falls forward"); the shop still serves 2022-01's shapes. @default '2022-01'
   */
  answeredApiVersion?: string;
  /**
   * Access scopes granted to the token, listed by `/admin/oauth/access_scopes.json`. A request without the scope it
   * needs gets Shopify's 403; without `read_all_orders`, orders created more than 60 days ago are invisible (absent
   * from lists and counts, 404 alone). @default every read and write scope of products, customers and orders, and
   * read_all_orders
   */
  scopes?: readonly string[];
  /** Serve https with this key and certificate (PEM); the shop's URL and its `Link` headers then say https. */
  tls?: { key: string; cert: string };
  /**
   * Build every generated record and its served text at start, so a list request costs little more than joining
   * texts. For benchmarks: building pages on demand makes the shop compete with the client for the CPU, so the
   * client would be measured against a shop slower than its configured latency. Memory: the whole shop's JSON.
   * @default false
   */
  prerender?: boolean;
  /**
   * A development or trial store's order limit: at most `orders` orders created per `windowMs` (default a minute;
   * Shopify's is 5), sliding; the excess gets a 429 with Shopify's body for it and no `Retry-After`. @default none
   */
  orderCreateThrottle?: OrderCreateThrottle;
  /**
   * Shopify's variant-creation limit: once the shop has `afterVariants` variants (Shopify: 50,000), creations of more
   * than `variants` per `windowMs` (Shopify: 1,000 per day) get a 429 with Shopify's body for it: product create, a
   * product PUT that adds variants, and the variant endpoint. @default none
   */
  variantCreateThrottle?: VariantCreateThrottle;
}

export interface ResolvedShopOptions {
  seed: number;
  sizes: { products: number; customers: number; orders: number };
  rate: BucketShape;
  latency: LatencyModel;
  bigIdShare: number;
  token: string;
  port: number;
  productsDefaultActiveOnly: boolean;
  unknownFields: JsonObject;
  faults: FaultOptions;
  answeredApiVersion: string;
  scopes: readonly string[];
  tls: { key: string; cert: string } | undefined;
  prerender: boolean;
  orderCreateThrottle: OrderCreateThrottle | undefined;
  variantCreateThrottle: VariantCreateThrottle | undefined;
}

export const MAX_GENERATED_RECORDS = 1_000_000;

export class ShopOptionsError extends Error {
  override name = 'ShopOptionsError';
  readonly code = 'ERR_SIM_OPTIONS';
}

function size(name: string, value: number | undefined, fallback: number): number {
  const n = value ?? fallback;
  if (!Number.isSafeInteger(n) || n < 0 || n > MAX_GENERATED_RECORDS) {
    throw new ShopOptionsError(
      `simulated shop: ${name} must be an integer from 0 to ${MAX_GENERATED_RECORDS}, got ${n}`,
    );
  }
  return n;
}

export function resolveShopOptions(options: ShopOptions = {}): ResolvedShopOptions {
  const rate = typeof options.rate === 'object' ? options.rate : RATE_PRESETS[options.rate ?? 'unlimited'];
  if (!rate || !(rate.bucket >= 1) || !(rate.leakPerSecond > 0)) {
    throw new ShopOptionsError(`simulated shop: unknown rate ${JSON.stringify(options.rate)}`);
  }
  const bigIdShare = options.bigIdShare ?? 0;
  if (!(bigIdShare >= 0 && bigIdShare <= 1)) {
    throw new ShopOptionsError(`simulated shop: bigIdShare must be within 0..1, got ${bigIdShare}`);
  }
  return {
    seed: options.seed ?? 1,
    sizes: {
      products: size('products', options.products, 25),
      customers: size('customers', options.customers, 50),
      orders: size('orders', options.orders, 100),
    },
    rate,
    latency: resolveLatency(options.latency),
    bigIdShare,
    token: options.token ?? `shpat_${randomBytes(16).toString('hex')}`,
    port: options.port ?? 0,
    productsDefaultActiveOnly: options.productsDefaultActiveOnly ?? true,
    unknownFields: options.unknownFields ?? {},
    faults: options.faults ?? {},
    answeredApiVersion: options.answeredApiVersion ?? API_VERSION,
    scopes: options.scopes ?? DEFAULT_SCOPES,
    tls: options.tls,
    prerender: options.prerender ?? false,
    orderCreateThrottle: checkedThrottle('orderCreateThrottle', options.orderCreateThrottle, ['orders']),
    variantCreateThrottle: checkedThrottle('variantCreateThrottle', options.variantCreateThrottle, [
      'afterVariants',
      'variants',
    ]),
  };
}

/** A throttle knob whose counts are integers ≥ 0 and whose window is positive: JSON from a child shop is checked. */
function checkedThrottle<T extends { windowMs?: number }>(
  name: string,
  knob: T | undefined,
  counts: (keyof T)[],
): T | undefined {
  if (knob === undefined) return undefined;
  for (const field of counts) {
    const value = knob[field];
    if (!(typeof value === 'number' && Number.isSafeInteger(value) && value >= 0)) {
      throw new ShopOptionsError(
        `simulated shop: ${name}.${String(field)} must be an integer ≥ 0, got ${String(value)}`,
      );
    }
  }
  if (knob.windowMs !== undefined && !(knob.windowMs > 0)) {
    throw new ShopOptionsError(`simulated shop: ${name}.windowMs must be > 0, got ${knob.windowMs}`);
  }
  return knob;
}

function resolveLatency(options: LatencyOptions = 'none'): LatencyModel {
  if (typeof options === 'string') {
    const preset = Object.hasOwn(LATENCY_PRESETS, options) ? LATENCY_PRESETS[options] : undefined;
    if (!preset) throw new ShopOptionsError(`simulated shop: unknown latency ${JSON.stringify(options)}`);
    return preset;
  }
  const none = LATENCY_PRESETS.none;
  // Options often arrive as JSON (a benchmark's child shop): a misspelt or old field must not silently mean 0.
  const unknown = Object.keys(options).find((name) => !Object.hasOwn(none, name));
  const perRecord = options.perRecordMs ?? {};
  const unknownResource = Object.keys(perRecord).find((name) => !Object.hasOwn(none.perRecordMs, name));
  if (unknown !== undefined || typeof perRecord !== 'object' || unknownResource !== undefined) {
    throw new ShopOptionsError(
      `simulated shop: latency ${unknown ?? `perRecordMs.${unknownResource ?? ''}`} is not a latency field (${Object.keys(none).join(', ')}; perRecordMs per resource)`,
    );
  }
  const model: LatencyModel = { ...none, ...options, perRecordMs: { ...none.perRecordMs, ...options.perRecordMs } };
  const numbers = [
    ...Object.entries(model).filter((entry): entry is [string, number] => typeof entry[1] === 'number'),
    ...Object.entries(model.perRecordMs).map(([resource, ms]): [string, number] => [`perRecordMs.${resource}`, ms]),
  ];
  for (const [name, value] of numbers) {
    if (!(Number.isFinite(value) && value >= 0)) {
      throw new ShopOptionsError(`simulated shop: latency ${name} must be a finite number ≥ 0, got ${value}`);
    }
  }
  if (model.stallShare > 1) {
    throw new ShopOptionsError(`simulated shop: latency stallShare must be within 0..1, got ${model.stallShare}`);
  }
  return model;
}
