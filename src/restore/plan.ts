import type { JsonObject } from '../shopify/json.js';
import { RESOURCES, type ResourceName } from '../shopify/resources.js';
import type { IdMap } from './id-map.js';
import type { Journal } from './journal.js';
import { classify, type RestoreMode } from './records/classify.js';
import { customerUpdate } from './records/customer-bodies.js';
import type { FieldChange } from './records/field-diff.js';
import { idText } from './records/ids.js';
import { orderCreateBody, orderUpdate } from './records/order-bodies.js';
import { orderStateSteps } from './records/order-states.js';
import { children, pairVariants } from './records/pairing.js';
import { lostVariants, productUpdate } from './records/product-bodies.js';
import { UNRESTORABLE, type Unrestorable } from './records/restorable.js';
import { inScope, type Scope } from './scope.js';
import type { RestoreSource } from './source.js';
import type { TargetRecord, TargetShop } from './target.js';

export type { RestoreMode } from './records/classify.js';
export type PlanClass = 'create' | 'unchanged' | 'update' | 'skip' | 'conflict';
export const PLAN_CLASSES: readonly PlanClass[] = ['create', 'unchanged', 'update', 'skip', 'conflict'];
export type StateStep = 'cancel' | 'close' | 'open';
const STATES: readonly StateStep[] = ['cancel', 'close', 'open'];

/** What the plan does with one snapshot record. */
export interface PlanRow {
  resource: ResourceName;
  /** The snapshot's id, exact. */
  id: string;
  class: PlanClass;
  /** The target record it matched, and how (`id`, `marker`, `handle`, `email`, `phone`, `order`, `journal`). */
  target_id?: string;
  matched_by?: string;
  /** Why it is skipped or in conflict; for a create, what an earlier run left (an unsure write, looked up first). */
  reason?: string;
  /** Restorable fields that differ: snapshot (`before`) against target (`after`). */
  changes?: FieldChange[];
  /** Differences the API cannot write, each with why: on a record that exists, or in a create's body. */
  cannot_roll_back?: Array<{ path: string; reason: string }>;
  /** Order states to set after the create or on the existing order, in order. */
  states?: StateStep[];
}

/** A target record the snapshot does not have, deleted with --prune (recover). */
export interface PruneRow {
  resource: ResourceName;
  target_id: string;
}

export interface ResourcePlan {
  counts: Record<PlanClass, number>;
  /** Order state changes planned. */
  states: Record<StateStep, number>;
  rows: PlanRow[];
  prune: PruneRow[];
  /** Writes the resource's plan sends, before any retry: creates with their follow-ups, updates, states, deletes. */
  writes: number;
}

export interface Plan {
  mode: RestoreMode;
  resources: Partial<Record<ResourceName, ResourcePlan>>;
  writes: number;
  /** What cannot be restored, per resource, and why. */
  cannotRestore: Partial<Record<ResourceName, readonly Unrestorable[]>>;
}

export interface PlanOptions {
  mode: RestoreMode;
  scope: Scope;
  updateExisting: boolean;
  prune: boolean;
  /** Created customers get an activation URL each (--activation-urls): one write more per customer. */
  activationUrls: boolean;
}

/**
 * Matches every snapshot record in scope with the target (records an earlier run created: by the journal's id map;
 * recover: by id, then marker; migrate: by marker, then natural key) and classifies it. Matched records add to the id
 * map (a matched product's variants through their pairing), so the orders planned after them point at them. Records
 * restore created (matched by the journal or its marker) are brought to the snapshot whatever --update-existing says:
 * finishing its own work after a crash is not touching the target's records.
 */
export async function planRestore(
  source: RestoreSource,
  target: TargetShop,
  ids: IdMap,
  journal: Journal | undefined,
  options: PlanOptions,
): Promise<Plan> {
  const plan: Plan = { mode: options.mode, resources: {}, writes: 0, cannotRestore: {} };
  for (const resource of RESOURCES) {
    const wanted = options.scope[resource];
    if (wanted !== 'all' && wanted.size === 0) continue;
    const resourcePlan: ResourcePlan = {
      counts: zero(PLAN_CLASSES),
      states: zero(STATES),
      rows: [],
      prune: [],
      writes: 0,
    };
    const matched = new Set<string>();
    for await (const { id, record } of source.records(resource)) {
      if (!inScope(options.scope, resource, id)) continue;
      const row = planRecord(resource, id, record, target, ids, journal, options);
      if (row.target_id !== undefined) matched.add(row.target_id);
      resourcePlan.counts[row.class]++;
      for (const step of row.states ?? []) resourcePlan.states[step]++;
      resourcePlan.writes += writesOf(resource, row, record, target, ids, options);
      resourcePlan.rows.push(row);
    }
    if (options.prune && options.mode === 'recover' && wanted === 'all') {
      for (const id of target.records[resource]?.keys() ?? []) {
        if (!matched.has(id)) resourcePlan.prune.push({ resource, target_id: id });
      }
      resourcePlan.writes += resourcePlan.prune.length;
    }
    plan.resources[resource] = resourcePlan;
    plan.cannotRestore[resource] = UNRESTORABLE[resource];
    plan.writes += resourcePlan.writes;
  }
  return plan;
}

