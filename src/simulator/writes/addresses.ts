import type { JsonObject, JsonValue } from '../../shopify/json.js';
import { PLACES } from '../vocabulary.js';
import { stringOr } from './envelope.js';

const same = (a: string | null, b: JsonValue | undefined) =>
  a !== null && typeof b === 'string' && a.toLowerCase() === b.trim().toLowerCase();

/**
 * Country and province as Shopify stores them: given by name or code, served with both (EX22 customer create:
 * `country:"CA", province:"ON"` comes back as "Canada"/"CA", "Ontario"/"ON"). The simulated shop knows the places it
 * generates (vocabulary.ts); others keep the text given, without codes.
 */
export function placeOf(input: JsonObject): {
  country: string | null;
  country_code: string | null;
  province: string | null;
  province_code: string | null;
} {
  const country = input.country_code ?? input.country;
  const province = input.province_code ?? input.province;
  const byCountry = PLACES.filter((place) => same(place.countryCode, country) || same(place.country, country));
  const byProvince = byCountry.find((place) => same(place.provinceCode, province) || same(place.province, province));
  return {
    country: byCountry[0]?.country ?? stringOr(input.country, null),
    country_code: byCountry[0]?.countryCode ?? null,
    province: byProvince ? byProvince.province : stringOr(input.province, null),
    province_code: byProvince ? byProvince.provinceCode : null,
  };
}

const TEXT = ['company', 'address1', 'address2', 'city', 'zip', 'phone'] as const;

/** The fields every address shares: names, street, place; `name` joins the names. */
function addressFields(input: JsonObject, names: { first: string | null; last: string | null }): JsonObject {
  const fields: JsonObject = { first_name: names.first, last_name: names.last };
  for (const key of TEXT) fields[key] = stringOr(input[key], null);
  fields.name = [names.first, names.last].filter((part) => part).join(' ');
  return { ...fields, ...placeOf(input) };
}

/** A customer address as customer.json serves it (with `country_name` and the `default` flag). */
export function customerAddress(
  input: JsonObject,
  ids: { id: JsonValue; customerId: JsonValue },
  fallbackNames: { first: string | null; last: string | null },
  isDefault: boolean,
): JsonObject {
  // An address without names takes the customer's; names sent as null stay null (an address for someone unnamed).
  const names = {
    first: input.first_name === null ? null : stringOr(input.first_name, fallbackNames.first),
    last: input.last_name === null ? null : stringOr(input.last_name, fallbackNames.last),
  };
  const fields = addressFields(input, names);
  return {
    id: ids.id,
    customer_id: ids.customerId,
    ...fields,
    country_name: fields.country ?? null,
    default: isDefault,
  };
}

/**
 * An order's shipping or billing address, or null: Shopify ignores an order address without both `first_name` and
 * `last_name` (REF20 order create note).
 */
export function orderAddress(input: JsonValue | undefined): JsonObject | null {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return null;
  const first = stringOr(input.first_name, null);
  const last = stringOr(input.last_name, null);
  if (!first || !last) return null;
  return {
    ...addressFields(input, { first, last }),
    latitude: typeof input.latitude === 'number' ? input.latitude : null,
    longitude: typeof input.longitude === 'number' ? input.longitude : null,
  };
}
