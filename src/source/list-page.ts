import { type JsonObject, parseJson } from '../shopify/json.js';
import { ShopBodyError, ShopBodyTooDeepError } from './errors.js';

export interface CrawledRecord {
  /** Exact decimal id, also for ids above 2^53. */
  id: string;
  /**
   * The record's exact bytes (UTF-8) as the API served it: a view into the page's body, which stays in memory as bytes
   * (half the size of its text: orders hold non-ASCII characters, which V8 stores as two bytes each).
   */
  bytes: Buffer;
  /**
   * The parsed record (lossless: ids above 2^53 are bigint), parsed anew on each read: a consumer reads it once, and
   * a tree kept with the record would live as long as the rest of its page, long enough to be copied to V8's old
   * space and collected there.
   */
  readonly record: JsonObject;
  /** The record's top-level updated_at text as served (JSON escapes left in), where it has one. */
  updatedAt: string | undefined;
  /** A run of 16+ digits stands outside the record's strings: an integer may be above 2^53 (see parseJson). */
  readonly mayHoldLongIntegers: boolean;
}

/** One record of a list page with its top-level created_at text too, where the record has one. */
export interface ListedRecord extends CrawledRecord {
  createdAt: string | undefined;
}

/**
 * A record whose text is decoded and parsed on first use of `record`: the crawl itself reads only the id and
 * created_at, which the page scan already found, and the raw archive copies the bytes as they are.
 */
class ScannedRecord implements ListedRecord {
  constructor(
    readonly id: string,
    readonly bytes: Buffer,
    readonly createdAt: string | undefined,
    readonly updatedAt: string | undefined,
    readonly mayHoldLongIntegers: boolean,
  ) {}

  get record(): JsonObject {
    return parseJson(this.bytes.toString('utf8'), this.mayHoldLongIntegers) as JsonObject;
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
const MINUS = 45;
const LONG_DIGIT_RUN = 16;

/**
 * Deepest nesting a list body may have. Shopify's deepest shape (an order's refund line item's tax line's price set)
 * sits about a dozen levels down; the transform's JSON.stringify overflows the stack at a few thousand.
 */
export const MAX_JSON_DEPTH = 512;

function isSpace(c: number | undefined): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= 48 && c <= 57;
}

function skipSpace(body: Buffer, at: number): number {
  let i = at;
  while (isSpace(body[i])) i++;
  return i;
}

/**
 * Where the string opened by the quote at `open` closes, or -1 where it never does. Most of a page's bytes are in
 * strings: the native search for the next quote (then a count of the backslashes before it: an odd run escapes it)
 * scans orders in a fifth less time than a loop over every byte.
 */
function closingQuote(body: Buffer, open: number): number {
  let at = open;
  for (;;) {
    at = body.indexOf(QUOTE, at + 1);
    if (at < 0) return -1;
    let backslashes = 0;
    while (body[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

/** Whether the bytes from `start` to `end` spell `name` (ASCII). */
function spells(body: Buffer, start: number, end: number, name: string): boolean {
  if (end - start !== name.length) return false;
  for (let i = 0; i < name.length; i++) if (body[start + i] !== name.charCodeAt(i)) return false;
  return true;
}

/**
 * The records of a list response `{"<key>":[{…},…]}` with their exact bytes, top-level id and timestamps, found in
 * one pass over the body's bytes without decoding it or building the parsed tree. Each record is decoded on its own
 * when it is parsed: one string for the whole page (2.5 MB of orders, twice that as UTF-16) would land in V8's
 * large-object space, which only a full collection frees. A body that does not close properly (truncated) or whose
 * records lack an integer id is an unusable body: ShopBodyError, which the retry layer retries. A body nested deeper
 * than MAX_JSON_DEPTH is refused: ShopBodyTooDeepError.
 */
export function scanListPage(body: Buffer, key: string, url: string): ListedRecord[] {
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
  let digitRun = 0;
  let longIntegers = false;
  const length = body.length;
  for (let i = 0; i < length; i++) {
    const c = body[i] as number;
    if (c === QUOTE) {
      digitRun = 0;
      const start = i;
      i = closingQuote(body, i);
      if (i < 0) throw new ShopBodyError(url, 'unterminated string (truncated body?)');
      if (depth === 1) lastTopKey = body.toString('utf8', start, i + 1);
      else if (inList && depth === 3) {
        const after = skipSpace(body, i + 1);
        if (body[after] !== COLON) continue;
        const value = skipSpace(body, after + 1);
        if (spells(body, start + 1, i, 'id')) {
          let end = body[value] === MINUS ? value + 1 : value;
          while (isDigit(body[end])) end++;
          if (end > value && isDigit(body[end - 1])) id = BigInt(body.toString('latin1', value, end)).toString();
        } else if (body[value] === QUOTE) {
          const created = spells(body, start + 1, i, 'created_at');
          if (created || spells(body, start + 1, i, 'updated_at')) {
            let end = value + 1;
            while (end < length && body[end] !== QUOTE) end += body[end] === BACKSLASH ? 2 : 1;
            const stamp = end < length ? body.toString('utf8', value + 1, end) : undefined;
            if (created) createdAt = stamp;
            else updatedAt = stamp;
          }
        }
        i = after;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      digitRun = 0;
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
        longIntegers = false;
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      digitRun = 0;
      if (inList && depth === 3) {
        if (id === undefined) throw new ShopBodyError(url, `a record of "${key}" has no integer id`);
        records.push(new ScannedRecord(id, body.subarray(recordStart, i + 1), createdAt, updatedAt, longIntegers));
      } else if (inList && depth === 2) inList = false;
      depth--;
      if (depth < 0) throw new ShopBodyError(url, 'unbalanced JSON');
    } else if (inList && depth === 2) {
      if (c !== COMMA && !isSpace(c)) throw new ShopBodyError(url, `"${key}" holds something other than objects`);
    } else if (c >= 48 && c <= 57) {
      if (++digitRun >= LONG_DIGIT_RUN) longIntegers = true;
    } else digitRun = 0;
  }
  if (depth !== 0 || !sawList) throw new ShopBodyError(url, `no complete "${key}" list (truncated body?)`);
  return records;
}

/** `{"count":N}` → N. */
export function readCount(text: Buffer, url: string): number {
  const body = readJsonBody(text, url);
  const count = (body as { count?: unknown } | null)?.count;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) {
    throw new ShopBodyError(url, 'no integer "count" in the response');
  }
  return count;
}

/** A small body (a count, a list of scopes) parsed whole; an unparsable one is a ShopBodyError, fetched again. */
export function readJsonBody(text: Buffer, url: string): unknown {
  try {
    return parseJson(text.toString('utf8'));
  } catch (error) {
    throw new ShopBodyError(url, (error as Error).message, error);
  }
}
