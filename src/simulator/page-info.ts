import { type JsonObject, type JsonValue, parseJson, stringifyJson } from '../shopify/json.js';

/**
 * Shopify's page_info is unpadded base64url of a JSON object holding the filters of the first request, the sort key
 * of the boundary record (`last_value`), its id (`last_id`) and the direction. Clients must treat it as opaque.
 */
export interface PageInfo {
  filters: Record<string, string>;
  lastId: bigint;
  lastValue: JsonValue;
  direction: 'next' | 'prev';
}

export function encodePageInfo(info: PageInfo): string {
  const lastId = info.lastId <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(info.lastId) : info.lastId;
  const payload: JsonObject = {
    ...info.filters,
    last_id: lastId,
    last_value: info.lastValue,
    direction: info.direction,
  };
  // Shopify escapes "/" inside these payloads.
  return Buffer.from(stringifyJson(payload).replaceAll('/', '\\/')).toString('base64url');
}

/** Returns undefined for anything that is not a well-formed token (the caller answers 400 "Invalid value."). */
export function decodePageInfo(token: string): PageInfo | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  let payload: JsonValue;
  try {
    payload = parseJson(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return undefined;
  const { last_id: lastId, last_value: lastValue, direction, ...rest } = payload;
  if (direction !== 'next' && direction !== 'prev') return undefined;
  if (!(typeof lastId === 'bigint' || (typeof lastId === 'number' && Number.isSafeInteger(lastId) && lastId >= 0))) {
    return undefined;
  }
  if (lastValue === undefined) return undefined;
  const filters: Record<string, string> = {};
  for (const [key, value] of Object.entries(rest)) {
    if (typeof value !== 'string') return undefined;
    filters[key] = value;
  }
  return { filters, lastId: BigInt(lastId), lastValue, direction };
}
