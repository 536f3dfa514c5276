import type { JsonObject, JsonValue } from '../../shopify/json.js';
import { fieldDiff, topField } from './field-diff.js';
import { type IdLookup, idText } from './ids.js';
import { tagsKeepingMarker, withMarker } from './natural-keys.js';
import { pairAddresses } from './pairing.js';
import { RESTORABLE } from './restorable.js';
import { type FixedChange, present, type RecordUpdate } from './update.js';
import { tagList } from './values.js';

const CUSTOMER_FIELDS = RESTORABLE.customers.fields.filter((field) => field !== 'tags' && field !== 'addresses');
const ADDRESS_FIELDS = RESTORABLE.customers.children.addresses ?? [];

/**
 * `POST customers.json` for a snapshot customer: its fields and addresses (the default first, which Shopify makes the
 * default), tagged with the provenance marker. Nobody is contacted: no welcome mail, and no invite unless asked for
 * (`--send-invites`). No password: Shopify never serves one.
 */
export function customerCreateBody(snapshot: JsonObject, options: { sendInvite?: boolean } = {}): JsonObject {
  const source = idText(snapshot.id) as string;
  const fields = present({
    ...Object.fromEntries(CUSTOMER_FIELDS.map((field) => [field, snapshot[field]])),
    tags: tagList(snapshot.tags).join(', '),
    addresses: pairAddresses(snapshot, {}).map((p) => addressFields(p.snapshot as JsonObject, true)),
  });
  return {
    customer: {
      ...withMarker('customers', fields, source),
      send_email_invite: options.sendInvite === true,
      send_email_welcome: false,
    },
  };
}

/**
 * `PUT customers/{id}.json` bringing an existing customer to the snapshot's restorable fields, or no body when they
 * are equal. Addresses, when they differ, are sent whole: each paired address by its id with the snapshot's values,
 * addresses the customer lost without an id (added), and addresses the snapshot does not have by their id alone, so
 * they are kept whether Shopify merges the array or replaces it (which of the two it does is not documented).
 */
export function customerUpdate(snapshot: JsonObject, target: JsonObject, ids: IdLookup): RecordUpdate {
  const diff = fieldDiff('customers', snapshot, target, ids);
  const changed = new Set(diff.map((change) => topField(change.path)));
  const body: JsonObject = { id: target.id as JsonValue };
  for (const field of CUSTOMER_FIELDS) if (changed.has(field)) body[field] = snapshot[field] ?? null;
  if (changed.has('tags')) body.tags = tagsKeepingMarker(snapshot, target);
  const pairs = pairAddresses(snapshot, target);
  const cannotRollBack: FixedChange[] = [];
  let addressesDiffer = false;
  for (const change of diff) {
    const at = /^\$\.addresses\[(\d+)\]/.exec(change.path);
    if (at === null) continue;
    if (pairs[Number(at[1])]?.snapshot !== undefined) addressesDiffer = true;
    else cannotRollBack.push({ ...change, reason: 'the snapshot does not have this address: kept' });
  }
  if (addressesDiffer) {
    body.addresses = pairs.map((p) => {
      if (p.snapshot === undefined) return { id: p.target?.id as JsonValue };
      const fields = addressFields(p.snapshot, false);
      return p.target === undefined ? fields : { id: p.target.id as JsonValue, ...fields };
    });
  }
  return { body: Object.keys(body).length > 1 ? { customer: body } : undefined, cannotRollBack };
}

/**
 * An address's fields for a create or update. A create leaves out null fields (Shopify's defaults are null) except
 * the names: an address without them takes the customer's, so a snapshot address without names says so with nulls.
 */
function addressFields(address: JsonObject, dropNulls: boolean): JsonObject {
  const entries = Object.fromEntries(ADDRESS_FIELDS.map((field) => [field, address[field] ?? null]));
  if (!dropNulls) return entries;
  return { ...present(entries), first_name: entries.first_name ?? null, last_name: entries.last_name ?? null };
}
