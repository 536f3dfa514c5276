import type { JsonValue } from '../../shopify/json.js';
import { isTimestamp } from '../../transform/cells.js';

const DECIMAL = /^([+-]?)(\d+)(?:\.(\d+))?$/;

/**
 * A decimal's canonical text, so `"19.90"`, `"19.9"` and the JSON number `19.9` compare equal: no sign on zero, no
 * leading zeros, no trailing fraction zeros. Money is compared as text, never through a float. Undefined for
 * anything that is not a plain decimal (null, exponent forms, words).
 */
export function canonicalDecimal(value: JsonValue | undefined): string | undefined {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== 'string') return undefined;
  const match = DECIMAL.exec(text.trim());
  if (match === null) return undefined;
  const whole = (match[2] as string).replace(/^0+(?=\d)/, '');
  const fraction = (match[3] ?? '').replace(/0+$/, '');
  const digits = fraction === '' ? whole : `${whole}.${fraction}`;
  return match[1] === '-' && /[1-9]/.test(digits) ? `-${digits}` : digits;
}

/** A money amount in whole cents, exact from its text (`"172.20"` → 17220); undefined past two decimal places. */
export function moneyCents(value: JsonValue | undefined): number | undefined {
  const text = canonicalDecimal(value);
  const [whole, fraction = ''] = text?.replace('-', '').split('.') ?? [];
  if (text === undefined || whole === undefined || fraction.length > 2) return undefined;
  const cents = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  return text.startsWith('-') ? -cents : cents;
}

/**
 * The instant an RFC 3339 timestamp names, written in UTC (`2008-01-10T16:00:00Z`, fraction digits kept exactly), so
 * the same moment written with another offset compares equal. Undefined for anything that is not such a timestamp.
 */
export function canonicalInstant(value: JsonValue | undefined): string | undefined {
  if (typeof value !== 'string' || !isTimestamp(value)) return undefined;
  const field = (at: number, length: number) => Number(value.slice(at, at + length));
  const date = new Date(0);
  date.setUTCFullYear(field(0, 4), field(5, 2) - 1, field(8, 2));
  date.setUTCHours(field(11, 2), field(14, 2), field(17, 2), 0);
  let end = 19;
  while (end < value.length && value[end] !== 'Z' && value[end] !== '+' && value[end] !== '-') end++;
  const fraction = value.slice(20, end).replace(/0+$/, '');
  const zone = value.slice(end);
  if (zone !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const minutes = Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6));
    date.setTime(date.getTime() - sign * minutes * 60_000);
  }
  const iso = date.toISOString();
  const year = date.getUTCFullYear();
  // toISOString writes years outside 0…9999 with six digits and a sign; Shopify's never are.
  const stamp = year >= 0 && year <= 9999 ? iso.slice(0, 19) : iso.slice(0, iso.indexOf('.'));
  return `${stamp}${fraction === '' ? '' : `.${fraction}`}Z`;
}

/** An email as Shopify keeps it unique: trimmed, case-insensitive. */
export function emailKey(value: JsonValue | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  const email = value.trim().toLowerCase();
  return email === '' ? undefined : email;
}

/**
 * A phone number reduced to E.164 form for comparing: `+` and digits only (spaces, dashes, dots and parentheses
 * dropped; a leading international `00` read as `+`). A number written without a country code keeps its bare digits,
 * so it equals only the same bare digits.
 */
export function phoneKey(value: JsonValue | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  const digits = trimmed.replace(/\D/g, '');
  if (digits === '') return undefined;
  if (trimmed.startsWith('+')) return `+${digits}`;
  return digits.startsWith('00') && digits.length > 2 ? `+${digits.slice(2)}` : digits;
}

/** Tags as Shopify keeps them: a comma-separated list (or an array), trimmed, without empties or repeats, sorted. */
export function tagList(value: JsonValue | undefined): string[] {
  const items = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split(',') : [];
  return [...new Set(items.map((tag) => tag.trim()).filter((tag) => tag !== ''))].sort();
}
