import type { JsonObject, JsonValue } from '../../shopify/json.js';
import type { FieldChange } from '../../shopify/json-diff.js';

/** A difference an update cannot fix, and why: the report's "cannot roll back". */
export interface FixedChange extends FieldChange {
  reason: string;
}

/** What an update of one existing record sends: its PUT body (none when nothing writable differs). */
export interface RecordUpdate {
  body: JsonObject | undefined;
  cannotRollBack: FixedChange[];
}

/** The entries of a create body with the absent and null ones left out (Shopify's defaults are null). */
export function present(entries: Record<string, JsonValue | undefined>): JsonObject {
  return Object.fromEntries(
    Object.entries(entries).filter(
      (entry): entry is [string, JsonValue] => entry[1] !== undefined && entry[1] !== null,
    ),
  );
}
