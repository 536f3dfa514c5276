import type { JsonObject, JsonValue } from '../../shopify/json.js';
import { ERRORS } from '../errors.js';
import { ReplyError, type SimRequest } from '../reply.js';
import { parseShopTime } from '../shop-time.js';

export function isObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The record inside a request body: `{"product":{…}}`. The seed shows the customer update flat (`{"id":…,"email":…}`),
 * so `flatAllowed` accepts that too.
 */
export function unwrap(request: SimRequest, key: string, flatAllowed = false): JsonObject {
  if (request.bodyInvalid) throw new ReplyError(ERRORS.badJson());
  const body = request.body;
  if (isObject(body)) {
    const inner = body[key];
    if (isObject(inner)) return inner;
    if (flatAllowed && inner === undefined) return body;
  }
  throw new ReplyError(ERRORS.missingEnvelope(key));
}

/** Optional body of an action (cancel, send_invite): `{}` when absent. */
export function optionalBody(request: SimRequest): JsonObject {
  if (request.bodyInvalid) throw new ReplyError(ERRORS.badJson());
  return isObject(request.body) ? request.body : {};
}

export function stringOr(value: JsonValue | undefined, fallback: string | null): string | null {
  return typeof value === 'string' ? value : fallback;
}

/** Tags arrive as "a, b" or ["a","b"]; Shopify stores them sorted, joined by ", ". */
export function normalizeTags(value: JsonValue | undefined): string | undefined {
  if (value === undefined) return undefined;
  const list = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split(',') : [];
  return [...new Set(list.map((tag) => tag.trim()).filter((tag) => tag !== ''))].sort().join(', ');
}

/** A timestamp a client sets (`processed_at`, `published_at`): epoch ms, undefined when absent, 422 when unreadable. */
export function timeInput(value: JsonValue | undefined, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  const ms = typeof value === 'string' ? parseShopTime(value) : Number.NaN;
  if (Number.isNaN(ms)) throw new ReplyError(ERRORS.validation({ [field]: ['is invalid'] }));
  return ms;
}

/** Note attributes as Shopify keeps them: `[{name, value}]`, values as text. */
export function noteAttributes(value: JsonValue | undefined): JsonObject[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter(isObject).map((attribute) => ({
    name: String(attribute.name ?? ''),
    value: attribute.value === null || attribute.value === undefined ? null : String(attribute.value),
  }));
}
