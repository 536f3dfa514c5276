import type { JsonValue } from './json.js';

/** One field whose value differs: its JSON path (`$.line_items[0].price`), and its value on each side (absent: undefined). */
export interface FieldChange {
  path: string;
  before: JsonValue | undefined;
  after: JsonValue | undefined;
}

/**
 * Where two parsed records differ in content, as the leaves (or whole subtrees, where a type differs) that changed.
 * What a serialiser may change without changing the content is not a difference: the order of an object's keys,
 * whitespace, escapes, and how a number is written (`1.50` is `1.5`; integers are compared exactly, beyond 2^53
 * too). Arrays are compared by position, since their order is content (line items, variants).
 */
export function fieldChanges(before: JsonValue | undefined, after: JsonValue | undefined, path = '$'): FieldChange[] {
  if (isObject(before) && isObject(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    return [...keys].flatMap((key) => fieldChanges(before[key], after[key], childPath(path, key)));
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const length = Math.max(before.length, after.length);
    return Array.from({ length }, (_, i) => fieldChanges(before[i], after[i], `${path}[${i}]`)).flat();
  }
  return sameScalar(before, after) ? [] : [{ path, before, after }];
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function sameScalar(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
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
