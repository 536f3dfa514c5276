import { isJsonObject, type JsonObject, type JsonValue } from '../../shopify/json.js';
import type { ResourceName } from '../../shopify/resources.js';
import { idText } from './ids.js';
import { canonicalDecimal, canonicalInstant, emailKey, phoneKey, tagList } from './values.js';

/**
 * The provenance marker restore writes on every record it creates, so a later run (or the same run after a crash)
 * recognises it even when its natural key changed: a metafield `shopsnap.source_id` on products (a tag would show on
 * the storefront, where themes list a product's tags and the Storefront API serves them), a tag
 * `shopsnap-source:<source id>` on customers (their tags show in the admin only), a note attribute
 * `shopsnap_source_id` on orders. Product lists carry no metafields: a product's marker is read on its own
 * (product-markers.ts) and set in the index where a match depends on it. No comparison looks at a marker.
 */
export const MARKER_TAG_PREFIX = 'shopsnap-source:';
export const MARKER_ATTRIBUTE = 'shopsnap_source_id';
export const MARKER_METAFIELD = { namespace: 'shopsnap', key: 'source_id' } as const;

/**
 * The source id a target record was restored from, or undefined when restore did not create it (or, for a product,
 * when the record does not carry its metafields, as none listed does).
 */
export function markerOf(resource: ResourceName, record: JsonObject): string | undefined {
  if (resource === 'products') return markerInMetafields(record.metafields);
  if (resource === 'orders') {
    const attribute = noteAttributes(record.note_attributes).find((item) => item.name === MARKER_ATTRIBUTE);
    return idText(attribute?.value);
  }
  const tag = tagList(record.tags).find((item) => item.startsWith(MARKER_TAG_PREFIX));
  return tag === undefined ? undefined : idText(tag.slice(MARKER_TAG_PREFIX.length));
}

/** The source id in a product's metafields (as `metafields.json` serves them), or undefined. */
export function markerInMetafields(value: JsonValue | undefined): string | undefined {
  const marker = (Array.isArray(value) ? value.filter(isJsonObject) : []).find(
    (item) => item.namespace === MARKER_METAFIELD.namespace && item.key === MARKER_METAFIELD.key,
  );
  return idText(marker?.value);
}

/** The record fields of a create body (inside its envelope) with the marker naming `sourceId` added. */
export function withMarker(resource: ResourceName, fields: JsonObject, sourceId: string): JsonObject {
  if (resource === 'products') {
    const kept = (Array.isArray(fields.metafields) ? fields.metafields.filter(isJsonObject) : []).filter(
      (item) => item.namespace !== MARKER_METAFIELD.namespace || item.key !== MARKER_METAFIELD.key,
    );
    const marker = { ...MARKER_METAFIELD, value: sourceId, type: 'single_line_text_field' };
    return { ...fields, metafields: [...kept, marker] };
  }
  if (resource === 'orders') {
    const kept = noteAttributes(fields.note_attributes).filter((item) => item.name !== MARKER_ATTRIBUTE);
    return { ...fields, note_attributes: [...kept, { name: MARKER_ATTRIBUTE, value: sourceId }] };
  }
  const kept = withoutMarkerTags(tagList(fields.tags));
  return { ...fields, tags: [...kept, `${MARKER_TAG_PREFIX}${sourceId}`].join(', ') };
}

/**
 * A customer's snapshot tags as an update writes them: the target's provenance marker kept (an update must not orphan
 * a record restore created), any marker the snapshot itself carries left out. (A product's marker is a metafield,
 * which its PUT leaves alone.)
 */
export function tagsKeepingMarker(snapshot: JsonObject, target: JsonObject): string {
  const tags = { tags: withoutMarkerTags(tagList(snapshot.tags)).join(', ') };
  const marker = markerOf('customers', target);
  return (marker === undefined ? tags : withMarker('customers', tags, marker)).tags as string;
}

/** Tags with restore's marker taken out: what comparisons see. */
export function withoutMarkerTags(tags: readonly string[]): string[] {
  return tags.filter((tag) => !tag.startsWith(MARKER_TAG_PREFIX));
}

/** Note attributes as `{name, value}` objects (others dropped), the marker included. */
export function noteAttributes(value: JsonValue | undefined): JsonObject[] {
  return Array.isArray(value) ? value.filter(isJsonObject) : [];
}

/** Which natural key matched: products by handle, customers by email then phone, orders by name+time+total. */
export type KeyKind = 'handle' | 'email' | 'phone' | 'order';

export interface NaturalKey {
  kind: KeyKind;
  /** The key's exact comparison text. */
  value: string;
}

/**
 * A record's natural keys in the order they are tried: a product's handle; a customer's lower-cased email, then its
 * phone in E.164 form; an order's name with its processed_at as an instant and its total_price as a decimal (names
 * repeat, so one alone is not enough). A record without a usable key has none.
 */
export function naturalKeys(resource: ResourceName, record: JsonObject): NaturalKey[] {
  if (resource === 'products') {
    return typeof record.handle === 'string' && record.handle !== '' ? [{ kind: 'handle', value: record.handle }] : [];
  }
  if (resource === 'customers') {
    const keys: NaturalKey[] = [];
    const email = emailKey(record.email);
    if (email !== undefined) keys.push({ kind: 'email', value: email });
    const phone = phoneKey(record.phone);
    if (phone !== undefined) keys.push({ kind: 'phone', value: phone });
    return keys;
  }
  const name = typeof record.name === 'string' ? record.name : undefined;
  const at = canonicalInstant(record.processed_at);
  const total = canonicalDecimal(record.total_price);
  if (name === undefined || at === undefined || total === undefined) return [];
  return [{ kind: 'order', value: JSON.stringify([name, at, total]) }];
}

