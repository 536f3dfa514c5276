import { randomBytes } from 'node:crypto';

/**
 * Lossless JSON for Shopify bodies. Ids are int64 and JSON.parse rounds integers above 2^53, so integers outside the
 * safe range become `bigint`. Bodies without such a number (the common case) take the plain JSON.parse path: the only
 * extra cost is one native regex test.
 */
export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | JsonObject;
export type JsonObject = { [key: string]: JsonValue };

/** Integer literals of 16+ digits may exceed 2^53; shorter ones never do. Strings are matched so they can be skipped. */
const BIG_INTEGER_CANDIDATE = /"(?:[^"\\]|\\.)*"|(?<![\d.eE+-])-?\d{16,}(?![.eE\d])/g;
const HAS_LONG_DIGIT_RUN = /\d{16,}/;

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

/** Parses JSON text exactly: integers beyond Number.MAX_SAFE_INTEGER come back as bigint. Throws JsonSyntaxError. */
export function parseJson(text: string): JsonValue {
  try {
    if (!HAS_LONG_DIGIT_RUN.test(text)) return JSON.parse(text) as JsonValue;
    const escapedMark = freshEscapedMark();
    let marked = false;
    const rewritten = text.replace(BIG_INTEGER_CANDIDATE, (token) => {
      if (token.charCodeAt(0) === 34 /* " */ || Number.isSafeInteger(Number(token))) return token;
      marked = true;
      return `"${escapedMark}${token}"`;
    });
    const value = JSON.parse(rewritten) as JsonValue;
    return marked ? reviveBigInts(value, JSON.parse(`"${escapedMark}"`) as string) : value;
  } catch (error) {
    throw new JsonSyntaxError(`invalid JSON: ${(error as Error).message}`, { cause: error });
  }
}

function reviveBigInts(value: JsonValue, mark: string): JsonValue {
  if (typeof value === 'string') return value.startsWith(mark) ? BigInt(value.slice(mark.length)) : value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = reviveBigInts(value[i] as JsonValue, mark);
    return value;
  }
  if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) value[key] = reviveBigInts(value[key] as JsonValue, mark);
  }
  return value;
}

const STRINGIFY_MARK = '\u0000\u0001bigint:';
const MARKED_BIGINT = /"\\u0000\\u0001bigint:(-?\d+)"/g;

/** JSON.stringify that writes bigint as a bare integer literal, so ids round-trip exactly. */
export function stringifyJson(value: unknown): string {
  let sawBigInt = false;
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item === 'bigint') {
      sawBigInt = true;
      return `${STRINGIFY_MARK}${item}`;
    }
    if (typeof item === 'string' && item.startsWith(STRINGIFY_MARK)) {
      throw new Error('cannot serialise a string that starts with the internal bigint marker');
    }
    return item;
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
