import { type JsonObject, parseJson } from '../shopify/json.js';
import { ShopBodyError, ShopBodyTooDeepError } from './errors.js';

export interface CrawledRecord {
  /** Exact decimal id, also for ids above 2^53. */
  id: string;
  /** The record's exact text as the API served it. */
  raw: string;
  /** The parsed record (lossless: ids above 2^53 are bigint). */
  record: JsonObject;
}

/** One record of a list page with its top-level created_at and updated_at texts, where the record has them. */
export interface ListedRecord extends CrawledRecord {
  createdAt: string | undefined;
  updatedAt: string | undefined;
}

/**
 * A record whose JSON is parsed on first use of `record`: the crawl itself reads only the id and created_at, which
 * the page scan already found, and a writer of the raw archive never needs the parsed form. Parsing a 2.5 MB page
 * of orders as one value was most of the crawler's CPU time.
 */
class ScannedRecord implements ListedRecord {
  private parsed: JsonObject | undefined;
  constructor(
    readonly id: string,
    readonly raw: string,
    readonly createdAt: string | undefined,
    readonly updatedAt: string | undefined,
  ) {}

  get record(): JsonObject {
    if (this.parsed === undefined) this.parsed = parseJson(this.raw) as JsonObject;
    return this.parsed;
  }
}

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const COLON = 58;
const COMMA = 44;
const INTEGER = /-?\d+/y;

/**
 * Deepest nesting a list body may have. Shopify's deepest shape (an order's refund line item's tax line's price set)
 * sits about a dozen levels down; the transform's JSON.stringify overflows the stack at a few thousand.
 */
export const MAX_JSON_DEPTH = 512;

/** Index just past the string literal starting at `start` (a quote). */
function stringEnd(text: string, start: number): number {
  let at = start;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return -1;
    let slashes = 0;
    while (text.charCodeAt(at - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return at + 1;
  }
}

function skipSpace(text: string, at: number): number {
  let i = at;
  for (let c = text.charCodeAt(i); c === 32 || c === 10 || c === 13 || c === 9; c = text.charCodeAt(++i));
  return i;
}

/**
 * The records of a list response `{"<key>":[{…},…]}` with their exact text, top-level id and timestamps, found in
 * one pass without building the parsed tree. A body that does not close properly (truncated) or whose records lack
 * an integer id is an unusable body: ShopBodyError, which the retry layer retries. A body nested deeper than
 * MAX_JSON_DEPTH is refused: ShopBodyTooDeepError.
 */
export function scanListPage(text: string, key: string, url: string): ListedRecord[] {
  const records: ListedRecord[] = [];
  const keyLiteral = JSON.stringify(key);
  let depth = 0;
  let inList = false;
  let sawList = false;
  let lastTopKey = '';
  let recordStart = -1;
  let id: string | undefined;
  let createdAt: string | undefined;
  let updatedAt: string | undefined;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) throw new ShopBodyError(url, 'unterminated string (truncated body?)');
      if (depth === 1) lastTopKey = text.slice(i, end);
      else if (inList && depth === 3) {
        const after = skipSpace(text, end);
        if (text.charCodeAt(after) === COLON) {
          const name = text.slice(i + 1, end - 1);
          const value = skipSpace(text, after + 1);
          if (name === 'id') {
            INTEGER.lastIndex = value;
            const match = INTEGER.exec(text);
            // A fresh string, not a slice: V8 slices keep the whole 2.5 MB page alive for as long as the id lives
            // (and the crawl keeps every id for deduplication).
            if (match) id = BigInt(match[0]).toString();
          } else if ((name === 'created_at' || name === 'updated_at') && text.charCodeAt(value) === QUOTE) {
            const valueEnd = stringEnd(text, value);
            const stamp = valueEnd > 0 ? text.slice(value + 1, valueEnd - 1) : undefined;
            if (name === 'created_at') createdAt = stamp;
            else updatedAt = stamp;
          }
          i = after;
          continue;
        }
      }
      i = end - 1;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > MAX_JSON_DEPTH) throw new ShopBodyTooDeepError(url, MAX_JSON_DEPTH);
      if (depth === 2 && c === OPEN_BRACKET && lastTopKey === keyLiteral) {
        inList = true;
        sawList = true;
      } else if (inList && depth === 3) {
        if (c !== OPEN_BRACE) throw new ShopBodyError(url, `"${key}" holds something other than objects`);
        recordStart = i;
        id = undefined;
        createdAt = undefined;
        updatedAt = undefined;
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (inList && depth === 3) {
        if (id === undefined) throw new ShopBodyError(url, `a record of "${key}" has no integer id`);
        records.push(new ScannedRecord(id, text.slice(recordStart, i + 1), createdAt, updatedAt));
      } else if (inList && depth === 2) inList = false;
      depth--;
      if (depth < 0) throw new ShopBodyError(url, 'unbalanced JSON');
    } else if (inList && depth === 2 && c !== COMMA && c !== 32 && c !== 10 && c !== 13 && c !== 9) {
      throw new ShopBodyError(url, `"${key}" holds something other than objects`);
    }
  }
  if (depth !== 0 || !sawList) throw new ShopBodyError(url, `no complete "${key}" list (truncated body?)`);
  return records;
}

/** `{"count":N}` → N. */
export function readCount(text: string, url: string): number {
  let body: unknown;
  try {
    body = parseJson(text);
  } catch (error) {
    throw new ShopBodyError(url, (error as Error).message, error);
  }
  const count = (body as { count?: unknown } | null)?.count;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) {
    throw new ShopBodyError(url, 'no integer "count" in the response');
  }
  return count;
}
