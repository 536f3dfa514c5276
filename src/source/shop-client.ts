import { isUtf8 } from 'node:buffer';
import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import got, { type Got, type PlainResponse } from 'got';
import { type JsonValue, parseJson, stringifyJson } from '../shopify/json.js';
import { API_PREFIX, type ResourceName } from '../shopify/resources.js';
import { parseCallLimit } from './bucket-model.js';
import {
  CrawlAbortedError,
  RetriesExhaustedError,
  ShopAuthError,
  ShopBodyEncodingError,
  ShopBodyTooLargeError,
  ShopError,
  ShopHttpError,
  ShopRedirectError,
  ShopThrottledError,
  ShopTransportError,
  ShopUnavailableError,
  ShopWriteUnsureError,
} from './errors.js';
import { Pacer } from './pacer.js';
import { parseRetryAfterMs } from './retry-after.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, retryDelayMs } from './retry-policy.js';
import { answerTiming, type RequestKind, RoundTrips } from './round-trips.js';

export interface ShopClientOptions {
  /** Origin of the shop, e.g. https://x.myshopify.com or http://127.0.0.1:1234. */
  shopUrl: string;
  token: string;
  /** Most requests in flight; sizes the keep-alive pool. */
  depth: number;
  signal?: AbortSignal | undefined;
  /** Total deadline of one HTTP exchange, body included (an idle timeout alone never fires on a trickling body). */
  requestTimeoutMs?: number | undefined;
  retry?: Partial<RetryPolicy> | undefined;
  /**
   * Largest response body accepted, in bytes after decompression; a larger one is stopped while downloading. Each
   * request in flight buffers at most this much, so `depth × maxBodyBytes` bounds the client's body memory.
   * @default DEFAULT_MAX_BODY_BYTES (64 MiB)
   */
  maxBodyBytes?: number | undefined;
  /**
   * Called with `X-Shopify-API-Version`, the version that served the request, the first time it appears and whenever
   * it changes. Shopify answers a retired version with the oldest supported one ("falls forward").
   */
  onApiVersion?: ((version: string) => void) | undefined;
}

/** A page of 250 orders with every nested shape is a few MB: this leaves a margin of more than ten times. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface ShopResponse<T> {
  url: URL;
  headers: http.IncomingHttpHeaders;
  /** What the reader made of the body. */
  value: T;
  /** Attempts beyond the first that this response needed. */
  retries: number;
  /** Duration of the successful HTTP exchange alone (no pacing, no retries). */
  elapsedMs: number;
}

/**
 * Turns a 2xx body (its bytes: a list page is decoded record by record) into a value, throwing ShopBodyError when the
 * body is unusable; it runs inside the retry loop, so a truncated or garbled body is fetched again.
 */
export type BodyReader<T> = (body: Buffer, shownUrl: string) => T;

/** What a request is, for its round trip estimate: its kind and the resource it reads. */
export interface RequestShape {
  kind: RequestKind;
  resource?: ResourceName | undefined;
}

/** A request on the wire: sent (the pacer let it go) and not answered yet. */
export interface OpenExchange {
  resource: ResourceName | undefined;
  /** When it was sent, on the pacer's clock (performance.now()). */
  sentMs: number;
}

/**
 * A write: its method, the JSON body if any (serialised with big ids exact), and whether sending it twice has the effect
 * of sending it once. A create is not repeatable: the API has no idempotency key, so a create whose answer never came
 * may have happened, and only a lookup can tell (ShopWriteUnsureError).
 */
export interface WriteCall {
  method: 'POST' | 'PUT' | 'DELETE';
  body?: JsonValue | undefined;
  repeatable: boolean;
}

export interface RetryEvent {
  url: URL;
  attempt: number;
  delayMs: number;
  error: ShopError;
}

export interface RequestOptions {
  onRetry?: (event: RetryEvent) => void;
  priority?: number;
  shape: RequestShape;
  /**
   * Whether a 429 is a limit the caller waits out itself (a development store's order-creation limit, the variant
   * limit): such a 429 is thrown at once instead of retried, and the pacer is not paused for it.
   */
  ownLimit?: (error: ShopThrottledError) => boolean;
  /** Abandons this request (a hedged page whose other copy answered first): it rejects with CrawlAbortedError. */
  signal?: AbortSignal | undefined;
  /** Called as each attempt goes on the wire, past the pacer: a request's time out counts from here. */
  onSent?: (() => void) | undefined;
}

const BODY_EXCERPT = 200;

