import type { JsonObject } from '../shopify/json.js';

/** Money travels as a string with two decimals ("199.00"); the simulator computes in integer cents. */
export function money(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(Math.round(cents));
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** `{"shop_money":{…},"presentment_money":{…}}`, the shape of every `*_set` field. */
export function moneySet(cents: number, currency: string): JsonObject {
  const amount = money(cents);
  return {
    shop_money: { amount, currency_code: currency },
    presentment_money: { amount, currency_code: currency },
  };
}

/** Reads a money value a client sent: a string ("129.99") or a number (129.99); NaN when it is neither. */
export function centsOf(value: unknown): number {
  if (typeof value === 'number') return Math.round(value * 100);
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 100);
  return Number.NaN;
}
