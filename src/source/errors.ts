import type { JsonValue } from '../shopify/json.js';

/**
 * Every way a crawl request can fail, as classes with a stable `code`. `retryable` is the taxonomy the retry layer
 * obeys: transport faults, unparsable bodies, 408, 429 and 5xx are worth another try; anything that says the request
 * itself or the credentials are wrong is not. Messages name the shop path, never the token.
 */
export abstract class ShopError extends Error {
  abstract readonly code: string;
  abstract readonly retryable: boolean;
  /** What went wrong without naming the URL (a message that names it already, as a retry's give-up, adds this). */
  readonly reason: string;
  constructor(message: string, options?: { cause?: unknown; reason?: string }) {
    super(message, { cause: options?.cause });
    this.reason = options?.reason ?? message;
  }
}

/** A non-2xx answer. */
export class ShopHttpError extends ShopError {
  override name = 'ShopHttpError';
  readonly code: string = 'ERR_SHOP_HTTP';
  readonly retryable: boolean;
  constructor(
    readonly status: number,
    readonly url: string,
    readonly bodyExcerpt: string,
    options?: { retryAfterMs?: number | undefined; errors?: JsonValue | undefined; cause?: unknown },
  ) {
    const reason = `answered ${status}${bodyExcerpt ? `: ${bodyExcerpt}` : ''}`;
    super(`${url} ${reason}`, { cause: options?.cause, reason });
    this.retryable = isRetryableStatus(status);
    this.retryAfterMs = options?.retryAfterMs;
    this.errors = options?.errors;
  }
  readonly retryAfterMs: number | undefined;
  /** The `errors` of a 4xx JSON body, whole: what the shop refused and why (a 422's fields and messages). */
  readonly errors: JsonValue | undefined;
}

/** 401: the token is wrong or revoked. Never retried: retrying a bad credential only burns the shop's bucket. */
export class ShopAuthError extends ShopHttpError {
  override name = 'ShopAuthError';
  override readonly code = 'ERR_SHOP_AUTH';
  constructor(url: string, bodyExcerpt: string) {
    super(401, url, bodyExcerpt);
    this.message = `the shop rejected the access token (401 Unauthorized) for ${url}${bodyExcerpt ? `: ${bodyExcerpt}` : ''}`;
  }
}

/** 402 (a frozen shop: unpaid bills) or 423 (a locked shop). Not retried: the shop stays so for hours or for good. */
export class ShopUnavailableError extends ShopHttpError {
  override name = 'ShopUnavailableError';
  override readonly code = 'ERR_SHOP_UNAVAILABLE';
  constructor(status: 402 | 423, url: string, bodyExcerpt: string) {
    super(status, url, bodyExcerpt);
    const state = status === 402 ? 'frozen (402 Payment Required)' : 'locked (423 Locked)';
    this.message = `the shop is ${state}: ${url}${bodyExcerpt ? ` answered ${bodyExcerpt}` : ''}`;
  }
}

/**
 * A 3xx. Never followed, whatever the target: the token would go along to another host, or in clear text after a
 * downgrade to http, and a shop's API does not move.
 */
export class ShopRedirectError extends ShopHttpError {
  override name = 'ShopRedirectError';
  override readonly code = 'ERR_SHOP_REDIRECT';
  constructor(status: number, url: string, location: string | undefined) {
    super(status, url, '');
    this.message = `refusing to follow a redirect (${status}) from ${url} to ${location?.slice(0, 300) ?? '(no Location)'}: requests go only to the shop's own address`;
  }
}

/** 429. Retryable, but it means the pacer's picture of the bucket was wrong (or another limit applies). */
export class ShopThrottledError extends ShopHttpError {
  override name = 'ShopThrottledError';
  override readonly code = 'ERR_SHOP_THROTTLED';
  constructor(
    url: string,
    bodyExcerpt: string,
    retryAfterMs: number | undefined,
    /** The bucket header showed room: a different limit than the leaky bucket, so back off harder. */
    readonly bucketHadRoom: boolean,
  ) {
    super(429, url, bodyExcerpt, { retryAfterMs });
  }
}

/** The connection failed, was reset, timed out, or the body ended early. */
export class ShopTransportError extends ShopError {
  override name = 'ShopTransportError';
  readonly code = 'ERR_SHOP_TRANSPORT';
  readonly retryable = true;
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    const reason = (cause as Error)?.message ?? String(cause);
    super(`request to ${url} failed: ${reason}`, { cause, reason });
  }
}

/** A 2xx whose body is not the JSON envelope we asked for (truncated or garbled): retried like a transport fault. */
export class ShopBodyError extends ShopError {
  override name = 'ShopBodyError';
  readonly code = 'ERR_SHOP_BODY';
  readonly retryable = true;
  constructor(
    readonly url: string,
    detail: string,
    cause?: unknown,
  ) {
    super(`unusable response body from ${url}: ${detail}`, { cause, reason: `unusable response body: ${detail}` });
  }
}