/** The HTTP side of one shop: one got instance, one keep-alive pool, one pacer, one retry policy. */
export class ShopClient {
  readonly origin: string;
  readonly pacer = new Pacer();
  /** Every successful exchange's duration, by kind of request (see round-trips.ts). */
  readonly roundTrips = new RoundTrips();
  private readonly http: Got;
  private readonly agents: { http: http.Agent; https: https.Agent };
  private readonly policy: RetryPolicy;
  private readonly signal: AbortSignal | undefined;
  private readonly maxBodyBytes: number;
  private readonly open = new Set<OpenExchange>();
  private readonly onApiVersion: ((version: string) => void) | undefined;

  /** Whether the shop has answered anything yet (any HTTP response). */
  #reached = false;
  #apiVersion: string | undefined;

  constructor(options: ShopClientOptions) {
    const origin = new URL(options.shopUrl);
    if (origin.protocol !== 'https:' && origin.protocol !== 'http:') {
      throw new TypeError(`shop URL must be http(s): ${origin.protocol}`);
    }
    this.origin = origin.origin;
    this.signal = options.signal;
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.onApiVersion = options.onApiVersion;
    const pool = { keepAlive: true, maxSockets: options.depth + 4 };
    this.agents = { http: new http.Agent(pool), https: new https.Agent(pool) };
    this.http = got.extend({
      headers: { 'x-shopify-access-token': options.token, accept: 'application/json' },
      agent: this.agents,
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
      timeout: { request: options.requestTimeoutMs ?? 120_000 },
    });
  }

  /** URL of `<resource>.json` (or any path under the API prefix) on this shop. */
  apiUrl(path: string, query: Readonly<Record<string, string>> = {}): URL {
    const url = new URL(`${API_PREFIX}/${path}`, this.origin);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    return url;
  }

  /**
   * GET with pacing and retries; resolves with what `read` made of the body, or throws a ShopError. `priority` orders
   * the requests the bucket holds back (see Pacer); `shape` says what the request is, for its round trip estimate (a
   * list page's reader returns its records, whose number is the page's size).
   */
  get<T>(url: URL, read: BodyReader<T>, options: RequestOptions): Promise<ShopResponse<T>> {
    return this.exchange(url, undefined, read, options);
  }

  /**
   * A write through the same pacer and retry policy as the reads: a 429 is retried (the shop refused it unread), and so
   * are transport faults and 5xx answers of a repeatable write. Those of a create are not: the create may have been
   * applied with its answer lost, and sending it again could make a second record, so ShopWriteUnsureError is thrown
   * for the caller to look the record up first. A 4xx is thrown as ShopHttpError, a 422 with the shop's `errors`.
   */
  send<T>(url: URL, call: WriteCall, read: BodyReader<T>, options: RequestOptions): Promise<ShopResponse<T>> {
    return this.exchange(url, call, read, options);
  }

  private async exchange<T>(
    url: URL,
    call: WriteCall | undefined,
    read: BodyReader<T>,
    { signal: abandon, ...options }: RequestOptions,
  ): Promise<ShopResponse<T>> {
    const signals = linkSignals(this.signal, abandon);
    try {
      return await this.exchangeUntil(signals.signal, url, call, read, options);
    } finally {
      signals.unlink();
    }
  }

  private async exchangeUntil<T>(
    signal: AbortSignal | undefined,
    url: URL,
    call: WriteCall | undefined,
    read: BodyReader<T>,
    { onRetry, priority = 0, shape, ownLimit, onSent }: RequestOptions,
  ): Promise<ShopResponse<T>> {
    const started = performance.now();
    let throttled = 0;
    let failed = 0;
    let tooLarge = 0;
    let current = url;
    const body = call?.body === undefined ? undefined : Buffer.from(stringifyJson(call.body));
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(
        current,
        call?.method ?? 'GET',
        body,
        read,
        { priority, shape, onSent },
        signal,
      ).then(
        (response) => ({ response }),
        (caught: unknown) => ({ error: asShopError(current, caught, signal) }),
      );
      if ('response' in outcome) {
        this.#reached = true;
        return { ...outcome.response, retries: attempt - 1 };
      }
      const failure = outcome.error;
      const unreachable = isUnreachable(failure);
      if (!unreachable) this.#reached = true;
      if (!failure.retryable) throw failure;
      if (failure instanceof ShopThrottledError && ownLimit?.(failure)) throw failure;
      // A refused connection never reached the shop; anything later may have.
      if (call !== undefined && !call.repeatable && !(failure instanceof ShopThrottledError) && !unreachable) {
        throw new ShopWriteUnsureError(`${call.method} ${shownUrl(current)}`, failure);
      }
      if (failure instanceof ShopThrottledError) throttled++;
      else failed++;
      const delayMs = retryDelayMs(this.policy, failure, failed + throttled, Math.random());
      if (
        failed >= this.policy.maxAttempts ||
        // A shop that never answered is most likely a wrong address, not a blip: say so in seconds, not minutes.
        (unreachable && !this.#reached && failed >= FIRST_CONTACT_ATTEMPTS) ||
        throttled >= this.policy.maxThrottledAttempts ||
        performance.now() + delayMs - started > this.policy.budgetMs
      ) {
        throw new RetriesExhaustedError(shownUrl(current), attempt, failure);
      }
      if (failure instanceof ShopThrottledError && failure.bucketHadRoom) this.pacer.pause(delayMs);
      if (shape.kind === 'list' && mayBeTooLarge(failure) && ++tooLarge >= SHRINK_AFTER) current = halveLimit(current);
      onRetry?.({ url: current, attempt, delayMs, error: failure });
      try {
        await sleep(delayMs, undefined, { signal });
      } catch (abort) {
        throw new CrawlAbortedError(abort);
      }
    }
  }

