import { type JsonValue, stringifyJson } from '../shopify/json.js';
import { type ColumnType, DECIMAL_PRECISION, DECIMAL_SCALE } from './schema.js';

/** One value of a flat row. int64 cells are a number when safe and a bigint beyond 2^53, never a rounded number. */
export type Cell = string | number | boolean | bigint | null;
export type Row = Record<string, Cell>;

declare global {
  interface String {
    /** ES2024, present in Node 20; false when the string holds a lone surrogate. */
    isWellFormed(): boolean;
  }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INTEGER_TEXT = /^-?(?:0|[1-9]\d{0,18})$/;

/**
 * Converts one API value into the cell of a column of `type`, or returns undefined when the value cannot be stored in
 * that column exactly (wrong JSON type, out of range, too many decimals, malformed timestamp, lone surrogate). The
 * caller keeps such a value in the row's `_extra` column instead: nothing is rounded, truncated or dropped.
 */
export function toCell(type: ColumnType, value: JsonValue): Cell | undefined {
  if (value === null) return null;
  switch (type) {
    case 'string':
      // DuckDB rejects a file holding a lone surrogate; JSON text escapes it, so `_extra` can keep it.
      return typeof value === 'string' && value.isWellFormed() ? value : undefined;
    case 'int64':
      return int64Cell(value);
    case 'int32':
      return typeof value === 'number' && Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX
        ? value
        : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined;
    case 'timestamp':
      return typeof value === 'string' && isTimestamp(value) ? value : undefined;
    case 'decimal':
      return decimalCell(value);
    case 'double':
      return typeof value === 'number' ? value : undefined;
    case 'json':
      return jsonText(value);
  }
}

function int64Cell(value: JsonValue): Cell | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === 'bigint') return value >= INT64_MIN && value <= INT64_MAX ? value : undefined;
  if (typeof value === 'string' && INTEGER_TEXT.test(value)) {
    const exact = BigInt(value);
    if (exact < INT64_MIN || exact > INT64_MAX) return undefined;
    const small = Number(value);
    return Number.isSafeInteger(small) ? small : exact;
  }
  return undefined;
}

/**
 * Money stays the API's decimal string, which DuckDB parses into DECIMAL exactly. A JSON number (refund line item
 * `subtotal`) is accepted through its shortest round-trip text, which reproduces the literal the API sent.
 */
function decimalCell(value: JsonValue): Cell | undefined {
  if (typeof value === 'string') return isDecimal(value) ? value : undefined;
  if (typeof value === 'number') {
    const text = String(value);
    return isDecimal(text) ? text : undefined;
  }
  return undefined;
}

const MAX_INTEGER_DIGITS = DECIMAL_PRECISION - DECIMAL_SCALE;

/** `-?digits(.digits)?` within DECIMAL(18,4): no exponent, no sign '+', no spaces, at most four decimals. */
export function isDecimal(text: string): boolean {
  let i = text.charCodeAt(0) === 45 /* - */ ? 1 : 0;
  const intStart = i;
  while (i < text.length && isDigit(text.charCodeAt(i))) i++;
  const intDigits = i - intStart;
  if (intDigits === 0 || intDigits > MAX_INTEGER_DIGITS) return false;
  if (i === text.length) return true;
  if (text.charCodeAt(i) !== 46 /* . */) return false;
  const fracStart = ++i;
  while (i < text.length && isDigit(text.charCodeAt(i))) i++;
  const fracDigits = i - fracStart;
  return i === text.length && fracDigits > 0 && fracDigits <= DECIMAL_SCALE;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * RFC 3339 with an explicit offset, as Shopify sends it (`2008-01-10T11:00:00-05:00`, or with `Z`, or with up to six
 * fractional digits). Calendar-checked, because a single impossible date would make DuckDB reject the whole file, and
 * an offset is required because without one the instant is ambiguous.
 */
export function isTimestamp(text: string): boolean {
  const n = text.length;
  if (n < 20) return false;
  if (!digits(text, 0, 4) || text[4] !== '-' || !digits(text, 5, 2) || text[7] !== '-' || !digits(text, 8, 2)) {
    return false;
  }
  if (text[10] !== 'T' || !digits(text, 11, 2) || text[13] !== ':' || !digits(text, 14, 2) || text[16] !== ':') {
    return false;
  }
  if (!digits(text, 17, 2)) return false;
  const year = number(text, 0, 4);
  const month = number(text, 5, 2);
  const day = number(text, 8, 2);
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > (month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] as number))) return false;
  if (number(text, 11, 2) > 23 || number(text, 14, 2) > 59 || number(text, 17, 2) > 59) return false;
  let i = 19;
  if (text[i] === '.') {
    const start = ++i;
    while (i < n && isDigit(text.charCodeAt(i))) i++;
    if (i === start || i - start > 6) return false;
  }
  if (text[i] === 'Z') return i + 1 === n;
  if (text[i] !== '+' && text[i] !== '-') return false;
  return (
    i + 6 === n &&
    digits(text, i + 1, 2) &&
    text[i + 3] === ':' &&
    digits(text, i + 4, 2) &&
    number(text, i + 1, 2) <= 23 &&
    number(text, i + 4, 2) <= 59
  );
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function digits(text: string, at: number, count: number): boolean {
  for (let i = at; i < at + count; i++) if (!isDigit(text.charCodeAt(i))) return false;
  return true;
}

function number(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) value = value * 10 + text.charCodeAt(i) - 48;
  return value;
}

/**
 * JSON text of a value, bigints as bare integer literals. The native JSON.stringify handles the common case; it throws
 * only on a bigint, and then the bigint-aware stringifyJson takes over.
 */
export function jsonText(value: JsonValue): string {
  try {
    return JSON.stringify(value);
  } catch {
    return stringifyJson(value);
  }
}