/**
 * A 2xx body that is not valid UTF-8. Shopify sends UTF-8 JSON, so bad bytes mean the body was damaged on the way;
 * decoding them anyway would put U+FFFD into the lossless archive in place of what the shop holds. Retried like a
 * garbled body; a run whose retries keep seeing it fails instead of storing altered text.
 */
export class ShopBodyEncodingError extends ShopError {
  override name = 'ShopBodyEncodingError';
  readonly code = 'ERR_SHOP_BODY_UTF8';
  readonly retryable = true;
  constructor(
    readonly url: string,
    bytes: number,
  ) {
    const why = `is not valid UTF-8 (${bytes} bytes): it was damaged on the way`;
    super(`response body from ${url} ${why}`, { reason: `the response body ${why}` });
  }
}

/**
 * A body larger than the client's limit, stopped while downloading (by its Content-Length, or by the bytes received
 * once decompressed) so it is never buffered whole. The same request would bring the same body: not retried.
 */
export class ShopBodyTooLargeError extends ShopError {
  override name = 'ShopBodyTooLargeError';
  readonly code = 'ERR_SHOP_BODY_TOO_LARGE';
  readonly retryable = false;
  constructor(
    readonly url: string,
    readonly limitBytes: number,
    seen: string,
  ) {
    super(
      `response body from ${url} exceeds the limit of ${limitBytes} bytes (${seen}); no page of the API is that large`,
    );
  }
}

/**
 * JSON nested deeper than the client's limit. JSON.stringify recurses, so such a record would overflow the stack in
 * the transform; no Shopify record nests past a dozen levels. The same request would bring the same body: not retried.
 */
export class ShopBodyTooDeepError extends ShopError {
  override name = 'ShopBodyTooDeepError';
  readonly code = 'ERR_SHOP_BODY_TOO_DEEP';
  readonly retryable = false;
  constructor(
    readonly url: string,
    readonly limitDepth: number,
  ) {
    super(`response body from ${url} nests JSON deeper than ${limitDepth} levels`);
  }
}

/** A `Link` header we cannot read exactly. Reading it loosely could end a list early, so it is fatal. */
export class LinkHeaderError extends ShopError {
  override name = 'LinkHeaderError';
  readonly code = 'ERR_LINK_HEADER';
  readonly retryable = false;
  constructor(
    readonly header: string,
    detail: string,
  ) {
    super(`malformed Link header (${detail}): ${header.slice(0, 300)}`);
  }
}

/** A `Link` pointing at another origin or path. Never requested: following it would hand the token to that host. */
export class ForeignLinkError extends ShopError {
  override name = 'ForeignLinkError';
  readonly code = 'ERR_LINK_FOREIGN';
  readonly retryable = false;
  constructor(
    readonly link: string,
    expected: string,
  ) {
    super(`refusing Link to ${link.slice(0, 300)}: only ${expected} may be followed`);
  }
}

/** The server handed out a cursor it had already given: following it would loop forever or end early. */
export class CursorLoopError extends ShopError {
  override name = 'CursorLoopError';
  readonly code = 'ERR_CURSOR_LOOP';
  readonly retryable = false;
  constructor(readonly path: string) {
    super(`cursor loop on ${path}: the same page_info was returned twice`);
  }
}

/**
 * A create (or another write that must not be sent twice) failed in a way that does not say whether the shop applied
 * it: the connection broke, the request timed out, or a 5xx or a garbled body came back. Not retried: the caller looks
 * the record up (by its provenance marker or natural key) before writing again. `cause` is the failure.
 */
export class ShopWriteUnsureError extends ShopError {
  override name = 'ShopWriteUnsureError';
  readonly code = 'ERR_SHOP_WRITE_UNSURE';
  readonly retryable = false;
  constructor(
    readonly request: string,
    cause: ShopError,
  ) {
    super(`${request} may or may not have been applied: ${cause.message}`, { cause });
  }
}

/** The retry budget ran out; `cause` is the last failure. */
export class RetriesExhaustedError extends ShopError {
  override name = 'RetriesExhaustedError';
  readonly code = 'ERR_RETRIES_EXHAUSTED';
  readonly retryable = false;
  constructor(
    readonly url: string,
    readonly attempts: number,
    cause: unknown,
  ) {
    // The last failure was of this same URL: its reason, not its message, so the URL is named once.
    const last = cause instanceof ShopError ? cause.reason : ((cause as Error)?.message ?? String(cause));
    super(`gave up on ${url} after ${attempts} attempts: ${last}`, { cause });
  }
}

/** The crawl was cancelled through its AbortSignal. */
export class CrawlAbortedError extends ShopError {
  override name = 'CrawlAbortedError';
  readonly code = 'ERR_CRAWL_ABORTED';
  readonly retryable = false;
  constructor(cause?: unknown) {
    super('crawl aborted', { cause });
  }
}

/** 408, 429 and 5xx (including Cloudflare's 52x) may succeed later; 4xx such as 400/402/403/404/423 will not. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}