  /** The requests on the wire now: a shop that accepts connections and never answers shows here. */
  unanswered(): OpenExchange[] {
    return [...this.open];
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private async attempt<T>(
    url: URL,
    method: 'GET' | WriteCall['method'],
    payload: Buffer | undefined,
    read: BodyReader<T>,
    { priority, shape, onSent }: { priority: number; shape: RequestShape; onSent: (() => void) | undefined },
    signal: AbortSignal | undefined,
  ): Promise<Omit<ShopResponse<T>, 'retries'>> {
    const ticket = await this.pacer.acquire(priority, signal);
    onSent?.();
    const exchange = { resource: shape.resource, sentMs: ticket.sendMs };
    this.open.add(exchange);
    const response = await this.download(url, method, payload, signal).finally(() => this.open.delete(exchange));
    const elapsedMs = performance.now() - ticket.sendMs;
    const headers = response.headers;
    const callLimit = headers['x-shopify-shop-api-call-limit'] as string | undefined;
    this.noteApiVersion(headers['x-shopify-api-version']);
    const status = response.statusCode;
    const shown = shownUrl(url);
    const body = response.body;
    if (status >= 200 && status < 300) {
      let value: T;
      try {
        // Records are decoded one by one later; none may ever need U+FFFD, so a body that is not UTF-8 is refused whole.
        if (!isUtf8(body)) throw new ShopBodyEncodingError(shown, body.length);
        value = read(body, shown);
      } catch (error) {
        // A damaged body's timing says nothing about the shop; its header still bounds the bucket.
        this.pacer.observe(ticket, callLimit, status, { prompt: false, wayThereMs: 0 });
        throw error;
      }
      const records = Array.isArray(value) ? value.length : shape.kind === 'single' ? 1 : 0;
      const timing = answerTiming(this.roundTrips, shape.kind, shape.resource, records, elapsedMs);
      this.pacer.observe(ticket, callLimit, status, timing);
      this.roundTrips.observe(shape.kind, shape.resource, { records, ms: elapsedMs });
      return { url, headers, value, elapsedMs };
    }
    this.pacer.observe(ticket, callLimit, status, { prompt: false, wayThereMs: 0 });
    // 4 bytes per character at most: enough bytes for the excerpt's characters.
    const excerpt = body
      .toString('utf8', 0, 4 * BODY_EXCERPT)
      .slice(0, BODY_EXCERPT)
      .replace(/\s+/g, ' ');
    const retryAfterMs = parseRetryAfterMs(headers['retry-after'], Date.now());
    if (status === 401) throw new ShopAuthError(shown, excerpt);
    if (status === 402 || status === 423) throw new ShopUnavailableError(status, shown, excerpt);
    if (status >= 300 && status < 400) throw new ShopRedirectError(status, shown, headers.location);
    if (status === 429) {
      const limit = parseCallLimit(callLimit);
      const bucketHadRoom = limit !== undefined && limit.used < limit.max - 1;
      this.pacer.markRefused(bucketHadRoom);
      throw new ShopThrottledError(shown, excerpt, retryAfterMs, bucketHadRoom);
    }
    throw new ShopHttpError(status, shown, excerpt, { retryAfterMs, errors: errorsOf(status, body) });
  }

  /**
   * One GET with its body as bytes, stopped as soon as the announced length or the bytes received pass the limit.
   * The stream carries the body decompressed, so a small gzip body that inflates past the limit stops too.
   */
  private async download(
    url: URL,
    method: 'GET' | WriteCall['method'],
    body: Buffer | undefined,
    signal: AbortSignal | undefined,
  ): Promise<{ statusCode: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
    const tooLarge = (seen: string) => new ShopBodyTooLargeError(shownUrl(url), this.maxBodyBytes, seen);
    const stream =
      method === 'GET'
        ? this.http.stream(url, { signal })
        : // A write without a body still sends an empty one: a got stream would otherwise wait for one to be piped in.
          this.http.stream(url, {
            method,
            signal,
            body: body ?? Buffer.alloc(0),
            ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' } }),
          });
    try {
      const [response] = (await once(stream, 'response')) as [PlainResponse];
      const announced = Number(response.headers['content-length']);
      if (announced > this.maxBodyBytes) throw tooLarge(`Content-Length: ${announced}`);
      const chunks: Buffer[] = [];
      let received = 0;
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        received += chunk.length;
        if (received > this.maxBodyBytes) throw tooLarge(`stopped after ${received} bytes`);
        chunks.push(chunk);
      }
      return { statusCode: response.statusCode, headers: response.headers, body: Buffer.concat(chunks, received) };
    } finally {
      // Stops a download cut short; a finished got stream still listens to the crawl's signal (and would emit an
      // unheard error on its abort), which this detaches. A socket already back in the keep-alive pool is not touched.
      stream.destroy();
    }
  }

