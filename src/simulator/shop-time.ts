/**
 * The simulated shop lives in America/New_York, so its timestamps carry -05:00 in winter and -04:00 in summer, as
 * Shopify renders them in the shop's time zone. US rules since 2007: summer time starts on the second Sunday of March
 * at 07:00 UTC and ends on the first Sunday of November at 06:00 UTC.
 */
export const SHOP_TIME_ZONE = 'America/New_York';

const HOUR = 3_600_000;
const summerByYear = new Map<number, readonly [number, number]>();

function summerTime(year: number): readonly [number, number] {
  let bounds = summerByYear.get(year);
  if (!bounds) {
    const marchFirst = new Date(Date.UTC(year, 2, 1)).getUTCDay();
    const secondSundayOfMarch = 1 + ((7 - marchFirst) % 7) + 7;
    const novemberFirst = new Date(Date.UTC(year, 10, 1)).getUTCDay();
    const firstSundayOfNovember = 1 + ((7 - novemberFirst) % 7);
    bounds = [Date.UTC(year, 2, secondSundayOfMarch, 7), Date.UTC(year, 10, firstSundayOfNovember, 6)];
    summerByYear.set(year, bounds);
  }
  return bounds;
}

/** The shop's UTC offset in hours at an instant: -4 in summer, -5 otherwise. */
export function shopOffsetHours(utcMs: number): -4 | -5 {
  const [start, end] = summerTime(new Date(utcMs).getUTCFullYear());
  return utcMs >= start && utcMs < end ? -4 : -5;
}

const DAY = 86_400_000;
const dayTexts = new Map<number, string>();
const DAY_TEXT_LIMIT = 4096;

function two(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** `2008-01-10T11:00:00-05:00`: whole seconds in shop time with its offset, as Shopify serves timestamps. */
export function formatShopTime(utcMs: number): string {
  const offset = shopOffsetHours(utcMs);
  const local = Math.floor(utcMs / 1000) * 1000 + offset * HOUR;
  const day = Math.floor(local / DAY);
  let date = dayTexts.get(day);
  if (date === undefined) {
    date = new Date(day * DAY).toISOString().slice(0, 10);
    if (dayTexts.size >= DAY_TEXT_LIMIT) dayTexts.clear();
    dayTexts.set(day, date);
  }
  const seconds = (local - day * DAY) / 1000;
  const clock = `${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`;
  return `${date}T${clock}${offset === -4 ? '-04:00' : '-05:00'}`;
}

/** `2020-01-14 01:49:26`: the UTC form Shopify puts into order page_info cursors. */
export function formatUtcCursorTime(utcMs: number): string {
  return new Date(utcMs).toISOString().slice(0, 19).replace('T', ' ');
}

const TIME_TEXT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(Z|UTC|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Parses a timestamp query value. Shopify documents ISO 8601 with an offset and its own examples send
 * `2022-11-08 15:23:42`; a value without an offset is read as shop time. Returns NaN for anything else.
 */
export function parseShopTime(text: string): number {
  const match = TIME_TEXT.exec(text.trim());
  if (!match) return Number.NaN;
  const [, y, mo, d, h = '0', mi = '0', s = '0', zone] = match;
  const asUtc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const check = new Date(asUtc);
  if (check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d)) return Number.NaN;
  if (zone === undefined) {
    // Local wall time: the offset in force at that wall time (the guess is off only inside the DST switch hour).
    return asUtc - shopOffsetHours(asUtc + 5 * HOUR) * HOUR;
  }
  if (zone.toUpperCase() === 'Z' || zone.toUpperCase() === 'UTC') return asUtc;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const offsetMinutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0');
  return asUtc - sign * offsetMinutes * 60_000;
}

/** Parses a served timestamp (always valid ISO with offset) back to epoch milliseconds. */
export function servedTimeMs(value: unknown): number {
  return typeof value === 'string' ? Date.parse(value) : Number.NaN;
}
