import type { JsonObject } from '../../shopify/json.js';
import type { ResourceName } from '../../shopify/resources.js';
import { customerUpdate } from './customer-bodies.js';
import { type FieldChange, fieldDiff } from './field-diff.js';
import { type IdLookup, idText } from './ids.js';
import { markerOf } from './natural-keys.js';
import { orderUpdate } from './order-bodies.js';
import { children } from './pairing.js';
import { lostVariants, MAX_VARIANTS, productUpdate } from './product-bodies.js';
import type { FixedChange } from './update.js';

export type RestoreMode = 'migrate' | 'recover';

/**
 * What the plan does with one snapshot record. `update` carries the field differences and those of them no update
 * can fix; a record that differs only in such fields is a `skip`, as is a matched record in migrate without
 * --update-existing and a record Shopify would refuse to create.
 */
export type Classification =
  | { action: 'create' }
  | { action: 'unchanged' }
  | { action: 'update'; diff: FieldChange[]; cannotRollBack: FixedChange[] }
  | { action: 'skip'; reason: string; diff?: FieldChange[]; cannotRollBack?: FixedChange[] }
  | { action: 'conflict'; reason: string };

/**
 * Classifies a snapshot record against its match in the target (undefined: none, see TargetIndex.match): create,
 * unchanged, update (with the diff), skip (with the reason) or conflict (the target record restore created from
 * another source record).
 */
export function classify(
  resource: ResourceName,
  snapshot: JsonObject,
  target: JsonObject | undefined,
  mode: RestoreMode,
  options: { ids: IdLookup; updateExisting?: boolean; prune?: boolean },
): Classification {
  if (target === undefined) {
    const refused = refusedCreate(resource, snapshot);
    return refused === undefined ? { action: 'create' } : { action: 'skip', reason: refused };
  }
  const source = idText(snapshot.id);
  const marker = markerOf(resource, target);
  if (marker !== undefined && marker !== source && mode === 'migrate') {
    return { action: 'conflict', reason: `the matching target record was restored from source record ${marker}` };
  }
  const diff = fieldDiff(resource, snapshot, target, options.ids);
  if (diff.length === 0) return { action: 'unchanged' };
  if (mode === 'migrate' && options.updateExisting !== true) {
    return {
      action: 'skip',
      reason: 'exists in the target with other values; --update-existing brings it to the snapshot',
      diff,
    };
  }
  const { writes, cannotRollBack } = updateOf(resource, snapshot, target, options);
  if (!writes) {
    return { action: 'skip', reason: 'differs only in fields that cannot be rolled back', diff, cannotRollBack };
  }
  return { action: 'update', diff, cannotRollBack };
}

/** Whether an update writes anything, and what it cannot fix. */
function updateOf(
  resource: ResourceName,
  snapshot: JsonObject,
  target: JsonObject,
  { ids, prune }: { ids: IdLookup; prune?: boolean },
) {
  if (resource === 'orders') {
    const update = orderUpdate(snapshot, target, ids);
    return { writes: update.body !== undefined || update.steps.length > 0, cannotRollBack: update.cannotRollBack };
  }
  if (resource === 'customers') {
    const update = customerUpdate(snapshot, target, ids);
    return { writes: update.body !== undefined, cannotRollBack: update.cannotRollBack };
  }
  const update = productUpdate(snapshot, target, ids, { prune });
  const writes = update.body !== undefined || lostVariants(snapshot, target, ids).length > 0;
  return { writes, cannotRollBack: update.cannotRollBack };
}

/** Why Shopify would refuse to create the record, or undefined. */
function refusedCreate(resource: ResourceName, snapshot: JsonObject): string | undefined {
  const text = (value: unknown) => typeof value === 'string' && value.trim() !== '';
  if (resource === 'products') {
    if (!text(snapshot.title)) return 'no title: Shopify refuses a product without one';
    const variants = children(snapshot.variants).length;
    if (variants > MAX_VARIANTS) return `${variants} variants: the 2022-01 API takes at most ${MAX_VARIANTS} a product`;
  } else if (resource === 'customers') {
    if (![snapshot.first_name, snapshot.last_name, snapshot.email, snapshot.phone].some(text)) {
      return 'no name, email or phone: Shopify refuses a customer without one';
    }
  } else if (children(snapshot.line_items).length === 0) {
    return 'no line items: Shopify refuses an order without one';
  }
  return undefined;
}