  private noteApiVersion(header: string | string[] | undefined): void {
    const version = typeof header === 'string' ? header.trim() : undefined;
    if (!version || version === this.#apiVersion) return;
    this.#apiVersion = version;
    this.onApiVersion?.(version);
  }
}

function asShopError(url: URL, error: unknown, signal: AbortSignal | undefined): ShopError {
  if (error instanceof ShopError) return error;
  if (signal?.aborted) return new CrawlAbortedError(error);
  return new ShopTransportError(shownUrl(url), error);
}

/**
 * One signal that aborts with either: the client's (the crawl is cancelled) or a request's own (it was abandoned).
 * The link is undone afterwards, so a long-lived client signal does not collect a listener per request.
 */
function linkSignals(
  client: AbortSignal | undefined,
  request: AbortSignal | undefined,
): { signal: AbortSignal | undefined; unlink: () => void } {
  if (request === undefined || client === undefined) return { signal: request ?? client, unlink: () => {} };
  const linked = new AbortController();
  const abort = (event: Event) => linked.abort((event.target as AbortSignal).reason);
  for (const source of [client, request]) {
    if (source.aborted) linked.abort(source.reason);
    else source.addEventListener('abort', abort, { once: true });
  }
  return {
    signal: linked.signal,
    unlink: () => {
      for (const source of [client, request]) source.removeEventListener('abort', abort);
    },
  };
}

/**
 * The `errors` of a 4xx JSON body (`{"errors":{"email":["has already been taken"]}}`), kept whole for reports: a 422
 * says what the shop refused and why. Bodies above a small size are left to the excerpt.
 */
function errorsOf(status: number, body: Buffer): JsonValue | undefined {
  if (status < 400 || status >= 500 || body.length > 64 * 1024) return undefined;
  try {
    const parsed = parseJson(body.toString('utf8'));
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed.errors : undefined;
  } catch {
    return undefined;
  }
}

/** page_info cursors are opaque and long; messages and logs keep the path and the other parameters. */
export function shownUrl(url: URL): string {
  const shown = new URL(url);
  if (shown.searchParams.has('page_info')) shown.searchParams.set('page_info', '…');
  return shown.toString();
}

/**
 * A list page that keeps failing with a 5xx or a timeout may be too large for the shop to answer in time: large shops
 * answer 500-504 to some pages of 250 orders, and the same page at a smaller limit goes through (Airbyte halves its
 * page size on 500s; Shopify's 504 asks to break requests down; live-shop.md §1.2). The first such failure is retried
 * as it was (most are blips); each further one halves the limit. The crawl grows it back afterwards (nextPageLimit).
 */
const SHRINK_AFTER = 2;

function mayBeTooLarge(error: ShopError): boolean {
  if (error instanceof ShopHttpError) return error.status >= 500 && error.status <= 504;
  return error instanceof ShopTransportError && (error.cause as { code?: unknown })?.code === 'ETIMEDOUT';
}

/** The same request asking for half the records (the API's default limit is 50); a page of one cannot shrink. */
export function halveLimit(url: URL): URL {
  const smaller = new URL(url);
  const limit = Number(url.searchParams.get('limit') ?? 50);
  smaller.searchParams.set('limit', String(Math.max(1, Math.floor(limit / 2))));
  return smaller;
}

/** Attempts for a request that cannot connect at all, as long as the shop has never answered. */
const FIRST_CONTACT_ATTEMPTS = 3;
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function isUnreachable(error: ShopError): boolean {
  return error instanceof ShopTransportError && UNREACHABLE_CODES.has((error.cause as { code?: string })?.code ?? '');
}
