import { randomBytes } from 'node:crypto';

/**
 * Lossless JSON for Shopify bodies. Ids are int64 and JSON.parse rounds integers above 2^53, so integers outside the
 * safe range become `bigint`. Bodies without such a number (the common case) take the plain JSON.parse path: the only
 * extra cost is one native regex test.
 */
export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | JsonObject;
export type JsonObject = { [key: string]: JsonValue };

/**
 * 16+ digit integers (shorter ones never exceed 2^53). Only those in number position are rewritten: after `:`, `,`,
 * `[` or the start, before `,`, `}`, `]` or the end. A digit run inside a string can look like that too
 * (`"a: 12345678901234567,"`); quoting it there always breaks the JSON (the inserted quote closes the string and leaves
 * a bare backslash), so such a body falls back to the tokenising pattern below.
 */
const LONG_INTEGER = /-?\d{16,}/g;
/** Strings, or 16+ digit integers outside strings: the exact but slower fallback. */
const BIG_NUMBER_OUTSIDE_STRINGS = /"[^"\\]*(?:\\.[^"\\]*)*"|(?<![\d.eE+-])-?\d{16,}(?![.eE\d])/g;
const HAS_LONG_DIGIT_RUN = /\d{16,}/;

export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export class JsonSyntaxError extends Error {
  override name = 'JsonSyntaxError';
  readonly code = 'ERR_JSON_SYNTAX';
}

/**
 * Big integers travel through JSON.parse as strings carrying this prefix: U+0000 (which a body can only contain
 * escaped) and a random nonce, so no string of a body, however hostile, can be mistaken for one.
 */
function freshEscapedMark(): string {
  return `\\u0000${randomBytes(9).toString('base64url')}:`;
}

/**
 * Parses JSON text exactly: integers beyond Number.MAX_SAFE_INTEGER come back as bigint. Throws JsonSyntaxError.
 * A caller that has read every byte of the text anyway (the list page scanner) passes `mayHoldLongIntegers`: false
 * when no run of 16+ digits stands outside a string, which spares the search for one (a third of the parse's cost).
 */
export function parseJson(text: string, mayHoldLongIntegers = HAS_LONG_DIGIT_RUN.test(text)): JsonValue {
  try {
    if (!mayHoldLongIntegers) return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new JsonSyntaxError(`invalid JSON: ${(error as Error).message}`, { cause: error });
  }
  const escapedMark = freshEscapedMark();
  const mark = JSON.parse(`"${escapedMark}"`) as string;
  try {
    return parseMarked(text, LONG_INTEGER, escapedMark, mark);
  } catch {
    try {
      return parseMarked(text, BIG_NUMBER_OUTSIDE_STRINGS, escapedMark, mark);
    } catch (error) {
      throw new JsonSyntaxError(`invalid JSON: ${(error as Error).message}`, { cause: error });
    }
  }
}

function parseMarked(text: string, pattern: RegExp, escapedMark: string, mark: string): JsonValue {
  let marked = false;
  const rewritten = text.replace(pattern, (token: string, offset: number) => {
    if (token.charCodeAt(0) === 34 /* " */ || !inNumberPosition(text, offset, token.length)) return token;
    if (Number.isSafeInteger(Number(token))) return token;
    marked = true;
    return `"${escapedMark}${token}"`;
  });
  const value = JSON.parse(rewritten) as JsonValue;
  return marked ? reviveBigInts(value, mark) : value;
}

function inNumberPosition(text: string, start: number, length: number): boolean {
  let before = start - 1;
  while (before >= 0 && isJsonSpace(text.charCodeAt(before))) before--;
  const previous = before < 0 ? -1 : text.charCodeAt(before);
  if (previous !== -1 && previous !== 58 /* : */ && previous !== 44 /* , */ && previous !== 91 /* [ */) return false;
  let after = start + length;
  while (after < text.length && isJsonSpace(text.charCodeAt(after))) after++;
  const next = after >= text.length ? -1 : text.charCodeAt(after);
  return next === -1 || next === 44 /* , */ || next === 125 /* } */ || next === 93 /* ] */;
}

function isJsonSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9;
}

/** Replaces marked strings by bigints in place; JSON.parse output has no inherited enumerable keys. */
function reviveBigInts(value: JsonValue, mark: string): JsonValue {
  if (typeof value === 'string') {
    return value.charCodeAt(0) === 0 && value.startsWith(mark) ? BigInt(value.slice(mark.length)) : value;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = value[i] as JsonValue;
      if (typeof item === 'string' || (item !== null && typeof item === 'object')) value[i] = reviveBigInts(item, mark);
    }
  } else if (value !== null && typeof value === 'object') {
    for (const key in value) {
      const item = value[key] as JsonValue;
      if (typeof item === 'string' || (item !== null && typeof item === 'object'))
        value[key] = reviveBigInts(item, mark);
    }
  }
  return value;
}

/**
 * Bigints travel through JSON.stringify as strings carrying this mark: U+0000 and a random nonce drawn once per
 * process, so no string of a record, however hostile, can be taken for one (or make serialising fail).
 */
const STRINGIFY_NONCE = randomBytes(9).toString('base64url');
const MARKED_BIGINT = new RegExp(`"\\\\u0000${STRINGIFY_NONCE}:(-?\\d+)"`, 'g');

/** JSON.stringify that writes bigint as a bare integer literal, so ids round-trip exactly. */
export function stringifyJson(value: unknown): string {
  let sawBigInt = false;
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item !== 'bigint') return item;
    sawBigInt = true;
    return `\u0000${STRINGIFY_NONCE}:${item}`;
  });
  return sawBigInt ? text.replace(MARKED_BIGINT, '$1') : text;
}

const TOKEN = /"(?:[^"\\]|\\.)*"|[[\]{}]/g;

/**
 * Returns the exact source text of each element of the array found under `key` in a top-level object, e.g. the
 * records of `{"orders":[…]}`. The raw archive stores these slices so a record is kept byte for byte as served.
 */
export function rawArrayElements(text: string, key: string): string[] {
  const keyToken = JSON.stringify(key);
  const elements: string[] = [];
  let depth = 0;
  let inTarget = false;
  let lastString = '';
  let elementStart = -1;
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(text); match !== null; match = TOKEN.exec(text)) {
    const token = match[0];
    const at = match.index;
    if (token.charCodeAt(0) === 34) {
      if (depth === 1) lastString = token;
      continue;
    }
    if (token === '[' || token === '{') {
      depth++;
      if (depth === 2 && token === '[' && lastString === keyToken) inTarget = true;
      else if (inTarget && depth === 3) elementStart = at;
    } else {
      if (inTarget && depth === 3 && elementStart >= 0) {
        elements.push(text.slice(elementStart, at + 1));
        elementStart = -1;
      }
      if (inTarget && depth === 2) inTarget = false;
      depth--;
    }
  }
  return elements;
}
