import { isJsonObject, type JsonValue } from './json.js';

/** One field whose value differs: its JSON path (`$.line_items[0].price`), and its value on each side (absent: undefined). */
export interface FieldChange {
  path: string;
  before: JsonValue | undefined;
  after: JsonValue | undefined;
}

/**
 * Whether two values where the records are not both objects or both arrays hold the same content. `key` names the
 * field that holds them (for an array's items, the array's field), so a caller can compare a field by its meaning:
 * money as decimals, times as instants.
 */
export type SameLeaf = (
  before: JsonValue | undefined,
  after: JsonValue | undefined,
  key: string | undefined,
) => boolean;

/**
 * Where two parsed records differ in content, as the leaves (or whole subtrees, where a type differs) that changed.
 * What a serialiser may change without changing the content is not a difference: the order of an object's keys,
 * whitespace, escapes, and how a number is written (`1.50` is `1.5`; integers are compared exactly, beyond 2^53
 * too). Arrays are compared by position, since their order is content (line items, variants). `same` replaces that
 * comparison of leaves.
 */
export function fieldChanges(
  before: JsonValue | undefined,
  after: JsonValue | undefined,
  options: { same?: SameLeaf } = {},
): FieldChange[] {
  return changesAt(before, after, '$', undefined, options.same ?? sameScalar);
}

function changesAt(
  before: JsonValue | undefined,
  after: JsonValue | undefined,
  path: string,
  key: string | undefined,
  same: SameLeaf,
): FieldChange[] {
  if (isJsonObject(before) && isJsonObject(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    return [...keys].flatMap((name) => changesAt(before[name], after[name], childPath(path, name), name, same));
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const length = Math.max(before.length, after.length);
    return Array.from({ length }, (_, i) => changesAt(before[i], after[i], `${path}[${i}]`, key, same)).flat();
  }
  return same(before, after, key) ? [] : [{ path, before, after }];
}

/** The plain comparison of leaves: equal JSON values, integers exactly (a bigint equals the same safe number). */
export function sameScalar(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (typeof a === 'bigint' || typeof b === 'bigint') {
    const exact = (value: unknown) =>
      typeof value === 'bigint' ? value : Number.isInteger(value) ? BigInt(value as number) : undefined;
    return exact(a) !== undefined && exact(a) === exact(b);
  }
  return a === b;
}

function childPath(path: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}
