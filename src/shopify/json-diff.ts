import { isJsonObject, type JsonObject, type JsonValue } from './json.js';

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
 * comparison of leaves (identical values are the same to any comparison, and are passed over without asking it).
 */
export function fieldChanges(
  before: JsonValue | undefined,
  after: JsonValue | undefined,
  options: { same?: SameLeaf } = {},
): FieldChange[] {
  const changes: FieldChange[] = [];
  changesAt(before, after, '$', undefined, options.same ?? sameScalar, changes);
  return changes;
}

/** Appends to `changes`: one list for the whole walk (`shopsnap diff` walks every changed record). */
function changesAt(
  before: JsonValue | undefined,
  after: JsonValue | undefined,
  path: string,
  key: string | undefined,
  same: SameLeaf,
  changes: FieldChange[],
): void {
  if (isJsonObject(before) && isJsonObject(after)) {
    for (const name of Object.keys(before)) child(before[name], own(after, name), path, name, name, same, changes);
    for (const name of Object.keys(after)) {
      if (!Object.hasOwn(before, name)) child(undefined, after[name], path, name, name, same, changes);
    }
  } else if (Array.isArray(before) && Array.isArray(after)) {
    const length = Math.max(before.length, after.length);
    for (let i = 0; i < length; i++) child(before[i], after[i], path, i, key, same, changes);
  } else if (!same(before, after, key)) changes.push({ path, before, after });
}

/** A field or an item: identical plain values (most of a changed record) are passed over before a path is built. */
function child(
  before: JsonValue | undefined,
  after: JsonValue | undefined,
  path: string,
  step: string | number,
  key: string | undefined,
  same: SameLeaf,
  changes: FieldChange[],
): void {
  if (before === after && (before === null || typeof before !== 'object')) return;
  const at =
    typeof step === 'number'
      ? `${path}[${step}]`
      : /^[A-Za-z_][A-Za-z0-9_]*$/.test(step)
        ? `${path}.${step}`
        : `${path}[${JSON.stringify(step)}]`;
  changesAt(before, after, at, key, same, changes);
}

/** A field of the record itself: `constructor` or `toString` are not fields of every object. */
function own(object: JsonObject, name: string): JsonValue | undefined {
  return Object.hasOwn(object, name) ? object[name] : undefined;
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
