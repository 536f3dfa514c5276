import type { JsonObject } from '../shopify/json.js';

/** `fields=id, title` → ['id', 'title']; Shopify tolerates spaces after the commas. */
export function parseFields(text: string | null): string[] | undefined {
  if (text === null) return undefined;
  const fields = text
    .split(',')
    .map((field) => field.trim())
    .filter((field) => field !== '');
  return fields.length > 0 ? fields : undefined;
}

/** Keeps only the requested top-level keys, in the record's own key order (as Shopify does). */
export function project(record: JsonObject, fields: readonly string[]): JsonObject {
  const kept: JsonObject = {};
  for (const key of Object.keys(record)) if (fields.includes(key)) kept[key] = record[key] as JsonObject[string];
  return kept;
}
