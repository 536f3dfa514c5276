/**
 * The pure record layer of `shopsnap restore`: functions over parsed records (lossless JSON: ids above 2^53 are
 * bigint), no I/O. The engine reads snapshot and target records, and calls these to match, classify, build request
 * bodies and verify. Ids cross this boundary as exact decimal strings.
 *
 * - restorable.ts: RESTORABLE (per resource the fields restore writes and compares, and those of each child array),
 *   UPDATABLE (those an update of an existing record can change), UNRESTORABLE (field + one-line reason: the plan's
 *   "cannot be restored" list), ORDER_FIXED_REASON, FROM_VARIANT (line item fields a variant's line takes from the
 *   variant, compared only on custom line items).
 * - ids.ts: IdKind, IdLookup (`target(kind, sourceId)`), idLookup(maps), idText(value) → exact decimal, wireId(text).
 * - natural-keys.ts: markerOf(resource, record) → source id; withMarker(resource, fields, sourceId) (metafield
 *   `shopsnap.source_id` on products, tag `shopsnap-source:<id>` on customers, note attribute `shopsnap_source_id` on
 *   orders); markerInMetafields(list); naturalKeys(resource, record) (handle; email then E.164 phone; order name +
 *   processed_at instant + total_price); TargetIndex<T> (add(listedRecord, T), mark(id, marker) for a marker read
 *   apart, remove(id), match(snapshotRecord, mode) → found by id/marker/key, ambiguous, taken (a unique key held by a
 *   record restored from another source), none).
 * - field-diff.ts: fieldDiff(resource, snapshot, target, ids) → FieldChange[] ({path, before, after}) on the
 *   restorable fields; topField(path).
 * - pairing.ts: pairVariants, pairImages, pairAddresses (snapshot child ↔ target child), children, optionsKey.
 * - product-bodies.ts: productCreateBody(snapshot, {images}), createdChildIds(snapshot, created) (variant and image
 *   id map entries), imageLinksBody(snapshot, created) (the follow-up PUT linking images to variants; needed when
 *   hasImageLinks(snapshot)),
 *   lostVariants(snapshot, target, ids) (variant create bodies; run before productUpdate), productUpdate(snapshot,
 *   target, ids, {prune}) → RecordUpdate.
 * - customer-bodies.ts: customerCreateBody(snapshot, {sendInvite}), customerUpdate(snapshot, target, ids).
 * - order-bodies.ts: orderCreateBody(snapshot, ids) → {body, notes}, guestEmail(snapshot, ids) (the email a PUT
 *   sets after a create without a customer), orderUpdate(snapshot, target, ids) → RecordUpdate & {steps},
 *   RESTORED_SOURCE_NAME.
 * - order-states.ts: orderStateSteps(snapshot, target | undefined) → {steps: cancel | close | open, cannot}.
 * - classify.ts: classify(resource, snapshot, target | undefined, mode, {ids, updateExisting}) → create | unchanged |
 *   update (diff, cannotRollBack) | skip (reason) | conflict (reason).
 * - update.ts: RecordUpdate ({body | undefined, cannotRollBack}), FixedChange.
 * - values.ts: canonicalDecimal, canonicalInstant, moneyCents, emailKey, phoneKey, tagList.
 */
export { type Classification, classify, type RestoreMode } from './classify.js';
export { customerCreateBody, customerUpdate } from './customer-bodies.js';
export { type FieldChange, fieldDiff, topField } from './field-diff.js';
export { type IdKind, type IdLookup, idLookup, idText, wireId } from './ids.js';
export {
  type KeyKind,
  MARKER_ATTRIBUTE,
  MARKER_METAFIELD,
  MARKER_TAG_PREFIX,
  type Match,
  markerInMetafields,
  markerOf,
  type NaturalKey,
  naturalKeys,
  TargetIndex,
  withMarker,
} from './natural-keys.js';
export { type CreateNote, guestEmail, orderCreateBody, orderUpdate, RESTORED_SOURCE_NAME } from './order-bodies.js';
export { CANCEL_REASONS, type OrderStateStep, type OrderStates, orderStateSteps } from './order-states.js';
export { type Pair, pairAddresses, pairImages, pairVariants } from './pairing.js';
export {
  createdChildIds,
  hasImageLinks,
  type IdPair,
  imageLinksBody,
  lostVariants,
  MAX_VARIANTS,
  productCreateBody,
  productUpdate,
} from './product-bodies.js';
export {
  FROM_VARIANT,
  ORDER_FIXED_REASON,
  RESTORABLE,
  type RestorableFields,
  UNRESTORABLE,
  type Unrestorable,
  UPDATABLE,
} from './restorable.js';
export type { FixedChange, RecordUpdate } from './update.js';
