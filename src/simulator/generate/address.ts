import type { JsonObject } from '../../shopify/json.js';
import type { Rng } from '../random.js';
import { PLACES, type Place, STREETS } from '../vocabulary.js';

export function pickPlace(rng: Rng): Place {
  return rng.pick(PLACES);
}

/** A customer address as in customer.json (no coordinates, `default` flag, country_name). */
export function customerAddress(
  rng: Rng,
  place: Place,
  ids: { id: JsonObject[string]; customerId: JsonObject[string] },
  names: { first: string | null; last: string | null },
  isDefault: boolean,
): JsonObject {
  const company = rng.chance(0.15)
    ? rng.pick(['Acme Inc.', 'Müller & Söhne GmbH', '株式会社サンプル', '"Quotes" LLC'])
    : null;
  return {
    id: ids.id,
    customer_id: ids.customerId,
    first_name: names.first,
    last_name: names.last,
    company,
    address1: rng.pick(STREETS),
    address2: rng.chance(0.7) ? '' : `Apt ${rng.between(1, 999)}`,
    city: place.city,
    province: place.province,
    country: place.country,
    zip: place.zip,
    phone: rng.chance(0.5) ? null : `+1 555-${String(rng.between(100, 999))}-${String(rng.between(1000, 9999))}`,
    name: [names.first, names.last].filter((part) => part).join(' '),
    province_code: place.provinceCode,
    country_code: place.countryCode,
    country_name: place.country,
    default: isDefault,
  };
}

/** An order billing/shipping address as in order.json (coordinates as numbers, no id). */
export function orderAddress(rng: Rng, place: Place, names: { first: string | null; last: string | null }): JsonObject {
  return {
    first_name: names.first,
    address1: rng.pick(STREETS),
    phone: rng.chance(0.4) ? null : `+1(502)-${rng.between(100, 999)}-${rng.between(1000, 9999)}`,
    city: place.city,
    zip: place.zip,
    province: place.province,
    country: place.country,
    last_name: names.last,
    address2: rng.chance(0.8) ? '' : `Suite ${rng.between(1, 99)}`,
    company: rng.chance(0.9) ? null : 'Acme Inc.',
    latitude: rng.chance(0.1) ? null : place.latitude,
    longitude: rng.chance(0.1) ? null : place.longitude,
    name: [names.first, names.last].filter((part) => part).join(' '),
    country_code: place.countryCode,
    province_code: place.provinceCode,
  };
}