/** How a snapshot record was found in the target. */
export type Match<T> =
  | { kind: 'found'; by: 'id' | 'marker' | KeyKind; target: T }
  /**
   * Several target records share the key and none is marked as this record's, or several carry this record's marker
   * (copies made outside restore): the user must decide.
   */
  | { kind: 'ambiguous'; by: 'marker' | KeyKind; targets: T[] }
  /** The key (unique in a shop: handle, email, phone) is held by a record restore created from another source record. */
  | { kind: 'taken'; by: KeyKind; target: T; markedFor: string }
  | { kind: 'none' };

/** A target record as the index keeps it: its id, its marker, and whatever the engine wants back (T). */
interface Entry<T> {
  id: string;
  marker: string | undefined;
  keys: string[];
  target: T;
}

/**
 * The target shop's records of one resource by id, marker and natural key, built from its list crawl (no I/O here).
 * `match` finds where a snapshot record stands in the target: recover by id then marker, migrate by marker then natural
 * key. A key candidate marked for another source record belongs to that record and is never matched to this one.
 */
export class TargetIndex<T> {
  readonly #byId = new Map<string, Entry<T>>();
  readonly #byMarker = new Map<string, Entry<T>[]>();
  readonly #byKey = new Map<string, Entry<T>[]>();

  constructor(readonly resource: ResourceName) {}

  get size(): number {
    return this.#byId.size;
  }

  /** Adds a target record (as listed); `target` is what match returns for it. A record listed again replaces itself. */
  add(record: JsonObject, target: T): void {
    const id = idText(record.id);
    if (id === undefined) throw new Error(`a listed ${this.resource} record has no id`);
    if (this.#byId.has(id)) this.remove(id);
    const keys = naturalKeys(this.resource, record).map(keyText);
    const entry: Entry<T> = { id, marker: markerOf(this.resource, record), keys, target };
    this.#byId.set(id, entry);
    if (entry.marker !== undefined) append(this.#byMarker, entry.marker, entry);
    for (const slot of keys) append(this.#byKey, slot, entry);
  }

  /**
   * Sets the marker of a listed record, read apart from its list (a product's metafield): matches from now on see it.
   * Unknown ids are left alone.
   */
  mark(id: string, marker: string | undefined): void {
    const entry = this.#byId.get(id);
    if (entry === undefined || entry.marker === marker) return;
    if (entry.marker !== undefined) drop(this.#byMarker, entry.marker, entry);
    entry.marker = marker;
    if (marker !== undefined) append(this.#byMarker, marker, entry);
  }

  /** Forgets a target record (deleted by --prune). */
  remove(id: string): void {
    const entry = this.#byId.get(id);
    if (entry === undefined) return;
    this.#byId.delete(id);
    if (entry.marker !== undefined) drop(this.#byMarker, entry.marker, entry);
    for (const slot of entry.keys) drop(this.#byKey, slot, entry);
  }

  match(snapshotRecord: JsonObject, mode: 'migrate' | 'recover'): Match<T> {
    const sourceId = idText(snapshotRecord.id);
    if (sourceId === undefined) throw new Error(`a snapshot ${this.resource} record has no id`);
    if (mode === 'recover') {
      const same = this.#byId.get(sourceId);
      if (same !== undefined) return { kind: 'found', by: 'id', target: same.target };
    }
    const marked = this.#byMarker.get(sourceId) ?? [];
    if (marked.length === 1) return { kind: 'found', by: 'marker', target: (marked[0] as Entry<T>).target };
    if (marked.length > 1) return { kind: 'ambiguous', by: 'marker', targets: marked.map((entry) => entry.target) };
    if (mode === 'recover') return { kind: 'none' };
    for (const key of naturalKeys(this.resource, snapshotRecord)) {
      const entries = this.#byKey.get(keyText(key)) ?? [];
      const free = entries.filter((entry) => entry.marker === undefined || entry.marker === sourceId);
      if (free.length === 1) return { kind: 'found', by: key.kind, target: (free[0] as Entry<T>).target };
      if (free.length > 1) return { kind: 'ambiguous', by: key.kind, targets: free.map((entry) => entry.target) };
      const foreign = entries[0];
      // Names repeat among orders, so a marked order with the same key is simply another order.
      if (foreign !== undefined && this.resource !== 'orders') {
        return { kind: 'taken', by: key.kind, target: foreign.target, markedFor: foreign.marker as string };
      }
    }
    return { kind: 'none' };
  }
}

function append<T>(map: Map<string, Entry<T>[]>, slot: string, entry: Entry<T>): void {
  const entries = map.get(slot);
  if (entries === undefined) map.set(slot, [entry]);
  else entries.push(entry);
}

function drop<T>(map: Map<string, Entry<T>[]>, slot: string, entry: Entry<T>): void {
  const kept = (map.get(slot) ?? []).filter((item) => item !== entry);
  if (kept.length === 0) map.delete(slot);
  else map.set(slot, kept);
}

function keyText(key: NaturalKey): string {
  return `${key.kind}\u0000${key.value}`;
}