function planRecord(
  resource: ResourceName,
  id: string,
  record: JsonObject,
  target: TargetShop,
  ids: IdMap,
  journal: Journal | undefined,
  options: PlanOptions,
): PlanRow {
  const mapped = ids.target(resource, id);
  const mine = mapped === undefined ? undefined : target.records[resource]?.get(mapped);
  const match = mine
    ? { kind: 'found' as const, by: 'journal', target: mine }
    : (target.indexes[resource]?.match(record, options.mode) ?? { kind: 'none' as const });
  if (match.kind === 'ambiguous') {
    const ids = match.targets.map((found) => found.id).join(', ');
    return {
      resource,
      id,
      class: 'conflict',
      reason: `${match.targets.length} target records match its ${match.by}: ${ids}`,
    };
  }
  if (match.kind === 'taken') {
    return {
      resource,
      id,
      class: 'conflict',
      target_id: match.target.id,
      reason: `its ${match.by} is held by ${resource} ${match.target.id}, which restore created from snapshot record ${match.markedFor}`,
    };
  }
  const found: TargetRecord | undefined = match.kind === 'found' ? match.target : undefined;
  const ours = match.kind === 'found' && (match.by === 'journal' || match.by === 'marker');
  if (found !== undefined) noteMatch(resource, id, record, found, ids);
  const verdict = classify(resource, record, found?.record, options.mode, {
    ids,
    updateExisting: options.updateExisting || ours,
  });
  const row: PlanRow = {
    resource,
    id,
    class: verdict.action,
    ...(found === undefined ? {} : { target_id: found.id, matched_by: match.kind === 'found' ? match.by : '' }),
  };
  switch (verdict.action) {
    case 'create': {
      const created = journal?.state({ step: 'create', resource, id });
      if (created?.state === 'unsure') {
        row.reason = `an earlier run sent its create at ${created.since} and got no answer: the shop is searched for it first`;
      }
      const notes = resource === 'orders' ? orderCreateBody(record, ids).notes : [];
      if (notes.length > 0) row.cannot_roll_back = notes;
      const states = resource === 'orders' ? orderStateSteps(record, undefined) : undefined;
      if (states !== undefined) withStates(row, states.steps, states.cannot);
      return row;
    }
    case 'unchanged':
      return row;
    case 'conflict':
      return { ...row, reason: verdict.reason };
  }
  row.changes = verdict.diff ?? [];
  const cannot = (verdict.cannotRollBack ?? []).map((change) => ({ path: change.path, reason: change.reason }));
  if (cannot.length > 0) row.cannot_roll_back = cannot;
  if (verdict.action === 'skip') return { ...row, reason: verdict.reason };
  if (resource === 'orders' && found !== undefined) withStates(row, orderUpdate(record, found.record, ids).steps, []);
  return row;
}

/** A matched record's place in the id map, and its variants' (paired by id map or option values) for the orders. */
function noteMatch(resource: ResourceName, id: string, record: JsonObject, found: TargetRecord, ids: IdMap): void {
  ids.set(resource, id, found.id);
  if (resource !== 'products') return;
  for (const pair of pairVariants(record, found.record, ids)) {
    const from = idText(pair.snapshot?.id);
    const to = idText(pair.target?.id);
    if (from !== undefined && to !== undefined) ids.set('variants', from, to);
  }
}

function withStates(
  row: PlanRow,
  steps: ReadonlyArray<{ action: StateStep }>,
  cannot: ReadonlyArray<{ field: string; reason: string }>,
): void {
  if (steps.length > 0) row.states = steps.map((step) => step.action);
  if (cannot.length > 0) {
    row.cannot_roll_back = [
      ...(row.cannot_roll_back ?? []),
      ...cannot.map((c) => ({ path: `$.${c.field}`, reason: c.reason })),
    ];
  }
}

/**
 * The writes one row sends, before any retry or lookup: a create and its follow-ups (a product's image links, a
 * customer's activation URL, an order's states); an update's PUT, the variants a product lost and an order's states.
 */
function writesOf(
  resource: ResourceName,
  row: PlanRow,
  record: JsonObject,
  target: TargetShop,
  ids: IdMap,
  options: PlanOptions,
): number {
  const states = row.states?.length ?? 0;
  if (row.class === 'update') {
    const held = target.records[resource]?.get(row.target_id as string)?.record as JsonObject;
    if (resource === 'customers') return customerUpdate(record, held, ids).body === undefined ? 0 : 1;
    if (resource === 'orders') return (orderUpdate(record, held, ids).body === undefined ? 0 : 1) + states;
    // Lost variants are re-created first; the PUT after them sees them (see the executor).
    const lost = lostVariants(record, held, ids).length;
    return lost + (lost > 0 || productUpdate(record, held, ids, { prune: options.prune }).body !== undefined ? 1 : 0);
  }
  if (row.class !== 'create') return 0;
  if (resource === 'products') return 1 + (hasImageLinks(record) ? 1 : 0);
  if (resource === 'customers') return 1 + (options.activationUrls ? 1 : 0);
  return 1 + states;
}

/** Whether a product's images show some of its variants: the links need the variants' new ids, a write of their own. */
function hasImageLinks(product: JsonObject): boolean {
  return children(product.images).some((image) => Array.isArray(image.variant_ids) && image.variant_ids.length > 0);
}

function zero<K extends string>(keys: readonly K[]): Record<K, number> {
  return Object.fromEntries(keys.map((key) => [key, 0])) as Record<K, number>;
}
