import { isJsonObject, type JsonObject, type JsonValue } from '../../shopify/json.js';
import { type IdKind, type IdLookup, idText } from './ids.js';

/** A child of a snapshot record and its counterpart in the target record; one side is missing when it has none. */
export interface Pair {
  snapshot: JsonObject | undefined;
  target: JsonObject | undefined;
}

/** The objects of a child array (anything else dropped), in the order of their `position` where they have one. */
export function children(value: JsonValue | undefined): JsonObject[] {
  const items = Array.isArray(value) ? value.filter(isJsonObject) : [];
  return items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => positionOf(a.item, a.index) - positionOf(b.item, b.index) || a.index - b.index)
    .map(({ item }) => item);
}

/**
 * A product's variants paired: through the variant id map (a variant restore created, or in recover the same id),
 * else by the same option values (a product matched by handle whose variants restore did not create). In snapshot
 * order; target variants without a counterpart follow.
 */
export function pairVariants(snapshot: JsonObject, target: JsonObject, ids: IdLookup): Pair[] {
  return pair(
    children(snapshot.variants),
    children(target.variants),
    'variants',
    ids,
    (s, t) => optionsKey(s) === optionsKey(t),
  );
}

/** A product's images paired through the image id map (or the same id), else by position. */
export function pairImages(snapshot: JsonObject, target: JsonObject, ids: IdLookup): Pair[] {
  return pair(children(snapshot.images), children(target.images), 'images', ids, (s, t) => s.position === t.position);
}

/**
 * A customer's addresses paired by id (recover keeps them), else in their canonical order: the default address first
 * (Shopify makes the first address of a create the default), then the others as listed.
 */
export function pairAddresses(snapshot: JsonObject, target: JsonObject): Pair[] {
  const ordered = (record: JsonObject) => {
    const all = Array.isArray(record.addresses) ? record.addresses.filter(isJsonObject) : [];
    return [...all.filter((a) => a.default === true), ...all.filter((a) => a.default !== true)];
  };
  const targets = ordered(target);
  const pairs: Pair[] = ordered(snapshot).map((address) => {
    const id = idText(address.id);
    const same = id === undefined ? -1 : targets.findIndex((candidate) => idText(candidate.id) === id);
    return { snapshot: address, target: same < 0 ? undefined : (targets.splice(same, 1)[0] as JsonObject) };
  });
  for (const entry of pairs) if (entry.target === undefined) entry.target = targets.shift();
  return [...pairs, ...targets.map((address) => ({ snapshot: undefined, target: address }))];
}

/** The option values that identify a variant within its product. */
export function optionsKey(variant: JsonObject): string {
  return JSON.stringify([variant.option1 ?? null, variant.option2 ?? null, variant.option3 ?? null]);
}

function pair(
  snapshots: JsonObject[],
  targets: JsonObject[],
  kind: IdKind,
  ids: IdLookup,
  alike: (snapshot: JsonObject, target: JsonObject) => boolean,
): Pair[] {
  const free = [...targets];
  const take = (index: number) => (index < 0 ? undefined : (free.splice(index, 1)[0] as JsonObject));
  const byId = snapshots.map((item) => {
    const source = idText(item.id);
    const mapped = source === undefined ? undefined : ids.target(kind, source);
    const wanted = [mapped, source].filter((id) => id !== undefined);
    return take(free.findIndex((candidate) => wanted.includes(idText(candidate.id) as string)));
  });
  const pairs = snapshots.map((item, i) => ({
    snapshot: item,
    target: byId[i] ?? take(free.findIndex((candidate) => alike(item, candidate))),
  }));
  return [...pairs, ...free.map((item) => ({ snapshot: undefined, target: item }))];
}

function positionOf(item: JsonObject, index: number): number {
  return typeof item.position === 'number' ? item.position : index + 1;
}
