import { type JsonObject, parseJson } from '../shopify/json.js';
import { type ResourceName, SINGULAR } from '../shopify/resources.js';
import { ShopBodyError, ShopHttpError } from './errors.js';
import type { ShopClient } from './shop-client.js';

/** One record as the shop serves it now: its exact bytes (UTF-8) and its updated_at as served. */
export interface FetchedRecord {
  bytes: Buffer;
  updatedAt: string | undefined;
}

/**
 * GETs `<resource>/<id>.json` through the client (its pacer and retries): the record, or undefined when the shop
 * answers 404 (deleted, or no longer visible to the token). `id` is the exact decimal id.
 */
export async function fetchRecord(
  client: ShopClient,
  resource: ResourceName,
  id: string,
): Promise<FetchedRecord | undefined> {
  try {
    const response = await client.get(
      client.apiUrl(`${resource}/${id}.json`),
      (body, url) => readSingleRecord(body, SINGULAR[resource], id, url),
      { shape: { kind: 'single', resource } },
    );
    return response.value;
  } catch (error) {
    if (error instanceof ShopHttpError && error.status === 404) return undefined;
    throw error;
  }
}

/**
 * The record of `{"<key>":{…}}` as its exact bytes: the body is checked whole (one key, an object holding the id
 * asked for), then the object's text is cut out between the key's colon and the body's closing brace.
 */
export function readSingleRecord(body: Buffer, key: string, id: string, url: string): FetchedRecord {
  let parsed: unknown;
  try {
    parsed = parseJson(body.toString('utf8'));
  } catch (error) {
    throw new ShopBodyError(url, (error as Error).message, error);
  }
  const keys = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? Object.keys(parsed) : [];
  const record = (parsed as Record<string, unknown> | null)?.[key];
  if (keys.length !== 1 || record === null || typeof record !== 'object' || Array.isArray(record)) {
    throw new ShopBodyError(url, `expected {"${key}":{…}}`);
  }
  const served = (record as JsonObject).id;
  if ((typeof served !== 'number' && typeof served !== 'bigint') || BigInt(served).toString() !== id) {
    throw new ShopBodyError(url, `the record served has id ${String(served)}, not ${id}`);
  }
  const start = body.indexOf(123 /* { */, body.indexOf(58 /* : */));
  let end = body.length - 1;
  while (body[end] !== 125 /* } */) end--;
  end--;
  while (body[end] !== 125) end--;
  const updatedAt = (record as JsonObject).updated_at;
  return { bytes: body.subarray(start, end + 1), updatedAt: typeof updatedAt === 'string' ? updatedAt : undefined };
}
