import type { JsonObject } from '../shopify/json.js';

/** Status and body of every error the simulated shop sends, copied from captured Shopify responses where known. */
export interface ErrorReply {
  status: number;
  body: JsonObject;
  headers?: Record<string, string>;
}

const PAGINATION_DOC = 'https://shopify.dev/api/usage/pagination-rest';

export const ERRORS = {
  unauthorized: (): ErrorReply => ({
    status: 401,
    body: { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' },
    headers: { 'WWW-Authenticate': 'Basic Realm="Shopify API Authentication"' },
  }),
  notFound: (): ErrorReply => ({ status: 404, body: { errors: 'Not Found' } }),
  missingScope: (scope: string): ErrorReply => ({
    status: 403,
    body: { errors: `[API] This action requires merchant approval for ${scope} scope.` },
  }),
  // [inferred] Shopify answers 406 when the requested format is not JSON.
  notAcceptable: (): ErrorReply => ({ status: 406, body: { errors: 'Not Acceptable' } }),
  throttled: (leakPerSecond: number): ErrorReply => ({
    status: 429,
    body: {
      errors: `Exceeded ${Number.isFinite(leakPerSecond) ? leakPerSecond : 2} calls per second for api client. Reduce request rates to resume uninterrupted service.`,
    },
    headers: { 'Retry-After': '2.0' },
  }),
  // [inferred] bodies: Shopify documents the statuses ("The requested shop is currently frozen" / "locked").
  frozen: (): ErrorReply => ({ status: 402, body: { errors: 'Unavailable Shop' } }),
  locked: (): ErrorReply => ({ status: 423, body: { errors: 'Locked' } }),
  /** A redirect to `location`, which clients must not follow. */
  redirect: (status: number, location: string): ErrorReply => ({
    status,
    body: { errors: `Moved to ${location}` },
    headers: { Location: location },
  }),
  pageInfoInvalid: (): ErrorReply => ({ status: 400, body: { errors: { page_info: 'Invalid value.' } } }),
  paramWithPageInfo: (param: string): ErrorReply => ({
    status: 400,
    body: {
      errors: {
        [param]: `${param} cannot be passed when page_info is present. See ${PAGINATION_DOC} for more information.`,
      },
    },
  }),
  pageParam: (): ErrorReply => ({ status: 400, body: { errors: { page: 'page cannot be passed.' } } }),
  // [inferred] same shape as the page_info error; Shopify rejects limit above 250.
  invalidParam: (param: string): ErrorReply => ({ status: 400, body: { errors: { [param]: 'Invalid value.' } } }),
  badJson: (): ErrorReply => ({ status: 400, body: { errors: 'Bad Request' } }),
  missingEnvelope: (key: string): ErrorReply => ({
    status: 400,
    body: { errors: { [key]: 'Required parameter missing or invalid' } },
  }),
  validation: (errors: Record<string, string[]>): ErrorReply => ({ status: 422, body: { errors } }),
  // The development-store order limit: the text seen by clients (ShopifySharp#726, shopify-api-ruby#899, with the
  // call-limit header far from full); the body's shape and the absence of Retry-After are unverified.
  orderCreateThrottled: (): ErrorReply => ({
    status: 429,
    body: {
      errors:
        'Exceeded order API rate limit, please try again in a minute. Upgrade to a paid account to remove this limit.',
    },
  }),
  // The variant-creation limit: the text of GraphQL's VARIANT_THROTTLE_EXCEEDED; REST's body shape is unverified.
  variantCreateThrottled: (): ErrorReply => ({
    status: 429,
    body: {
      errors:
        'Daily variant creation limit reached. Please try again later. See https://help.shopify.com/api/getting-started/api-call-limit for more information about rate limits and how to avoid them.',
    },
  }),
} as const;

/** The bodies of server-side faults; 502 and 504 come from the edge as HTML, like Shopify's. */
export const SERVER_ERRORS = [
  { status: 500, type: 'application/json; charset=utf-8', body: '{"errors":"Internal Server Error"}' },
  {
    status: 502,
    type: 'text/html; charset=utf-8',
    body: '<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>',
  },
  { status: 503, type: 'application/json; charset=utf-8', body: '{"errors":"Unavailable Shop"}' },
  {
    status: 504,
    type: 'text/html; charset=utf-8',
    body: '<html><head><title>504 Gateway Time-out</title></head><body><h1>504 Gateway Time-out</h1></body></html>',
  },
] as const;
